package sim

import (
	"fmt"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/words"
	"github.com/fencelab/fencelab/linearizability"
	"github.com/fencelab/fencelab/trace"
	"github.com/fencelab/fencelab/trace/steptrace"
	"github.com/fencelab/fencelab/verdict"
)

// Property indices, in impl.Checked() order (the table's invariants, then
// the client-side ones), for the hot loop only: everything sim exports
// names a property by its name.
const (
	propAtMostOne  = iota // impl.AtMostOneClientHoldLock
	propToken             // impl.TokenIsMonotonical
	propLostUpdate        // impl.NoLostUpdate
	propUnique            // impl.TokensAreUnique
	propIncrease          // impl.TokensIncreaseInGrantOrder
	propValidity          // impl.NoActionPastValidity
	numProps
)

// propIndex is the index of the named property, -1 if sim checks no such
// property.
func propIndex(property string) int {
	for p, inv := range impl.Checked() {
		if inv.Name == property {
			return p
		}
	}
	return -1
}

// propName is the name of property p.
func propName(p int) string { return impl.Checked()[p].Name }

// Violation is where a run first broke a property.
type Violation struct {
	Step        int           // the run's step (inputs handled, from 1) after which it failed; 0: it held
	At          time.Duration // virtual time of that step
	Explanation string
	// Involved are the nodes the violation is about (impl.Breach's): the
	// clients that believed at once, or whose writes collided.
	Involved []impl.NodeID
}

// Result is the outcome of one run.
type Result struct {
	Seed       uint64
	Design     impl.Design
	violations [numProps]Violation
	// Stall says why the run counts as a liveness failure: it made no
	// progress for too long, or ran out of events or steps with clients
	// unfinished. Empty when every client finished.
	Stall     string
	Steps     int           // inputs handled by nodes
	End       time.Duration // virtual time when the run ended
	Counter   int64         // the resource's counter at the end
	Committed int           // sections whose write took effect
	Aborted   int           // sections that ended without effect, given-up ones included
	Fenced    int           // operations the resource rejected for a stale token
	// Witnessed is whether the run's last state reaches the goal of
	// VacuityWitness (some section committed): a goal that only grows
	// along a run, so the last state reaches it if any state did.
	Witnessed bool
	// Extended counts the renewals whose grant extended a client's belief
	// (renewing designs; impl.EvBeliefExtended): the witness that a run
	// renewed at all.
	Extended int
	// The Porcupine verdicts on the run's history (filled by Check;
	// verdict.NotChecked until then): the sections against an atomic
	// counter (linearizability.SectionsLinearizable), the operations
	// against the fenced register of the design's mode
	// (linearizability.RegisterLinearizable).
	Sections, Register verdict.Verdict
}

// Violated reports whether the named property failed in the run.
func (r *Result) Violated(property string) bool {
	v, ok := r.Violation(property)
	return ok && v.Step > 0
}

// Violation is where the run first broke the named property; ok is false
// if it did not.
func (r *Result) Violation(property string) (v Violation, ok bool) {
	if p := propIndex(property); p >= 0 && r.violations[p].Step > 0 {
		return r.violations[p], true
	}
	return Violation{}, false
}

// Verdicts is the run's verdict on every property of impl.Invariants,
// then the Porcupine checks of its history. A violation's Shortest is not
// measured (0): a run is not a shortest counterexample, and its trace,
// which numbers faults as steps too, says at which step it failed.
func (r *Result) Verdicts() verdict.Set {
	var s verdict.Set
	for p, inv := range impl.Checked() {
		v := verdict.Verdict{Property: inv.Name, Status: verdict.Holds, Runs: 1}
		switch {
		case !inv.AppliesTo(r.Design):
			v.Status = verdict.NotApplicable
		case r.violations[p].Step > 0:
			v.Status, v.Violating = verdict.Violated, 1
			v.Detail = r.violations[p].Explanation
		}
		s = append(s, v)
	}
	return append(s, r.Sections, r.Register)
}

