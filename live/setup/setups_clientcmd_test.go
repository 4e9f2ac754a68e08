package setup

import (
	"testing"

	"github.com/fencelab/fencelab/live/history"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLibrariesTakeEveryFaultOfTheirService: each library of another
// language runs in the matrix under a pause, a network fault, a restart
// and, where its service's clock can be stepped (Redis, Redlock's five
// nodes), a clock step —
// the cells issue 34 asks for, each shown conclusive by run's
// TestLibraryFaultCells and the campaigns in docs/live.md; where a cell
// is a claim of safety, the setup makes it. A fault dropped from a
// library's Faults (or moved to MoreFaults, out of the matrix) fails.
func TestLibrariesTakeEveryFaultOfTheirService(t *testing.T) {
	for _, tc := range []struct {
		service, name string
		faults        []history.Fault
		safe          []history.Fault
	}{
		{"redis", "redis-py",
			[]history.Fault{history.FaultClientPause, history.FaultDelay, history.FaultBlackhole, history.FaultRestartWipe, history.FaultClockStep},
			[]history.Fault{history.FaultDelay, history.FaultBlackhole}},
		{"redis", "redis-semaphore",
			[]history.Fault{history.FaultClientPause, history.FaultDelay, history.FaultBlackhole, history.FaultRestartWipe, history.FaultClockStep}, nil},
		// ZooKeeper times sessions on the monotonic clock: no clock step
		// (docs/live.md).
		{"zookeeper", "kazoo",
			[]history.Fault{history.FaultClientPause, history.FaultServerPause, history.FaultDelay, history.FaultBlackhole, history.FaultRestartKeep}, nil},
		{"redlock", "node-redlock",
			[]history.Fault{history.FaultClientPause, history.FaultDelay, history.FaultBlackhole, history.FaultRestartWipe, history.FaultClockStep},
			[]history.Fault{history.FaultDelay, history.FaultBlackhole}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Find(All(), tc.service, tc.name)
			require.NoError(t, err)
			require.NotEmpty(t, s.ClientCommand, "a library of another language")
			assert.ElementsMatch(t, tc.faults, s.Faults, "the matrix's faults")
			for _, f := range s.Faults {
				assert.NotContains(t, s.MoreFaults, f, "a fault is in the matrix or out of it")
			}
			var claimed []history.Fault
			for f, why := range s.Safe {
				assert.NotEmpty(t, why, f)
				claimed = append(claimed, f)
			}
			assert.ElementsMatch(t, tc.safe, claimed, "the claims of safety")
		})
	}
}

// TestLeasedAgainstLinksIsForLeasedSetups: the claim of safety against a
// fault of the holder's links is a fixed lease's, so only a Leased setup
// makes it, and only for the network faults.
func TestLeasedAgainstLinksIsForLeasedSetups(t *testing.T) {
	claim := leasedAgainstLinks()
	assert.Len(t, claim, 2)
	for _, s := range All() {
		for f, why := range s.Safe {
			if why != claim[f] {
				continue
			}
			assert.True(t, s.Leased, "%s claims %q without a fixed lease", s.ID(), why)
			assert.Contains(t, []history.Fault{history.FaultDelay, history.FaultBlackhole}, f, s.ID())
		}
	}
}
