// Package sweep draws where an unfenced lease lock stops being safe: it
// runs the simulator over a grid of two bounds (pause × margin, drift ×
// TTL, lock-delay × pause, ...) and, in each cell, the derivation's worst
// case (sim.NewWorstCase) and random runs drawn inside the cell's bounds
// (sim.InsideBounds, sim.GenerateInside), beside DESIGN.md's condition
// (package bounds), whose boundary it draws over the grid. The result is
// written as CSV and as a hand-written SVG.
//
// A sweep is deterministic: cells are run across goroutines and merged in
// grid order, each run is seeded, so the same sweep gives the same bytes.
package sweep

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fencelab/fencelab/bounds"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/sim"
)

// Axis is one dimension of the grid: a bound and its values, Cells of them
// evenly spaced from From to To (both included). Drift is in parts per
// million, every other bound in nanoseconds.
type Axis struct {
	Name     string
	From, To int64
	Cells    int
}

// axisNames are the bounds an axis may vary, as the flags of fencelab
// bounds name them (without "max-").
var axisNames = []string{"pause", "delay", "drift", "jump", "ttl", "margin", "lock-delay"}

// MaxCells bounds an axis.
const MaxCells = 200

// ParseGrid reads "pause:0..500ms/10,margin:0..500ms/10": two axes, x
// then y, each name:from..to/cells; drift as bounds.ParseDrift reads it
// (drift:0..0.2/20, drift:0ppm..500ppm/10). One cell is one value: from
// and to the same (pause:100ms..100ms/1).
func ParseGrid(s string) (x, y Axis, err error) {
	parts := strings.Split(s, ",")
	if len(parts) != 2 {
		return x, y, fmt.Errorf("grid must be two axes, name:from..to/cells,name:from..to/cells, got %s", quote.Q(s))
	}
	var axes [2]Axis
	for i, p := range parts {
		if axes[i], err = parseAxis(strings.TrimSpace(p)); err != nil {
			return x, y, err
		}
	}
	if axes[0].Name == axes[1].Name {
		return x, y, fmt.Errorf("grid: both axes are %s", axes[0].Name)
	}
	return axes[0], axes[1], nil
}

func parseAxis(s string) (Axis, error) {
	name, rest, ok := strings.Cut(s, ":")
	span, cells, ok2 := strings.Cut(rest, "/")
	from, to, ok3 := strings.Cut(span, "..")
	if !ok || !ok2 || !ok3 {
		return Axis{}, fmt.Errorf("grid axis %s: want name:from..to/cells, e.g. pause:0..500ms/10", quote.Q(s))
	}
	known := false
	for _, n := range axisNames {
		known = known || n == name
	}
	if !known {
		return Axis{}, fmt.Errorf("grid axis %s: unknown bound %s (want %s)", quote.Q(s), quote.Q(name), strings.Join(axisNames, ", "))
	}
	a := Axis{Name: name}
	var err error
	for _, v := range []struct {
		text string
		into *int64
	}{{from, &a.From}, {to, &a.To}} {
		if *v.into, err = parseValue(name, v.text); err != nil {
			return Axis{}, fmt.Errorf("grid axis %s: %v", quote.Q(s), err)
		}
	}
	if a.Cells, err = strconv.Atoi(cells); err != nil || a.Cells < 1 || a.Cells > MaxCells {
		return Axis{}, fmt.Errorf("grid axis %s: cells must be a whole number between 1 and %d, got %s", quote.Q(s), MaxCells, quote.Q(cells))
	}
	switch {
	case a.Cells == 1 && a.To != a.From:
		return Axis{}, fmt.Errorf("grid axis %s: one cell is one value, from and to the same", quote.Q(s))
	case a.Cells > 1 && a.To <= a.From:
		return Axis{}, fmt.Errorf("grid axis %s: the range must go up (from < to)", quote.Q(s))
	}
	return a, nil
}