// timerKinds bounds impl.TimerKind values, so a node's timers are an array.
const timerKinds = int(impl.TimerPersist) + 1 // the last kind

// timerSlot is one pending timer of a node. At most one is pending per
// impl.Timer; setting it again replaces it, and its queued firing with it
// (queue.setTimer).
type timerSlot struct {
	deadline int64 // in the node's local time
	pending  bool
}

// Runner runs simulations of one configuration, one at a time, reusing
// its buffers from run to run; use one Runner per goroutine.
type Runner struct {
	cfg     Config
	invs    []impl.Property
	witness impl.Property // VacuityWitness
	applies [numProps]bool
	stall   time.Duration

	sys *impl.System
	// initial is the configuration's initial state, and fresh the system
	// each run of Run starts as a copy of it: a run reuses the memory of
	// the one before (the resource's log above all) instead of building
	// and growing a new System.
	initial, fresh *impl.System
	// redlock is the design's Redlock(), read at every delivery.
	redlock bool
	// index is Config.index of every NodeID, looked up on every send and
	// timer.
	index  [256]uint8
	q      queue
	nodes  []faultState
	calm   calm        // when no node's faults need looking at
	timers []timerSlot // node × timerKinds
	links  []int64     // last arrival per link from×to, for FIFO
	eff    impl.Effects
	draws  draws // streams: one per link (from×to), then one per client's backoffs
	hist   recorder
	// history is whether a run records its history: true but while
	// Shrink runs its candidates, which no checker reads (withoutHistory).
	history bool
	// checker judges the histories (Check); a batch's worker shares one
	// among its runners, so that a seed's runs of several designs can
	// share a judgement of equal histories.
	checker *linearizability.Checker

	sched        *Schedule
	res          Result
	now          int64
	lastProgress int64
	finished     int
	// What checkFast has read of the resource's log, which only grows:
	// its first logRead operations, the token of the last accepted one
	// among them (tokenRead: there is one) and the accepted writes.
	logRead   int
	lastToken uint64
	tokenRead bool
	writes    int64
	// tokens follows the tokens in use for checkTokens.
	tokens impl.TokenWatch

	// Set only while recording a run for people (Record): the trace, its
	// target property and the annotations for Porcupine's picture.
	rec      *steptrace.Recorder
	target   int
	recorded bool // the trace is complete: record no more steps
	// stale is the client whose stale operation the trace goes on to
	// show after the target's violation (the older of two holders), -1
	// when there is none to wait for.
	stale   int
	decided bool // the resource has decided on the stale holder's operation
	anns    []linearizability.Annotation

	// checkEvery makes Run check every invariant after every step, as
	// Record does; tests use it to show that checkFast is equivalent.
	checkEvery bool
	// viaCarryOut makes step carry out effects through
	// impl.Effects.CarryOut; TestCarryOutOrder uses it to show that step's
	// own loops keep its order.
	viaCarryOut bool
	// observe, set only by RunObserved, hears every step's node and input.
	observe func(impl.Action)
}

// NewRunner returns a Runner for c.
func NewRunner(c Config) (*Runner, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	c = c.Bounds()
	initial, err := impl.NewSystem(c.Config)
	if err != nil {
		return nil, err
	}
	r := &Runner{cfg: c, invs: impl.Checked(), checker: linearizability.NewChecker(), initial: initial, redlock: c.Design.Redlock(), history: true}
	if len(r.invs) != numProps {
		return nil, fmt.Errorf("sim knows %d properties, impl has %d", numProps, len(r.invs))
	}
	if r.witness, _ = impl.LookupProperty(VacuityWitness); r.witness.SystemGoal == nil {
		return nil, fmt.Errorf("impl has no witness %s about the actors' states", VacuityWitness)
	}
	for i, inv := range r.invs {
		r.applies[i] = inv.AppliesTo(c.Design)
	}
	n := c.NumNodes()
	for i := range n {
		r.index[c.nodeAt(i)] = uint8(i) // n ≤ 256: a NodeID is a byte
	}
	r.nodes = make([]faultState, n)
	r.timers = make([]timerSlot, n*timerKinds)
	r.links = make([]int64, n*n)
	return r, nil
}

