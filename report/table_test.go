package report

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

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

// TestTableFitsATerminal: a table wider than MaxWidth (the demo's join
// was 216 columns) is written within it, its widest columns wrapped at
// spaces and never narrower than their longest word; every word is kept.
// A table that fits is written as before.
func TestTableFitsATerminal(t *testing.T) {
	wide := NewTable("design", "property", "DESIGN.md", "TLC", "explorer", "simulator")
	wide.Add("tokens, mode all", "TokenIsMonotonical", "holds", "holds (5 models, up to 294,777 states; 2, 3 and 4 clients)",
		"holds (2,816 states, 450,986 states; 2 and 3 clients)", "holds (0 of 1000 runs)")
	wide.Add("any design, simulator without faults", "AtMostOneClientHoldLock", "holds", "n/a (untimed)", "n/a (untimed)", "holds (0 of 4000 runs)")
	var b strings.Builder
	require.NoError(t, wide.WriteText(&b))
	var words []string
	for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		assert.LessOrEqual(t, utf8.RuneCountInString(line), MaxWidth, "%q", line)
		words = append(words, strings.Fields(line)...)
	}
	var want []string
	for _, r := range append([][]string{wide.Header}, wide.Rows...) {
		for _, c := range r {
			want = append(want, strings.Fields(c)...)
		}
	}
	assert.ElementsMatch(t, want, words, "every word is kept")
	assert.Contains(t, b.String(), "AtMostOneClientHoldLock", "a word is never broken")

	narrow := NewTable("a", "b")
	narrow.Add("1", "2")
	b.Reset()
	require.NoError(t, narrow.WriteText(&b))
	assert.Equal(t, "a  b\n1  2\n", b.String())
}
