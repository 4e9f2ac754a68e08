package explore

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
)

// levelCounts runs c and returns the result with the number of distinct
// states after each breadth-first level.
func levelCounts(t *testing.T, c Config) (*Result, []int) {
	t.Helper()
	var levels []int
	c.Progress = func(_, distinct, _ int) { levels = append(levels, distinct) }
	res, err := Run(c)
	require.NoError(t, err)
	return res, levels
}

// TestSleepSetsKeepEveryStateAndVerdict: partial-order reduction by sleep
// sets reaches the very states the full search reaches (the same count
// and the same sum of fingerprints), each at the same breadth-first depth
// (the same count after every level), so every verdict, every witness,
// the deadlock check and every shortest counterexample's length are the
// full search's — on every design, 2 clients without symmetry and 3 with,
// under both validity rules and with two sections — while computing fewer
// successors. The traces it reports are replayed through the Go actors
// (Run) and violate what they claim to.
func TestSleepSetsKeepEveryStateAndVerdict(t *testing.T) {
	testbuild.SkipUnderRace(t)
	type shape struct {
		clients, sections int
		symmetry          bool
		validity          impl.ValidityRule
	}
	shapes := []shape{
		{2, 1, false, DefaultValidity},
		{2, 1, true, DefaultValidity},
		{2, 2, true, DefaultValidity},
		{2, 1, false, impl.ValiditySend},
		{3, 1, true, DefaultValidity},
	}
	for _, d := range testDesigns() {
		for _, sh := range shapes {
			if testbuild.Reduced() && (sh.clients > 2 || sh.sections > 1) {
				continue
			}
			if d.Renews() && sh != shapes[0] {
				// The renewal's timer, renewal and answer multiply each
				// client's states (30 million with 3 clients, about 2.4
				// million under the send rule without symmetry):
				// minutes, twice; the first shape takes every action
				// of the row.
				continue
			}
			if d == impl.DesignSequencer && sh.sections > 1 {
				// 4.8 million states with two sections (two round
				// trips to the service an operation): minutes, twice;
				// its other shapes take every action of the row.
				continue
			}
			if d.Redlock() && (sh.clients > 2 || sh.sections > 1 || !sh.symmetry && sh.validity != DefaultValidity) {
				// Past millions of states; the Redlock rows take the
				// 2-client shapes of the default rule (the renaming of
				// their values is exercised only with symmetry).
				continue
			}
			t.Run(fmt.Sprintf("%s/%dc/%ds/sym=%v/%s", d, sh.clients, sh.sections, sh.symmetry, sh.validity), func(t *testing.T) {
				c := DefaultConfig(d, sh.clients)
				c.Sections, c.Symmetry, c.Validity = sh.sections, sh.symmetry, sh.validity
				full, fullLevels := runShared(t, c)
				c.SleepSets = true
				por, porLevels := levelCounts(t, c)

				assert.Equal(t, full.Distinct, por.Distinct, "distinct states")
				assert.Equal(t, full.stateSum, por.stateSum, "the states themselves (sum of fingerprints)")
				assert.Equal(t, fullLevels, porLevels, "distinct states after each level")
				assert.Equal(t, full.Depth, por.Depth, "depth")
				assert.Less(t, por.Generated, full.Generated, "sleep sets compute fewer successors")
				t.Logf("%d states; successors computed: %d full, %d with sleep sets (%.0f%%)", full.Distinct, full.Generated, por.Generated, 100*float64(por.Generated)/float64(full.Generated))
				for i, f := range full.All() {
					p := por.All()[i]
					assert.Equal(t, f.Status, p.Status, f.Property)
					assert.Equal(t, f.Shortest, p.Shortest, "%s: shortest counterexample", f.Property)
					assert.Equal(t, len(f.Path), len(p.Path), f.Property)
				}
				require.Equal(t, len(full.Witnesses), len(por.Witnesses))
				for i, w := range full.Witnesses {
					p := por.Witnesses[i]
					assert.Equal(t, []any{w.Goal, w.Reached, w.Complete, w.Shortest}, []any{p.Goal, p.Reached, p.Complete, p.Shortest}, "witness")
				}
			})
		}
	}
}