// Config is the runner's configuration, with its fault bounds filled in.
func (r *Runner) Config() Config { return r.cfg }

// History is what the last run recorded. It is overwritten by the next
// run; Shrink's runs record none (it reads their verdicts alone), so after
// Shrink it is empty until the next run.
func (r *Runner) History() *History { return &r.hist.h }

// withoutHistory turns off the history of r's runs until the returned
// function turns it back on: for runs whose history no checker reads.
func (r *Runner) withoutHistory() (restore func()) {
	r.history = false
	return func() { r.history = true }
}

// Run simulates one run of schedule s (and its seed). Invariants are
// checked only after the steps that can change what they read (see
// checkFast), which is equivalent to checking them after every step.
func (r *Runner) Run(s *Schedule) Result {
	r.rec = nil
	r.run(s)
	return r.res
}

// Record simulates the run of s again, recording it for people: a trace
// of every step up to the first violation of the property named target
// and on until the resource's decision on the stale operation is visible
// (see recordPast; "" or a property the run does not violate records the
// whole run), with the faults and lease expiries marked, and the
// annotations for Porcupine's picture. Every invariant is checked after
// every step.
func (r *Runner) Record(s *Schedule, title, target string) (Result, *trace.Trace, []linearizability.Annotation) {
	r.anns = nil
	r.target, r.recorded, r.stale, r.decided = propIndex(target), false, -1, false
	sys, err := impl.NewSystem(r.cfg.Config)
	if err != nil {
		panic(err) // validated in NewRunner
	}
	r.rec = steptrace.New(title, trace.SourceSimulator, sys, true)
	for _, f := range s.Faults {
		if f.Kind == FaultDrift {
			// Short: the lane names the node, and five of these share a row.
			r.rec.Note(f.Node.String(), trace.NoteFault, "clock "+rate(f.PPM))
		}
	}
	r.runOn(sys, s)
	rec := r.rec
	r.rec = nil
	return r.res, rec.Trace(), r.anns
}

// RunObserved is Run with visit called with the node and input of every
// step, in order, before the node handles it: the run with its times
// dropped and its order kept, for package conform's trace validation.
func (r *Runner) RunObserved(s *Schedule, visit func(impl.Action)) Result {
	r.observe = visit
	defer func() { r.observe = nil }()
	return r.Run(s)
}

func (r *Runner) run(s *Schedule) {
	if r.fresh == nil {
		r.fresh = r.initial.Clone()
	} else {
		r.fresh.CopyFrom(r.initial)
	}
	r.runOn(r.fresh, s)
}

func (r *Runner) reset(sys *impl.System, s *Schedule) {
	r.sys, r.sched = sys, s
	r.res = Result{Seed: s.Seed, Design: r.cfg.Design}
	r.now, r.lastProgress, r.finished = 0, 0, 0
	r.logRead, r.lastToken, r.tokenRead, r.writes = 0, 0, false, 0
	r.tokens.Reset(sys)
	r.stall = stallBound(r.cfg, s)
	r.q.reset(len(r.timers))
	for i := range r.nodes {
		r.nodes[i].reset(r.cfg.nodeAt(i), s)
	}
	r.calm.reset(r.nodes)
	clear(r.timers)
	clear(r.links)
	r.draws.reset(s.Seed, len(r.links)+r.cfg.Clients)
	r.hist.reset(r.cfg.Clients)
}

