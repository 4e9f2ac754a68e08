package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/internal/faketlc"
	"github.com/fencelab/fencelab/trace"
)

// TestConformDepartureFinding: fencelab conform --replay-from a folder
// where one counterexample's last state is not the Go system's (its
// counter changed) finishes: every other model replayed, the summary
// printed, the departure rendered like a counterexample, exit 1 with one
// line on stderr. The replay runs no TLC: the tools are a stand-in.
func TestConformDepartureFinding(t *testing.T) {
	faketlc.New(t, "exit 1", "exit 0")
	const model = "DistLock_2c_NoLostUpdate"
	from := t.TempDir()
	fixtures, err := filepath.Glob("../../conform/testdata/replay/*.out")
	require.NoError(t, err)
	require.NotEmpty(t, fixtures)
	for _, f := range fixtures {
		name := strings.TrimSuffix(filepath.Base(f), ".out")
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		if name == model {
			s := string(data)
			i := strings.LastIndex(s, "/\\ counter = ")
			j := i + strings.IndexByte(s[i:], '\n')
			data = []byte(s[:i] + "/\\ counter = 42" + s[j:])
		}
		dir := filepath.Join(from, name)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "tlc.out"), data, 0o644))
	}
	out := filepath.Join(t.TempDir(), "conform")
	code, stdout, stderr := runCLI(t, "conform", "--pin", "../../tla2tools.version", "--specs", "../../specs", "--out", out,
		"--walks", "0", "--sim-runs", "0", "--sim-failing", "0", "--explore=false", "--replay-from", from)
	require.Equal(t, exitFailure, code, "stdout: %s\nstderr: %s", stdout, stderr)
	assert.Regexp(t, model+` +DEPARTS from TLC's counterexample at step \d+ \(Access\)`, stdout)
	assert.Regexp(t, `\n\d+ TLC counterexamples replayed in Go, \d+ of systems Go does not run`, stdout)
	assert.Contains(t, stdout, "departure rendered in "+filepath.Join(out, "replay_"+model))
	assert.FileExists(t, filepath.Join(out, "replay_"+model, trace.TextFile))
	assert.Contains(t, stderr, "1 TLC counterexamples depart from the Go system")
	assert.NotContains(t, stderr, "panic")
}