// allCommute is the reference implementation's model with a wrong
// independence relation: every action commutes with every other, a
// restart and two deliveries to one node included.
type allCommute struct{ *sysModel }

func (m allCommute) Actors(dst []int32, s *impl.World) []int32 {
	for i := range s.Actions() {
		dst = append(dst, int32(i))
	}
	return dst
}

// TestSleepSetsComparisonHasTeeth: the comparison above notices a wrong
// independence relation — two actions of one node do not commute, and
// sleep sets that say they do miss states.
func TestSleepSetsComparisonHasTeeth(t *testing.T) {
	for _, d := range []impl.Design{impl.DesignNoFencing, impl.DesignFenceAll, impl.DesignRestartVolatile} {
		t.Run(d.String(), func(t *testing.T) {
			c := DefaultConfig(d, 2)
			m := c.model()
			full, err := Search[*impl.World](m, Options{Workers: 1})
			require.NoError(t, err)
			wrong, err := Search[*impl.World](allCommute{m}, Options{Workers: 1, SleepSets: true})
			require.NoError(t, err)
			assert.Less(t, wrong.Distinct, full.Distinct, "a wrong independence relation loses states")
			assert.NotEqual(t, full.stateSum, wrong.stateSum)
		})
	}
}

// TestSleepSetsNeedACommuter: a model that cannot name its actions is
// refused, not searched in full under a flag that says otherwise.
func TestSleepSetsNeedACommuter(t *testing.T) {
	_, err := Search[*gridState](&grid{k: 2}, Options{SleepSets: true})
	require.ErrorContains(t, err, "Commuter")
}

// commutingGrid is the grid (without its stuck state) as a Commuter: x++
// and y++ are taken by different actors, so they commute.
type commutingGrid struct{ *grid }

func (g commutingGrid) Actors(dst []int32, s *gridState) []int32 {
	for _, a := range g.enabled(s) {
		dst = append(dst, int32(a))
	}
	return dst
}

func (g commutingGrid) Keys(dst []uint64, s *gridState, _ uint64) []uint64 {
	for _, a := range g.enabled(s) {
		dst = append(dst, uint64(a))
	}
	return dst
}

func (g commutingGrid) EncodeRenamed(b []byte, s *gridState) ([]byte, uint64) {
	return g.Encode(b, s), 0
}

// TestSleepSetsOnAGrid, counted by hand: on the (k+1)² grid the full
// search computes both successors of every state but the last row and
// column, 2k(k+1) transitions; with sleep sets, a state reached by y++
// sleeps on x++ (x++ then y++ got there first), so each state is computed
// once: a spanning tree of (k+1)² − 1 transitions, and every state at its
// own depth x+y.
func TestSleepSetsOnAGrid(t *testing.T) {
	for _, k := range []int{1, 2, 5, 9} {
		for _, workers := range []int{1, 3} {
			g := commutingGrid{&grid{k: k}}
			var levels [][2]int
			out, err := Search[*gridState](g, Options{SleepSets: true, Workers: workers,
				Progress: func(depth, distinct, _ int) { levels = append(levels, [2]int{depth, distinct}) }})
			require.NoError(t, err)
			n := (k + 1) * (k + 1)
			assert.Equal(t, n, out.Distinct)
			assert.Equal(t, 1+n-1, out.Generated, "the initial state and one transition into every other state")
			assert.Equal(t, 2*k, out.Depth)
			full, err := Search[*gridState](g.grid, Options{Workers: workers})
			require.NoError(t, err)
			assert.Equal(t, 1+2*k*(k+1), full.Generated)
			assert.Equal(t, full.stateSum, out.stateSum)
			require.NotEmpty(t, levels)
			for _, l := range levels {
				want := 0 // states at depth at most l[0]
				for x := 0; x <= k; x++ {
					for y := 0; y <= k; y++ {
						if x+y <= l[0] {
							want++
						}
					}
				}
				assert.Equal(t, want, l[1], "after level %d", l[0])
			}
		}
	}
}
