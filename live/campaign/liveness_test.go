package campaign

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/bounds"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/setup"
)

func setupNamed(t *testing.T, service, name string) setup.Setup {
	t.Helper()
	for _, s := range setup.All() {
		if s.Service == service && s.Name == name {
			return s
		}
	}
	t.Fatalf("no setup %s/%s", service, name)
	return setup.Setup{}
}

func ns(d time.Duration) *int64 { v := int64(d); return &v }

// TestLivenessSavedAndRead: a holder-death campaign's liveness.json is
// what bounds.ReadLive reads back (the one format), its summary prints
// LockFreedAfterHolderDeath with the spread; a campaign of another fault
// writes none.
func TestLivenessSavedAndRead(t *testing.T) {
	out := t.TempDir()
	s := &Summary{Setup: setupNamed(t, "redis", "none"), Fault: history.FaultHolderDeath, Nemesis: "scripted", Runs: 3,
		Liveness: []bounds.LiveRun{
			{Seed: 1, KillToGrant: ns(520 * time.Millisecond), Freed: bounds.FreedHolds},
			{Seed: 2, KillToGrant: ns(700 * time.Millisecond), Freed: bounds.FreedViolated},
			{Seed: 3, Freed: bounds.FreedUnknown},
		}}
	require.NoError(t, s.save(out))
	g, err := bounds.ReadLive(out)
	require.NoError(t, err)
	assert.Equal(t, "redis/none", g.Setup)
	assert.Equal(t, []time.Duration{520 * time.Millisecond, 700 * time.Millisecond}, g.KillToGrant)
	assert.Equal(t, map[string]int{bounds.FreedHolds: 1, bounds.FreedViolated: 1, bounds.FreedUnknown: 1}, g.Freed)
	bound, _ := s.Setup.Freedom()
	assert.Equal(t, bound, g.FreedBound.Value)

	var w bytes.Buffer
	require.NoError(t, s.Write(&w))
	assert.Contains(t, w.String(), "LockFreedAfterHolderDeath bound 600ms: holds in 1, violated in 1, unknown in 1 of 3; kill→grant min 520ms, median 520ms, max 700ms")

	s.Fault = history.FaultDelay
	other := t.TempDir()
	require.NoError(t, s.save(other))
	_, err = os.Stat(filepath.Join(other, "redis", "none", string(history.FaultDelay), bounds.LiveFile))
	assert.ErrorIs(t, err, os.ErrNotExist)
	w.Reset()
	require.NoError(t, s.Write(&w))
	assert.NotContains(t, w.String(), "LockFreedAfterHolderDeath")
}

// TestBlindWindowLine: a client-pause campaign prints the blind window's
// spread, or says it was not measured.
func TestBlindWindowLine(t *testing.T) {
	s := &Summary{Setup: setupNamed(t, "etcd", "mutex"), Fault: history.FaultClientPause, Nemesis: "scripted", Runs: 2}
	var w bytes.Buffer
	require.NoError(t, s.writeLiveness(&w))
	assert.Contains(t, w.String(), "blind window             not measured")
	s.Liveness = []bounds.LiveRun{{Seed: 1, Blind: ns(-4 * time.Millisecond)}, {Seed: 2, Blind: ns(1500 * time.Millisecond)}}
	w.Reset()
	require.NoError(t, s.writeLiveness(&w))
	assert.Contains(t, w.String(), "min -4ms, median -4ms, max 1.5s over 2 runs")
}
