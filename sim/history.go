package sim

import (
	"slices"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/linearizability"
)

// History is what a run recorded for the Porcupine checks: every resource
// operation as its client saw it and every critical section. Times are
// virtual nanoseconds.
type History struct {
	Ops      []linearizability.ResourceOp
	Sections []linearizability.Section
}

// recorder builds a History from the steps of a run. A client has at most
// one operation and one section open at a time (impl's client reads, then
// writes, and starts the next section only after the last one ended).
type recorder struct {
	h           History
	openOp      []int // per client: index in h.Ops of the operation awaiting its reply, or -1
	openSection []int // per client: index in h.Sections, or -1
	// handled is when the resource handled the client's open operation,
	// whether it accepted it and the value it read, for an operation whose
	// reply never arrived (a run cut short as a stall).
	handled  []int64
	accepted []bool
	read     []int64
}

func (r *recorder) reset(clients int) {
	r.h.Ops, r.h.Sections = r.h.Ops[:0], r.h.Sections[:0]
	r.openOp = resize(r.openOp, clients, -1)
	r.openSection = resize(r.openSection, clients, -1)
	r.handled = resize(r.handled, clients, -1)
	r.accepted = resize(r.accepted, clients, false)
	r.read = resize(r.read, clients, 0)
}

func resize[T any](s []T, n int, v T) []T {
	s = s[:0]
	for range n {
		s = append(s, v)
	}
	return s
}

// The recorder hears a step in three parts, where the runner already
// looks at what the step did: input before anything else (a reply ends
// its client's operation), event for each event the step reports (the
// resource's decisions, a section's end), sent for each message it sends
// (a read or a write begins an operation; a read, a section) — in that
// order, the order of the step's own logic.

// input records the end of client node's operation that in answers.
func (r *recorder) input(node impl.NodeID, in *impl.Input, now int64) {
	if !node.IsClient() || in.Kind != impl.InputMessage {
		return
	}
	c := node.ClientIndex()
	if m := &in.Msg; (m.Kind == impl.MsgReadReply || m.Kind == impl.MsgWriteReply) && r.openOp[c] >= 0 {
		op := &r.h.Ops[r.openOp[c]]
		op.Return, op.Accepted = now, m.OK
		if op.Kind == impl.OpRead && m.OK {
			op.Value = m.Value
			if s := r.openSection[c]; s >= 0 {
				r.h.Sections[s].Read = m.Value
			}
		}
		r.openOp[c], r.handled[c] = -1, -1
	}
}

// event records what ev, reported by node's step at now, means for the
// history: the resource handled a client's operation, or a client's
// section ended.
func (r *recorder) event(node impl.NodeID, ev *impl.Event, now int64) {
	switch ev.Kind {
	case impl.EvOpAccepted, impl.EvOpRejected:
		if node == impl.ResourceNode {
			c := ev.Peer.ClientIndex()
			r.handled[c], r.accepted[c], r.read[c] = now, ev.Kind == impl.EvOpAccepted, ev.Op.Value
		}
	case impl.EvSectionCommitted, impl.EvSectionAborted:
		if !node.IsClient() {
			return
		}
		c := node.ClientIndex()
		if s := r.openSection[c]; s >= 0 {
			r.h.Sections[s].Return = now
			r.h.Sections[s].Committed = ev.Kind == impl.EvSectionCommitted
			r.openSection[c] = -1
		}
	}
}

// sent records the operation (and, for a read, the section) that client
// c's message m begins at now.
func (r *recorder) sent(c int, m *impl.Message, now int64) {
	switch m.Kind {
	case impl.MsgRead:
		r.openOp[c] = len(r.h.Ops)
		r.op(c, impl.OpRead, m, now)
		r.openSection[c] = len(r.h.Sections)
		// Filled in place, as in op.
		r.h.Sections = append(r.h.Sections, linearizability.Section{})
		s := &r.h.Sections[len(r.h.Sections)-1]
		s.Client, s.Token, s.Call, s.Return = c, m.Token, now, now
	case impl.MsgWrite:
		r.openOp[c] = len(r.h.Ops)
		r.op(c, impl.OpWrite, m, now)
		r.h.Ops[len(r.h.Ops)-1].Value = m.Value
	}
}

// op appends the operation of kind k that client c's message m begins at
// now, filled in place: a struct literal appended is built in a temporary
// and copied in 16-byte pieces that read back the narrower stores which
// just wrote it, and such a read waits for them to reach the cache.
func (r *recorder) op(c int, k impl.OpKind, m *impl.Message, now int64) {
	r.h.Ops = append(r.h.Ops, linearizability.ResourceOp{})
	op := &r.h.Ops[len(r.h.Ops)-1]
	op.Client, op.Kind, op.Token, op.Call, op.Return = c, k, m.Token, now, now
}

// finish closes what a run cut short left open: an operation the resource
// handled returns when it did (where it took effect), with the outcome the
// resource gave it — an accepted read the value the resource read, not the
// zero its call began with, which a register holding another value makes
// an illegal history; one it never saw, and every open section, returns at
// the end of the run. A section whose write the resource accepted counts as
// committed, as its client would have learned; any other open section had
// no effect.
//
// An operation the resource never saw took no effect and its outcome is
// unknown: it is left out.
func (r *recorder) finish(end int64) {
	unseen := false
	for c, i := range r.openOp {
		if i < 0 {
			continue
		}
		op := &r.h.Ops[i]
		if r.handled[c] < 0 {
			op.Client, unseen = -1, true // dropped below
			continue
		}
		op.Return, op.Accepted = r.handled[c], r.accepted[c]
		s := r.openSection[c]
		switch {
		case op.Kind == impl.OpRead && op.Accepted:
			op.Value = r.read[c]
			if s >= 0 {
				r.h.Sections[s].Read = op.Value
			}
		case op.Kind == impl.OpWrite && op.Accepted && s >= 0:
			r.h.Sections[s].Committed = true
		}
	}
	for _, s := range r.openSection {
		if s >= 0 {
			r.h.Sections[s].Return = end
		}
	}
	if unseen {
		r.h.Ops = slices.DeleteFunc(r.h.Ops, func(op linearizability.ResourceOp) bool { return op.Client < 0 })
	}
}
