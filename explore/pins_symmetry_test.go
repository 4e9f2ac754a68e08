package explore

import (
	"testing"

	"github.com/fencelab/fencelab/impl"
)

// TestPinnedFigures3ClientsSymmetry: the 3-client models with client
// symmetry, fencelab explore's default, in every build (the race build
// among them: a tenth of the states of TestPinnedFigures3Clients). The
// figures are those of the canonical form before issue 14 made it
// cheaper: the same representatives, so the same counts, verdicts and
// shortest traces.
func TestPinnedFigures3ClientsSymmetry(t *testing.T) {
	checkPinned(t, func(c *Config) { c.Symmetry = true }, []pinnedModel{
		{impl.DesignNoFencing, 3, 186620, 772272, 34, [3]int{7, 0, 15}},
		{impl.DesignFenceNone, 3, 191384, 779269, 34, [3]int{7, 9, 15}},
		{impl.DesignFenceWrites, 3, 191384, 779269, 34, [3]int{7, 9, 15}},
		{impl.DesignFenceAll, 3, 75272, 303209, 34, [3]int{7, -1, -1}},
	})
}
