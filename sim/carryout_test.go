package sim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
)

// TestCarryOutOrder: Runner.step carries out a step's effects with loops
// of its own, in impl.Effects.CarryOut's order (cancels, sets, sends).
// The order numbers the queued events, which breaks ties of time; without
// jitter, ties are everywhere, so a run carried out in another order
// differs; and before every step the queue holds the same keys (times and
// sequence numbers) in the same places. Every design's runs must equal
// those that go through CarryOut itself.
func TestCarryOutOrder(t *testing.T) {
	t.Parallel()
	testbuild.SkipUnderRace(t)
	for _, d := range impl.Designs() {
		for _, jitter := range []bool{false, true} {
			c := config(d, AllFaults)
			if !jitter {
				c.Jitter = 0
			}
			own, err := NewRunner(c)
			require.NoError(t, err)
			via, err := NewRunner(c)
			require.NoError(t, err)
			via.viaCarryOut = true
			for seed := uint64(1); seed <= 60; seed++ {
				s := Generate(seed, c)
				var viaQ, ownQ []qkey
				viaRes := via.RunObserved(s, func(impl.Action) { viaQ = queued(viaQ, &via.q) })
				ownRes := own.RunObserved(s, func(impl.Action) { ownQ = queued(ownQ, &own.q) })
				require.Equal(t, viaRes, ownRes, "%s seed %d jitter %v", d, seed, jitter)
				require.Equal(t, via.History(), own.History(), "%s seed %d jitter %v", d, seed, jitter)
				require.Equal(t, viaQ, ownQ, "%s seed %d jitter %v: the queue before each step", d, seed, jitter)
			}
		}
	}
}

// queued appends q's keys, events then timer firings, to to.
func queued(to []qkey, q *queue) []qkey {
	to = append(to, q.heap...)
	return append(to, q.timers...)
}
