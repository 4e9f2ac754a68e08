package report

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNPCTableSaysWhatNotFoundMeans: under the NPC table, one note says
// what its "n not found" means, wherever the table is printed.
func TestNPCTableSaysWhatNotFoundMeans(t *testing.T) {
	var b strings.Builder
	require.NoError(t, NPCTable(&b, nil))
	assert.True(t, strings.HasSuffix(b.String(), NPCNotFound+"\n"), b.String())
}
