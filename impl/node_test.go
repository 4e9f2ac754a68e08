package impl

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseNodeID: every name String prints parses back to its node, and
// nothing else parses: no other spelling of a number, no other case, no
// space.
func TestParseNodeID(t *testing.T) {
	for n := range 256 {
		id := NodeID(n)
		got, err := ParseNodeID(id.String())
		require.NoError(t, err, id.String())
		assert.Equal(t, id, got)
	}
	for _, bad := range []string{"", "c", "c0", "c01", "c+1", "c-1", " c1", "c1 ", "C1", "c1\x00", "service1", "service02", "service+2", "Service", "resource2", "c" + strings.Repeat("9", 40)} {
		_, err := ParseNodeID(bad)
		assert.Error(t, err, "%q", bad)
	}
	_, err := ParseNodeID(strings.Repeat("x", 100<<20))
	require.Error(t, err)
	assert.Less(t, len(err.Error()), 300, "a long name is echoed by a bounded prefix")
}
