package explore

import (
	"testing"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
)

// TestPinnedFigures3ClientsSymmetry: a 3-client model with client
// symmetry, fencelab explore's default, at every size: mode all, the smallest (75,272 states). The figures are
// those of the canonical form before issue 14 made it cheaper: the same
// representatives, so the same counts, verdicts and shortest traces. The
// unfenced rows' 3-client models (186,620 to 191,384 states, half a minute
// of CPU each under the race detector, and the same verdicts and traces as
// with 2 clients) are pinned at full size
// (TestPinnedFigures3ClientsSymmetryUnfenced).
func TestPinnedFigures3ClientsSymmetry(t *testing.T) {
	testbuild.SkipUnderRace(t)
	checkPinned(t, pinnedModels{clients: 3, variant: "sym", setup: func(c *Config) { c.Symmetry = true }, designs: []impl.Design{
		impl.DesignFenceAll,
	}})
}
