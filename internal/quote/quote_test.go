package quote

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestQ(t *testing.T) {
	tests := []struct{ in, want string }{
		{"c1", `"c1"`},
		{strings.Repeat("x", MaxEcho), `"` + strings.Repeat("x", MaxEcho) + `"`},
		{strings.Repeat("x", 100<<20), `"` + strings.Repeat("x", MaxEcho) + `"…(104857600 bytes)`},
		// A cut inside a character moves back to its start.
		{strings.Repeat("x", MaxEcho-1) + "é" + "yyy", `"` + strings.Repeat("x", MaxEcho-1) + `"…(68 bytes)`},
		{"a\nb", `"a\nb"`},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, Q(tc.in))
		assert.LessOrEqual(t, len(Q(tc.in)), 2*MaxEcho+32)
	}
	assert.Equal(t, "c1", S("c1"))
	assert.Equal(t, strings.Repeat("y", MaxEcho)+"…(65 bytes)", S(strings.Repeat("y", MaxEcho+1)))
}

// TestMessage: a flag error's quoted value and over-long bare word are
// cut; a short message is left as it is.
func TestMessage(t *testing.T) {
	long := strings.Repeat("x", 1000)
	for _, tc := range []struct{ in, want string }{
		{`invalid value "12x" for flag -runs`, `invalid value "12x" for flag -runs`},
		{`invalid value "` + long + `" for flag -runs`, `invalid value ` + Q(long) + ` for flag -runs`},
		{"flag provided but not defined: -" + long, "flag provided but not defined: " + S("-"+long)},
		{`a "broken quote`, `a "broken quote`},
	} {
		assert.Equal(t, tc.want, Message(tc.in))
	}
}
