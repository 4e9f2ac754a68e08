// Package conform checks Go runs against the TLA+ specs (trace
// validation, Go → TLA+): a run of impl.World — a seeded random walk, an
// explorer counterexample, a simulator run — is recorded as the sequence
// of its steps, each with the spec action it maps to and the spec state
// after it, and TLC accepts the trace if and only if some behaviour of
// the spec produces it (specs/TraceDistLock.tla, specs/TraceDistLockFencing.tla).
//
// Two things live here and nowhere else, for trace validation and for the
// replay of TLC counterexamples in Go (TLA+ → Go):
//
//   - the abstraction function (Abstract): impl.World's state written as
//     the spec's variables, field by field;
//   - the action mapping (SpecAction, Mapping): which spec action, of
//     which process, each impl.World step is. The specs step like
//     impl.World — one spec step is one node handling one input — so the
//     mapping is one to one; DESIGN.md's table "Spec actions and the Go
//     steps they stand for" is the same table in prose.
//
// Traces become a generated TLA+ module (TLC 1.7.4 has no Json module),
// many traces per module and per TLC run (Validate), so that the JVM
// starts once for hundreds of traces.
package conform

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fencelab/fencelab/impl"
)

// Designs are the designs DistLock.tla and DistLockFencing.tla model, the
// designs whose runs are checked against a spec: no tokens, tokens the
// resource checks not at all, on writes or on every operation, and the
// sequencer the resource checks with the service (Check "sequencer"); and
// no tokens with renewal (DistLock.tla's Renewals). The matrix's other
// rows have specs of their own (DESIGN.md, "Where the specs depart from
// Go"), which do not step like impl.World.
func Designs() []impl.Design {
	return []impl.Design{impl.DesignNoFencing, impl.DesignFenceNone, impl.DesignFenceWrites, impl.DesignFenceAll, impl.DesignSequencer, impl.DesignRenewal}
}

// Spec names the spec a design's runs are checked against: DistLock.tla
// without tokens, DistLockFencing.tla with.
func Spec(d impl.Design) string {
	if d.Tokens() {
		return "DistLockFencing"
	}
	return "DistLock"
}

// State is one state of the spec, as TLA+ source text per variable, in
// the order Vars lists them. Values are strings so that a generated
// module, a test and a report print them the same way.
type State map[string]string

// Vars lists the spec's variables that a trace pins, in module order.
// DistLock.tla has neither max_token nor token, nor the resource's queue
// of Check "sequencer"; it alone has the renewal's renewals and renewed.
func Vars(d impl.Design) []string {
	v := []string{"distLock", "network", "timers", "lock_held", "lease", "counter", "max_token", "ops",
		"pc", "retries", "late", "token", "read_val", "committed", "aborted", "renewals", "renewed", "last_lease", "queue"}
	drop := []string{"renewals", "renewed"}
	if !d.Tokens() {
		drop = []string{"max_token", "token", "queue"}
	}
	return slices.DeleteFunc(v, func(s string) bool { return slices.Contains(drop, s) })
}

// Record renders s as a TLA+ record, one field per variable.
func (s State) Record(d impl.Design) string {
	var b strings.Builder
	b.WriteString("[")
	for i, v := range Vars(d) {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s |-> %s", v, s[v])
	}
	b.WriteString("]")
	return b.String()
}

