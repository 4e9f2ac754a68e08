//go:build !race

package explore

import (
	"testing"

	"github.com/fencelab/fencelab/impl"
)

// TestPinnedFiguresMatrix3ClientsSymmetry: the rows of issue 12 with 3
// clients and client symmetry, as the demo explores them (the restart
// rows are up to 0.9 million states: seconds normally, minutes under the
// race detector, so only in the plain build). The same shortest
// counterexamples as with 2 clients.
func TestPinnedFiguresMatrix3ClientsSymmetry(t *testing.T) {
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
