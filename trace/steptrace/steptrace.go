// Package steptrace builds a trace.Trace from the steps a runtime takes
// over an impl.System, so that the explorer and the simulator tell their
// counterexamples the same way TLC's are told: which node acted, on what,
// which state elements changed, the messages as arrows and the expiries,
// rejections and faults as notes.
package steptrace

import (
	"fmt"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/trace"
)

// Recorder accumulates a trace. Recording costs allocations, so runtimes
// record only the runs they report: a counterexample is replayed through a
// Recorder after it has been found.
type Recorder struct {
	tr   trace.Trace
	prev []trace.Var
	// pending are arrows sent but not yet received, in send order, with the
	// message each stands for; a delivery matches the oldest equal one.
	pending []pendingArrow
}

type pendingArrow struct {
	msg   impl.Message
	arrow int // index in tr.Arrows
}

// New starts a trace whose step 1 is the initial state sys.
func New(title string, source trace.Source, sys *impl.System, timed bool) *Recorder {
	r := &Recorder{tr: trace.Trace{Title: title, Source: source, Lanes: sys.Lanes(), Timed: timed}}
	r.prev = vars(sys)
	r.tr.Steps = append(r.tr.Steps, trace.Step{Number: 1, Action: "Init", Changes: trace.Diff(nil, r.prev)})
	return r
}

// Step records that node handled in at virtual time at (ignored when the
// trace is untimed), leaving sys in its new state and wanting out.
func (r *Recorder) Step(node impl.NodeID, in impl.Input, at time.Duration, sys *impl.System, out *impl.Effects) {
	number := len(r.tr.Steps) + 1
	if in.Kind == impl.InputMessage {
		r.receive(in.Msg, number)
	}
	next := vars(sys)
	step := trace.Step{Number: number, Actor: node.String(), Action: Action(in), Changes: trace.Diff(r.prev, next)}
	if r.tr.Timed {
		step.At = at
	}
	r.tr.Steps = append(r.tr.Steps, step)
	r.prev = next
	for _, m := range out.Send {
		r.pending = append(r.pending, pendingArrow{msg: m, arrow: len(r.tr.Arrows)})
		r.tr.Arrows = append(r.tr.Arrows, trace.Arrow{From: m.From.String(), To: m.To.String(), Sent: number, Label: m.String()})
	}
	for _, ev := range out.Events {
		if kind, ok := noteKind(ev.Kind); ok {
			r.Note(ev.Node.String(), kind, ev.String())
		}
	}
}

// Fault records an injected fault — a pause, a resume, a clock step — as a
// step of its own on lane at virtual time at (ignored when the trace is
// untimed): no actor handled anything and no variable changed, but a reader
// of a timeline must see when the fault struck relative to the steps
// around it. text is the fault's note.
func (r *Recorder) Fault(lane string, at time.Duration, action, text string) {
	step := trace.Step{Number: len(r.tr.Steps) + 1, Actor: lane, Action: action}
	if r.tr.Timed {
		step.At = at
	}
	r.tr.Steps = append(r.tr.Steps, step)
	r.Note(lane, trace.NoteFault, text)
}

// Note marks something on a lane at the latest step, such as an injected
// fault.
func (r *Recorder) Note(lane string, kind trace.NoteKind, text string) {
	r.tr.Notes = append(r.tr.Notes, trace.Note{Lane: lane, Step: len(r.tr.Steps), Kind: kind, Text: text})
}

// Violate names the property broken at the latest step.
func (r *Recorder) Violate(property string, b *impl.Breach) {
	v := &trace.Violation{Property: property, Step: len(r.tr.Steps), Explanation: b.Explanation}
	for _, n := range b.Involved {
		v.Involved = append(v.Involved, n.String())
	}
	r.tr.Violation = v
	for _, lane := range v.Involved {
		r.Note(lane, trace.NoteViolation, property)
	}
}

// Trace returns the trace recorded so far.
func (r *Recorder) Trace() *trace.Trace { return &r.tr }

func (r *Recorder) receive(m impl.Message, step int) {
	for i, p := range r.pending {
		if p.msg == m {
			r.tr.Arrows[p.arrow].Received = step
			r.pending = append(r.pending[:i], r.pending[i+1:]...)
			return
		}
	}
}

