package impl

import (
	"fmt"
	"time"
)

// TimerKind is what a timer is for.
type TimerKind uint8

// Timers. The service times leases and lock-delays; a client times its belief
// in its lease, its backoff after a rejection and its think time between
// reading and writing.
const (
	TimerLease     TimerKind = iota + 1 // service: the current grant ends (the TTL)
	TimerLockDelay                      // service: the lock-delay after an expiry ends
	TimerValidity                       // client: stop believing it holds the lock (TTL minus margin)
	TimerBackoff                        // client: retry the acquire after a rejection
	TimerThink                          // client: done thinking; write read+1
	TimerRenew                          // client (renewing designs): send the next renewal of the lease it holds
	// TimerRenewalValidity is a renewing client's second validity timer
	// (send rule): a renewal's window starts when the renewal is sent,
	// while the window before it still runs; a granted renewal makes it
	// the belief's timer, and the next renewal's window uses the other
	// kind.
	TimerRenewalValidity
	// TimerPersist: a durable-counter service's store has the counter
	// (RestartDurable): the grant persisted for may be sent.
	TimerPersist
)

func (k TimerKind) String() string {
	switch k {
	case TimerLease:
		return "lease"
	case TimerLockDelay:
		return "lock-delay"
	case TimerValidity:
		return "validity"
	case TimerBackoff:
		return "backoff"
	case TimerThink:
		return "think"
	case TimerRenew:
		return "renew"
	case TimerRenewalValidity:
		return "renewal validity"
	case TimerPersist:
		return "persist"
	}
	return fmt.Sprintf("TimerKind(%d)", uint8(k))
}

// Timer identifies a timer of one node by its kind: a node has at most one
// pending timer of each kind, and setting it again replaces it.
type Timer struct {
	Kind TimerKind
}

// TimerSet asks the runtime to fire Timer after the given duration of the
// node's local time.
type TimerSet struct {
	Timer
	After time.Duration
}

// InputKind is what an actor is asked to handle.
type InputKind uint8

// Inputs.
const (
	InputStart   InputKind = iota + 1 // the runtime starts the actor (clients begin their workload)
	InputMessage                      // Msg was delivered
	InputTimer                        // Timer fired
	// InputRestart restarts the service after a crash (designs whose
	// service restarts: Design.Restart): it loses what it kept in memory.
	InputRestart
)

// Input is one thing for an actor to handle. (Kind and Timer, a byte
// each, come together: 48 bytes instead of 56.)
type Input struct {
	Kind  InputKind
	Timer Timer
	Msg   Message
	// Backoff is how long a client waits before retrying after a rejection.
	// The runtime chooses it (the simulator draws it from its seeded PRNG;
	// the untimed explorer leaves it zero) so that actors stay deterministic.
	Backoff time.Duration
}

// Effects collects what an actor wants done. Runtimes reuse one buffer,
// calling Reset between steps, so stepping allocates nothing in steady state.
type Effects struct {
	Send   []Message
	Set    []TimerSet
	Cancel []Timer
	Events []Event
}

// EffectHandler is how a runtime carries out the effects of one step of
// node n: the untimed World and the simulator each implement it.
type EffectHandler interface {
	Cancel(n NodeID, t Timer)
	Set(n NodeID, ts TimerSet)
	Send(n NodeID, m *Message)
}

// CarryOut hands e's effects to h in the one order every runtime uses:
// cancels, then sets, then sends. Actors never set and cancel one timer in
// one step (impl's tests check it), so the cancel/set order cannot change a
// run; if one ever did, a set after a cancel would win, which is what the
// actor means. Sends come last so that a runtime that delivers instantly
// sees the node's timers already in place. Events are reports, not
// effects: a runtime reads them itself.
func (e *Effects) CarryOut(n NodeID, h EffectHandler) {
	for _, t := range e.Cancel {
		h.Cancel(n, t)
	}
	for _, ts := range e.Set {
		h.Set(n, ts)
	}
	for i := range e.Send {
		h.Send(n, &e.Send[i])
	}
}

