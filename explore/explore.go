// Package explore is fencelab's exhaustive explorer: a model checker of the
// Go reference implementation (package impl), in the manner of TLC.
//
// It searches breadth first over every interleaving of what can happen in
// the asynchronous model of DESIGN.md, the untimed world impl.World defines
// once for every runtime without a clock: an idle client starts, a message
// in flight is delivered (messages form a multiset: the network reorders
// but neither loses nor duplicates), or a pending timer fires — any timer,
// at any moment, so a lease can expire while its grant is still in flight.
// A global state is a World's canonical encoding; the explorer stores its
// 64-bit fingerprint in a sharded open-addressing table (8 bytes a slot),
// the way it was first reached as a 5-byte record of a trace file on disk
// (the parent's index and the action), and keeps only two breadth-first
// levels, as encodings: the one being expanded, which gives its chunks
// back as it goes, and the one being built. Past a memory bound the
// fingerprints go on in a sorted file and the levels in files, as TLC's
// do, and the search goes on. Workers expand disjoint runs of a level; one merge, in
// frontier order, inserts the successors, so the figures, verdicts and
// traces are those of a sequential search for any number of workers.
//
// Every invariant of impl.Invariants is checked in every state until it is
// found violated; the search goes on past violations, so one run gives
// every invariant its own verdict (package verdict's vocabulary, keyed by
// the invariant's name): it holds over the whole state space, or it is
// violated and the explorer returns the shortest trace to a first
// violating state beside the verdict. A state with no successor in which some client has not
// finished is a deadlock. Traces are rebuilt by replaying the shortest
// path from the initial state through trace/steptrace, so they come out in
// the shared trace type.
//
// The search itself (Search) works on any Model; Run applies it to the
// reference implementation.
package explore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/trace"
	"github.com/fencelab/fencelab/trace/steptrace"
	"github.com/fencelab/fencelab/verdict"
)

// Deadlock is the name under which the deadlock check reports its verdict.
const Deadlock = "Deadlock"

// Bounds of a Config.
const (
	MinClients = 2
	MaxClients = 4
)

// Config is one model of the reference implementation: the shared system
// configuration plus the explorer's own knobs. The untimed model ignores
// the durations — any pending timer may fire at any moment — except that a
// positive LockDelay turns the service's lock-delay on; DefaultConfig sets
// nominal ones so that the shared Validate accepts the model.
type Config struct {
	impl.Config
	// Invariants names the invariants to check; empty means every
	// invariant of impl.Invariants. One that does not apply to Design
	// (TokenIsMonotonical without tokens) is reported NotApplicable.
	Invariants []string
	// Symmetry stores one state per class of states that differ only by
	// the clients' names, as TLC's SYMMETRY does: far fewer states (up to
	// clients! times), the same verdicts and the same shortest traces.
	Symmetry bool
	// MaxStates bounds the search (0: no bound).
	MaxStates int
	// MaxMemory bounds the bytes of the process (0: no bound): the
	// search keeps its own structures within nine tenths of it (the rest
	// is left to the Go runtime) and holds the rest on disk
	// (Options.MaxMemory).
	MaxMemory int
	// TempDir is where the search makes its folder for the files it
	// keeps on disk (empty: os.TempDir()); the folder is removed when Run
	// returns.
	TempDir string `json:"-"`
	// Context, if set, interrupts the search when done (Options.Context).
	Context context.Context `json:"-"`
	// First stops the search at the first violation of any checked
	// invariant (still a shortest counterexample); the properties it did
	// not settle are Unknown, which is never a success (the CLI exits 1).
	// With no violation to stop at the search is complete and what holds
	// Holds: one invariant asked for alone (Invariants) gets the full
	// search's verdict.
	First bool
	// SleepSets prunes transitions by partial-order reduction (sleep sets
	// over impl.Commute, see Commuter): the same states, verdicts and
	// shortest-trace lengths, fewer successors computed (Generated); a
	// trace may be another shortest one.
	SleepSets bool
	// Workers is the number of goroutines of the search (0: one per CPU).
	// It changes nothing in the Result but Elapsed.
	Workers int `json:"-"`
	// Progress, if set, hears about each breadth-first level and each
	// chunk of a long one (see Options).
	Progress func(depth, distinct, queued int) `json:"-"`
}