// runOn is the event loop: pop the earliest event, let its node handle it
// (or hold it while the node is paused), turn the node's effects into
// future events, check the invariants, and stop when every client has
// finished or the run stalls.
func (r *Runner) runOn(sys *impl.System, s *Schedule) {
	r.reset(sys, s)
	for i := range r.cfg.Clients {
		r.q.push(event{kind: evStart, node: impl.ClientNode(i)})
	}
	for i, f := range s.Faults {
		switch f.Kind {
		case FaultPause, FaultCrash:
			r.q.pushFixed(event{at: int64(f.At), kind: evFault, node: f.Node, fault: int32(i)})
			r.q.pushFixed(event{at: satAdd(int64(f.At), int64(f.Duration)), kind: evResume, node: f.Node, fault: int32(i)})
		case FaultJump:
			r.q.pushFixed(event{at: int64(f.At), kind: evFault, node: f.Node, fault: int32(i)})
		}
	}
	r.q.sortFixed()
	stallAfter := int64(r.stall)
	for r.finished < r.cfg.Clients {
		if r.q.len() == 0 {
			// A queue that kept stale timer firings would still hold the
			// ones after the last event (queue.staleLeft): popped in turn,
			// each would move the time on, or find the run stalled — as
			// soon as the latest would, the time being all they are.
			at, stale := r.q.staleLeft()
			switch {
			case stale && r.res.Steps >= r.cfg.MaxSteps:
				r.res.Stall = fmt.Sprintf("%s without every client finishing", words.Count(r.res.Steps, "step"))
			case stale && at-r.lastProgress > stallAfter:
				r.now = satAdd(r.lastProgress, stallAfter)
				r.res.Stall = fmt.Sprintf("no progress for %v (since %v)", r.stall, time.Duration(r.lastProgress))
			default:
				if stale {
					r.now = at
				}
				r.res.Stall = fmt.Sprintf("no events left at %v with %d of %s unfinished", time.Duration(r.now), r.cfg.Clients-r.finished, words.Count(r.cfg.Clients, "client"))
			}
			break
		}
		if r.res.Steps >= r.cfg.MaxSteps {
			r.res.Stall = fmt.Sprintf("%s without every client finishing", words.Count(r.res.Steps, "step"))
			break
		}
		e, timer := r.q.pop()
		if e.at-r.lastProgress > stallAfter {
			r.now = satAdd(r.lastProgress, stallAfter)
			r.res.Stall = fmt.Sprintf("no progress for %v (since %v)", r.stall, time.Duration(r.lastProgress))
			break
		}
		r.now = e.at
		r.calm.advance(r.now)
		if timer >= 0 {
			e.kind, e.node, e.timer = evTimer, r.cfg.nodeAt(timer/timerKinds), impl.TimerKind(timer%timerKinds)
		}
		switch e.kind {
		case evFault:
			r.fault(*e)
			continue
		case evResume:
			r.resume(*e)
			continue
		}
		// A paused node handles nothing: its message or timer waits until
		// it resumes, behind whatever became due before it.
		if r.calm.unpaused(r.now, r.now) {
			r.step(e)
			continue
		}
		if t := r.node(e.node).resumeAt(r.now, r.now); t != r.now {
			if timer >= 0 {
				r.q.setTimer(timer, t)
			} else {
				e.at = t
				r.q.push(*e)
			}
			continue
		}
		r.step(e)
	}
	r.res.End = time.Duration(r.now)
	r.res.Counter = sys.Resource.Counter()
	for i := range sys.Clients {
		r.res.Committed += sys.Clients[i].Committed()
		r.res.Aborted += sys.Clients[i].Aborted()
	}
	r.res.Witnessed = r.witness.SystemGoal(sys)
	r.hist.finish(r.now)
}

