package run_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/live/check"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/internal/livetest"
	"github.com/fencelab/fencelab/live/run"
)

// TestToyHolderDeath: the nemesis kills the first reader (SIGKILL of its
// process group) in the toy's lease; the run goes on without it, no
// harness error, its exit recorded as the nemesis's kill, its belief
// ended by the kill, and another client granted after it: the fault took
// effect and kill→grant is measured (within the lease plus the waiter's
// retry, here as bounded only by the run: the figure is the run's).
func TestToyHolderDeath(t *testing.T) {
	cfg := livetest.Config(t, livetest.MustSetup(t, livetest.Toy(), "toy", "none"), history.FaultHolderDeath)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	res, err := run.Run(ctx, cfg)
	require.NoError(t, err, "a killed client is the story, not a harness error")
	h, j := res.History, res.Judgement
	require.Len(t, h.Faults, 1)
	kill := h.Faults[0]
	require.Equal(t, history.FaultHolderDeath, kill.Fault)
	assert.Contains(t, kill.Detail, "SIGKILL")
	killed := livetest.FirstReader(h)
	assert.Equal(t, history.ClientName(killed), kill.Target)
	for _, e := range h.Exits {
		if e.Client == killed {
			assert.Equal(t, "killed by the nemesis", e.Status)
		}
	}
	for _, r := range h.Records {
		assert.False(t, r.Client == killed && r.Wall > kill.End, "no record of the killed client after the kill: %+v", r)
	}
	assert.True(t, j.TookEffect, j.Effect)
	m := check.MeasureLiveness(h, j.Beliefs, cfg.Setup.TTL, cfg.Setup.Leased, check.Freedom{Bound: time.Minute})
	require.NotNil(t, m.KillToGrant, m.Detail)
	assert.Positive(t, *m.KillToGrant)
	assert.Equal(t, "holds", m.Freed)
}
