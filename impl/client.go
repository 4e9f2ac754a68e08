package impl

import (
	"encoding/binary"
	"time"
)

//go:generate go tool stringer -type=Phase

// Phase is where a client is in its workload.
type Phase uint8

// Client phases. A critical section is Reading → Thinking → Writing; it ends
// committed (the write was accepted) or aborted (the resource fenced the
// client off, or its lease ran out before it wrote), and the client then
// releases the lock and starts its next section or finishes.
const (
	Idle       Phase = iota // not started
	Acquiring               // acquire sent, waiting for the answer
	BackingOff              // rejected, waiting to retry
	Reading                 // holds the lock, read sent
	Thinking                // read done, computing read+1
	Writing                 // write sent
	Finished                // all sections done
)

// ClientConfig is a client's fixed configuration.
type ClientConfig struct {
	// Sections is how many critical sections the client runs.
	Sections int
	// MaxRetries bounds the failed acquires per section — rejections, and
	// grants that arrived after their validity window (see Rule); after
	// that many the client gives up the section, so a run always ends.
	MaxRetries int
	// Validity is how long the client believes it holds the lock, by its
	// own clock: the TTL minus a safety margin for clock drift (and, under
	// the arrival rule, the grant's travel time).
	Validity time.Duration
	// Rule is when that window starts. Under ValiditySend (Redlock's
	// validity check; see the README's Sources) the client sets its validity
	// timer when it sends the acquire, and a grant that arrives after the
	// timer fired is given back and asked for again: the client believes
	// only within Validity of its clock since the send, a moment before
	// the service started the lease, however long the grant travelled.
	// Under ValidityArrival the timer starts when the grant arrives, so a
	// grant delayed by more than the margin outlives the lease at the
	// service: the flaw, kept to show it.
	Rule ValidityRule
	// Think is the time between reading the counter and writing read+1.
	Think time.Duration
	// Renewals bounds the renewals a client sends per section (0: it never
	// renews); RenewEvery is the time between a grant (or a granted
	// renewal) and the next renewal. See Design.Renews.
	Renewals   int
	RenewEvery time.Duration
	// Nodes, when positive, makes the client a Redlock client of that
	// many independent lock nodes (LockNode 0 to Nodes-1): it sends its
	// acquire, with its own unique value, to every node, waits for every
	// answer, and holds the lock if a majority granted and its validity
	// window is still open; otherwise it releases on every node and
	// backs off. Its release goes to every node. 0: the one service.
	Nodes int
	// ValueTokens makes a Redlock client use its value as its token at
	// the resource (antirez's proposal).
	ValueTokens bool
}

// Client uses the lock to guard a read-modify-write of the resource.
type Client struct {
	cfg   ClientConfig
	id    NodeID
	phase Phase
	// holds is the client's belief that it holds the lock: true from a
	// grant until it releases or its validity timer fires. This belief is
	// what AtMostOneClientHoldLock is about.
	holds bool
	// late records, under the send rule, that the validity window of the
	// acquire in flight ended before its answer came: a grant that
	// arrives now is given back.
	late  bool
	lease uint64 // the grant it is using, 0 when none
	token uint64 // that grant's fencing token, 0 without fencing
	read  int64  // the value read in the current section
	// Counters of the workload.
	retries   uint8 // rejections in the current section
	committed uint8
	aborted   uint8
	// Renewal (ClientConfig.Renewals > 0), all reset when a section ends.
	// renewals counts the renewals sent in the current section. Under the
	// send rule a renewal's window starts at its send, while the window
	// before it still runs, so the belief has two validity timers:
	// onRenewalWindow says the belief's window is TimerRenewalValidity's
	// (a granted renewal switched to it) rather than TimerValidity's, and
	// renewalLate that the window of the renewal in flight ended before
	// its answer came: a grant of it then extends nothing.
	renewals        uint8
	onRenewalWindow bool
	renewalLate     bool
	// extended records that a renewal was granted in the current
	// section and extended the belief (the witness that a section can
	// commit on a renewed lease).
	extended bool
	// A Redlock client's count of the answers to its acquires in flight,
	// and of the grants among them.
	answers, grants uint8
}

// NewClient returns client id, not yet started.
func NewClient(id NodeID, cfg ClientConfig) Client {
	return Client{cfg: cfg, id: id}
}

// Clone returns an independent copy of c (a Client holds no references).
func (c Client) Clone() Client { return c }

// ID is the client's node.
func (c *Client) ID() NodeID { return c.id }

// Phase is where the client is in its workload.
func (c *Client) Phase() Phase { return c.phase }

// Holds reports whether the client believes it holds the lock.
func (c *Client) Holds() bool { return c.holds }

// Lease is the grant the client is using, 0 when none.
func (c *Client) Lease() uint64 { return c.lease }

