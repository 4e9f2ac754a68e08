package impl

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// refLock is the reference model of one lock, as DESIGN.md states the
// rules, written without looking at how Service stores them.
type refLock struct {
	status     LockStatus
	holder     NodeID
	lease      uint64
	last       uint64
	delayed    bool
	leaseTimer bool // the runtime has a lease timer pending at the service
	delayTimer bool
	tokens     []uint64 // every token granted, in order
}

// serviceMachine drives a Service with random acquires, releases and timer
// firings — only of pending timers, as a runtime does — and checks every
// answer, timer and state against refLock.
type serviceMachine struct {
	svc     Service
	ref     refLock
	fencing bool
	delay   bool
	out     Effects
}

func (sm *serviceMachine) client(t *rapid.T) NodeID {
	return ClientNode(rapid.IntRange(0, 2).Draw(t, "client"))
}

// someLease draws the current lease, an older or a future one, or 0.
func (sm *serviceMachine) someLease(t *rapid.T) uint64 {
	return rapid.OneOf(
		rapid.Just(sm.ref.lease),
		rapid.Uint64Range(0, sm.ref.last+1),
	).Draw(t, "lease")
}

func (sm *serviceMachine) step(in Input) {
	sm.out.Reset()
	sm.svc.Step(&in, &sm.out)
}

func (sm *serviceMachine) acquire(t *rapid.T) {
	c := sm.client(t)
	sm.step(Input{Kind: InputMessage, Msg: Message{Kind: MsgAcquire, From: c, To: ServiceNode}})
	r := &sm.ref
	if r.status == Acquired || r.delayed || r.last == math.MaxUint64 {
		assert.Equal(t, []Message{{Kind: MsgReject, From: ServiceNode, To: c}}, sm.out.Send)
		assert.Empty(t, sm.out.Set)
		return
	}
	r.last++
	r.status, r.holder, r.lease, r.leaseTimer = Acquired, c, r.last, true
	token := uint64(0)
	if sm.fencing {
		token = r.last
		r.tokens = append(r.tokens, token)
	}
	assert.Equal(t, []Message{{Kind: MsgGrant, From: ServiceNode, To: c, Lease: r.last, Token: token}}, sm.out.Send)
	assert.Equal(t, []TimerSet{{Timer: Timer{Kind: TimerLease}, After: 10}}, sm.out.Set)
}

func (sm *serviceMachine) release(t *rapid.T) {
	c, lease := sm.client(t), sm.someLease(t)
	sm.step(Input{Kind: InputMessage, Msg: Message{Kind: MsgRelease, From: c, To: ServiceNode, Lease: lease}})
	r := &sm.ref
	assert.Empty(t, sm.out.Send, "a release is not answered")
	if r.status == Acquired && r.holder == c && r.lease == lease {
		r.status, r.holder, r.lease, r.leaseTimer = Available, 0, 0, false
		assert.Equal(t, []Timer{{Kind: TimerLease}}, sm.out.Cancel)
		assert.Equal(t, EvReleased, sm.out.Events[0].Kind)
		return
	}
	assert.Empty(t, sm.out.Cancel)
	assert.Equal(t, EvReleaseRefused, sm.out.Events[0].Kind)
}

// renew: a renewal is granted — a fresh TTL, the lock unchanged — only for
// the holder naming its current lease; every other renewal (another
// client, an old or future lease, a lock released or expired) is refused
// and changes nothing. Either way the renewer is answered.
func (sm *serviceMachine) renew(t *rapid.T) {
	c, lease := sm.client(t), sm.someLease(t)
	sm.step(Input{Kind: InputMessage, Msg: Message{Kind: MsgRenew, From: c, To: ServiceNode, Lease: lease}})
	r := &sm.ref
	ok := r.status == Acquired && r.holder == c && r.lease == lease
	assert.Equal(t, []Message{{Kind: MsgRenewed, From: ServiceNode, To: c, Lease: lease, OK: ok}}, sm.out.Send)
	assert.Empty(t, sm.out.Cancel)
	require.Len(t, sm.out.Events, 1)
	if ok {
		assert.Equal(t, []TimerSet{{Timer: Timer{Kind: TimerLease}, After: 10}}, sm.out.Set)
		assert.Equal(t, EvRenewed, sm.out.Events[0].Kind)
		return
	}
	assert.Empty(t, sm.out.Set)
	assert.Equal(t, EvRenewRefused, sm.out.Events[0].Kind)
}

