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
