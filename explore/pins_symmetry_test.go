package explore

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/verdict"
)

// TestPinnedFigures3ClientsSymmetry: the 3-client models with client
// symmetry, fencelab explore's default, in every build (the race build
// among them: a tenth of the states of TestPinnedFigures3Clients). The
// figures are those of the canonical form before issue 14 made it
// cheaper: the same representatives, so the same counts, verdicts and
// shortest traces.
func TestPinnedFigures3ClientsSymmetry(t *testing.T) {
	for _, p := range []pinnedModel{
		{impl.DesignNoFencing, 3, 186620, 772272, 34, [3]int{7, 0, 15}},
		{impl.DesignFenceNone, 3, 191384, 779269, 34, [3]int{7, 9, 15}},
		{impl.DesignFenceWrites, 3, 191384, 779269, 34, [3]int{7, 9, 15}},
		{impl.DesignFenceAll, 3, 75272, 303209, 34, [3]int{7, -1, -1}},
	} {
		t.Run(p.design.String(), func(t *testing.T) {
			t.Parallel()
			c := DefaultConfig(p.design, p.clients)
			c.Symmetry = true
			res, err := Run(c)
			require.NoError(t, err)
			assert.Equal(t, p.distinct, res.Distinct, "distinct states")
			assert.Equal(t, p.generated, res.Generated, "generated states")
			assert.Equal(t, p.depth, res.Depth, "depth")
			assert.Equal(t, verdict.Holds, res.Deadlock.Status, "deadlock")
			for k, inv := range impl.Invariants() {
				v, ok := res.Verdict(inv.Name)
				require.True(t, ok, inv.Name)
				switch want := p.steps[k]; {
				case want < 0:
					assert.Equal(t, verdict.Holds, v.Status, inv.Name)
				case want == 0:
					assert.Equal(t, verdict.NotApplicable, v.Status, inv.Name)
				default:
					assert.Equal(t, verdict.Violated, v.Status, inv.Name)
					assert.Equal(t, want, v.Steps(), "%s: shortest trace length", inv.Name)
				}
			}
		})
	}
}
