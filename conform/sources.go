package conform

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fencelab/fencelab/distlockspec"
	"github.com/fencelab/fencelab/explore"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/sim"
)

// Sources of Go runs.
const (
	SourceWalk    = "walk"
	SourceExplore = "explore"
	SourceSim     = "sim"
)

// Group is traces of one source and one configuration: one TLC run.
type Group struct {
	Source string
	Config impl.Config
	Traces []*Trace
	// Bounded says the search that made the traces stopped at its bound
	// (Counterexamples): they are the violations found within it.
	Bounded bool
}

// UntimedConfigs are the configurations the walks cover: every design,
// 2 and 3 clients, 1 and 2 sections, one retry, the arrival rule (the
// explorer's default, explore.DefaultValidity).
func UntimedConfigs() []impl.Config {
	var cs []impl.Config
	for _, d := range distlockspec.Designs() {
		for _, n := range []int{2, 3} {
			for _, s := range []int{1, 2} {
				c := explore.DefaultConfig(d, n).Config
				c.Sections = s
				cs = append(cs, c)
			}
		}
	}
	return cs
}

// Walks records walks seeded 1..n of c, each up to maxSteps steps.
func Walks(c impl.Config, n, maxSteps int) (Group, error) {
	return WalkSeeds(c, 1, n, maxSteps)
}

// WalkSeeds records the walks of c seeded first..last, each up to maxSteps
// steps: a shard's part of Walks (none when last < first).
func WalkSeeds(c impl.Config, first, last, maxSteps int) (Group, error) {
	g := Group{Source: SourceWalk, Config: c}
	for seed := first; seed <= last; seed++ {
		t, err := WalkTrace(c, seed, maxSteps)
		if err != nil {
			return g, err
		}
		g.Traces = append(g.Traces, t)
	}
	return g, nil
}

// WalkTrace records the walk of c seeded seed, up to maxSteps steps: the
// trace Walks validates, made again from its seed.
func WalkTrace(c impl.Config, seed, maxSteps int) (*Trace, error) {
	path, err := Walk(c, uint64(seed), maxSteps)
	if err != nil {
		return nil, err
	}
	return Record(c, SourceWalk, fmt.Sprintf("walk seed %d, %s", seed, describeConfig(c)), path)
}

// CounterexampleStates bounds each search Counterexamples makes with 2
// clients: the explorer's breadth-first search finds the shortest
// counterexamples first, so a bounded search still yields shortest ones,
// and the searches of 2 clients end within it (Redlock's, the largest,
// has 860,742 states).
const CounterexampleStates = 1_000_000

// CounterexampleStates3 bounds the searches of 3 clients, whose
// counterexamples are of the same kinds as the 2-client ones: every row's
// are found within it but Redlock's (its state space has tens of
// millions of states, more than an hour of exhaustive search on 2 cores,
// and its shortest counterexample 16 steps, past the depth, 10, that
// 250,000 states reach; 1,000,000 reached 12). The searches it stops are
// named after conform's table.
const CounterexampleStates3 = 250_000

// CounterexampleBound is the bound of Counterexamples' search of n
// clients.
func CounterexampleBound(n int) int {
	if n <= 2 {
		return CounterexampleStates
	}
	return CounterexampleStates3
}

// Counterexamples records every counterexample the explorer finds for
// design d with n clients (its default model, with symmetry) within
// CounterexampleBound(n) distinct states; Group.Bounded says whether the
// search stopped there. ctx stops the search (between two chunks of
// states, so within a fraction of a second), progress, if not nil, hears
// of it (explore.Config.Progress).
func Counterexamples(ctx context.Context, d impl.Design, n int, progress func(depth, distinct, queued int)) (Group, error) {
	return counterexamples(ctx, d, n, CounterexampleBound(n), progress)
}

// counterexamples is Counterexamples with its bound.
func counterexamples(ctx context.Context, d impl.Design, n, maxStates int, progress func(depth, distinct, queued int)) (Group, error) {
	ec := explore.DefaultConfig(d, n)
	ec.Symmetry, ec.MaxStates, ec.Context, ec.Progress = true, maxStates, ctx, progress
	g := Group{Source: SourceExplore, Config: ec.Config}
	res, err := explore.Run(ec)
	if err != nil {
		return g, err
	}
	g.Bounded = !res.Complete
	for _, f := range res.All() {
		if f.Path == nil {
			continue
		}
		t, err := Record(ec.Config, SourceExplore, fmt.Sprintf("explorer counterexample of %s, %s", f.Property, describeConfig(ec.Config)), f.Path)
		if err != nil {
			return g, err
		}
		t.Violates = []string{f.Property}
		g.Traces = append(g.Traces, t)
	}
	return g, nil
}