// DefaultConfig is the model of DESIGN.md's table, as in the specs: one
// critical section per client, one retry after a rejection, and the
// client's validity window started by the grant's arrival (DefaultValidity).
func DefaultConfig(d impl.Design, clients int) Config {
	return Config{Config: UntimedConfig(impl.Config{Design: d, Clients: clients, Sections: 1, Retries: DefaultRetries(d), Validity: DefaultValidityOf(d), Nodes: Nodes(d, 0, false)})}
}

// DefaultRetries is the explorer's retries per section for design d: one,
// or none in the Redlock rows, whose every attempt is N acquires, N
// answers and N releases in flight: with one retry their state space is 18
// times larger (2 clients, 3 nodes, the arrival rule: 7.4 million states
// instead of 420,541; the send rule, their default, doubles both)
// and the verdicts and shortest counterexamples the same.
func DefaultRetries(d impl.Design) int {
	if d.Redlock() {
		return 0
	}
	return 1
}

// DefaultValidity is the untimed model's validity rule: the arrival rule,
// the client's validity timer set when the grant lands (as in the specs,
// whose validity timer may end a belief at any moment and whose clients believe
// every grant that lands).
// In the asynchronous model any timer may fire at any moment, so the send
// rule's validity timer need not fire before a late grant lands: every
// arrival-rule run is a send-rule run too, and the send rule adds only
// runs in which a client gives a grant back — it prevents no violation,
// and the verdicts and shortest traces are the same under both rules
// (TestPinnedFigures2ClientsSendRule). What it adds is states: the timer pending
// while acquiring and the retries after late grants multiply them (2
// clients: 3,716 → 52,541 without fencing; 3 clients with symmetry:
// 75,272 → 6,537,206 with fencing all), which would put the 3-client
// models out of the demo's reach. The send rule is what protects a timed
// run; the simulator, whose default it is, checks it.
const DefaultValidity = impl.ValidityArrival

// DefaultValidityOf is the explorer's validity rule for design d: the send
// rule in the Redlock rows, whose client decides on its last answer
// whether its window is still open (a majority that lands after the
// window closed is given back, Redlock's rule), so that the "window still
// open" half of the rule is a step of the model (the rows' TLC models use
// it too: Validity "send"); about twice the states (2 clients, 3 nodes,
// no retry). DefaultValidity for every other row.
func DefaultValidityOf(d impl.Design) impl.ValidityRule {
	if d.Redlock() {
		return impl.ValiditySend
	}
	return DefaultValidity
}

// UntimedConfig returns c with nominal durations where it has none, so that
// a model given by its counts alone passes the shared Validate: the
// untimed model does not read them.
// DefaultNodes is the explorer's number of lock nodes for the Redlock
// rows: three, the smallest N where a majority is not every node. The
// majority argument is the same for any N: two majorities share a node,
// and what breaks Redlock is one shared node forgetting a key (a restart)
// or letting it go early (its clock) — so N = 3 reaches every kind of
// state N = 5 has, with far fewer interleavings (DESIGN.md).
const DefaultNodes = 3

// Nodes is the lock nodes (impl.Config.Nodes) for design d when the user
// asked for n (--nodes; 0: the default): DefaultNodes for a Redlock row.
// In a run of several designs (every) n applies to the Redlock rows only,
// the others keep their one service; asked of one other design, n stays,
// for Validate to refuse.
func Nodes(d impl.Design, n int, several bool) int {
	switch {
	case !d.Redlock() && several:
		return 0
	case d.Redlock() && n == 0:
		return DefaultNodes
	}
	return n
}

func UntimedConfig(c impl.Config) impl.Config {
	if c.TTL == 0 {
		c.TTL, c.Margin, c.Think = 10*time.Second, time.Second, time.Second
	}
	return c
}

