package sweep

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/bounds"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
	"github.com/fencelab/fencelab/sim"
)

const ms = time.Millisecond

func small(t testing.TB, grid string, runs, workers int) *Sweep {
	c := sim.DefaultConfig()
	c.Clients, c.Sections = 2, 2
	x, y, err := ParseGrid(grid)
	require.NoError(t, err)
	return &Sweep{Config: c, Designs: []impl.Design{impl.DesignNoFencing, impl.DesignFenceAll}, X: x, Y: y, Runs: runs, Seed: 1, Workers: workers,
		Bounds: bounds.Bounds{Drift: 0.1, Jump: 20 * ms, Pause: 100 * ms, Delay: c.OneWay() + 50*ms, TTL: time.Second, Margin: 200 * ms}}
}

// TestSweepAgreesWithTheDerivation checks the derivation on a small grid: no
// violation inside the boundary (worst case and random runs), the worst
// case violates in every cell outside it by more than the simulator's
// shortfall — including the cells just outside — and fencing all keeps
// NoLostUpdate everywhere. The renewing design has the same boundary (its
// worst case comes after a renewal).
func TestSweepAgreesWithTheDerivation(t *testing.T) {
	testbuild.SkipUnderRace(t)
	for _, grid := range []string{"pause:0..400ms/9,lock-delay:0..800ms/9", "drift:0..0.2/9,margin:0..400ms/9"} {
		s := small(t, grid, 40, 2)
		s.Designs = append(s.Designs, impl.DesignRenewal)
		res, err := s.Run()
		require.NoError(t, err)
		assert.Empty(t, res.Disagreements(), grid)
		shortfall := s.Config.Shortfall()
		var justOutside int
		for _, c := range res.Cells {
			for _, o := range c.Outcomes {
				if o.Derived.Safe {
					assert.Equal(t, "held", o.Worst, "%s %+v %s", grid, c.Bounds, o.Derived.Property)
					assert.Zero(t, o.Random)
					continue
				}
				if c.Design == impl.DesignFenceAll && o.Derived.Property == impl.NoLostUpdate {
					assert.Equal(t, "held", o.Worst)
					continue
				}
				if o.Derived.Slack < -shortfall {
					assert.Equal(t, "violated", o.Worst, "%s %+v %s slack %v", grid, c.Bounds, o.Derived.Property, o.Derived.Slack)
				}
				// Just outside: the neighbour one cell up the y axis is inside.
				if c.J+1 < s.Y.Cells {
					k := slices.Index(s.Designs, c.Design)
					for _, n := range res.CellAt(k, c.I, c.J+1).Outcomes {
						if n.Derived.Property != o.Derived.Property || !n.Derived.Safe {
							continue
						}
						if o.Derived.Slack >= -shortfall {
							// Closer to the boundary than the message legs the
							// simulator cannot make instantaneous.
							t.Logf("%s: %+v %s just outside by %v, within the shortfall %v: worst case %s", grid, c.Bounds, o.Derived.Property, -o.Derived.Slack, shortfall, o.Worst)
							continue
						}
						justOutside++
						assert.Equal(t, "violated", o.Worst, "just outside: %s %+v %s slack %v", grid, c.Bounds, o.Derived.Property, o.Derived.Slack)
					}
				}
			}
		}
		assert.Positive(t, justOutside, "%s: the grid crosses the boundary", grid)
	}
}

// TestSweepIsDeterministic: same sweep, same bytes, whatever the workers.
// At reduced size (internal/testbuild), 6 cells for 3 workers: still an
// uneven split. The race build compares the CSV alone: the picture's
// boundary, a bisection over the derivation for every column, is
// single-threaded and took half its time there; the second pass compares
// both.
func TestSweepIsDeterministic(t *testing.T) {
	grid := "pause:0..400ms/5,lock-delay:0..800ms/4"
	if testbuild.Reduced() {
		grid = "pause:0..400ms/3,lock-delay:0..800ms/2"
	}
	var outs [2][2]string
	for k, workers := range []int{1, 3} {
		res, err := small(t, grid, 10, workers).Run()
		require.NoError(t, err)
		var csv, svg bytes.Buffer
		require.NoError(t, res.WriteCSV(&csv))
		if !testbuild.Race {
			require.NoError(t, res.WriteSVG(&svg))
			assert.Contains(t, svg.String(), "<polyline")
		}
		outs[k] = [2]string{csv.String(), svg.String()}
	}
	assert.Equal(t, outs[0], outs[1])
	assert.Contains(t, outs[0][0], "violated")
}