// Abstract is the abstraction function: w's state, for a world of design d,
// as the variables of d's spec.
// Node names are strings ("c1", "service", "resource", "none" for
// nobody), as the trace modules bind the specs' constants. It fails when
// w holds something the spec cannot: a lock-delay outside the sequencer
// row (the other untimed designs' specs have none; in that row the pending
// lock-delay timer is Go's Delayed), or two equal messages in flight (the
// spec's network is a set).
func Abstract(w *impl.World, d impl.Design) (State, error) {
	if !slices.Contains(Designs(), d) {
		return nil, fmt.Errorf("design %s: its spec does not step like impl.World (conform.Designs lists those that do)", d)
	}
	sys := w.Sys
	if sys.Service.Lock().Delayed && !d.LockDelay() {
		return nil, fmt.Errorf("the lock-delay is running: the untimed specs have no lock-delay")
	}
	for i := 1; i < len(w.InFlight); i++ {
		if w.InFlight[i] == w.InFlight[i-1] {
			return nil, fmt.Errorf("two equal messages %s in flight: the spec's network is a set", w.InFlight[i])
		}
	}
	for _, t := range w.Timers {
		switch {
		case t.Timer.Kind == impl.TimerLockDelay && !d.LockDelay():
			return nil, fmt.Errorf("a lock-delay timer is pending: the untimed specs have no lock-delay")
		case t.Timer.Kind == impl.TimerRenewalValidity:
			return nil, fmt.Errorf("a renewal's validity timer is pending (send rule): DistLock.tla models renewal under the arrival rule only")
		}
	}
	s := State{}
	l := sys.Service.Lock()
	holder := `"none"`
	status := l.Status.String()
	if l.Status == impl.Acquired {
		holder = node(l.Holder)
	}
	if d.Tokens() {
		tok := uint64(0)
		if l.Status == impl.Acquired {
			tok = l.Lease // the service's token is its lease number
		}
		s["distLock"] = fmt.Sprintf(`[status |-> %q, id |-> %s, lease |-> %d, token |-> %d]`, status, holder, l.Lease, tok)
	} else {
		s["distLock"] = fmt.Sprintf(`[status |-> %q, id |-> %s, lease |-> %d]`, status, holder, l.Lease)
	}
	s["last_lease"] = strconv.FormatUint(l.LastLease, 10)

	msgs := make([]string, len(w.InFlight))
	for i, m := range w.InFlight {
		msgs[i] = message(m)
	}
	s["network"] = set(msgs)
	ts := make([]string, len(w.Timers))
	for i, t := range w.Timers {
		ts[i] = fmt.Sprintf(`[node |-> %s, kind |-> %q]`, node(t.Node), t.Timer.Kind.String())
	}
	s["timers"] = set(ts)

	r := &sys.Resource
	s["counter"] = strconv.FormatInt(r.Counter(), 10)
	if d.Tokens() {
		s["max_token"] = strconv.FormatUint(r.MaxToken(), 10)
	}
	ops := make([]string, len(r.Log()))
	for i, op := range r.Log() {
		if d.Tokens() {
			// The spec's ghost lease of an operation is the grant it was
			// sent under; Go's service makes a grant's token its lease
			// number, so the token is that lease.
			ops[i] = fmt.Sprintf(`[op |-> %q, id |-> %s, token |-> %d, ok |-> %s, value |-> %d, lease |-> %d]`,
				op.Kind.String(), node(op.Client), op.Token, boolean(op.Accepted), op.Value, op.Token)
		} else {
			ops[i] = fmt.Sprintf(`[op |-> %q, id |-> %s, token |-> %d, ok |-> %s, value |-> %d]`,
				op.Kind.String(), node(op.Client), op.Token, boolean(op.Accepted), op.Value)
		}
	}
	s["ops"] = "<<" + strings.Join(ops, ", ") + ">>"
	if d.Tokens() {
		// The operations queued at a sequencer-checking resource, as the
		// messages that brought them (empty in every other design).
		queued := make([]string, len(r.Queued()))
		for i, op := range r.Queued() {
			m := impl.Message{Kind: impl.MsgRead, From: op.Client, To: impl.ResourceNode, Token: op.Token}
			if op.Kind == impl.OpWrite {
				m.Kind, m.Value = impl.MsgWrite, op.Value
			}
			queued[i] = message(m)
		}
		s["queue"] = "<<" + strings.Join(queued, ", ") + ">>"
	}

	perClient := func(f func(c *impl.Client) string) string {
		fields := make([]string, len(sys.Clients))
		for i := range sys.Clients {
			fields[i] = fmt.Sprintf("%s |-> %s", sys.Clients[i].ID(), f(&sys.Clients[i]))
		}
		return "[" + strings.Join(fields, ", ") + "]"
	}
	s["lock_held"] = perClient(func(c *impl.Client) string { return boolean(c.Holds()) })
	s["lease"] = perClient(func(c *impl.Client) string { return strconv.FormatUint(c.Lease(), 10) })
	if d.Tokens() {
		s["token"] = perClient(func(c *impl.Client) string { return strconv.FormatUint(c.Token(), 10) })
	}
	s["retries"] = perClient(func(c *impl.Client) string { return strconv.Itoa(c.Retries()) })
	s["late"] = perClient(func(c *impl.Client) string { return boolean(c.Late()) })
	s["read_val"] = perClient(func(c *impl.Client) string { return strconv.FormatInt(c.Read(), 10) })
	s["committed"] = perClient(func(c *impl.Client) string { return strconv.Itoa(c.Committed()) })
	s["aborted"] = perClient(func(c *impl.Client) string { return strconv.Itoa(c.Aborted()) })
	if !d.Tokens() {
		s["renewals"] = perClient(func(c *impl.Client) string { return strconv.Itoa(c.Renewals()) })
		s["renewed"] = perClient(func(c *impl.Client) string { return boolean(c.Extended()) })
	}

	pcs := make([]string, 0, len(sys.Clients)+2)
	for i := range sys.Clients {
		c := &sys.Clients[i]
		pcs = append(pcs, fmt.Sprintf("%s |-> %q", c.ID(), PhaseLabel(c.Phase())))
	}
	pcs = append(pcs, fmt.Sprintf("service |-> %q", ServiceLabel), fmt.Sprintf("resource |-> %q", ResourceLabel))
	s["pc"] = "[" + strings.Join(pcs, ", ") + "]"
	return s, nil
}

// message renders m with every field of impl.Message, as the specs' Msg.
func message(m impl.Message) string {
	return fmt.Sprintf(`[type |-> %q, from |-> %s, to |-> %s, lease |-> %d, token |-> %d, value |-> %d, ok |-> %s]`,
		msgType(m.Kind), node(m.From), node(m.To), m.Lease, m.Token, m.Value, boolean(m.OK))
}

func msgType(k impl.MsgKind) string {
	switch k {
	case impl.MsgAcquire:
		return "acquire"
	case impl.MsgRelease:
		return "release"
	case impl.MsgGrant:
		return "grant"
	case impl.MsgReject:
		return "reject"
	case impl.MsgRead:
		return "read"
	case impl.MsgReadReply:
		return "read_reply"
	case impl.MsgWrite:
		return "write"
	case impl.MsgWriteReply:
		return "write_reply"
	case impl.MsgCheck:
		return "check"
	case impl.MsgCheckReply:
		return "check_reply"
	case impl.MsgRenew:
		return "renew"
	case impl.MsgRenewed:
		return "renewed"
	}
	return fmt.Sprintf("kind%d", uint8(k))
}

func node(n impl.NodeID) string { return strconv.Quote(n.String()) }

func boolean(b bool) string {
	if b {
		return "TRUE"
	}
	return "FALSE"
}

// set renders a TLA+ set of rendered values; the order is irrelevant to
// TLC, sorting keeps the text deterministic.
func set(elems []string) string {
	elems = slices.Clone(elems)
	slices.Sort(elems)
	return "{" + strings.Join(elems, ", ") + "}"
}
