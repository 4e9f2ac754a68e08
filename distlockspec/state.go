package distlockspec

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fencelab/fencelab/impl"
)

// Designs are the designs whose runs are checked against a spec: every
// row of the matrix. DistLock.tla models the rows without tokens (off, and
// renewal with its Renewals), DistLockFencing.tla every other row with one
// lock service, each selected by its constants (SpecConstants), and
// DistLockRedlock.tla the Redlock rows (N lock nodes; its Fencing).
func Designs() []impl.Design { return impl.Designs() }

// Spec names the spec a design's runs are checked against: DistLockRedlock.tla
// for the Redlock rows, else DistLock.tla without tokens, DistLockFencing.tla
// with.
func Spec(d impl.Design) string {
	if d.Redlock() {
		return redlockSpec
	}
	if d.Tokens() {
		return "DistLockFencing"
	}
	return "DistLock"
}

// Constants are the constants of DistLockFencing.tla that select a row of
// the matrix (the rest — clients, sections, retries, the validity rule —
// are the configuration's).
type Constants struct {
	Check          string // the resource's check: none, writes, all, cas, version, sequencer, snapshot
	TokenRule      string // lease, unique or revision (pairs and down are mutants no design has)
	ServiceRestart string // never, volatile or durable
	NonAtomic      bool   // the resource checks a write and applies it later
}

// SpecConstants is how DistLockFencing.tla's constants select design d,
// which must have tokens: the one place that ties a row of impl/designs.go
// to the spec's constants (the trace runs' cfg writes them, ModelConfig
// reads a model's design back from them).
func SpecConstants(d impl.Design) Constants {
	c := Constants{Check: d.Mode().String(), TokenRule: "lease", ServiceRestart: "never", NonAtomic: d.NonAtomic()}
	if d.SnapshotFence() {
		c.Check = "snapshot" // all's fence, read in a transaction's snapshot
	}
	switch {
	case d.UniqueTokens():
		c.TokenRule = "unique"
	case d.Revision():
		c.TokenRule = "revision"
	}
	switch d.Restart() {
	case impl.RestartVolatile:
		c.ServiceRestart = "volatile"
	case impl.RestartDurable:
		c.ServiceRestart = "durable"
	}
	return c
}

// DesignOf is the design whose SpecConstants are k; false if none is.
func DesignOf(k Constants) (impl.Design, bool) {
	for _, d := range impl.Designs() {
		if d.Tokens() && !d.Redlock() && SpecConstants(d) == k {
			return d, true
		}
	}
	return 0, false
}

// uniqueTokenLeases is how many leases DistLockFencing.tla's table
// UniqueTokens covers.
const uniqueTokenLeases = 16

// UniqueTokenRanks is DistLockFencing.tla's UniqueTokens: the rank of Go's
// token impl.Scramble(l) among those of leases 1..16, for l = 1..16. TLC's
// integers are 32-bit; the ranks keep every equality and every order of
// Go's 64-bit tokens.
func UniqueTokenRanks() []uint64 {
	tokens := make([]uint64, uniqueTokenLeases)
	for i := range tokens {
		tokens[i] = impl.Scramble(uint64(i + 1))
	}
	sorted := slices.Clone(tokens)
	slices.Sort(sorted)
	ranks := make([]uint64, len(tokens))
	for i, t := range tokens {
		k, _ := slices.BinarySearch(sorted, t)
		ranks[i] = uint64(k + 1)
	}
	return ranks
}

// tokens writes Go's tokens as design d's spec does: unique tokens as
// their ranks (UniqueTokenRanks), every other token as it is. lease is the
// ghost lease the spec's log keeps for an operation with a token: the
// grant that token came from.
type tokens struct {
	d     impl.Design
	ranks map[uint64]uint64 // Scramble(l) -> its rank
	lease map[uint64]uint64 // Scramble(l) -> l
}