func TestParseGrid(t *testing.T) {
	x, y, err := ParseGrid("pause:0..500ms/10, drift:0..0.2/5")
	require.NoError(t, err)
	assert.Equal(t, Axis{Name: "pause", From: 0, To: int64(500 * ms), Cells: 10}, x)
	assert.Equal(t, Axis{Name: "drift", From: 0, To: 200_000, Cells: 5}, y)
	assert.Equal(t, "0.05", y.Format(y.Value(1)))
	for _, bad := range []string{"", "pause:0..1s/10", "pause:0..1s/10,pause:0..1s/10", "speed:0..1/3,pause:0..1s/3",
		"pause:1s..0s/3,margin:0..1s/3", "pause:0..1s/1,margin:0..1s/3", "pause:0..1s/x,margin:0..1s/3",
		"pause:-1s..1s/3,margin:0..1s/3", "drift:0..0.5/3,margin:0..1s/3", "drift:0..NaN/3,margin:0..1s/3", "pause:0..25h/3,margin:0..1s/3"} {
		_, _, err := ParseGrid(bad)
		assert.Error(t, err, bad)
	}
}

// BenchmarkSweep20x20 measures a 20 × 20 grid, 200 random
// runs per cell (2 clients × 2 sections) and the two worst cases, one
// design.
//
//	go test ./sweep -run '^$' -bench Sweep20x20 -benchtime 1x
func BenchmarkSweep20x20(b *testing.B) {
	s := small(b, "pause:0..400ms/20,lock-delay:0..800ms/20", 200, 0)
	s.Designs = []impl.Design{impl.DesignNoFencing}
	for b.Loop() {
		_, err := s.Run()
		require.NoError(b, err)
	}
	b.ReportMetric(float64(s.Total()), "runs/op")
}

// TestValidateRefusesDesignsItDoesNotJudge: a sweep of a row whose safety
// rests on more than the timing (a restart, Redlock's nodes) is refused
// before any run; the rows it judges pass.
func TestValidateRefusesDesignsItDoesNotJudge(t *testing.T) {
	for _, d := range impl.Designs() {
		s := small(t, "pause:0..400ms/2,lock-delay:0..800ms/2", 0, 1)
		s.Designs = []impl.Design{impl.DesignNoFencing, d}
		err := s.Validate()
		switch d {
		case impl.DesignNoFencing, impl.DesignFenceNone, impl.DesignFenceWrites, impl.DesignFenceAll, impl.DesignRenewal:
			assert.NoError(t, err, d.String())
		default:
			assert.ErrorContains(t, err, "not "+d.String(), d.String())
			_, err := s.Run()
			assert.Error(t, err, d.String())
		}
	}
}

// TestRandomRunsInsideTheBoundaryDisagree: a test-only simulator whose
// random runs pause up to three TTLs, far past the cell's bound, in long
// sections (it strays past the bounds it is given) violates inside the boundary while the
// worst case, built from the bounds, holds. Those random runs are counted
// (RandomInside) and each cell is a disagreement; the honest simulator on
// the same grid has none.
func TestRandomRunsInsideTheBoundaryDisagree(t *testing.T) {
	testbuild.SkipUnderRace(t)
	grid := "pause:100ms..300ms/3,lock-delay:600ms..800ms/2"
	honest := small(t, grid, 200, 2)
	honest.Designs = []impl.Design{impl.DesignNoFencing}
	res, err := honest.Run()
	require.NoError(t, err)
	require.Empty(t, res.Disagreements())
	violating, runs := res.RandomInside()
	require.Zero(t, violating)
	require.Positive(t, runs, "the grid has cells inside the boundary")

	mutant := small(t, grid, 200, 2)
	mutant.Designs = []impl.Design{impl.DesignNoFencing}
	mutant.inside = func(c sim.Config, b bounds.Bounds) (sim.Config, error) {
		b.Pause = 3 * b.TTL
		c.Think = b.TTL / 2 // long sections: a pause finds a client holding
		return sim.InsideBounds(c, b)
	}
	res, err = mutant.Run()
	require.NoError(t, err)
	violating, runs2 := res.RandomInside()
	assert.Equal(t, runs, runs2)
	assert.Positive(t, violating, "the straying runs violate inside the boundary")
	dis := res.Disagreements()
	require.NotEmpty(t, dis)
	for _, c := range res.Cells {
		for _, o := range c.Outcomes {
			if o.Derived.Safe && o.Random > 0 {
				assert.Equal(t, "held", o.Worst, "the worst case keeps to the bounds: only random runs violate")
			}
		}
	}
	assert.Contains(t, dis[0], "violated inside the boundary (worst case held, ")
	t.Logf("%d of %d random runs inside violate; %d disagreements, first: %s", violating, runs, len(dis), dis[0])
}
