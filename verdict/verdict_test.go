package verdict

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAgrees(t *testing.T) {
	for _, got := range []Status{NotChecked, NotApplicable, Holds, Violated, Unknown} {
		for _, want := range []Status{NotApplicable, Holds, Violated} {
			v := Verdict{Property: "P", Status: got}
			assert.Equal(t, got == want, v.Agrees(want), "%s vs %s", got, want)
		}
		assert.False(t, Verdict{Status: got}.Agrees(Unknown), "nothing agrees with unknown")
	}
	assert.Equal(t, NotChecked, Verdict{}.Status, "the zero verdict was not reached")
}

func TestSet(t *testing.T) {
	var s Set
	s.Put(Verdict{Property: "A", Status: Holds})
	s.Put(Verdict{Property: "B", Status: Violated, Shortest: 7})
	s.Put(Verdict{Property: "A", Status: Unknown, Detail: "stopped early"})
	require.Len(t, s, 2)
	v, ok := s.Lookup("A")
	require.True(t, ok)
	assert.Equal(t, "A unknown (stopped early)", v.String())
	_, ok = s.Lookup("C")
	assert.False(t, ok)
	assert.Equal(t, Verdict{Property: "C"}, s.Get("C"))
	assert.Equal(t, 7, s.Get("B").Shortest)
}