// SimConfig is the simulator's configuration of the runs validated for
// design d: its default faults and rule (send), 2 clients, 2 sections, 2
// retries, so that runs stay a few dozen steps long. A renewing design's
// runs take the arrival rule — DistLock.tla models renewal under it only
// (the send rule gives a renewal a second validity timer) — and the
// untimed world's budget of renewals, so that each run is a run of the
// world.
func SimConfig(d impl.Design) sim.Config {
	c := sim.DefaultConfig()
	c.Design, c.Clients, c.Sections, c.Retries = d, 2, 2, 2
	if d.Renews() {
		c.Validity, c.Renewals = impl.ValidityArrival, impl.UntimedRenewals
	}
	return c
}

// SimRuns records simulator runs of c with their times dropped and their
// order kept (each simulator step must be a step of impl.World: SimPath):
// the runs seeded 1..n, failing and passing alike, then, since few runs
// fail, the next failing ones after n until there are at least failing
// failing runs among them (or 1,000 more seeds per failing run were tried).
// A run that crashes the service more often than the untimed world
// restarts it (ErrRestartsBeyondWorld) is recorded up to that crash, says
// so in its name, and does not count as failing: what it violates may lie
// beyond the part validated.
func SimRuns(c sim.Config, n, failing int) (Group, error) {
	g := Group{Source: SourceSim, Config: c.Config}
	r, err := sim.NewRunner(c)
	if err != nil {
		return g, err
	}
	found := 0
	for seed := 1; seed <= n || (found < failing && seed <= n+1000*failing); seed++ {
		var steps []impl.Action
		res := r.RunObserved(sim.Generate(uint64(seed), c), func(a impl.Action) { steps = append(steps, a) })
		var violates []string
		for _, inv := range impl.Invariants() {
			if res.Violated(inv.Name) {
				violates = append(violates, inv.Name)
			}
		}
		path, perr := SimPath(c.Config, steps)
		cut := errors.Is(perr, ErrRestartsBeyondWorld)
		if cut {
			violates = nil
		}
		if len(violates) > 0 {
			found++
		} else if seed > n {
			continue
		}
		name := fmt.Sprintf("sim seed %d, %s", seed, describeConfig(c.Config))
		switch {
		case cut:
			name += fmt.Sprintf(", validated up to step %d: %v", len(path), perr)
			perr = nil
		case len(violates) > 0:
			name += ", violates " + strings.Join(violates, " and ")
		}
		t, err := Record(c.Config, SourceSim, name, path)
		if err != nil {
			return g, err
		}
		if perr != nil && t.Unmapped == nil {
			t.Unmapped = perr
		}
		t.Violates = violates
		g.Traces = append(g.Traces, t)
	}
	return g, nil
}

// ErrRestartsBeyondWorld marks a simulator run that restarts the service
// more often than impl.World does (impl.UntimedRestarts): the simulator's
// crashes are faults drawn from the seed, the untimed world's restart is
// bounded so that a stuck state stays a deadlock. The run is a run of the
// untimed world (and of the spec) up to that restart only.
var ErrRestartsBeyondWorld = errors.New("the service restarts more often than the untimed world's impl.UntimedRestarts")

// SimPath finds, for each simulator step in turn, the impl.World action
// that is the same step (same node, same input; the backoff's length is
// the simulator's own), and returns their indices. A step with no such
// action ends the path, with an error saying which (wrapping
// ErrRestartsBeyondWorld for a restart past the world's bound).
func SimPath(c impl.Config, steps []impl.Action) ([]int, error) {
	w, err := impl.NewWorld(c)
	if err != nil {
		return nil, err
	}
	var path []int
	for k, a := range steps {
		found := -1
		for i := range w.Actions() {
			b := w.Action(i)
			if b.Node == a.Node && b.Input.Kind == a.Input.Kind && b.Input.Msg == a.Input.Msg && b.Input.Timer == a.Input.Timer {
				found = i
				break
			}
		}
		if found < 0 && a.Input.Kind == impl.InputRestart && w.Restarts >= impl.UntimedRestarts {
			return path, fmt.Errorf("simulator step %d, restart %d: %w", k+1, w.Restarts+1, ErrRestartsBeyondWorld)
		}
		if found < 0 {
			return path, fmt.Errorf("simulator step %d (%s) is no step of the untimed world", k+1, describe(a))
		}
		w.Apply(found)
		path = append(path, found)
	}
	return path, nil
}

func describeConfig(c impl.Config) string {
	return fmt.Sprintf("%s, %d clients, %d sections, %d retries, validity %s", c.Design, c.Clients, c.Sections, c.Retries, c.Validity)
}