// step lets e's node handle e and applies what it wants done.
func (r *Runner) step(e *event) {
	in := impl.Input{}
	switch e.kind {
	case evStart:
		in.Kind = impl.InputStart
	case evDeliver:
		// Not one tuple assignment: that copies the message through a
		// temporary, and reading back a copy just stored stalls.
		in.Kind = impl.InputMessage
		in.Msg = e.msg
		// The backoff is drawn only for the one input that uses it.
		// A Redlock client backs off after its last answer, a grant too.
		if e.node.IsClient() && (e.msg.Kind == impl.MsgReject || r.redlock && e.msg.Kind == impl.MsgGrant) {
			in.Backoff = backoff(&r.cfg, r.draws.next(len(r.links)+e.node.ClientIndex()))
		}
	case evTimer:
		r.timers[r.timerIndex(e.node, e.timer)].pending = false // its firing was popped
		in.Kind, in.Timer = impl.InputTimer, impl.Timer{Kind: e.timer}
	case evResume: // the end of a crash (see resume)
		in.Kind = impl.InputRestart
	}
	n := e.node
	if r.observe != nil {
		r.observe(impl.Action{Node: n, Input: in})
	}
	held := n.IsClient() && r.sys.Clients[n.ClientIndex()].Holds()
	r.eff.Reset()
	r.sys.Step(n, &in, &r.eff)
	r.res.Steps++
	if r.rec != nil && !r.recorded {
		r.rec.Step(n, in, time.Duration(r.now), r.sys, &r.eff)
	}
	if r.history && (in.Msg.Kind == impl.MsgReadReply || in.Msg.Kind == impl.MsgWriteReply) && in.Kind == impl.InputMessage {
		r.hist.input(n, &in, r.now)
	}
	// The events, before the effects are carried out: the history's
	// operations and sections end before the ones the step's sends begin
	// (send); the counts they feed are read only after the step.
	for i := range r.eff.Events {
		r.event(n, &r.eff.Events[i])
	}
	if r.rec != nil && !r.recorded && r.stale >= 0 {
		r.recordPast(n)
	}
	// impl.Effects.CarryOut's order — cancels, then sets, then sends —
	// carried out here without its interface calls: the order decides
	// the sequence numbers, so a run is the one every runtime makes
	// (TestCarryOutOrder holds the two together).
	if r.viaCarryOut {
		r.eff.CarryOut(n, (*runnerEffects)(r))
	} else {
		for _, t := range r.eff.Cancel {
			r.cancelTimer(n, t)
		}
		for _, ts := range r.eff.Set {
			r.setTimer(n, ts)
		}
		for i := range r.eff.Send {
			r.send(n, &r.eff.Send[i])
		}
	}
	if r.rec != nil {
		r.annotateExpiries()
	}
	if r.rec != nil || r.checkEvery {
		r.checkAll()
	} else {
		r.checkFast(n, held)
	}
}

// runnerEffects carries out a step's effects in the simulator as an
// impl.EffectHandler (viaCarryOut); step carries them out itself, in the
// same order.
type runnerEffects Runner

func (e *runnerEffects) Cancel(n impl.NodeID, t impl.Timer) { (*Runner)(e).cancelTimer(n, t) }

func (e *runnerEffects) Set(n impl.NodeID, ts impl.TimerSet) { (*Runner)(e).setTimer(n, ts) }

func (e *runnerEffects) Send(n impl.NodeID, m *impl.Message) { (*Runner)(e).send(n, m) }

// cancelTimer takes n's timer t out, with its queued firing.
func (r *Runner) cancelTimer(n impl.NodeID, t impl.Timer) {
	i := r.timerIndex(n, t.Kind)
	r.timers[i].pending = false
	r.q.cancelTimer(i)
}

// timerIndex is the index of n's timer of kind k in Runner.timers and the
// queue's timer slots.
func (r *Runner) timerIndex(n impl.NodeID, k impl.TimerKind) int {
	return int(r.index[n])*timerKinds + int(k)
}

// node is n's faults and clock.
func (r *Runner) node(n impl.NodeID) *faultState { return &r.nodes[r.index[n]] }

// setTimer arms a timer for After of the node's local time from now; it
// fires at the global time the node's clock reaches that reading.
func (r *Runner) setTimer(n impl.NodeID, ts impl.TimerSet) {
	i := r.timerIndex(n, ts.Kind)
	slot := &r.timers[i]
	deadline, due := r.node(n).clock.timer(r.now, int64(ts.After))
	slot.deadline, slot.pending = deadline, true
	r.q.setTimer(i, max(due, r.now))
}

