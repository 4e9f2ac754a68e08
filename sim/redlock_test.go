package sim

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

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

// TestRedlockValidityFromTheSend: a Redlock client's window runs from its
// acquire's send, not from a lock node's answer. Two clients, three nodes,
// a long think: one node's first answer is delayed, so the client that
// wins the majority learns it late. Delayed 600ms, its window from the
// send closes at 800ms (TTL − margin), before the nodes' keys expire at
// 1s, and it gives its section up; a window taken from the answer (the
// arrival rule, or a mutant that restarts it on a node's grant) lasts to
// about 1.4s, past the keys, and the other client wins a majority while
// it still believes. Delayed 900ms, the majority came after the window
// closed: Redlock's client gives it back, and one that acted on it would
// believe with no window open.
func TestRedlockValidityFromTheSend(t *testing.T) {
	const ms = time.Millisecond
	for _, tc := range []struct {
		rule       impl.ValidityRule
		spike      time.Duration
		twoHolders bool
		committed  int
	}{
		{impl.ValiditySend, 600 * ms, false, 1},
		{impl.ValidityArrival, 600 * ms, true, 2},
		{impl.ValiditySend, 900 * ms, false, 2},
		{impl.ValidityArrival, 900 * ms, true, 2},
	} {
		for k := range 2 { // the nodes whose first answer goes to the winner
			t.Run(fmt.Sprintf("%s/%v/%s", tc.rule, tc.spike, impl.LockNode(k)), func(t *testing.T) {
				c := DefaultConfig()
				c.Design, c.Clients, c.Sections, c.Nodes = impl.DesignRedlock, 2, 1, 3
				c.Think, c.Validity = 500*ms, tc.rule
				r, err := NewRunner(c)
				require.NoError(t, err)
				s := &Schedule{Version: ScheduleVersion, Seed: 1, Faults: []Fault{{Kind: FaultSpike, Node: impl.LockNode(k), Duration: tc.spike}}}
				require.NoError(t, s.Validate(c))
				res := r.Run(s)
				require.Empty(t, res.Stall)
				assert.Equal(t, tc.twoHolders, res.Violated(impl.AtMostOneClientHoldLock), "%+v", res.violations)
				assert.False(t, res.Violated(impl.NoActionPastValidity), "%+v", res.violations)
				assert.Equal(t, tc.committed, res.Committed)
			})
		}
	}
}