func newTokens(d impl.Design) tokens {
	t := tokens{d: d}
	if d.UniqueTokens() {
		t.ranks, t.lease = map[uint64]uint64{}, map[uint64]uint64{}
		for i, r := range UniqueTokenRanks() {
			l := uint64(i + 1)
			t.ranks[impl.Scramble(l)], t.lease[impl.Scramble(l)] = r, l
		}
	}
	return t
}

// spec is Go's token tok in the spec; it fails for a unique token beyond
// the spec's table.
func (t tokens) spec(tok uint64) (uint64, error) {
	if t.ranks == nil || tok == 0 {
		return tok, nil
	}
	r, ok := t.ranks[tok]
	if !ok {
		return 0, fmt.Errorf("token %d is no lease's up to %d: the spec's UniqueTokens ends there", tok, uniqueTokenLeases)
	}
	return r, nil
}

// ghostLease is the lease of the grant whose token is tok: the lease
// itself (a grant's token is its lease number), the lease Scramble gave
// tok for unique tokens, and for revision tokens (r+1)/2: without
// restarts exactly one change of the lock (a release or an expiry) comes
// between two grants, so grant l is revision 2l-1.
func (t tokens) ghostLease(tok uint64) uint64 {
	switch {
	case t.lease != nil:
		return t.lease[tok]
	case t.d.Revision():
		return (tok + 1) / 2
	}
	return tok
}

// State is one state of the spec, as TLA+ source text per variable, in
// the order Vars lists them. Values are strings so that a generated
// module, a test and a report print them the same way.
type State map[string]string