// Token is the fencing token of the grant the client is using.
func (c *Client) Token() uint64 { return c.token }

// Read is the value the current section read; meaningful while Thinking
// or Writing.
func (c *Client) Read() int64 { return c.read }

// Done reports whether the client ran all its sections.
func (c *Client) Done() bool { return c.phase == Finished }

// Committed and Aborted count the client's finished sections by outcome.
func (c *Client) Committed() int { return int(c.committed) }

// Aborted counts sections that ended without effect, given up ones included.
func (c *Client) Aborted() int { return int(c.aborted) }

// Step handles one input. The client's whole protocol lives here.
//
// The validity window (see ClientConfig.Rule): under the send rule the
// validity timer is set with every acquire sent and runs on through the
// critical section; if it fires while the client is still acquiring, the
// answer is late, and a grant that then arrives is released at once (so
// the service can free it) and asked for again, counting against the
// section's retry budget like a rejection. Under the arrival rule the timer
// is set when the grant arrives.
func (c *Client) Step(in *Input, out *Effects) {
	switch in.Kind {
	case InputStart:
		if c.phase == Idle {
			c.acquire(out)
		}
	case InputMessage:
		c.onMessage(in, out)
	case InputTimer:
		c.onTimer(in, out)
	}
}

func (c *Client) onMessage(in *Input, out *Effects) {
	m := &in.Msg
	if c.cfg.Nodes > 0 && (m.Kind == MsgGrant || m.Kind == MsgReject) && c.phase == Acquiring {
		c.answer(in, out)
		return
	}
	switch m.Kind {
	case MsgGrant:
		if c.phase != Acquiring {
			// A grant it no longer waits for cannot arrive on a network
			// that neither loses nor duplicates; give it back anyway.
			c.send(out, Message{Kind: MsgRelease, To: m.From, Lease: m.Lease})
			return
		}
		if c.late {
			// Its window ended while the grant travelled: believing now
			// could outlast the lease at the service. Give it back and
			// ask again at once (the lock it gave back is free), within
			// the same retry budget as a rejection.
			out.event(Event{Kind: EvGrantLate, Node: c.id, Lease: m.Lease, Token: m.Token})
			c.send(out, Message{Kind: MsgRelease, To: ServiceNode, Lease: m.Lease})
			c.retry(out, func() { c.acquire(out) })
			return
		}
		c.hold(m.Lease, m.Token, out)
	case MsgReject:
		if c.phase != Acquiring {
			return
		}
		c.retry(out, func() {
			c.phase = BackingOff
			out.set(TimerBackoff, in.Backoff)
			if c.cfg.Rule == ValiditySend {
				// No acquire in flight while it backs off; the next
				// one sets the timer again.
				out.cancel(TimerValidity)
			}
		})
	case MsgReadReply:
		if c.phase != Reading {
			return
		}
		if !m.OK || !c.holds {
			c.endSection(false, out)
			return
		}
		c.read, c.phase = m.Value, Thinking
		out.set(TimerThink, c.cfg.Think)
	case MsgWriteReply:
		if c.phase == Writing {
			c.endSection(m.OK, out)
		}
	case MsgRenewed:
		c.renewed(m, out)
	}
}

// renewed handles the service's answer to a renewal. Only the answer for
// the lease the client still believes in counts; an answer that comes
// after the section ended, or after the belief did, changes nothing (a
// renewal is not a grant: a belief that ended stays ended).
func (c *Client) renewed(m *Message, out *Effects) {
	if !c.holds || m.Lease != c.lease {
		return
	}
	if !m.OK {
		// The service no longer has this lease as ours: it expired
		// before the renewal reached it. Stop believing (Redisson
		// stops its watchdog; etcd closes the session's Done channel).
		c.holds = false
		c.stopRenewing(out)
		out.event(Event{Kind: EvRenewalRefused, Node: c.id, Lease: c.lease})
		return
	}
	if c.renewalLate {
		return // its window ended in flight: the belief stays on the old one
	}
	switch c.cfg.Rule {
	case ValiditySend:
		// The renewal's window, started at its send, takes over.
		out.cancel(c.beliefTimer())
		c.onRenewalWindow = !c.onRenewalWindow
	case ValidityArrival:
		out.set(TimerValidity, c.cfg.Validity)
	}
	c.extended = true
	out.event(Event{Kind: EvBeliefExtended, Node: c.id, Lease: c.lease, Token: c.token})
	if int(c.renewals) < c.cfg.Renewals {
		out.set(TimerRenew, c.cfg.RenewEvery)
	}
}