func parseValue(name, s string) (int64, error) {
	if name == "drift" {
		f, err := bounds.ParseDrift(s)
		if err != nil {
			return 0, err
		}
		return int64(math.Round(f * 1e6)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%s %s is not a duration", name, quote.Q(s))
	}
	if d < 0 || d > impl.MaxDuration {
		return 0, fmt.Errorf("%s %v must be between 0 and %v", name, d, impl.MaxDuration)
	}
	return int64(d), nil
}

// Value is the axis's i-th value.
func (a Axis) Value(i int) int64 {
	if a.Cells == 1 {
		return a.From
	}
	return a.From + (a.To-a.From)*int64(i)/int64(a.Cells-1)
}

// Format prints an axis value in the flag's words.
func (a Axis) Format(v int64) string {
	if a.Name == "drift" {
		return strconv.FormatFloat(float64(v)/1e6, 'f', -1, 64)
	}
	return time.Duration(v).String()
}

// Label is the axis's name with its unit.
func (a Axis) Label() string {
	if a.Name == "drift" {
		return "drift ρ (fraction)"
	}
	return a.Name
}

// set returns b with the axis's bound at v.
func (a Axis) set(b bounds.Bounds, v int64) bounds.Bounds {
	d := time.Duration(v)
	switch a.Name {
	case "pause":
		b.Pause = d
	case "delay":
		b.Delay = d
	case "drift":
		b.Drift = float64(v) / 1e6
	case "jump":
		b.Jump = d
	case "ttl":
		b.TTL = d
	case "margin":
		b.Margin = d
	case "lock-delay":
		b.LockDelay = d
	}
	return b
}

// Sweep is one grid for some designs.
type Sweep struct {
	// Config is the simulator's network and the random runs' workload;
	// its bounds come from Bounds and the axes.
	Config  sim.Config
	Designs []impl.Design
	// Bounds are the bounds the axes do not vary.
	Bounds  bounds.Bounds
	X, Y    Axis
	Runs    int // random runs per cell and design
	Seed    uint64
	Workers int
	// Progress, if set, is called with the runs just finished (random and
	// worst-case), possibly from several goroutines at once.
	Progress func(runs int)
	// inside sets up the random runs of a cell (nil: sim.InsideBounds):
	// the tests' seam for a simulator that strays past the bounds it is
	// given, whose violations inside the boundary the sweep must count.
	inside func(sim.Config, bounds.Bounds) (sim.Config, error)
}

// Outcome is what one property came to in one cell and design.
type Outcome struct {
	Derived bounds.Verdict
	// Worst is the worst case's result: "violated", "held", or "n/a" when
	// the bounds leave the simulator no room for it (WorstNote says why).
	Worst     string
	WorstNote string
	// Random counts the random runs that violated the property.
	Random int
}

// Cell is one cell of the grid for one design.
type Cell struct {
	Design   impl.Design
	I, J     int // x and y index
	Bounds   bounds.Bounds
	Outcomes []Outcome // in bounds.Properties order
	Runs     int
}

// Result is a sweep's cells, design by design, then row (y) by row, then
// x; and the runs it took.
type Result struct {
	Sweep *Sweep
	Cells []Cell
}

// CellAt is the cell of design index k at (i, j).
func (r *Result) CellAt(k, i, j int) *Cell {
	return &r.Cells[(k*r.Sweep.Y.Cells+j)*r.Sweep.X.Cells+i]
}

// RunsPerCell is how many runs a cell takes: the random ones and one
// worst case per property.
func (s *Sweep) RunsPerCell() int { return s.Runs + len(bounds.Properties()) }

// Total is how many runs the sweep takes.
func (s *Sweep) Total() int {
	return len(s.Designs) * s.X.Cells * s.Y.Cells * s.RunsPerCell()
}

// cellBounds is the bounds of cell (i, j).
func (s *Sweep) cellBounds(i, j int) bounds.Bounds {
	return s.Y.set(s.X.set(s.Bounds, s.X.Value(i)), s.Y.Value(j))
}

// supported are the designs a sweep judges: those whose safety DESIGN.md's
// timing condition decides (no fencing, tokens the resource ignores or
// checks on writes only, the lease renewed) and fencing all, which keeps
// NoLostUpdate whatever the timing. The others rest on what the grid does
// not vary (a restart of the service, a resource's atomicity, Redlock's
// nodes and their clocks, the token rules): their violations, or their
// safety, say nothing of the condition, and a sweep would report them as
// disagreements, or agreements, it did not find.
var supported = []impl.Design{impl.DesignNoFencing, impl.DesignFenceNone, impl.DesignFenceWrites, impl.DesignFenceAll, impl.DesignRenewal}

// Supported returns an error, for a design the sweep does not judge,
// naming those it does.
func Supported(d impl.Design) error {
	if slices.Contains(supported, d) {
		return nil
	}
	names := make([]string, len(supported))
	for i, s := range supported {
		names[i] = s.String()
	}
	return fmt.Errorf("the sweep judges the designs %s against DESIGN.md's timing condition, not %s: it rests on more than the timing the grid varies", strings.Join(names, ", "), d)
}

// Validate checks every cell's bounds against the simulator before any
// run, so a bad grid is one line, not a half-done sweep.
func (s *Sweep) Validate() error {
	if s.Runs < 0 {
		return fmt.Errorf("runs must not be negative, got %d", s.Runs)
	}
	if len(s.Designs) == 0 {
		return fmt.Errorf("no design to sweep")
	}
	for _, d := range s.Designs {
		if err := Supported(d); err != nil {
			return err
		}
	}
	for _, j := range []int{0, s.Y.Cells - 1} {
		for _, i := range []int{0, s.X.Cells - 1} {
			b := s.cellBounds(i, j)
			if _, err := sim.InsideBounds(s.Config, b); err != nil {
				return fmt.Errorf("cell %s=%s, %s=%s: %v", s.X.Name, s.X.Format(s.X.Value(i)), s.Y.Name, s.Y.Format(s.Y.Value(j)), err)
			}
		}
	}
	return nil
}

// Run runs every cell. Workers take whole cells; results land in grid
// order whatever the number of workers.
func (s *Sweep) Run() (*Result, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	cells, err := s.RunCells(0, s.CellCount())
	if err != nil {
		return nil, err
	}
	return &Result{Sweep: s, Cells: cells}, nil
}

// CellCount is how many cells the sweep has: designs × x × y.
func (s *Sweep) CellCount() int { return len(s.Designs) * s.X.Cells * s.Y.Cells }

// RunCells runs the cells [lo, hi) of the grid order (design, then row,
// then x): a shard's part of the sweep. Each cell's runs depend on the
// cell alone, so cells run apart are the cells of one Run.
func (s *Sweep) RunCells(lo, hi int) ([]Cell, error) {
	if lo < 0 || hi < lo || hi > s.CellCount() {
		return nil, fmt.Errorf("cells %d to %d of %d", lo, hi, s.CellCount())
	}
	n := hi - lo
	cells := make([]Cell, n)
	workers := s.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	next := make(chan int)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				cells[k], errs[k] = s.cell(lo + k)
				if s.Progress != nil {
					s.Progress(s.RunsPerCell())
				}
			}
		}()
	}
	for k := range n {
		next <- k
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return cells, nil
}

