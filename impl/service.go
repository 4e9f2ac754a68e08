package impl

import (
	"encoding/binary"
	"math"
	"time"
)

//go:generate go tool stringer -type=LockStatus

// LockStatus is the state of the lock at the service, named as in the
// PlusCal model of “Distributed lock — part 3” that the specs grow from.
type LockStatus uint8

// Lock states. Expired differs from Available only in how the lock became
// free, which matters for the lock-delay.
const (
	Available LockStatus = iota // never held, or released by its holder
	Acquired                    // granted and not yet released or expired
	Expired                     // the holder's lease ran out
	// Persisting: a durable-counter service (RestartDurable) has taken the
	// next lease for Holder and written the counter to its durable store;
	// the grant is sent by the next step (TimerPersist), once the store
	// holds the value. A crash in between loses the grant, not the counter.
	Persisting
)

// ServiceConfig is the lock service's fixed configuration.
type ServiceConfig struct {
	// TTL is the lease a grant carries: the service expires it when its
	// lease timer, set for TTL of the service's local time, fires.
	TTL time.Duration
	// LockDelay, when positive, keeps the lock from being granted for that
	// long after an expiry (not after a release), as Chubby does, so that a
	// holder that lost its lease unknowingly has time to notice.
	LockDelay time.Duration
	// Fencing makes every grant carry a token for the resource.
	Fencing bool
	// UniqueTokens makes a grant's token a unique value that says nothing
	// of its order (Scramble of the lease number) instead of the lease
	// number itself: the "random" unique tokens of a check-and-set
	// resource, drawn deterministically so the actor stays a function of
	// its inputs.
	UniqueTokens bool
	// RevisionTokens makes a grant's token the store's revision (etcd's
	// create revision, ZooKeeper's zxid) instead of the lease number: the
	// revision advances with every change of the lock — a grant, a
	// release, an expiry — so tokens grow with gaps.
	RevisionTokens bool
	// Node is the service's own node: ServiceNode, or one of the Redlock
	// rows' further lock nodes (LockNode).
	Node NodeID
	// ClientValues makes the service a Redis master of Redlock: the
	// acquire carries the client's own unique value (in Lease), which the
	// grant stores as the key's value (SET key value NX PX ttl) and a
	// release must name (delete only if the value matches). The service
	// counts no leases and hands out no tokens of its own.
	ClientValues bool
	// Restart is what a restart keeps (InputRestart): nothing (the lease
	// counter, which is the token, starts again from 0) or the counter,
	// persisted before each grant is sent. NoRestart ignores restarts.
	Restart Restart
}

// LockState is the lock as the service keeps it.
type LockState struct {
	Status LockStatus
	Holder NodeID // meaningful while Acquired
	Lease  uint64 // the current grant while Acquired, else 0
	// LastLease is the highest lease ever granted. Leases are numbered 1,
	// 2, ...; with fencing the lease number is the token, which is
	// therefore strictly larger than every token granted before, across
	// releases and expiries.
	LastLease uint64
	// Delayed is true while the lock-delay after an expiry is running.
	Delayed bool
	// Revision is the store's revision (ServiceConfig.RevisionTokens;
	// else 0): the number of changes of the lock so far.
	Revision uint64
	// Persisted is the lease counter in the durable store
	// (RestartDurable; else 0): what a restart comes back with. It is
	// written before the grant is sent, so it is never below a lease
	// granted.
	Persisted uint64
}

// Service is the lock service. It holds a single lock: the specs and every
// runtime model one lock name, and a lock index nobody varies would only be
// another byte in every fingerprint, so messages and timers name no lock.
// Use NewService.
type Service struct {
	cfg  ServiceConfig
	lock LockState
}

// NewService returns a service whose lock is Available.
func NewService(cfg ServiceConfig) Service {
	return Service{cfg: cfg}
}

// Clone returns an independent copy of s (a Service holds no references).
func (s Service) Clone() Service { return s }

// CountsLeases reports whether the service numbers its grants (LastLease):
// every service but a Redlock node, which stores the client's value.
func (s *Service) CountsLeases() bool { return !s.cfg.ClientValues }

// Lock is a copy of the lock's state, for invariants and traces.
func (s *Service) Lock() LockState { return s.lock }

// Step handles one input. All rules of the lock live here.
func (s *Service) Step(in *Input, out *Effects) {
	switch in.Kind {
	case InputMessage:
		m := &in.Msg
		switch m.Kind {
		case MsgAcquire:
			s.acquire(m, out)
		case MsgRelease:
			s.release(m, out)
		case MsgCheck:
			s.checkSequencer(m, out)
		case MsgRenew:
			s.renew(m, out)
		}
	case InputRestart:
		s.restart(out)
	case InputTimer:
		switch in.Timer.Kind {
		case TimerLease:
			s.expire(out)
		case TimerLockDelay:
			s.lock.Delayed = false
			out.event(Event{Kind: EvLockDelayEnded, Node: s.cfg.Node})
		case TimerPersist:
			s.grantPersisted(out)
		}
	}
}