// stopRenewing cancels the renewal timers when the belief ends before the
// section does: a client that no longer believes has nothing to renew,
// and a renewal in flight will extend nothing (its window's timer, under
// the send rule, would only end a window nobody is on).
func (c *Client) stopRenewing(out *Effects) {
	if c.cfg.Renewals == 0 {
		return
	}
	out.cancel(TimerRenew)
	if c.cfg.Rule == ValiditySend {
		out.cancel(c.renewalTimer())
	}
}

// beliefTimer is the validity timer whose firing ends the belief: the
// acquire's (or a renewal's, under the arrival rule) TimerValidity, or,
// under the send rule, the other kind once a renewal switched to it.
func (c *Client) beliefTimer() TimerKind {
	if c.onRenewalWindow {
		return TimerRenewalValidity
	}
	return TimerValidity
}

// renewalTimer is the validity timer of a renewal in flight (send rule):
// the kind the belief's window does not use.
func (c *Client) renewalTimer() TimerKind {
	if c.onRenewalWindow {
		return TimerValidity
	}
	return TimerRenewalValidity
}

// hold makes the client believe it holds lease, and read.
func (c *Client) hold(lease, token uint64, out *Effects) {
	c.phase, c.holds, c.lease, c.token = Reading, true, lease, token
	if c.cfg.Rule == ValidityArrival {
		out.set(TimerValidity, c.cfg.Validity)
	}
	if c.cfg.Renewals > 0 {
		out.set(TimerRenew, c.cfg.RenewEvery)
	}
	out.event(Event{Kind: EvHolding, Node: c.id, Lease: lease, Token: token})
	c.send(out, Message{Kind: MsgRead, To: ResourceNode, Token: token})
}

// answer is a Redlock client's step on a node's answer to its acquire:
// it counts the answers, and on the last one decides. With a majority of
// grants and its validity window still open (the send rule's timer not
// fired: TTL − elapsed − drift allowance, untimed any moment) it holds the
// lock under its value; otherwise it releases on every node — those that
// granted hold its value — and retries after a backoff, within the
// section's retry budget like a rejection.
func (c *Client) answer(in *Input, out *Effects) {
	c.answers++
	if in.Msg.Kind == MsgGrant {
		c.grants++
	}
	if int(c.answers) < c.cfg.Nodes {
		return
	}
	value := c.value()
	won := int(c.grants) >= c.cfg.Nodes/2+1 && !c.late
	c.answers, c.grants = 0, 0
	if won {
		var token uint64
		if c.cfg.ValueTokens {
			token = value
		}
		c.hold(value, token, out)
		return
	}
	if c.late {
		out.event(Event{Kind: EvGrantLate, Node: c.id, Lease: value})
	}
	c.releaseAll(value, out)
	c.retry(out, func() {
		c.phase = BackingOff
		out.set(TimerBackoff, in.Backoff)
		if c.cfg.Rule == ValiditySend {
			out.cancel(TimerValidity)
		}
	})
}

// value is a Redlock client's value for its current attempt (see
// redlockValue).
func (c *Client) value() uint64 {
	return redlockValue(c.id, int(c.committed)+int(c.aborted), int(c.retries))
}

// releaseAll sends a release of lease to every lock node.
func (c *Client) releaseAll(lease uint64, out *Effects) {
	for k := range max(c.cfg.Nodes, 1) {
		c.send(out, Message{Kind: MsgRelease, To: LockNode(k), Lease: lease})
	}
}

func (c *Client) onTimer(in *Input, out *Effects) {
	switch in.Timer.Kind {
	case TimerBackoff:
		if c.phase == BackingOff {
			c.acquire(out)
		}
	case TimerValidity, TimerRenewalValidity:
		switch {
		case in.Timer.Kind != c.beliefTimer():
			// A renewal's window ended before its answer came.
			c.renewalLate = true
		case c.holds:
			c.holds = false
			c.stopRenewing(out)
			out.event(Event{Kind: EvLeaseLost, Node: c.id, Lease: c.lease})
		case c.phase == Acquiring && c.cfg.Rule == ValiditySend:
			c.late = true
		}
	case TimerRenew:
		// Redisson's watchdog: renew while the section lasts, whatever
		// the section does meanwhile. A client that no longer believes
		// has nothing to renew.
		if !c.holds || int(c.renewals) >= c.cfg.Renewals {
			return
		}
		c.renewals++
		if c.cfg.Rule == ValiditySend {
			c.renewalLate = false
			out.set(c.renewalTimer(), c.cfg.Validity)
		}
		c.send(out, Message{Kind: MsgRenew, To: ServiceNode, Lease: c.lease})
	case TimerThink:
		if c.phase != Thinking {
			return
		}
		// The lease check before the write. It is only as good as the
		// client's clock and the time the write takes to land: a pause or
		// a slow network after this check is Kleppmann's counterexample.
		if !c.holds {
			c.endSection(false, out)
			return
		}
		c.phase = Writing
		c.send(out, Message{Kind: MsgWrite, To: ResourceNode, Token: c.token, Value: c.read + 1})
	}
}

