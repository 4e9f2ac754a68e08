package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/fencelab/fencelab/live/internal/livetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOverlapWithoutFaultExitsTwo: `run --fault none` of a lock whose
// client keeps its grant past its lease (toy/keeper, a think of 3 TTL)
// is a harness error — exit 2, one line naming the clients and times, the
// run saved with its error.txt — never "the fault took effect", exit 0.
func TestOverlapWithoutFaultExitsTwo(t *testing.T) {
	if testing.Short() {
		t.Skip("a real run: client processes")
	}
	t.Setenv(livetest.RoleEnv, "client") // the client processes' role
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := Run(livetest.Toy(), []string{"run", "--service", "toy", "--design", "keeper", "--fault", "none",
		"--sections", "1", "--think", "600ms", "--runs", "3", "--out", out}, nil, &stdout, &stderr)
	assert.Equal(t, ExitBadInput, code, "stdout: %s\nstderr: %s", stdout.String(), stderr.String())
	assert.Regexp(t, `^fencelab-live run: run 1 \(seed 1\): an overlap no fault explains: c[12] \(token \d+, [0-9.]+ s to [0-9.]+ s\) and c[12] .* both believed they held the lock from [0-9.]+ s to [0-9.]+ s; the run had no fault`, stderr.String())
	assert.NotContains(t, stdout.String(), "took effect in", "no summary of a run the harness got wrong")
	errTxt, err := os.ReadFile(filepath.Join(out, "toy", "keeper", "none", "run-1", "error.txt"))
	require.NoError(t, err, "the run is saved with its error")
	assert.Contains(t, string(errTxt), "an overlap no fault explains")
}
