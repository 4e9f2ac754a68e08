package report

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTable(t *testing.T) {
	tb := NewTable("design", "verdict", "")
	tb.Add("a", "holds", "✓")
	tb.Add("longer", "violated (7 steps)", "")
	var b bytes.Buffer
	require.NoError(t, tb.WriteText(&b))
	assert.Equal(t, "design  verdict             \na       holds               ✓\nlonger  violated (7 steps)  \n", b.String())
	assert.Equal(t, "| design | verdict |  |\n|---|---|---|\n| a | holds | ✓ |\n| longer | violated (7 steps) |  |\n", tb.Markdown())
}