// send puts m on the wire: it leaves Processing after the step (or when the
// sender resumes, if a pause begins in between), takes the normal latency
// plus any spike due, and on a FIFO link never overtakes the message before.
func (r *Runner) send(from impl.NodeID, m *impl.Message) {
	dep := satAdd(r.now, int64(r.cfg.Processing))
	if !r.calm.unpaused(r.now, dep) {
		dep = r.node(from).resumeAt(r.now, dep)
	}
	link := int(r.index[from])*len(r.nodes) + int(r.index[m.To])
	arr := satAdd(dep, latency(&r.cfg, r.draws.next(link)))
	if dep >= r.calm.spikeAt { // else no node has a spike due
		if d, ok := r.node(from).spike(dep); ok {
			r.calm.spiked(r.nodes)
			arr = satAdd(arr, int64(d))
			if r.rec != nil && !r.recorded {
				text := fmt.Sprintf("%s to %s delayed by %v (spike)", m, m.To, d)
				r.rec.Note(from.String(), trace.NoteFault, text)
				r.annotate(from, dep, arr, text, "spike")
			}
		}
	}
	if !r.cfg.Reorder {
		last := &r.links[link]
		arr = max(arr, *last)
		*last = arr
	}
	e := r.q.add(arr)
	e.kind, e.node = evDeliver, m.To
	e.msg = *m // not in the tuple: see step
	if r.history && (m.Kind == impl.MsgRead || m.Kind == impl.MsgWrite) && from.IsClient() {
		r.hist.sent(from.ClientIndex(), m, r.now)
	}
}

// event notes progress for the stall detector and the run's counts, and
// hands the history what node's step reports.
func (r *Runner) event(n impl.NodeID, ev *impl.Event) {
	switch ev.Kind {
	case impl.EvFinished:
		r.finished++
		r.lastProgress = r.now
	case impl.EvSectionCommitted, impl.EvSectionAborted:
		r.lastProgress = r.now
		if r.history {
			r.hist.event(n, ev, r.now)
		}
	case impl.EvGaveUp:
		r.lastProgress = r.now
	case impl.EvOpRejected:
		r.res.Fenced++
		if r.history {
			r.hist.event(n, ev, r.now)
		}
	case impl.EvOpAccepted:
		if r.history {
			r.hist.event(n, ev, r.now)
		}
	case impl.EvBeliefExtended:
		r.res.Extended++
	}
}

// annotateExpiries marks the step's lease expiries for Porcupine's picture
// (recording only), after the spikes its sends met.
func (r *Runner) annotateExpiries() {
	for i := range r.eff.Events {
		switch ev := &r.eff.Events[i]; ev.Kind {
		case impl.EvExpired:
			r.annotate(ev.Peer, r.now, r.now, fmt.Sprintf("the service expired lease %d of %s", ev.Lease, ev.Peer), "expiry")
		case impl.EvLeaseLost:
			r.annotate(ev.Node, r.now, r.now, fmt.Sprintf("%s's lease %d ran out by its own clock", ev.Node, ev.Lease), "expiry")
		}
	}
}

// fault applies a scheduled fault that is an event: a clock step, or the
// start of a pause (which acts through resumeAt; the event only marks it).
func (r *Runner) fault(e event) {
	f := r.sched.Faults[e.fault]
	fs := r.node(e.node)
	switch f.Kind {
	case FaultJump:
		// Timers are deadlines in local time: after the step each pending
		// one fires when the clock reads its deadline again — sooner after
		// a step forward, later after a step back.
		fs.clock.jump(r.now, int64(f.By))
		for k := 1; k < timerKinds; k++ {
			i := r.timerIndex(e.node, impl.TimerKind(k))
			if r.timers[i].pending {
				r.q.setTimer(i, max(fs.clock.global(r.timers[i].deadline), r.now))
			}
		}
		if r.rec != nil && !r.recorded {
			r.rec.Fault(e.node.String(), time.Duration(r.now), "clock step (fault)", f.String())
		}
		if r.rec != nil {
			r.annotate(e.node, r.now, r.now, f.String(), "clock")
		}
	case FaultPause, FaultCrash:
		action := "paused (fault)"
		if f.Kind == FaultCrash {
			action = "crashed (fault)"
		}
		if r.rec != nil && !r.recorded {
			r.rec.Fault(e.node.String(), time.Duration(r.now), action, f.String())
		}
		if r.rec != nil {
			r.annotate(e.node, r.now, satAdd(int64(f.At), int64(f.Duration)), f.String(), "pause")
		}
	}
}

