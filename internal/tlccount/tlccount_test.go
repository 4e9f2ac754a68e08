package tlccount

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCounter(t *testing.T) {
	var c Counter
	assert.Equal(t, "TLC-backed checks in p: 0 ran, 0 skipped", c.Line("p"))
	c.Ran()
	c.Skipped("no jar")
	c.Skipped("no java")
	assert.Equal(t, "TLC-backed checks in p: 1 ran, 2 skipped (no jar)", c.Line("p"))

	summary := filepath.Join(t.TempDir(), "summary")
	t.Setenv("FENCELAB_TEST_SUMMARY", summary)
	c.Report("p")
	c.Report("q")
	data, err := os.ReadFile(summary)
	require.NoError(t, err)
	assert.Equal(t, "TLC-backed checks in p: 1 ran, 2 skipped (no jar)\nTLC-backed checks in q: 1 ran, 2 skipped (no jar)\n", string(data))
}

func TestCounterOfOtherChecks(t *testing.T) {
	c := Counter{What: "Browser checks"}
	c.Skipped("no chromium on PATH: apt-get install -y chromium")
	assert.Equal(t, "Browser checks in p: 0 ran, 1 skipped (no chromium on PATH: apt-get install -y chromium)", c.Line("p"))
}

// TestReportLeavesOtherPassesChecks: a pass in which every check was
// skipped for the other pass writes no summary line; one that ran a check,
// or skipped one for a reason of its own, does.
func TestReportLeavesOtherPassesChecks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "summary")
	t.Setenv("FENCELAB_TEST_SUMMARY", path)
	var short Counter
	short.Skipped(ShortMode)
	short.Report("a")
	race := Counter{What: "Browser checks"}
	race.SkippedElsewhere("race build")
	race.Report("b")
	_, err := os.Stat(path)
	assert.True(t, os.IsNotExist(err), "nothing written for checks the other pass runs")
	var nojar Counter
	nojar.Skipped("no jar")
	nojar.Report("c")
	ran := Counter{What: "Browser checks"}
	ran.Ran()
	ran.Report("d")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "TLC-backed checks in c: 0 ran, 1 skipped (no jar)\nBrowser checks in d: 1 ran, 0 skipped\n", string(data))
}