// Validate reports the first thing wrong with c as one line for a user:
// the shared bounds first (impl.Config.Validate), then the explorer's.
func (c Config) Validate() error {
	if err := c.Config.Validate(); err != nil {
		return err
	}
	switch {
	case c.Clients < MinClients || c.Clients > MaxClients:
		return fmt.Errorf("clients must be between %d and %d for the explorer, got %d", MinClients, MaxClients, c.Clients)
	case c.MaxStates < 0:
		return fmt.Errorf("max-states must not be negative, got %d", c.MaxStates)
	case c.MaxMemory < 0:
		return fmt.Errorf("max-memory must not be negative, got %d", c.MaxMemory)
	case c.Workers < 0:
		return fmt.Errorf("workers must not be negative, got %d", c.Workers)
	}
	for _, name := range c.Invariants {
		if _, err := impl.LookupInvariant(name); err != nil {
			return err
		}
	}
	return nil
}

// model is the Model of c, without invariants.
func (c Config) model() *sysModel { return c.modelStepping(nil) }

// modelStepping is the Model of c with each action taken by step (nil:
// impl.World.Apply).
func (c Config) modelStepping(step Stepper) *sysModel {
	m := &sysModel{cfg: c.Config, step: step}
	if c.Symmetry {
		m.sym = newSymmetry(m)
	}
	return m
}

// Describe summarises c on one line.
func (c Config) Describe() string {
	delay := "no lock-delay"
	if c.ServiceLockDelay() > 0 {
		delay = "lock-delay"
	}
	if c.Validity != DefaultValidityOf(c.Design) {
		delay += ", validity from the " + c.Validity.String()
	}
	sym := ""
	if c.Symmetry {
		sym = ", client symmetry"
	}
	if c.SleepSets {
		sym += ", sleep sets"
	}
	return fmt.Sprintf("%s, %d clients, %s each, %s, %s%s", c.Design.Describe(), c.Clients,
		plural(c.Sections, "section"), plural(c.Retries, "retry"), delay, sym)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if strings.HasSuffix(word, "y") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(word, "y"))
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// Finding is the explorer's verdict on one property — Holds over the whole
// state space, Violated, NotApplicable, NotChecked (left out of
// Config.Invariants) or Unknown (the search stopped early at MaxStates) —
// with, beside it, the shortest counterexample when it is Violated.
type Finding struct {
	verdict.Verdict
	// Trace is the shortest counterexample when Status is Violated: its
	// first step is the initial state and its last the first violating
	// state reached.
	Trace *trace.Trace
	// Path is the action indices of the counterexample, for tests.
	Path []int
}

// Steps is the number of actions in the counterexample (the trace has one
// step more: the initial state).
func (f Finding) Steps() int { return len(f.Path) }

// Result is what a run found.
type Result struct {
	Config Config
	// Distinct, Generated, Depth and Complete are Search's figures.
	Distinct, Generated, Depth int
	Complete                   bool
	// Stopped says why an incomplete search stopped.
	Stopped Stop
	Elapsed time.Duration
	// Findings has one entry per invariant of impl.Checked (the table's,
	// then the client-side NoActionPastValidity), in that order, including
	// the ones not applicable or not checked.
	Findings []Finding
	// Deadlock is the deadlock check's finding: Holds when no reachable
	// state is stuck with an unfinished client.
	Deadlock Finding
	// Witnesses has one entry per goal of the design, in GoalNames order: the
	// "sometimes" properties that keep a holds from being vacuous. When a
	// complete search did not reach one, every finding that would hold is
	// Unknown instead ("vacuous: … not reached").
	Witnesses []Witness
	// TableBytes, LinkBytes and FrontierBytes are the memory of the
	// fingerprint table, of the parent links and the peak memory of the
	// two breadth-first levels (see Outcome); PeakBytes the most the search
	// held at once. DiskBytes, Flushes and Collision are Search's
	// (Outcome).
	TableBytes, LinkBytes, FrontierBytes, PeakBytes int
	DiskBytes, Flushes                              int
	Collision                                       float64
	// Asymmetry, when not empty, says why a search asked for with symmetry
	// was done without it: the system is not symmetric in its clients (a
	// shortest path among the representatives has no concrete
	// counterpart). Config.Symmetry is then false.
	Asymmetry string
	// stateSum is Outcome.stateSum: the same states reached, the same sum.
	stateSum uint64
}

