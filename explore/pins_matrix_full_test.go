package explore

import (
	"testing"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
)

// TestPinnedFiguresMatrix3ClientsSymmetry: the rows of issue 12 with 3
// clients and client symmetry, as the demo explores them (the restart
// rows are up to 0.9 million states: seconds normally, minutes under the
// race detector, so at full size only). The same shortest
// counterexamples as with 2 clients.
func TestPinnedFiguresMatrix3ClientsSymmetry(t *testing.T) {
	testbuild.SkipReduced(t, "the rows of issue 12 with 3 clients, up to 0.9 million states")
	checkPinned(t, func(c *Config) { c.Symmetry = true }, []pinnedModel{
		{impl.DesignNonAtomic, 3, 127952, 520519, 37, [3]int{7, 13, 17}},
		{impl.DesignRestartVolatile, 3, 905964, 3654365, 35, [3]int{7, -1, 15}},
		{impl.DesignRestartDurable, 3, 602404, 2418963, 34, [3]int{7, -1, -1}},
		{impl.DesignUniqueCAS, 3, 191384, 779269, 34, [3]int{7, 0, -1}},
		{impl.DesignRevision, 3, 75272, 303209, 34, [3]int{7, -1, -1}},
		{impl.DesignVersionEquality, 3, 191384, 779269, 34, [3]int{7, 0, -1}},
		{impl.DesignSequencer, 3, 556802, 2337669, 49, [3]int{8, -1, -1}},
	})
}

// TestPinnedFiguresRedlock: the Redlock rows, 3 independent lock nodes, 2
// clients, no retry (DefaultConfig), client symmetry — the model of
// specs/DistLockRedlock.tla, whose TLC distinct states
// (DistLockRedlock_unique_2c: 420,541 at depth 35) are these. A node lets
// c1's key go early (its lease timer, untimed, fires at any moment: the
// clock jump) or restarts and forgets it, and c2 wins a majority: two
// holders in 16 steps (15 actions) in both rows; without fencing an update
// is lost (24 steps); with the unique values checked by check-and-set none
// is. The restart witness is reached too (checkPinned: Run counts a holds
// only with its witnesses). Full size only: under the race detector
// each search costs about 20 s of CPU (TestPinnedFiguresRedlockTwoNodes
// runs the rows at every size).
func TestPinnedFiguresRedlock(t *testing.T) {
	testbuild.SkipReduced(t, "the Redlock rows with 3 lock nodes, 420,541 states each")
	checkPinned(t, func(c *Config) { c.Symmetry = true }, []pinnedModel{
		{impl.DesignRedlock, 2, 420541, 2204844, 34, [3]int{15, 0, 23}},
		{impl.DesignRedlockUnique, 2, 420541, 2204844, 34, [3]int{15, 0, -1}},
	})
}