// acquire asks for the lock; under the send rule the validity window
// starts now (setting the timer again replaces a pending one).
func (c *Client) acquire(out *Effects) {
	c.phase, c.late = Acquiring, false
	if c.cfg.Rule == ValiditySend {
		out.set(TimerValidity, c.cfg.Validity)
	}
	if c.cfg.Nodes == 0 {
		c.send(out, Message{Kind: MsgAcquire, To: ServiceNode})
		return
	}
	// SET key value NX PX ttl on every node, one value for all.
	value := c.value()
	for k := range c.cfg.Nodes {
		c.send(out, Message{Kind: MsgAcquire, To: LockNode(k), Lease: value})
	}
}

// retry handles an acquire that did not yield the lock: within the
// section's budget it counts one retry and calls again; past it the client
// gives the section up.
func (c *Client) retry(out *Effects, again func()) {
	if int(c.retries) >= c.cfg.MaxRetries {
		out.event(Event{Kind: EvGaveUp, Node: c.id})
		c.endSection(false, out)
		return
	}
	c.retries++
	again()
}

// endSection closes the current section, releases the lock it used (a
// compare-and-delete the service refuses if the lease has gone), and starts
// the next section or finishes.
func (c *Client) endSection(committed bool, out *Effects) {
	if committed {
		c.committed++
		out.event(Event{Kind: EvSectionCommitted, Node: c.id, Lease: c.lease, Token: c.token})
	} else {
		c.aborted++
		if c.lease != 0 {
			out.event(Event{Kind: EvSectionAborted, Node: c.id, Lease: c.lease, Token: c.token})
		}
	}
	if c.lease != 0 {
		c.releaseAll(c.lease, out)
	}
	// The validity timer: under the arrival rule it runs only while a
	// lease is used; under the send rule it may run from the last acquire
	// on, and the next acquire sets it again (an actor never sets and
	// cancels one timer in one step).
	cancel := c.lease != 0 && c.cfg.Rule == ValidityArrival
	if c.lease != 0 && c.cfg.Renewals > 0 {
		out.cancel(TimerRenew)
		if c.cfg.Rule == ValiditySend {
			out.cancel(TimerRenewalValidity)
		}
	}
	c.holds, c.lease, c.token, c.read, c.retries, c.late = false, 0, 0, 0, 0, false
	c.renewals, c.onRenewalWindow, c.renewalLate, c.extended = 0, false, false, false
	if int(c.committed)+int(c.aborted) >= c.cfg.Sections {
		c.phase = Finished
		out.event(Event{Kind: EvFinished, Node: c.id})
		cancel = cancel || c.cfg.Rule == ValiditySend
	}
	if cancel {
		out.cancel(TimerValidity)
	}
	if c.phase != Finished {
		c.acquire(out)
	}
}

func (c *Client) send(out *Effects, m Message) {
	m.From = c.id
	out.send(m)
}

// Encode appends the canonical encoding of c's state to b.
func (c *Client) Encode(b []byte) []byte {
	b = append(b, byte(c.phase), boolByte(c.holds), boolByte(c.late), c.retries, c.committed, c.aborted)
	// A Redlock value names its client: leaving the client out keeps a
	// client's own encoding free of names (symmetry relies on it).
	if c.cfg.Nodes == 0 {
		b = binary.AppendUvarint(b, c.lease)
		b = binary.AppendUvarint(b, c.token)
		b = binary.AppendVarint(b, c.read)
		if c.cfg.Renewals > 0 {
			// Only in renewing designs: the others' encodings stay as
			// they were.
			b = append(b, c.renewals, boolByte(c.onRenewalWindow), boolByte(c.renewalLate), boolByte(c.extended))
		}
		return b
	}
	b = binary.AppendUvarint(b, localValue(c.lease))
	b = binary.AppendUvarint(b, localValue(c.token))
	b = binary.AppendVarint(b, c.read)
	return append(b, c.answers, c.grants)
}

// Retries counts the rejections answered by asking again in the current
// section (the conformance check's abstraction reads it).
func (c *Client) Retries() int { return int(c.retries) }

// Renewals counts the renewals sent in the current section.
func (c *Client) Renewals() int { return int(c.renewals) }

// Extended reports whether a renewal granted in the current section
// extended the client's belief.
func (c *Client) Extended() bool { return c.extended }

// Late reports, under the send rule, that the window of the acquire in
// flight ended before its answer came.
func (c *Client) Late() bool { return c.late }

// Answers is a Redlock client's count of the answers to its acquires in
// flight so far, and of the grants among them.
func (c *Client) Answers() (answers, grants int) { return int(c.answers), int(c.grants) }