// Vars lists the spec's variables that a trace pins, in module order.
// DistLock.tla has none of max_token, token and the variables of the
// matrix's rows (pending, restarts, held_at_restart, revision, and the
// resource's queue of Check "sequencer"); it alone has the renewal's
// renewals and renewed.
func Vars(d impl.Design) []string {
	if d.Redlock() {
		return slices.Clone(redlockVars)
	}
	v := []string{"distLock", "network", "timers", "lock_held", "lease", "counter", "max_token", "ops",
		"pending", "restarts", "held_at_restart",
		"pc", "retries", "late", "token", "read_val", "committed", "aborted", "renewals", "renewed", "last_lease", "revision", "queue"}
	drop := []string{"renewals", "renewed"}
	if !d.Tokens() {
		drop = []string{"max_token", "token", "pending", "restarts", "held_at_restart", "revision", "queue"}
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
// lock-delay timer is Go's Delayed), two equal messages in flight (the
// spec's network is a set), a unique token beyond the spec's table. A
// non-atomic resource's MsgApply messages, all equal, are not the spec's
// messages: the spec's applies in flight are its queue pending, one per
// write checked and not applied, so their number must be the queue's
// length.
func Abstract(w *impl.World, d impl.Design) (State, error) {
	if !slices.Contains(Designs(), d) {
		return nil, fmt.Errorf("design %s: no spec models it (distlockspec.Designs lists those that do)", d)
	}
	if d.Redlock() {
		return abstractRedlock(w, d)
	}
	sys := w.Sys
	if sys.Service.Lock().Delayed && !d.LockDelay() {
		return nil, fmt.Errorf("the lock-delay is running: the untimed specs have no lock-delay")
	}
	applies := 0
	for i, m := range w.InFlight {
		if m.Kind == impl.MsgApply {
			applies++
			continue
		}
		if i > 0 && m == w.InFlight[i-1] {
			return nil, fmt.Errorf("two equal messages %s in flight: the spec's network is a set", m)
		}
	}
	r := &sys.Resource
	if applies != len(r.Pending()) {
		return nil, fmt.Errorf("%d applies in flight for %d writes checked and not applied: the spec has one per write", applies, len(r.Pending()))
	}
	tk := newTokens(d)
	var terr error
	spec := func(tok uint64) uint64 {
		t, err := tk.spec(tok)
		if err != nil && terr == nil {
			terr = err
		}
		return t
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
	if l.Status == impl.Acquired || l.Status == impl.Persisting {
		holder = Node(l.Holder)
	}
	if d.Tokens() {
		tok := uint64(0)
		switch {
		case l.Status != impl.Acquired && l.Status != impl.Persisting:
		case d.Revision():
			tok = l.Revision // unchanged since the grant while it is held
		case d.UniqueTokens():
			tok = spec(impl.Scramble(l.Lease))
		default:
			tok = l.Lease // the service's token is its lease number
		}
		s["distLock"] = fmt.Sprintf(`[status |-> %q, id |-> %s, lease |-> %d, token |-> %d]`, status, holder, l.Lease, tok)
		s["revision"] = strconv.FormatUint(l.Revision, 10)
		s["restarts"] = strconv.Itoa(w.Restarts)
		var held []string
		for i := range sys.Clients {
			if i < 64 && w.HeldAtRestart&(1<<i) != 0 {
				held = append(held, Node(impl.ClientNode(i)))
			}
		}
		s["held_at_restart"] = set(held)
	} else {
		s["distLock"] = fmt.Sprintf(`[status |-> %q, id |-> %s, lease |-> %d]`, status, holder, l.Lease)
	}
	s["last_lease"] = strconv.FormatUint(l.LastLease, 10)

	var msgs []string
	for _, m := range w.InFlight {
		if m.Kind != impl.MsgApply {
			m.Token = spec(m.Token)
			msgs = append(msgs, message(m))
		}
	}
	s["network"] = set(msgs)
	ts := make([]string, len(w.Timers))
	for i, t := range w.Timers {
		ts[i] = fmt.Sprintf(`[node |-> %s, kind |-> %q]`, Node(t.Node), t.Timer.Kind.String())
	}
	s["timers"] = set(ts)

	s["counter"] = strconv.FormatInt(r.Counter(), 10)
	if d.Tokens() {
		s["max_token"] = strconv.FormatUint(spec(r.MaxToken()), 10)
		pending := make([]string, len(r.Pending()))
		for i, op := range r.Pending() {
			pending[i] = fmt.Sprintf(`[id |-> %s, token |-> %d, value |-> %d, lease |-> %d]`,
				Node(op.Client), spec(op.Token), op.Value, tk.ghostLease(op.Token))
		}
		s["pending"] = "<<" + strings.Join(pending, ", ") + ">>"
	}
	ops := make([]string, len(r.Log()))
	for i, op := range r.Log() {
		if d.Tokens() {
			// The spec's ghost lease of an operation is the grant it was
			// sent under, which Go's log does not keep: the grant whose
			// token the operation carries (ghostLease).
			ops[i] = fmt.Sprintf(`[op |-> %q, id |-> %s, token |-> %d, ok |-> %s, value |-> %d, lease |-> %d]`,
				op.Kind.String(), Node(op.Client), spec(op.Token), boolean(op.Accepted), op.Value, tk.ghostLease(op.Token))
		} else {
			ops[i] = fmt.Sprintf(`[op |-> %q, id |-> %s, token |-> %d, ok |-> %s, value |-> %d]`,
				op.Kind.String(), Node(op.Client), op.Token, boolean(op.Accepted), op.Value)
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
		s["token"] = perClient(func(c *impl.Client) string { return strconv.FormatUint(spec(c.Token()), 10) })
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
	if terr != nil {
		return nil, terr
	}
	return s, nil
}

// message renders m with every field of impl.Message, as the specs' Msg.
func message(m impl.Message) string {
	return fmt.Sprintf(`[type |-> %q, from |-> %s, to |-> %s, lease |-> %d, token |-> %d, value |-> %d, ok |-> %s]`,
		msgType(m.Kind), Node(m.From), Node(m.To), m.Lease, m.Token, m.Value, boolean(m.OK))
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

// Node is node n's name as the trace modules bind the specs' constants: a
// TLA+ string ("c1", "service", "resource", "none").
func Node(n impl.NodeID) string { return strconv.Quote(n.String()) }

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
