package sim

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
)

// TestRedlockKleppmannSchedules: Kleppmann's two counterexamples to
// Redlock as runs of the simulator with its defaults (5 lock nodes, 3
// clients), each one fault, committed in docs/schedules for the README:
//   - redlock-clock-jump.json: c3 wins a bare majority (the service,
//     service3, service5) while the others split the rest; the service's
//     clock steps forward 1s, its key for c3 expires at once, and c2 wins
//     the service, service2 and service4;
//   - redlock-restart.json: service5 crashes and restarts without
//     persistence while c1 holds it in its majority, and c2 wins a
//     majority with it.
//
// Both rows have two holders; without fencing an update is lost, with the
// unique values checked by check-and-set none is. Without the fault, the
// same seeds break nothing: the fault is the counterexample.
func TestRedlockKleppmannSchedules(t *testing.T) {
	for _, tc := range []struct {
		file string
		kind FaultKind
	}{{"redlock-clock-jump.json", FaultJump}, {"redlock-restart.json", FaultCrash}} {
		for _, d := range []impl.Design{impl.DesignRedlock, impl.DesignRedlockUnique} {
			t.Run(tc.file+"/"+d.String(), func(t *testing.T) {
				c := DefaultConfig()
				c.Design = d
				f, err := os.Open(filepath.Join("..", "docs", "schedules", tc.file))
				require.NoError(t, err)
				defer f.Close()
				s, err := ReadSchedule(f, c)
				require.NoError(t, err)
				require.Len(t, s.Faults, 1)
				assert.Equal(t, tc.kind, s.Faults[0].Kind)
				r, err := NewRunner(c)
				require.NoError(t, err)
				res := r.Run(s)
				require.Empty(t, res.Stall)
				assert.Positive(t, res.violations[propAtMostOne].Step, "two holders")
				assert.Equal(t, d == impl.DesignRedlock, res.violations[propLostUpdate].Step > 0, "an update lost only without fencing")
				assert.Positive(t, res.Committed, "sections commit")

				calm := &Schedule{Version: ScheduleVersion, Seed: s.Seed, Faults: []Fault{}}
				res = r.Run(calm)
				assert.Zero(t, res.violations[propAtMostOne].Step, "no fault, one holder at a time")
				assert.Zero(t, res.violations[propLostUpdate].Step)
			})
		}
	}
}

// TestRedlockNodesHaveTheirOwnClocks: every lock node of a Redlock row is
// a node of the fault model: its own clock rate and steps, its pauses, its
// crashes — drawn over all of them (5 nodes by default).
func TestRedlockNodesHaveTheirOwnClocks(t *testing.T) {
	c := DefaultConfig()
	c.Design = impl.DesignRedlock
	kinds := map[impl.NodeID]map[FaultKind]bool{}
	for seed := uint64(1); seed <= 300; seed++ {
		for _, f := range Generate(seed, c).Faults {
			if kinds[f.Node] == nil {
				kinds[f.Node] = map[FaultKind]bool{}
			}
			kinds[f.Node][f.Kind] = true
		}
	}
	for k := range c.LockNodes() {
		n := impl.LockNode(k)
		for _, kind := range []FaultKind{FaultDrift, FaultJump, FaultPause, FaultCrash} {
			assert.True(t, kinds[n][kind], "%s never had a %s fault", n, kind)
		}
	}
	assert.Equal(t, c.Clients+1+5, c.NumNodes())
}

// TestRedlockBatchRunsAreItsReplays: a batch runs each Redlock seed with
// the faults Generate draws for the row — over its five lock nodes — so
// that a seed's replay is the batch's run, whatever the batch's own
// configuration and the other rows beside it.
func TestRedlockBatchRunsAreItsReplays(t *testing.T) {
	c := DefaultConfig()
	c.Sections = 5
	sum, err := Batch{Config: c, Designs: []impl.Design{impl.DesignFenceAll, impl.DesignRedlock}, Seed: 1, Runs: 60, Workers: 3}.Run()
	require.NoError(t, err)
	c.Design = impl.DesignRedlock
	r, err := NewRunner(c)
	require.NoError(t, err)
	var want [numProps]int
	committed := 0
	for seed := uint64(1); seed <= 60; seed++ {
		res := r.Run(Generate(seed, c))
		for k := range numProps {
			if res.violations[k].Step > 0 {
				want[k]++
			}
		}
		committed += res.Committed
	}
	got := sum.Designs[1]
	require.Equal(t, impl.DesignRedlock, got.Design)
	assert.Equal(t, want, got.violations)
	assert.Equal(t, committed, got.Committed)
	assert.Positive(t, want[propAtMostOne], "60 runs of 5 sections show two holders")
}
