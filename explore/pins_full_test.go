package explore

import (
	"testing"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
)

// TestPinnedFigures3Clients: the 3-client models (a million states each
// without symmetry: seconds normally, minutes under the race detector, so
// at full size only).
func TestPinnedFigures3Clients(t *testing.T) {
	testbuild.SkipReduced(t, "a million states per model without symmetry")
	checkPinned(t, pinnedModels{clients: 3, designs: []impl.Design{
		impl.DesignNoFencing, impl.DesignFenceNone, impl.DesignFenceWrites, impl.DesignFenceAll,
	}})
}

// TestPinnedFigures3ClientsSymmetryUnfenced: the unfenced rows' 3-client
// models with client symmetry (with TestPinnedFigures3ClientsSymmetry's
// mode all, the four rows of before the matrix had more).
func TestPinnedFigures3ClientsSymmetryUnfenced(t *testing.T) {
	testbuild.SkipReduced(t, "the unfenced rows with 3 clients, 190,000 states each")
	checkPinned(t, pinnedModels{clients: 3, variant: "sym", setup: func(c *Config) { c.Symmetry = true }, designs: []impl.Design{
		impl.DesignNoFencing, impl.DesignFenceNone, impl.DesignFenceWrites,
	}})
}