func (sm *serviceMachine) expire(t *rapid.T) {
	r := &sm.ref
	if !r.leaseTimer {
		t.Skip("no lease timer pending")
	}
	r.leaseTimer = false
	sm.step(Input{Kind: InputTimer, Timer: Timer{Kind: TimerLease}})
	// A lease timer is pending only while the lock is held: releases
	// cancel it.
	require.Equal(t, Acquired, r.status)
	require.NotEmpty(t, sm.out.Events)
	assert.Equal(t, Event{Kind: EvExpired, Node: ServiceNode, Peer: r.holder, Lease: r.lease}, sm.out.Events[0])
	r.status, r.holder, r.lease = Expired, 0, 0
	if sm.delay {
		r.delayed, r.delayTimer = true, true
		assert.Equal(t, []TimerSet{{Timer: Timer{Kind: TimerLockDelay}, After: 5}}, sm.out.Set)
	} else {
		assert.Empty(t, sm.out.Set)
	}
}

func (sm *serviceMachine) endDelay(t *rapid.T) {
	if !sm.ref.delayTimer {
		t.Skip("no lock-delay timer pending")
	}
	sm.ref.delayTimer, sm.ref.delayed = false, false
	sm.step(Input{Kind: InputTimer, Timer: Timer{Kind: TimerLockDelay}})
}

func (sm *serviceMachine) check(t *rapid.T) {
	l := sm.svc.Lock()
	assert.Equal(t, sm.ref.status, l.Status, "status")
	assert.Equal(t, sm.ref.holder, l.Holder, "holder")
	assert.Equal(t, sm.ref.lease, l.Lease, "lease")
	assert.Equal(t, sm.ref.last, l.LastLease, "last lease")
	assert.Equal(t, sm.ref.delayed, l.Delayed, "delayed")
	for i := 1; i < len(sm.ref.tokens); i++ {
		require.Greater(t, sm.ref.tokens[i], sm.ref.tokens[i-1], "a token repeated or decreased")
	}
}

func TestServiceAgainstReferenceModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sm := &serviceMachine{fencing: rapid.Bool().Draw(t, "fencing"), delay: rapid.Bool().Draw(t, "lockDelay")}
		cfg := ServiceConfig{TTL: 10, Fencing: sm.fencing}
		if sm.delay {
			cfg.LockDelay = 5
		}
		sm.svc = NewService(cfg)
		t.Repeat(map[string]func(*rapid.T){
			"acquire":  sm.acquire,
			"release":  sm.release,
			"renew":    sm.renew,
			"expire":   sm.expire,
			"endDelay": sm.endDelay,
			"":         sm.check,
		})
	})
}

// svcStep sends one message to svc and returns the effects.
func svcStep(svc *Service, m Message) Effects {
	var out Effects
	m.To = ServiceNode
	svc.Step(&Input{Kind: InputMessage, Msg: m}, &out)
	return out
}

func svcFire(svc *Service, k TimerKind) Effects {
	var out Effects
	svc.Step(&Input{Kind: InputTimer, Timer: Timer{Kind: k}}, &out)
	return out
}

func grantOf(t *testing.T, out Effects) Message {
	t.Helper()
	require.Len(t, out.Send, 1)
	require.Equal(t, MsgGrant, out.Send[0].Kind, "expected a grant, got %v", out.Send[0])
	return out.Send[0]
}