// cell runs cell k: its worst cases, then its random runs.
func (s *Sweep) cell(k int) (Cell, error) {
	per := s.X.Cells * s.Y.Cells
	d := s.Designs[k/per]
	i, j := k%per%s.X.Cells, k%per/s.X.Cells
	b := s.cellBounds(i, j)
	base := s.Config
	base.Design = d
	c := Cell{Design: d, I: i, J: j, Bounds: b, Runs: s.Runs}
	verdicts, err := bounds.Check(b)
	if err != nil {
		return c, err
	}
	for _, v := range verdicts {
		o := Outcome{Derived: v}
		wc, err := sim.NewWorstCase(base, b, v.Property)
		if err != nil {
			o.Worst, o.WorstNote = "n/a", err.Error()
		} else {
			r, err := sim.NewRunner(wc.Config)
			if err != nil {
				return c, err
			}
			run := r.Run(wc.Schedule)
			o.Worst = "held"
			if run.Violated(v.Property) {
				o.Worst = "violated"
			}
		}
		c.Outcomes = append(c.Outcomes, o)
	}
	inside := s.inside
	if inside == nil {
		inside = sim.InsideBounds
	}
	cfg, err := inside(base, b)
	if err != nil {
		return c, err
	}
	r, err := sim.NewRunner(cfg)
	if err != nil {
		return c, err
	}
	for n := range s.Runs {
		run := r.Run(sim.GenerateInside(s.Seed+uint64(n), cfg, b))
		for p := range c.Outcomes {
			if run.Violated(c.Outcomes[p].Derived.Property) {
				c.Outcomes[p].Random++
			}
		}
	}
	return c, nil
}

// RandomInside counts the random runs inside the boundary (in cells and
// for properties the derivation calls safe) and those of them that
// violated the property: every one of those is a disagreement.
func (r *Result) RandomInside() (violating, runs int) {
	for _, c := range r.Cells {
		for _, o := range c.Outcomes {
			if o.Derived.Safe {
				violating += o.Random
				runs += c.Runs
			}
		}
	}
	return violating, runs
}

// Disagreements lists, one sentence each, the cells that contradict the
// derivation: a violation (worst case or random) where the condition says
// the property holds, or a NoLostUpdate violation with fencing all.
func (r *Result) Disagreements() []string {
	var out []string
	for _, c := range r.Cells {
		for _, o := range c.Outcomes {
			bad := o.Worst == "violated" || o.Random > 0
			where := fmt.Sprintf("%s, %s=%s, %s=%s", c.Design, r.Sweep.X.Name, r.Sweep.X.Format(r.Sweep.X.Value(c.I)), r.Sweep.Y.Name, r.Sweep.Y.Format(r.Sweep.Y.Value(c.J)))
			switch {
			case bad && o.Derived.Safe:
				out = append(out, fmt.Sprintf("%s: %s violated inside the boundary (worst case %s, %d of %d random runs)", where, o.Derived.Property, o.Worst, o.Random, c.Runs))
			case bad && c.Design == impl.DesignFenceAll && o.Derived.Property == impl.NoLostUpdate:
				out = append(out, fmt.Sprintf("%s: NoLostUpdate violated with fencing all", where))
			}
		}
	}
	return out
}