// resume ends a pause, or a crash: the crashed service restarts, a step
// of its own (impl.InputRestart), before anything that waited for it.
func (r *Runner) resume(e event) {
	f := r.sched.Faults[e.fault]
	if f.Kind == FaultCrash {
		r.step(&e)
		return
	}
	if r.rec != nil && !r.recorded {
		r.rec.Fault(e.node.String(), time.Duration(r.now), "resumed", fmt.Sprintf("%s's pause of %v ends", f.Node, f.Duration))
	}
}

func (r *Runner) annotate(n impl.NodeID, start, end int64, text, tag string) {
	client := -1
	if n.IsClient() {
		client = n.ClientIndex()
	}
	r.anns = append(r.anns, linearizability.Annotation{Client: client, Start: start, End: end, Text: text, Tag: tag})
}

// checkFast checks, after a step of node n, exactly the invariants that
// step can have broken, which is equivalent to checking all of them after
// every step (TestFastChecksAreEquivalent compares the two):
//   - AtMostOneClientHoldLock reads only the clients' beliefs (Holds), and
//     a state where it holds can only become one where it fails by some
//     client starting to believe — a client step after which that client
//     holds and did not before (held);
//   - TokenIsMonotonical and NoLostUpdate read only the resource (its log
//     and counter), which only a resource step changes;
//   - TokensAreUnique and TokensIncreaseInGrantOrder read the tokens in use
//     (the clients' grants, the service's, the accepted operations') and
//     the service's next token: a service step (a grant, a restart), a
//     client starting to use a grant, or a resource step changes them.
//   - NoActionPastValidity reads a client's belief and its validity
//     timers, which only that client's steps change (its timer fires as
//     its step, and only it sets or cancels its timers).
//
// A property already violated in the run is not checked again: the run's
// result keeps its first violation.
func (r *Runner) checkFast(n impl.NodeID, held bool) {
	switch {
	case n == impl.ResourceNode:
		r.checkResource()
		r.checkTokens(n)
	case n.IsLockNode():
		r.checkTokens(n)
	case n.IsClient():
		c := &r.sys.Clients[n.ClientIndex()]
		if !held && c.Holds() {
			r.check(propAtMostOne)
		}
		if r.tokens.GrantChanged(r.sys, n.ClientIndex()) {
			r.checkTokens(n)
		}
		if c.Holds() && c.PastValidity(r) {
			r.check(propValidity)
		}
	}
}

// checkTokens checks the service-side token properties after a step of
// node n. Both read every token in use, the accepted operations' too:
// impl.TokenWatch reads only what the step changed and says when one may
// be broken, and the property's own check decides and explains.
func (r *Runner) checkTokens(n impl.NodeID) {
	if !r.applies[propUnique] && !r.applies[propIncrease] {
		return
	}
	unique, increase := r.tokens.Stepped(r.sys, n)
	if unique {
		r.check(propUnique)
	}
	if increase {
		r.check(propIncrease)
	}
}

// Pending reports whether node n's timer of kind k is pending in the run's
// queue (impl.TimerView, for NoActionPastValidity).
func (r *Runner) Pending(n impl.NodeID, k impl.TimerKind) bool {
	return r.timers[r.timerIndex(n, k)].pending
}

