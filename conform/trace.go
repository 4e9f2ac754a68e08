package conform

import (
	"fmt"

	"github.com/fencelab/fencelab/distlockspec"
	"github.com/fencelab/fencelab/impl"
)

// Line is one line of a trace: the Go step (zero for the initial state),
// the spec action it maps to, and the spec state after it.
type Line struct {
	Go     impl.Action
	Action distlockspec.Action
	State  distlockspec.State
}

// Trace is one Go run as its spec sees it: every line's action and state.
// Path replays it on a fresh impl.World of Config (the renderer of a
// rejection does that).
type Trace struct {
	Name   string
	Source string // "walk", "explore", "sim"
	Config impl.Config
	Path   []int
	Lines  []Line
	// Unmapped is set when the abstraction failed at line len(Lines): the
	// Go state there has no spec state (see distlockspec.Abstract), so the trace is
	// rejected without TLC.
	Unmapped error
	// LeaseLost and Expired say whether the run took a belief-loss path:
	// a client's validity timer ended its belief (the spec's LoseLease),
	// the service expired a lease.
	LeaseLost, Expired bool
	// Violates names the properties the run broke (explorer
	// counterexamples, failing simulator runs).
	Violates []string
}

// Steps is the number of Go steps in the trace.
func (t *Trace) Steps() int { return len(t.Path) }

// Record replays path (impl.World action indices) from the initial world
// of c and records every step. An index out of range is an error (the
// path is not a run of c).
func Record(c impl.Config, source, name string, path []int) (*Trace, error) {
	k := 0
	next := func(w *impl.World) (int, error) {
		i := path[k]
		if i < 0 || i >= w.Actions() {
			return 0, fmt.Errorf("step %d: action %d of %d: the path is not a run of this configuration", k+1, i, w.Actions())
		}
		k++
		return i, nil
	}
	t, err := record(c, source, name, len(path), next, (*impl.World).Apply)
	if err == nil && t.Unmapped == nil && len(t.Path) < len(path) {
		return nil, fmt.Errorf("step %d: no action is enabled: the path is not a run of this configuration", len(t.Path)+1)
	}
	return t, err
}

// record records up to steps steps, each chosen by next and taken by
// apply: the tests' seam for mutant actors (a mutant applies the step,
// then breaks what it did). It stops early when no action is enabled.
func record(c impl.Config, source, name string, steps int, next func(*impl.World) (int, error),
	apply func(*impl.World, int) (impl.Action, *impl.Effects)) (*Trace, error) {
	w, err := impl.NewWorld(c)
	if err != nil {
		return nil, err
	}
	t := &Trace{Name: name, Source: source, Config: c}
	s, err := distlockspec.Abstract(w, c.Design)
	if err != nil {
		t.Unmapped = err
		return t, nil
	}
	t.Lines = append(t.Lines, Line{State: s})
	for k := range steps {
		if w.Actions() == 0 {
			break
		}
		i, err := next(w)
		if err != nil {
			return nil, err
		}
		act := distlockspec.SpecAction(w, w.Action(i))
		a, out := apply(w, i)
		for _, ev := range out.Events {
			t.LeaseLost = t.LeaseLost || ev.Kind == impl.EvLeaseLost
			t.Expired = t.Expired || ev.Kind == impl.EvExpired
		}
		t.Path = append(t.Path, i)
		s, err := distlockspec.Abstract(w, c.Design)
		if err != nil {
			t.Unmapped = fmt.Errorf("after step %d (%s): %w", k+1, describe(a), err)
			return t, nil
		}
		t.Lines = append(t.Lines, Line{Go: a, Action: act, State: s})
	}
	return t, nil
}

// Walk is a seeded random walk of the world of c, as impl.World.Walk with
// impl.SeededChooser(seed) takes it, up to maxSteps steps (it stops early
// when every client has finished and nothing is left to do).
func Walk(c impl.Config, seed uint64, maxSteps int) ([]int, error) {
	w, err := impl.NewWorld(c)
	if err != nil {
		return nil, err
	}
	choose := impl.SeededChooser(seed)
	var path []int
	for range maxSteps {
		n := w.Actions()
		if n == 0 {
			break
		}
		i := choose(n)
		w.Apply(i)
		path = append(path, i)
	}
	return path, nil
}

// describe names a Go step for people: "c1 handles Grant(lease 1, token 1)".
func describe(a impl.Action) string {
	switch a.Input.Kind {
	case impl.InputStart:
		return a.Node.String() + " starts"
	case impl.InputMessage:
		return fmt.Sprintf("%s handles %s from %s", a.Node, a.Input.Msg, a.Input.Msg.From)
	case impl.InputTimer:
		return fmt.Sprintf("%s's %s timer fires", a.Node, a.Input.Timer.Kind)
	case impl.InputRestart:
		return a.Node.String() + " crashes and restarts"
	}
	return a.Node.String() + " (no input)"
}
