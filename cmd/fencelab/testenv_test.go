package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cleanEnv is the whole environment of a make or fencelab process a test
// starts: never the caller's, whose OUT (make clean's rm -rf), MODEL,
// BIN, MAKEFLAGS or TMPDIR would reach what the test did not create.
// It keeps PATH (the tools, and a fake java a test put first) and the
// TLA+ tools' TLA2TOOLS_JAR, points HOME and TMPDIR at the test's own
// folders, keeps Go's caches where go env says they are (so make's go
// build does not rebuild the world), and adds extra (KEY=value).
func cleanEnv(t *testing.T, extra ...string) []string {
	t.Helper()
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + t.TempDir(),
		"TMPDIR=" + t.TempDir(),
		"XDG_CACHE_HOME=" + t.TempDir(),
		"LANG=C.UTF-8",
	}
	if jar, ok := os.LookupEnv("TLA2TOOLS_JAR"); ok {
		env = append(env, "TLA2TOOLS_JAR="+jar)
	}
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	require.NoError(t, err)
	for i, key := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		env = append(env, key+"="+strings.Split(strings.TrimSpace(string(out)), "\n")[i])
	}
	return append(env, extra...)
}

// TestCleanEnvLeavesTheCallersOUT: a caller's OUT, MAKEFLAGS and the like
// are not in the environment a test gives make or the binary.
func TestCleanEnvLeavesTheCallersOUT(t *testing.T) {
	t.Setenv("OUT", "/some/folder/of/the/caller")
	t.Setenv("MAKEFLAGS", "-e")
	env := cleanEnv(t, "OUT=mine")
	for _, kv := range env {
		assert.NotEqual(t, "OUT=/some/folder/of/the/caller", kv)
		assert.False(t, strings.HasPrefix(kv, "MAKEFLAGS="), kv)
	}
	assert.Contains(t, env, "OUT=mine")
}