// Action names what a node handled, as a trace's action column shows it.
func Action(in impl.Input) string {
	switch in.Kind {
	case impl.InputStart:
		return "start"
	case impl.InputMessage:
		return fmt.Sprintf("recv %s from %s", in.Msg, in.Msg.From)
	case impl.InputTimer:
		return fmt.Sprintf("%s timer fired", in.Timer.Kind)
	case impl.InputRestart:
		return "restart after a crash"
	}
	return fmt.Sprintf("input %d", in.Kind)
}

// noteKind picks the events worth marking in a sequence picture: the ones
// that explain a counterexample.
func noteKind(k impl.EventKind) (trace.NoteKind, bool) {
	switch k {
	case impl.EvExpired, impl.EvLeaseLost, impl.EvGrantLate, impl.EvRenewalRefused:
		return trace.NoteExpiry, true
	case impl.EvRejected, impl.EvOpRejected, impl.EvReleaseRefused, impl.EvSequencerStale, impl.EvRenewRefused:
		return trace.NoteRejection, true
	case impl.EvSectionAborted, impl.EvGaveUp, impl.EvOpChecked:
		return trace.NoteInfo, true
	case impl.EvRestarted, impl.EvKeyLost:
		return trace.NoteFault, true
	}
	return "", false
}

// vars flattens the actors' state for trace.Diff, one element per path, so
// a step shows exactly the elements that changed. It lives here, not in
// impl, so that the actors import no renderer. Elements that mean nothing
// in the current state (a holder of a free lock, the value read before
// any read) are left out rather than shown as zeros.
func vars(s *impl.System) []trace.Var {
	var vs []trace.Var
	add := func(path string, v any) { vs = append(vs, trace.Var{Path: path, Value: fmt.Sprint(v)}) }
	for k := range s.NumLockNodes() {
		n := s.LockNode(k)
		p := impl.LockNode(k).String()
		l := n.Lock()
		add(p+".lock.status", l.Status)
		if l.Status == impl.Acquired || l.Status == impl.Persisting {
			add(p+".lock.holder", l.Holder)
			add(p+".lock.lease", impl.FormatLease(l.Lease))
		}
		if n.CountsLeases() {
			add(p+".lock.lastLease", l.LastLease)
		}
		if l.Revision != 0 {
			add(p+".revision", l.Revision)
		}
		if l.Persisted != 0 {
			add(p+".lock.persisted", l.Persisted)
		}
		if l.Delayed {
			add(p+".lock.delayed", true)
		}
	}
	for i := range s.Clients {
		c := &s.Clients[i]
		p := c.ID().String()
		add(p+".phase", c.Phase())
		add(p+".holds", c.Holds())
		if c.Lease() != 0 {
			add(p+".lease", impl.FormatLease(c.Lease()))
		}
		if c.Token() != 0 {
			add(p+".token", impl.FormatLease(c.Token()))
		}
		if a, g := c.Answers(); a != 0 {
			add(p+".answers", fmt.Sprintf("%d, %d granted", a, g))
		}
		if c.Phase() == impl.Thinking || c.Phase() == impl.Writing {
			add(p+".read", c.Read())
		}
		add(p+".sections", fmt.Sprintf("%d committed, %d aborted", c.Committed(), c.Aborted()))
	}
	r := &s.Resource
	add("resource.counter", r.Counter())
	switch r.Mode() {
	case impl.FenceNone, impl.FenceSequencer:
		// No token of its own: a sequencer-checking resource asks the service.
	case impl.FenceCAS:
		add("resource.token", impl.FormatLease(r.MaxToken()))
	case impl.FenceVersion:
		add("resource.version", r.MaxToken())
	default:
		add("resource.maxToken", r.MaxToken())
	}
	for i, op := range r.Log() {
		verdict := "accepted"
		if !op.Accepted {
			verdict = "rejected"
		}
		add(fmt.Sprintf("resource.log[%d]", i+1), fmt.Sprintf("%s %s", op, verdict))
	}
	for i, op := range r.Pending() {
		add(fmt.Sprintf("resource.pending[%d]", i+1), fmt.Sprintf("%s checked, not applied", op))
	}
	for i, op := range r.Queued() {
		state := "waits its turn"
		if i == 0 {
			state = "its sequencer asked about"
		}
		add(fmt.Sprintf("resource.queued[%d]", i+1), fmt.Sprintf("%s %s", op.Kind, state))
	}
	return vs
}