// acquire grants the lock when it is free — never held, released, or
// expired with its lock-delay over — and rejects otherwise, including a
// repeated acquire from the holder itself. The lease counter never wraps:
// when it is exhausted the service rejects rather than reuse a token. A
// durable counter (RestartDurable) is persisted first, in this step, and
// the grant sent by a step of its own (grantPersisted): a crash between the
// two loses the grant, never the counter.
func (s *Service) acquire(m *Message, out *Effects) {
	l := &s.lock
	if l.Status == Acquired || l.Status == Persisting || l.Delayed || l.LastLease == math.MaxUint64 {
		out.send(Message{Kind: MsgReject, From: s.cfg.Node, To: m.From})
		out.event(Event{Kind: EvRejected, Node: s.cfg.Node, Peer: m.From})
		return
	}
	if s.cfg.ClientValues {
		l.Status, l.Holder, l.Lease = Acquired, m.From, m.Lease
		s.grant(out)
		return
	}
	l.LastLease++
	if s.cfg.Restart == RestartDurable {
		l.Persisted = l.LastLease
		l.Status, l.Holder, l.Lease = Persisting, m.From, l.LastLease
		out.set(TimerPersist, 0)
		out.event(Event{Kind: EvPersisted, Node: s.cfg.Node, Peer: m.From, Lease: l.Lease})
		return
	}
	l.Status, l.Holder, l.Lease = Acquired, m.From, l.LastLease
	s.grant(out)
}

// grantPersisted sends the grant whose lease counter the store now holds
// (RestartDurable): the second step of acquire. Only defensive when the
// lock is not Persisting (a restart cancels the timer).
func (s *Service) grantPersisted(out *Effects) {
	if s.lock.Status != Persisting {
		return
	}
	s.lock.Status = Acquired
	s.grant(out)
}

// grant hands the lock, Acquired by Holder under Lease, out: the grant
// message, the lease timer.
func (s *Service) grant(out *Effects) {
	l := &s.lock
	s.revise()
	token := s.token(l.Lease)
	out.send(Message{Kind: MsgGrant, From: s.cfg.Node, To: l.Holder, Lease: l.Lease, Token: token})
	out.set(TimerLease, s.cfg.TTL)
	out.event(Event{Kind: EvGranted, Node: s.cfg.Node, Peer: l.Holder, Lease: l.Lease, Token: token})
}

// release is a compare-and-delete: only the current holder, naming its
// current lease, frees the lock. A stale holder whose lease expired and was
// granted to someone else must not release the new holder's lock.
func (s *Service) release(m *Message, out *Effects) {
	l := &s.lock
	if !l.isCurrent(m) {
		out.event(Event{Kind: EvReleaseRefused, Node: s.cfg.Node, Peer: m.From, Lease: m.Lease})
		return
	}
	l.Status, l.Holder, l.Lease = Available, 0, 0
	s.revise()
	out.cancel(TimerLease)
	out.event(Event{Kind: EvReleased, Node: s.cfg.Node, Peer: m.From, Lease: m.Lease})
}

// renew extends the current lease by a fresh TTL, only if the renewal
// comes from the holder and names its current lease — Redisson's watchdog
// renewal is a Lua script that extends the key only while it still holds
// the client's value (hexists, then pexpire), and etcd's KeepAlive of an
// expired lease fails. After an expiry the lease is gone for good: a late
// renewal is refused, never a grant. The answer tells the client either
// way.
func (s *Service) renew(m *Message, out *Effects) {
	ok := s.lock.isCurrent(m)
	out.send(Message{Kind: MsgRenewed, From: ServiceNode, To: m.From, Lease: m.Lease, OK: ok})
	if !ok {
		out.event(Event{Kind: EvRenewRefused, Node: ServiceNode, Peer: m.From, Lease: m.Lease})
		return
	}
	out.set(TimerLease, s.cfg.TTL)
	out.event(Event{Kind: EvRenewed, Node: ServiceNode, Peer: m.From, Lease: m.Lease})
}

// expire ends the current lease when its timer fires, whatever the holder
// believes: the service judges time by its own clock only.
func (s *Service) expire(out *Effects) {
	l := &s.lock
	if l.Status != Acquired {
		return // released meanwhile; runtimes cancel the timer, so this is only defensive
	}
	out.event(Event{Kind: EvExpired, Node: s.cfg.Node, Peer: l.Holder, Lease: l.Lease})
	l.Status, l.Holder, l.Lease = Expired, 0, 0
	s.revise()
	if s.cfg.LockDelay > 0 {
		l.Delayed = true
		out.set(TimerLockDelay, s.cfg.LockDelay)
	}
}