// checkResource checks the resource's properties after its step. Each
// reads the whole log (impl.Invariants), which grows by an operation per
// resource step: checked after every one, a run's checks would read the
// log quadratically often. Both held before this step (or are already
// violated and not checked again), so only the operations the step
// appended can break them, and only as the full check sees it: an accepted
// token below the one accepted before it (TokenIsMonotonical), an accepted
// write that is not the next count, or a counter that is not the count of
// accepted writes (NoLostUpdate). Those are read here, and the property's
// own check decides — and explains — whenever one is seen.
func (r *Runner) checkResource() {
	log := r.sys.Resource.Log()
	tokenBack, countOff := false, false
	for i := r.logRead; i < len(log); i++ {
		op := &log[i]
		if !op.Accepted {
			continue
		}
		if r.tokenRead && op.Token < r.lastToken {
			tokenBack = true
		}
		r.lastToken, r.tokenRead = op.Token, true
		if op.Kind == impl.OpWrite {
			r.writes++
			if op.Value != r.writes {
				countOff = true
			}
		}
	}
	r.logRead = len(log)
	if r.sys.Resource.Counter() != r.writes {
		countOff = true
	}
	if tokenBack {
		r.check(propToken)
	}
	if countOff {
		r.check(propLostUpdate)
	}
}

func (r *Runner) checkAll() {
	for p := range numProps {
		r.check(p)
	}
}

func (r *Runner) check(p int) {
	if !r.applies[p] || r.res.violations[p].Step > 0 {
		return
	}
	b := r.invs[p].Breach(r.sys, r)
	if b == nil {
		return
	}
	r.res.violations[p] = Violation{Step: r.res.Steps, At: time.Duration(r.now), Explanation: b.Explanation, Involved: b.Involved}
	if r.rec == nil || r.recorded {
		return
	}
	if p == r.target {
		r.rec.Violate(r.invs[p].Name, b)
		r.stale = r.staleHolder(b)
		r.recorded = r.stale < 0
		return
	}
	for _, n := range b.Involved {
		r.rec.Note(n.String(), trace.NoteViolation, fmt.Sprintf("%s violated: %s", r.invs[p].Name, b.Explanation))
	}
}

// staleHolder is the client whose next operation the trace of a violation
// of AtMostOneClientHoldLock goes on to show: of the clients that believe
// they hold the lock, the one with the oldest lease. The other properties
// are broken by the resource's decision itself (it accepted a stale
// operation), so the trace stops there: -1.
func (r *Runner) staleHolder(b *impl.Breach) int {
	if r.target != propAtMostOne {
		return -1
	}
	stale, lease := -1, uint64(0)
	for _, n := range b.Involved {
		if !n.IsClient() {
			continue
		}
		c := &r.sys.Clients[n.ClientIndex()]
		if stale < 0 || c.Lease() < lease {
			stale, lease = n.ClientIndex(), c.Lease()
		}
	}
	return stale
}

// recordPast ends the trace of a violation of AtMostOneClientHoldLock once
// what it led to is visible: the resource has decided on an operation of
// the stale holder — accepted it (the damage) or rejected it (fencing at
// work) — and the stale holder has learned the answer; or the stale holder
// has let its section go without one (it asks for the lock again, gives
// up or finishes). A run that ends first ends the trace.
func (r *Runner) recordPast(n impl.NodeID) {
	stale := impl.ClientNode(r.stale)
	for i := range r.eff.Events {
		ev := &r.eff.Events[i]
		switch {
		case n == impl.ResourceNode && (ev.Kind == impl.EvOpAccepted || ev.Kind == impl.EvOpRejected) && ev.Peer == stale:
			r.decided = true
		case n == stale && (ev.Kind == impl.EvFinished || ev.Kind == impl.EvGaveUp || ev.Kind == impl.EvSectionAborted):
			r.recorded = true
		}
	}
	if n == stale && r.decided {
		r.recorded = true // its step after the decision: the answer arrived
	}
	if n == stale {
		for i := range r.eff.Send {
			if r.eff.Send[i].Kind == impl.MsgAcquire {
				r.recorded = true
			}
		}
	}
}