// All lists the findings on every property, the deadlock check last.
func (r *Result) All() []Finding {
	return append(append([]Finding(nil), r.Findings...), r.Deadlock)
}

// Verdict returns the finding on the named property (an invariant or
// Deadlock).
func (r *Result) Verdict(property string) (Finding, bool) {
	for _, f := range r.All() {
		if f.Property == property {
			return f, true
		}
	}
	return Finding{}, false
}

// Verdicts is the run's verdicts keyed by property, the deadlock check
// last.
func (r *Result) Verdicts() verdict.Set {
	var s verdict.Set
	for _, f := range r.All() {
		s = append(s, f.Verdict)
	}
	return s
}

// Run explores the model c describes. Its figures other than Elapsed, its
// verdicts and its traces are the same on every run.
func Run(c Config) (*Result, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return run(c, nil)
}

// run is Run with each action taken by step (nil: impl.World.Apply). Under
// symmetry, a system whose shortest path has no concrete counterpart (a
// step of the representatives no renamed step matches: the system is not
// symmetric in its clients, as a broken one may not be) is searched again
// without symmetry, which is then unsound for it, and the result says so.
func run(c Config, step Stepper) (*Result, error) {
	res, err := runOnce(c, step)
	var asym *AsymmetryError
	if c.Symmetry && errors.As(err, &asym) {
		c.Symmetry = false
		if res, err = runOnce(c, step); err != nil {
			return nil, err
		}
		res.Asymmetry = asym.Error()
	}
	return res, err
}

// runOnce is one search of c and the findings it gives.
func runOnce(c Config, step Stepper) (*Result, error) {
	selected := func(name string) bool {
		if len(c.Invariants) == 0 {
			return true
		}
		for _, n := range c.Invariants {
			if n == name {
				return true
			}
		}
		return false
	}
	m := c.modelStepping(step)
	res := &Result{Config: c}
	for _, inv := range impl.Checked() {
		f := Finding{Verdict: verdict.Verdict{Property: inv.Name}}
		switch {
		case !inv.AppliesTo(c.Design):
			f.Status = verdict.NotApplicable
		case !selected(inv.Name):
			f.Status = verdict.NotChecked
		default:
			m.invs = append(m.invs, inv)
		}
		res.Findings = append(res.Findings, f)
	}

	m.goals = goals(c.Design)

	start := time.Now()
	out, err := Search(m, Options{MaxStates: c.MaxStates, MaxMemory: c.MaxMemory / 10 * 9, TempDir: c.TempDir, Context: c.Context, First: c.First, Goals: len(m.goals), Workers: c.Workers, SleepSets: c.SleepSets, Progress: c.Progress})
	res.Elapsed = time.Since(start)
	var asym *AsymmetryError
	if errors.As(err, &asym) && c.Symmetry {
		return nil, err // run searches again without symmetry
	}
	if err != nil {
		return nil, fmt.Errorf("explore %s: %w", c.Describe(), err)
	}
	res.Distinct, res.Generated, res.Depth, res.Complete, res.Stopped = out.Distinct, out.Generated, out.Depth, out.Complete, out.Stopped
	res.TableBytes, res.LinkBytes, res.FrontierBytes, res.PeakBytes = out.TableBytes, out.LinkBytes, out.FrontierBytes, out.PeakBytes
	res.DiskBytes, res.Flushes, res.Collision = out.DiskBytes, out.Flushes, out.Collision
	res.stateSum = out.stateSum

	find := func(name string, found *Found) (Finding, error) {
		f := Finding{Verdict: verdict.Verdict{Property: name, Covered: verdict.Thousands(out.Distinct) + " states"}}
		switch {
		case found != nil:
			f.Status, f.Path, f.Shortest = verdict.Violated, found.Path, len(found.Path)
			tr, err := replay(m, c, name, found.Path)
			if err != nil {
				return f, err
			}
			f.Trace = tr
		case out.Complete:
			f.Status = verdict.Holds
		default:
			f.Status = verdict.Unknown
			f.Detail = out.Stopped.why()
		}
		return f, nil
	}
	for k, inv := range m.invs {
		for i := range res.Findings {
			if res.Findings[i].Property == inv.Name {
				if res.Findings[i], err = find(inv.Name, out.Violations[k]); err != nil {
					return nil, err
				}
			}
		}
	}
	if res.Deadlock, err = find(Deadlock, out.Deadlock); err != nil {
		return nil, err
	}
	for k, g := range m.goals {
		w := Witness{Goal: g.Name, What: g.What, Complete: out.Complete, Unreachable: g.Unreachable(c.Design)}
		if found := out.Violations[len(m.invs)+k]; found != nil {
			if err := checkWitness(m, g, found.Path); err != nil {
				return nil, err
			}
			w.Reached, w.Shortest, w.Path = true, len(found.Path), found.Path
		}
		res.Witnesses = append(res.Witnesses, w)
	}
	// A holds without its witnesses is vacuous: it says only that nothing
	// happened.
	if missing := res.Unreached(); missing != "" {
		for _, f := range append(pointersTo(res.Findings), &res.Deadlock) {
			if f.Status == verdict.Holds {
				f.Status, f.Detail = verdict.Unknown, "vacuous: "+missing+" not reached"
			}
		}
	}
	return res, nil
}

