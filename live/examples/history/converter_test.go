// Package history_test is docs/history.md's worked example: an
// application's log lines (app.log) turned into a history file by a
// short converter (logs2history.py), then judged by fencelab-live
// check-history.
package history_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/live/cli"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// convert runs logs2history.py over log, row all, a 1000 ms lease, and
// returns the history file it wrote.
func convert(t *testing.T, log string) string {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: the converter is a Python script")
	}
	cmd := exec.Command(python, "logs2history.py", "all", "1000")
	cmd.Stdin = strings.NewReader(log)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	file := filepath.Join(t.TempDir(), "history.jsonl")
	require.NoError(t, os.WriteFile(file, out, 0o644))
	return file
}

// TestLogsToHistory: app.log — a worker paused past its lease by its GC
// writes on resuming, and the fenced store refuses it — is judged: the
// store's fencing kept every update (NoLostUpdate holds) but the worker
// acted past its validity (NoActionPastValidity violated: exit 1). The
// same log with the worker checking its lease on resuming and giving up
// (an "expired" line) is what row all allows (exit 0).
func TestLogsToHistory(t *testing.T) {
	data, err := os.ReadFile("app.log")
	require.NoError(t, err)
	log := string(data)
	fixed := strings.Replace(log,
		"2026-11-28T10:00:01.517Z w1 write token=33 value=1\n2026-11-28T10:00:01.519Z w1 write-refused token=33 value=1\n",
		"2026-11-28T10:00:01.517Z w1 expired token=33\n", 1)
	require.NotEqual(t, log, fixed)
	tests := []struct {
		name, log string
		code      int
		want      []string
	}{
		{"as logged", log, cli.ExitFailure, []string{
			"NoLostUpdate             expected holds     judged holds",
			"NoActionPastValidity     expected holds     judged violated  4 reads and writes, 2 grants with a validity window: c1 called its write (token 33) at 1.517 s, 517ms after its grant's validity ended at 1.000 s",
			"a fault took effect: c1's validity ran out at 1.000 s while it was paused",
		}},
		{"the worker checks its lease", fixed, cli.ExitOK, []string{
			"NoActionPastValidity     expected holds     judged holds",
			"SectionsLinearizable     expected holds     judged holds",
			"every verdict is what row all allows",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := convert(t, tc.log)
			var stdout, stderr bytes.Buffer
			code := cli.Run(setup.All(), []string{"check-history", "--out", filepath.Join(t.TempDir(), "pages"), file}, nil, &stdout, &stderr)
			assert.Equal(t, tc.code, code, stderr.String())
			for _, w := range tc.want {
				assert.Contains(t, stdout.String(), w)
			}
		})
	}
}
