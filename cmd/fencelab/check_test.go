package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCheckIsFencelabLiveCheckHistory: fencelab check passes its
// arguments to fencelab-live check-history and exits with its code; its
// help needs no binary.
func TestCheckIsFencelabLiveCheckHistory(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh for the fake fencelab-live")
	}
	fakeLive(t)
	code, stdout, stderr := runCLI(t, "check", "--design", "all", "h.jsonl")
	assert.Equal(t, exitOK, code)
	assert.Equal(t, "args: check-history --design all h.jsonl\n", stdout)
	assert.Equal(t, "to stderr\n", stderr)

	t.Setenv("PATH", t.TempDir())
	code, stdout, _ = runCLI(t, "check", "--help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "Usage: fencelab check [--design ROW]")
	code, stdout, stderr = runCLI(t, "check", "h.jsonl")
	assert.Equal(t, exitBadInput, code)
	assert.Empty(t, stdout)
	assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
	assert.Contains(t, stderr, "fencelab-live is not beside fencelab nor on PATH")
}
