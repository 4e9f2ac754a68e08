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
	checkPinned(t, func(*Config) {}, []pinnedModel{
		{impl.DesignNoFencing, 3, 1119074, 4631470, 34, [3]int{7, 0, 15}},
		{impl.DesignFenceNone, 3, 1147658, 4673452, 34, [3]int{7, 9, 15}},
		{impl.DesignFenceWrites, 3, 1147658, 4673452, 34, [3]int{7, 9, 15}},
		{impl.DesignFenceAll, 3, 450986, 1817092, 34, [3]int{7, -1, -1}},
	})
}

// TestPinnedFigures3ClientsSymmetryUnfenced: the unfenced rows' 3-client
// models with client symmetry (with TestPinnedFigures3ClientsSymmetry's
// mode all, the four rows of before the matrix had more).
func TestPinnedFigures3ClientsSymmetryUnfenced(t *testing.T) {
	testbuild.SkipReduced(t, "the unfenced rows with 3 clients, 190,000 states each")
	checkPinned(t, func(c *Config) { c.Symmetry = true }, []pinnedModel{
		{impl.DesignNoFencing, 3, 186620, 772272, 34, [3]int{7, 0, 15}},
		{impl.DesignFenceNone, 3, 191384, 779269, 34, [3]int{7, 9, 15}},
		{impl.DesignFenceWrites, 3, 191384, 779269, 34, [3]int{7, 9, 15}},
	})
}