func TestServiceRules(t *testing.T) {
	c1, c2 := ClientNode(0), ClientNode(1)
	fenced := ServiceConfig{TTL: 10, Fencing: true}
	tests := []struct {
		name string
		cfg  ServiceConfig
		run  func(t *testing.T, svc *Service)
	}{
		{"release by a non-holder is refused", fenced, func(t *testing.T, svc *Service) {
			g := grantOf(t, svcStep(svc, Message{Kind: MsgAcquire, From: c1}))
			out := svcStep(svc, Message{Kind: MsgRelease, From: c2, Lease: g.Lease})
			assert.Equal(t, EvReleaseRefused, out.Events[0].Kind)
			assert.Empty(t, out.Cancel)
			assert.Equal(t, Acquired, svc.Lock().Status)
			assert.Equal(t, c1, svc.Lock().Holder)
		}},
		{"release with an old lease is refused", fenced, func(t *testing.T, svc *Service) {
			old := grantOf(t, svcStep(svc, Message{Kind: MsgAcquire, From: c1}))
			svcFire(svc, TimerLease)
			// c1 again holds the lock under a new lease; its old lease must
			// not free it (Redis's compare-and-delete release).
			grantOf(t, svcStep(svc, Message{Kind: MsgAcquire, From: c1}))
			out := svcStep(svc, Message{Kind: MsgRelease, From: c1, Lease: old.Lease})
			assert.Equal(t, EvReleaseRefused, out.Events[0].Kind)
			assert.Equal(t, Acquired, svc.Lock().Status)
			assert.Equal(t, uint64(2), svc.Lock().Lease)
		}},
		{"a stale holder cannot release the new holder's lock", fenced, func(t *testing.T, svc *Service) {
			old := grantOf(t, svcStep(svc, Message{Kind: MsgAcquire, From: c1}))
			svcFire(svc, TimerLease)
			grantOf(t, svcStep(svc, Message{Kind: MsgAcquire, From: c2}))
			svcStep(svc, Message{Kind: MsgRelease, From: c1, Lease: old.Lease})
			assert.Equal(t, c2, svc.Lock().Holder)
		}},
		{"release by the holder frees the lock and cancels the lease timer", fenced, func(t *testing.T, svc *Service) {
			g := grantOf(t, svcStep(svc, Message{Kind: MsgAcquire, From: c1}))
			out := svcStep(svc, Message{Kind: MsgRelease, From: c1, Lease: g.Lease})
			assert.Equal(t, []Timer{{Kind: TimerLease}}, out.Cancel)
			assert.Equal(t, Available, svc.Lock().Status)
		}},
		{"a held lock is not granted, even to its holder", fenced, func(t *testing.T, svc *Service) {
			grantOf(t, svcStep(svc, Message{Kind: MsgAcquire, From: c1}))
			for _, c := range []NodeID{c2, c1} {
				out := svcStep(svc, Message{Kind: MsgAcquire, From: c})
				assert.Equal(t, []Message{{Kind: MsgReject, From: ServiceNode, To: c}}, out.Send)
			}
		}},
		{"tokens never repeat or decrease across expiries and releases", fenced, func(t *testing.T, svc *Service) {
			var last uint64
			for i := range 6 {
				g := grantOf(t, svcStep(svc, Message{Kind: MsgAcquire, From: ClientNode(i % 2)}))
				assert.Greater(t, g.Token, last)
				assert.Equal(t, g.Lease, g.Token, "with fencing the lease number is the token")
				last = g.Token
				if i%2 == 0 {
					svcFire(svc, TimerLease)
				} else {
					svcStep(svc, Message{Kind: MsgRelease, From: ClientNode(i % 2), Lease: g.Lease})
				}
			}
			assert.Equal(t, uint64(6), last)
		}},
		{"without fencing grants carry no token", ServiceConfig{TTL: 10}, func(t *testing.T, svc *Service) {
			g := grantOf(t, svcStep(svc, Message{Kind: MsgAcquire, From: c1}))
			assert.Zero(t, g.Token)
			assert.Equal(t, uint64(1), g.Lease)
		}},
		{"lock-delay blocks a grant after expiry until its timer fires", ServiceConfig{TTL: 10, LockDelay: 3, Fencing: true}, func(t *testing.T, svc *Service) {
			grantOf(t, svcStep(svc, Message{Kind: MsgAcquire, From: c1}))
			out := svcFire(svc, TimerLease)
			assert.Equal(t, []TimerSet{{Timer: Timer{Kind: TimerLockDelay}, After: 3}}, out.Set)
			out = svcStep(svc, Message{Kind: MsgAcquire, From: c2})
			assert.Equal(t, MsgReject, out.Send[0].Kind, "granted during the lock-delay")
			svcFire(svc, TimerLockDelay)
			g := grantOf(t, svcStep(svc, Message{Kind: MsgAcquire, From: c2}))
			assert.Equal(t, uint64(2), g.Token)
		}},
		{"lock-delay does not block a grant after a release", ServiceConfig{TTL: 10, LockDelay: 3, Fencing: true}, func(t *testing.T, svc *Service) {
			g := grantOf(t, svcStep(svc, Message{Kind: MsgAcquire, From: c1}))
			out := svcStep(svc, Message{Kind: MsgRelease, From: c1, Lease: g.Lease})
			assert.Empty(t, out.Set, "no lock-delay after a release")
			grantOf(t, svcStep(svc, Message{Kind: MsgAcquire, From: c2}))
		}},
		{"without lock-delay a lock is granted right after expiry", fenced, func(t *testing.T, svc *Service) {
			grantOf(t, svcStep(svc, Message{Kind: MsgAcquire, From: c1}))
			out := svcFire(svc, TimerLease)
			assert.Empty(t, out.Set)
			grantOf(t, svcStep(svc, Message{Kind: MsgAcquire, From: c2}))
		}},
		{"a late lease timer after a release changes nothing", fenced, func(t *testing.T, svc *Service) {
			g := grantOf(t, svcStep(svc, Message{Kind: MsgAcquire, From: c1}))
			svcStep(svc, Message{Kind: MsgRelease, From: c1, Lease: g.Lease})
			out := svcFire(svc, TimerLease)
			assert.Empty(t, out.Events)
			assert.Equal(t, Available, svc.Lock().Status)
		}},
		{"a timer the service does not set is ignored", fenced, func(t *testing.T, svc *Service) {
			grantOf(t, svcStep(svc, Message{Kind: MsgAcquire, From: c1}))
			out := svcFire(svc, TimerThink)
			assert.Empty(t, out.Events)
			assert.Equal(t, Acquired, svc.Lock().Status)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svc := NewService(tc.cfg)
			tc.run(t, &svc)
		})
	}
}

// TestLeaseCounterNeverWraps sets the lease counter next to its maximum:
// the last lease is granted, and after it the service refuses to grant
// rather than wrap to a token that was used before.
func TestLeaseCounterNeverWraps(t *testing.T) {
	c1 := ClientNode(0)
	svc := NewService(ServiceConfig{TTL: time.Second, Fencing: true})
	svc.lock.LastLease = math.MaxUint64 - 1
	g := grantOf(t, svcStep(&svc, Message{Kind: MsgAcquire, From: c1}))
	assert.Equal(t, uint64(math.MaxUint64), g.Token)
	svcStep(&svc, Message{Kind: MsgRelease, From: c1, Lease: g.Lease})
	out := svcStep(&svc, Message{Kind: MsgAcquire, From: c1})
	assert.Equal(t, []Message{{Kind: MsgReject, From: ServiceNode, To: c1}}, out.Send)
	assert.Equal(t, uint64(math.MaxUint64), svc.Lock().LastLease, "the counter must not wrap")
	assert.Equal(t, Available, svc.Lock().Status)
}
