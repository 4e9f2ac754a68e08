package conform

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/distlockspec"
	"github.com/fencelab/fencelab/explore"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
)

// TestThreeClientBoundFindsTheKinds: within CounterexampleStates3, each
// row's 3-client search finds a counterexample of every property its
// 2-client search does — the bound costs no kind of counterexample —
// but the Redlock rows', whose shortest lies deeper: their searches
// stop at the bound (Group.Bounded, named after conform's table) with
// none.
func TestThreeClientBoundFindsTheKinds(t *testing.T) {
	testbuild.SkipUnderRace(t)
	violated := func(g Group) []string {
		var ps []string
		for _, tr := range g.Traces {
			ps = append(ps, tr.Violates...)
		}
		slices.Sort(ps)
		return slices.Compact(ps)
	}
	for _, d := range distlockspec.Designs() {
		if explore.RoutineClients(d) < 3 || !boundRow(d) {
			continue
		}
		t.Run(d.String(), func(t *testing.T) {
			two, err := Counterexamples(t.Context(), d, 2, nil)
			require.NoError(t, err)
			three, err := Counterexamples(t.Context(), d, 3, nil)
			require.NoError(t, err)
			if d.Redlock() {
				assert.True(t, three.Bounded)
				assert.Empty(t, three.Traces)
				return
			}
			assert.Equal(t, violated(two), violated(three))
			t.Logf("%s: %v, 3 clients bounded %v", d, violated(three), three.Bounded)
		})
	}
}

// boundRow says whether TestThreeClientBoundFindsTheKinds searches row d:
// every row, but under -short (make test's pass without the race
// detector) an unfenced and a fenced one.
func boundRow(d impl.Design) bool {
	return !testing.Short() || d == impl.DesignFenceNone || d == impl.DesignFenceAll
}