// Reset empties e, keeping its capacity.
func (e *Effects) Reset() {
	e.Send = e.Send[:0]
	e.Set = e.Set[:0]
	e.Cancel = e.Cancel[:0]
	e.Events = e.Events[:0]
}

func (e *Effects) send(m Message) { e.Send = append(e.Send, m) }

func (e *Effects) set(k TimerKind, after time.Duration) {
	e.Set = append(e.Set, TimerSet{Timer: Timer{Kind: k}, After: after})
}

func (e *Effects) cancel(k TimerKind) {
	e.Cancel = append(e.Cancel, Timer{Kind: k})
}

func (e *Effects) event(ev Event) { e.Events = append(e.Events, ev) }

// EventKind is something an actor reports having done, for traces and
// histories. Events change nothing; they make a step legible.
type EventKind uint8

// Events.
const (
	EvGranted          EventKind = iota + 1 // service granted Lease (Token) to Peer
	EvRejected                              // service rejected Peer's acquire
	EvReleased                              // service released Lease at Peer's request
	EvReleaseRefused                        // service refused Peer's release: not the holder or an old lease
	EvExpired                               // service expired Peer's Lease (the TTL ran out)
	EvLockDelayEnded                        // service may grant the lock again after an expiry
	EvOpAccepted                            // resource accepted Peer's operation (Op)
	EvOpRejected                            // resource rejected Peer's operation: its token is stale
	EvHolding                               // client believes it holds Lease (Token) from now on
	EvLeaseLost                             // client's validity timer fired: it stops believing it holds the lock
	EvSectionCommitted                      // client's write was accepted: the critical section took effect
	EvSectionAborted                        // client ended a critical section without effect (fenced, or its lease ran out)
	EvGaveUp                                // client stopped retrying an acquire
	EvFinished                              // client ran all its critical sections
	EvGrantLate                             // client got Lease after its validity window ended (send rule): it gives it back
	EvOpChecked                             // non-atomic resource checked Peer's write (Op): it takes effect at a later apply
	EvRestarted                             // service restarted after a crash; Lease is the lease counter it restarted with
	EvSequencerAsked                        // sequencer-checking resource asked the service whether Token is the holder's
	EvSequencerCurrent                      // service answered: Token is the current holder's
	EvSequencerStale                        // service answered: Token is not the current holder's
	EvKeyLost                               // a Redlock node restarted without persistence: its key, held by Peer under Lease if any, is gone
	EvRenewed                               // service extended Peer's Lease by a fresh TTL
	EvRenewRefused                          // service refused Peer's renewal: Lease is not the current one, or not Peer's
	EvBeliefExtended                        // client's renewal of Lease was granted: it believes for another window
	EvRenewalRefused                        // client heard its renewal of Lease refused: it stops believing
	EvPersisted                             // durable-counter service wrote Lease, Peer's, to its store: the grant follows
)

func (k EventKind) String() string {
	switch k {
	case EvGranted:
		return "granted"
	case EvRejected:
		return "rejected"
	case EvReleased:
		return "released"
	case EvReleaseRefused:
		return "release refused"
	case EvExpired:
		return "expired"
	case EvLockDelayEnded:
		return "lock-delay ended"
	case EvOpAccepted:
		return "accepted"
	case EvOpRejected:
		return "fenced off"
	case EvHolding:
		return "holds the lock"
	case EvLeaseLost:
		return "lease ran out"
	case EvSectionCommitted:
		return "section committed"
	case EvSectionAborted:
		return "section aborted"
	case EvGaveUp:
		return "gave up"
	case EvFinished:
		return "finished"
	case EvGrantLate:
		return "grant too late"
	case EvOpChecked:
		return "checked"
	case EvRestarted:
		return "restarted"
	case EvSequencerAsked:
		return "sequencer asked"
	case EvSequencerCurrent:
		return "sequencer current"
	case EvSequencerStale:
		return "sequencer stale"
	case EvKeyLost:
		return "key lost"
	case EvRenewed:
		return "renewed"
	case EvRenewRefused:
		return "renewal refused"
	case EvBeliefExtended:
		return "belief extended"
	case EvRenewalRefused:
		return "renewal refused, belief ended"
	case EvPersisted:
		return "persisted"
	}
	return fmt.Sprintf("EventKind(%d)", uint8(k))
}