// pointersTo points at each finding of fs.
func pointersTo(fs []Finding) []*Finding {
	ps := make([]*Finding, len(fs))
	for i := range fs {
		ps[i] = &fs[i]
	}
	return ps
}

// why says, for a verdict left Unknown, why the search stopped.
func (s Stop) why() string {
	switch s {
	case StoppedAtFirst:
		return "the search stopped at the first violation (--first)"
	}
	return "the search stopped early, at the state limit"
}

// Bytes prints a size in bytes with a binary unit: 512 MiB, 3.5 GiB.
func Bytes(n int) string {
	switch {
	case n >= 1<<30:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<30)), ".0") + " GiB"
	case n >= 1<<20:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<20)), ".0") + " MiB"
	case n >= 1<<10:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<10)), ".0") + " KiB"
	}
	return fmt.Sprintf("%d B", n)
}

// replay walks path from the initial state through a steptrace.Recorder
// and names the property broken in the last state. It fails if that state
// does not break it: the trace would then be a lie.
func replay(m *sysModel, c Config, property string, path []int) (*trace.Trace, error) {
	s := m.New()
	title := fmt.Sprintf("%s violated — %s (explorer, shortest trace)", property, c.Describe())
	if property == Deadlock {
		title = fmt.Sprintf("Deadlock — %s (explorer, shortest trace)", c.Describe())
	}
	rec := steptrace.New(title, trace.SourceExplorer, s.Sys, false)
	for _, i := range path {
		a, out := m.apply(s, i)
		rec.Step(a.Node, a.Input, 0, s.Sys, out)
	}
	var breach *impl.Breach
	if property == Deadlock {
		if m.Actions(s) != 0 || s.Sys.AllDone() {
			return nil, fmt.Errorf("replayed deadlock trace ends in a state that is not deadlocked: %s", s.Sys)
		}
		breach = &impl.Breach{Explanation: "no step is possible, yet " + unfinished(s.Sys) + " not finished"}
		for i := range s.Sys.Clients {
			if !s.Sys.Clients[i].Done() {
				breach.Involved = append(breach.Involved, s.Sys.Clients[i].ID())
			}
		}
	} else {
		inv, err := impl.LookupInvariant(property)
		if err != nil {
			return nil, err
		}
		if breach = inv.Breach(s.Sys, s); breach == nil {
			return nil, fmt.Errorf("replayed %s trace ends in a state that satisfies it: %s", property, s.Sys)
		}
	}
	rec.Violate(property, breach)
	return rec.Trace(), nil
}

func unfinished(sys *impl.System) string {
	var names []string
	for i := range sys.Clients {
		if !sys.Clients[i].Done() {
			names = append(names, sys.Clients[i].ID().String())
		}
	}
	verb := " has"
	if len(names) > 1 {
		verb = " have"
	}
	return strings.Join(names, " and ") + verb
}
