package explore

import (
	"testing"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
)

// TestPinnedFiguresMatrix3ClientsSymmetry: the rows of issue 12 with 3
// clients and client symmetry, as the demo explores them (the restart
// rows are up to a million states: seconds normally, minutes under the
// race detector, so at full size only). The same shortest
// counterexamples as with 2 clients.
func TestPinnedFiguresMatrix3ClientsSymmetry(t *testing.T) {
	testbuild.SkipReduced(t, "the rows of issue 12 with 3 clients, up to a million states")
	checkPinned(t, pinnedModels{clients: 3, variant: "sym", setup: func(c *Config) { c.Symmetry = true }, designs: []impl.Design{
		impl.DesignNonAtomic, impl.DesignRestartVolatile, impl.DesignRestartDurable, impl.DesignUniqueCAS,
		impl.DesignRevision, impl.DesignVersionEquality, impl.DesignSequencer, impl.DesignSnapshotFence,
	}})
}

// TestPinnedFiguresRedlock: the Redlock rows, 3 independent lock nodes, 2
// clients, no retry (DefaultConfig), client symmetry — the model of
// specs/DistLockRedlock.tla, whose TLC distinct states
// (DistLockRedlock_unique_2c: 860,742 at depth 35) are these. A node lets
// c1's key go early (its lease timer, untimed, fires at any moment: the
// clock jump) or restarts and forgets it, and c2 wins a majority: two
// holders in 16 steps (15 actions) in both rows; without fencing an update
// is lost (24 steps); with the unique values checked by check-and-set none
// is. The restart witness is reached too (checkPinned: Run counts a holds
// only with its witnesses). Full size only: under the race detector
// each search costs about 20 s of CPU (TestPinnedFiguresRedlockTwoNodes
// runs the rows at every size).
func TestPinnedFiguresRedlock(t *testing.T) {
	testbuild.SkipReduced(t, "the Redlock rows with 3 lock nodes, 860,742 states each")
	checkPinned(t, pinnedModels{clients: 2, variant: "sym", setup: func(c *Config) { c.Symmetry = true }, designs: []impl.Design{
		impl.DesignRedlock, impl.DesignRedlockUnique,
	}})
}