// Event reports one thing an actor did.
type Event struct {
	Kind  EventKind
	Node  NodeID // who reports it
	Peer  NodeID // the other party: the client a lease belongs to, the client of an operation
	Lease uint64
	Token uint64
	Op    Op // for EvOpAccepted and EvOpRejected
}

// String describes e for trace notes, e.g. "expired lease 1 of c1".
func (e Event) String() string {
	switch e.Kind {
	case EvGranted:
		if e.Token != NoToken {
			return fmt.Sprintf("granted lease %d (token %d) to %s", e.Lease, e.Token, e.Peer)
		}
		return fmt.Sprintf("granted %s to %s", leaseWord(e.Lease), e.Peer)
	case EvRejected:
		return fmt.Sprintf("rejected %s's acquire", e.Peer)
	case EvReleased, EvReleaseRefused, EvExpired, EvRenewed, EvRenewRefused:
		return fmt.Sprintf("%s %s of %s", e.Kind, leaseWord(e.Lease), e.Peer)
	case EvOpAccepted, EvOpRejected:
		return fmt.Sprintf("%s %s", e.Kind, e.Op)
	case EvHolding:
		if isValue(e.Lease) {
			return fmt.Sprintf("holds the lock: a majority granted value %s", FormatLease(e.Lease))
		}
		if e.Token != NoToken {
			return fmt.Sprintf("holds the lock (lease %d, token %d)", e.Lease, e.Token)
		}
		return fmt.Sprintf("holds the lock (lease %d)", e.Lease)
	case EvLeaseLost:
		return fmt.Sprintf("%s ran out by its own clock", leaseWord(e.Lease))
	case EvBeliefExtended:
		return fmt.Sprintf("renewal of lease %d granted: it believes for another window", e.Lease)
	case EvRenewalRefused:
		return fmt.Sprintf("renewal of lease %d refused: the lease is gone, it stops believing", e.Lease)
	case EvGrantLate:
		if isValue(e.Lease) {
			return fmt.Sprintf("value %s: the answers came after its validity window, counted from the first send: released on every node", FormatLease(e.Lease))
		}
		return fmt.Sprintf("lease %d came after its validity window, counted from the acquire's send: given back", e.Lease)
	case EvOpChecked:
		return fmt.Sprintf("checked %s: applied later", e.Op)
	case EvSequencerAsked:
		return fmt.Sprintf("asked the service whether token %d is the holder's", e.Token)
	case EvSequencerCurrent:
		return fmt.Sprintf("token %d is the current holder's", e.Token)
	case EvSequencerStale:
		return fmt.Sprintf("token %d is not the current holder's", e.Token)
	case EvRestarted:
		if e.Lease == 0 {
			return "restarted: the lock is free and the lease counter starts again from 0"
		}
		return fmt.Sprintf("restarted: the lock is free; the lease counter, persisted, is still %d", e.Lease)
	case EvPersisted:
		return fmt.Sprintf("persisted lease counter %d for %s: the grant follows", e.Lease, e.Peer)
	case EvKeyLost:
		if e.Lease == 0 {
			return "restarted without persistence: it held no key"
		}
		return fmt.Sprintf("restarted without persistence: the key of %s (value %s) is gone", e.Peer, FormatLease(e.Lease))
	default:
		return e.Kind.String()
	}
}