// restart is the service coming back after a crash: what it held in
// memory is gone — who holds the lock, its lease timer, a lock-delay, a
// grant persisted and not yet sent (its client sees its connection drop: a
// rejection) — so the lock is free. The lease
// counter survives only if it is durable: the store's value, persisted by
// the step before each grant (acquire). A volatile counter starts again
// from 0, so the next grant is lease (and token) 1 again, while an old
// holder may still be using token 1.
func (s *Service) restart(out *Effects) {
	if s.cfg.Restart == NoRestart {
		return // the design's service never crashes: only defensive
	}
	if s.cfg.ClientValues {
		// A Redis master without persistence (no fsync): the key is gone.
		ev := Event{Kind: EvKeyLost, Node: s.cfg.Node}
		if s.lock.Status == Acquired {
			ev.Peer, ev.Lease = s.lock.Holder, s.lock.Lease
		}
		s.lock = LockState{}
		out.cancel(TimerLease)
		out.event(ev)
		return
	}
	last := uint64(0)
	if s.cfg.Restart == RestartDurable {
		last = s.lock.Persisted
	}
	if s.lock.Status == Persisting {
		// The grant persisted for is lost with the crash; the client's
		// connection drops with it, which it sees as a refusal (else it
		// would wait for an answer forever).
		out.send(Message{Kind: MsgReject, From: s.cfg.Node, To: s.lock.Holder})
		out.event(Event{Kind: EvRejected, Node: s.cfg.Node, Peer: s.lock.Holder})
	}
	s.lock = LockState{LastLease: last, Persisted: last}
	out.cancel(TimerLease)
	out.cancel(TimerLockDelay)
	if s.cfg.Restart == RestartDurable {
		out.cancel(TimerPersist)
	}
	out.event(Event{Kind: EvRestarted, Node: s.cfg.Node, Lease: last})
}

// checkSequencer answers a resource's question (Chubby's CheckSequencer):
// is m.Token the token of the lease held now? A lease released, expired or
// superseded is not, whatever its holder believes.
func (s *Service) checkSequencer(m *Message, out *Effects) {
	l := &s.lock
	current := l.Status == Acquired && s.token(l.Lease) == m.Token
	out.send(Message{Kind: MsgCheckReply, From: ServiceNode, To: m.From, Token: m.Token, OK: current})
	kind := EvSequencerStale
	if current {
		kind = EvSequencerCurrent
	}
	out.event(Event{Kind: kind, Node: ServiceNode, Peer: m.From, Token: m.Token})
}

// isCurrent reports whether m comes from the holder and names its current
// lease.
func (l *LockState) isCurrent(m *Message) bool {
	return l.Status == Acquired && l.Holder == m.From && l.Lease == m.Lease
}

// token is the fencing token a grant carries: its lease number with
// fencing, none (0) without.
func (s *Service) token(lease uint64) uint64 {
	switch {
	case !s.cfg.Fencing, s.cfg.ClientValues:
		// Redlock's node hands out no token: a client with fencing uses
		// its own unique value.
		return 0
	case s.cfg.UniqueTokens:
		return Scramble(lease)
	case s.cfg.RevisionTokens:
		return s.lock.Revision
	}
	return lease
}

// NextToken is the token the service's next grant carries: the next lease
// number's, or with revision tokens the next revision.
func (s *Service) NextToken() uint64 {
	if s.cfg.RevisionTokens && s.cfg.Fencing {
		return s.lock.Revision + 1
	}
	return s.token(s.lock.LastLease + 1)
}

// revise advances the store's revision after a change of the lock, when
// tokens are revisions.
func (s *Service) revise() {
	if s.cfg.RevisionTokens {
		s.lock.Revision++
	}
}

// Scramble maps lease number l to a unique token whose order is unrelated
// to l's: SplitMix64's finaliser, a bijection of the 64-bit integers (each
// step — an odd multiplication, an xor with a right shift — is
// invertible), so distinct leases never share a token, as random 64-bit
// tokens almost never would. 0 maps to 0, and no lease is 0.
func Scramble(l uint64) uint64 {
	l = (l ^ (l >> 30)) * 0xbf58476d1ce4e5b9
	l = (l ^ (l >> 27)) * 0x94d049bb133111eb
	return l ^ (l >> 31)
}

// Encode appends the canonical encoding of s's state to b.
func (s *Service) Encode(b []byte) []byte {
	l := &s.lock
	b = append(b, byte(l.Status), byte(l.Holder), boolByte(l.Delayed))
	b = binary.AppendUvarint(b, l.Lease)
	b = binary.AppendUvarint(b, l.LastLease)
	if s.cfg.RevisionTokens {
		// Only with revision tokens: the other designs' encodings stay
		// as they were.
		b = binary.AppendUvarint(b, l.Revision)
	}
	if s.cfg.Restart == RestartDurable && !s.cfg.ClientValues {
		// Only with a durable counter: the other designs' encodings stay
		// as they were.
		b = binary.AppendUvarint(b, l.Persisted)
	}
	return b
}
