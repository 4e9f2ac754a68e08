package tlctest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/internal/tlccount"
	"github.com/fencelab/fencelab/tlc"
)

// TestFind: under -short every TLC-backed test skips; without java too;
// else no jar is a skip with NoJar, and a TLA2TOOLS_JAR that names no
// file, a folder or a file that is not the TLA+ tools fails the test.
func TestFind(t *testing.T) {
	if testing.Short() {
		_, why, err := find()
		require.NoError(t, err)
		assert.Equal(t, tlccount.ShortMode, why)
		return
	}
	if _, err := tlc.FindJava(); err != nil {
		_, why, err := find()
		require.NoError(t, err)
		assert.Equal(t, "no java on PATH", why)
		return
	}
	if real := os.Getenv("TLA2TOOLS_JAR"); real != "" {
		t.Run("the jar TLA2TOOLS_JAR names", func(t *testing.T) {
			tool, why, err := find()
			require.NoError(t, err)
			assert.Empty(t, why)
			assert.Equal(t, real, tool.Jar)
			assert.NotEmpty(t, tool.Java)
		})
	}
	dir := t.TempDir()
	notJar := filepath.Join(dir, "not.jar")
	require.NoError(t, os.WriteFile(notJar, []byte("not a zip"), 0o644))
	for _, tc := range []struct {
		name, jar string
		why, err  string
	}{
		{"unset, empty cache", "", NoJar, ""},
		{"no such file", filepath.Join(dir, "missing.jar"), "", "TLA2TOOLS_JAR is set but unusable"},
		{"a folder", dir, "", "TLA2TOOLS_JAR is set but unusable"},
		{"not the TLA+ tools", notJar, "", "not a complete zip archive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("TLA2TOOLS_JAR", tc.jar)
			t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
			t.Setenv("HOME", filepath.Join(dir, "home"))
			tool, why, err := find()
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.why, why)
			assert.Equal(t, Tool{}, tool)
		})
	}
}

// TestRequireCountsASkip: a test without TLC is skipped with the one
// message and counted as skipped, never as run.
func TestRequireCountsASkip(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TLA2TOOLS_JAR", "")
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	t.Setenv("HOME", filepath.Join(dir, "home"))
	var checks tlccount.Counter
	skipped := false
	t.Run("TLC-backed", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		Require(t, &checks)
		t.Error("Require returned without TLC")
	})
	assert.True(t, skipped)
	assert.Contains(t, checks.Line("p"), "0 ran, 1 skipped")
}
