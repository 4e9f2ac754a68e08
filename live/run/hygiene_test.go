package run_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/internal/livetest"
	"github.com/fencelab/fencelab/live/run"
)

// A run in which no client was granted the lock (a timeout too short for
// anything to happen) is a harness error, never a run the tally counts
// as "not observed".
func TestRunWhereNothingRanIsNoVerdict(t *testing.T) {
	for _, timeout := range []time.Duration{time.Nanosecond, time.Millisecond} {
		cfg := livetest.Config(t, livetest.MustSetup(t, livetest.Toy(), "toy", "all"), history.FaultClientPause)
		cfg.Timeout = timeout
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		res, err := run.Run(ctx, cfg)
		cancel()
		require.ErrorContains(t, err, "nothing ran", "timeout %v", timeout)
		if res != nil {
			require.Nil(t, res.Judgement, "no verdict")
		}
		livetest.NothingLeft(t, cfg.TempRoot)
	}
}
