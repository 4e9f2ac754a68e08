package impl

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// harness drives the untimed world by hand: a test names each action — a
// client starting, a message delivered, a timer firing — and the harness
// takes it among the world's enabled actions, so a story can only take
// steps the explorer could take too.
type harness struct {
	t   *testing.T
	w   *World
	sys *System
}

func newHarness(t *testing.T, d Design, clients int) *harness {
	return newHarnessRule(t, d, clients, ValiditySend)
}

func newHarnessRule(t *testing.T, d Design, clients int, rule ValidityRule) *harness {
	w, err := NewWorld(Config{Design: d, Clients: clients, Sections: 1, Retries: 1, TTL: 10, Margin: 1, Validity: rule})
	require.NoError(t, err)
	return &harness{t: t, w: w, sys: w.Sys}
}

// pending reports whether n's timer of kind k is pending.
func (h *harness) pending(n NodeID, k TimerKind) bool {
	return slices.Contains(h.w.Timers, PendingTimer{Node: n, Timer: Timer{Kind: k}})
}

// take applies the first enabled action that matches, or fails the test.
func (h *harness) take(what string, match func(Action) bool) {
	h.t.Helper()
	for i := range h.w.Actions() {
		if match(h.w.Action(i)) {
			h.w.Apply(i)
			return
		}
	}
	h.t.Fatalf("%s is not enabled; in flight: %v; timers: %v", what, h.w.InFlight, h.w.Timers)
}

// start lets client n begin its workload.
func (h *harness) start(n NodeID) {
	h.t.Helper()
	h.take(n.String()+" starting", func(a Action) bool { return a.Node == n && a.Input.Kind == InputStart })
}

// deliver hands the first in-flight message of the given kind to n. A
// service with a durable counter persists it before it grants, in a step
// of its own: an acquire it handled is followed by that step (the
// stories are about what comes after the grant).
func (h *harness) deliver(to NodeID, kind MsgKind) {
	h.t.Helper()
	h.take(kind.String()+" to "+to.String(), func(a Action) bool {
		return a.Node == to && a.Input.Kind == InputMessage && a.Input.Msg.Kind == kind
	})
	if to.IsLockNode() && kind == MsgAcquire && h.pending(to, TimerPersist) {
		h.fire(to, TimerPersist)
	}
}

// operate delivers the first operation of the given kind to the resource
// and, where the resource checks sequencers with the service, the question
// to the service and its answer, so that the operation is handled.
func (h *harness) operate(kind MsgKind) {
	h.t.Helper()
	h.deliver(ResourceNode, kind)
	if h.sys.Resource.Mode() == FenceSequencer {
		h.deliver(ServiceNode, MsgCheck)
		h.deliver(ResourceNode, MsgCheckReply)
	}
}

// fire fires n's pending timer of kind k.
func (h *harness) fire(n NodeID, k TimerKind) {
	h.t.Helper()
	h.take(k.String()+" timer at "+n.String(), func(a Action) bool {
		return a.Node == n && a.Input.Kind == InputTimer && a.Input.Timer.Kind == k
	})
}

func (h *harness) broken(name string) bool {
	inv, err := LookupInvariant(name)
	require.NoError(h.t, err)
	return inv.Check(h.sys) != nil
}

// bothRead plays the start of the GC-pause story: c1 gets the lock and
// reads, its lease expires at the service while it is paused, and c2 gets
// the lock and reads; both now believe they hold it and both have read.
func bothRead(h *harness) {
	c1, c2 := ClientNode(0), ClientNode(1)
	h.start(c1)
	h.deliver(ServiceNode, MsgAcquire)
	h.deliver(c1, MsgGrant)
	h.deliver(ResourceNode, MsgRead)
	h.deliver(c1, MsgReadReply)
	h.fire(ServiceNode, TimerLease)
	h.start(c2)
	h.deliver(ServiceNode, MsgAcquire)
	h.deliver(c2, MsgGrant)
	h.deliver(ResourceNode, MsgRead)
	h.deliver(c2, MsgReadReply)
}

// kleppmann plays the GC-pause story: c1 gets the lock and reads, its lease
// expires at the service while it is paused, c2 gets the lock, reads and
// writes, then c1 wakes up and writes its stale value.
func kleppmann(h *harness) {
	c1, c2 := ClientNode(0), ClientNode(1)
	bothRead(h)
	h.fire(c1, TimerThink) // c1 still believes it holds the lock and writes
	h.fire(c2, TimerThink)
	h.deliver(ResourceNode, MsgWrite) // c1's stale write lands first
	h.deliver(ResourceNode, MsgWrite)
}

func TestKleppmannStory(t *testing.T) {
	tests := []struct {
		design           Design
		lostUpdate       bool
		tokensOutOfOrder bool
		counter          int64
	}{
		{DesignNoFencing, true, false, 1},
		{DesignFenceNone, true, true, 1},
		// c2 read 0 before c1's stale write, and reads do not raise the
		// highest token: the stale write is accepted and c2 writes 1 again.
		{DesignFenceWrites, true, true, 1},
		{DesignFenceAll, false, false, 1},
	}
	for _, tc := range tests {
		t.Run(tc.design.String(), func(t *testing.T) {
			h := newHarness(t, tc.design, 2)
			kleppmann(h)
			assert.True(t, h.broken(AtMostOneClientHoldLock), "both clients believe they hold the lock: %s", h.sys)
			assert.Equal(t, tc.lostUpdate, h.broken(NoLostUpdate), "%s", h.sys)
			assert.Equal(t, tc.tokensOutOfOrder, h.broken(TokenIsMonotonical), "%s", h.sys)
			assert.Equal(t, tc.counter, h.sys.Resource.Counter())
		})
	}
}

// TestKleppmannStoryWithATimelyClock is the same story when c1's clock is
// right: its validity timer fires (TTL minus margin) before the service's
// lease timer, so it stops believing and never writes. Nothing is violated
// in any design — the violations above need a pause or a slow clock, which
// is why the explorer's asynchronous model, where any timer may fire at any
// moment, finds them.
func TestKleppmannStoryWithATimelyClock(t *testing.T) {
	for _, d := range Designs() {
		if d.Redlock() {
			continue // several lock nodes: TestRedlock* tell their stories
		}
		t.Run(d.String(), func(t *testing.T) {
			h := newHarness(t, d, 2)
			c1, c2 := ClientNode(0), ClientNode(1)
			h.start(c1)
			h.deliver(ServiceNode, MsgAcquire)
			h.deliver(c1, MsgGrant)
			h.operate(MsgRead)
			h.deliver(c1, MsgReadReply)
			h.fire(c1, TimerValidity) // c1's own clock: the lease is over
			h.fire(ServiceNode, TimerLease)
			if d.LockDelay() {
				h.fire(ServiceNode, TimerLockDelay)
			}
			h.start(c2)
			h.deliver(ServiceNode, MsgAcquire)
			h.deliver(c2, MsgGrant)
			h.operate(MsgRead)
			h.deliver(c2, MsgReadReply)
			h.fire(c1, TimerThink) // c1 checks its belief and gives the section up
			h.fire(c2, TimerThink)
			h.operate(MsgWrite)
			if d.NonAtomic() {
				h.deliver(ResourceNode, MsgApply)
			}
			for _, inv := range Invariants() {
				if !inv.AppliesTo(d) {
					continue // no tokens, or unordered ones: the property says nothing here
				}
				assert.False(t, h.broken(inv.Name), "%s: %s", inv.Name, h.sys)
			}
			assert.Equal(t, int64(1), h.sys.Resource.Counter())
			assert.Equal(t, 1, h.sys.Clients[0].Aborted())
			for _, m := range h.w.InFlight {
				assert.NotEqual(t, MsgWrite, m.Kind, "c1 must not have written")
			}
			// c1's release names its old lease: the service refuses it and
			// c2 keeps the lock.
			h.deliver(ServiceNode, MsgRelease)
			holder := h.sys.Service.Lock().Holder
			assert.Equal(t, c2, holder)
		})
	}
}

// TestGrantDelayedPastTheMargin: c1's grant travels longer than the margin
// — so long that the lease expires at the service and c2 is granted the
// lock before c1's grant lands. Under the send rule c1's validity window
// started when it sent the acquire, so by its own clock it is over before
// the grant lands (the timer fires first, as a clock without drift has it:
// the window is TTL − margin, the lease TTL from a later moment); c1 gives
// the grant back, asks again and never believes. Under the arrival rule the
// window only starts when the grant lands: c1 believes, and two clients
// hold the lock.
func TestGrantDelayedPastTheMargin(t *testing.T) {
	for _, rule := range ValidityRules() {
		t.Run(rule.String(), func(t *testing.T) {
			h := newHarnessRule(t, DesignFenceAll, 2, rule)
			c1, c2 := ClientNode(0), ClientNode(1)
			h.start(c1)
			h.deliver(ServiceNode, MsgAcquire) // the grant to c1 is now in flight, and slow
			if rule == ValiditySend {
				require.True(t, h.pending(c1, TimerValidity), "the window starts with the send")
				h.fire(c1, TimerValidity) // c1's clock: TTL − margin since the send
			} else {
				require.False(t, h.pending(c1, TimerValidity), "no window before the grant lands")
			}
			h.fire(ServiceNode, TimerLease) // the lease runs out at the service
			h.start(c2)
			h.deliver(ServiceNode, MsgAcquire)
			h.deliver(c2, MsgGrant)
			require.True(t, h.sys.Clients[1].Holds())
			h.deliver(c1, MsgGrant) // the late grant lands

			if rule == ValidityArrival {
				assert.True(t, h.sys.Clients[0].Holds(), "c1 believes in a lease the service has expired")
				assert.True(t, h.broken(AtMostOneClientHoldLock), "two holders: %s", h.sys)
				return
			}
			assert.False(t, h.sys.Clients[0].Holds(), "c1 never believes in the late grant")
			assert.False(t, h.broken(AtMostOneClientHoldLock), "%s", h.sys)
			assert.Equal(t, Acquiring, h.sys.Clients[0].Phase(), "c1 asks again")
			assert.True(t, h.pending(c1, TimerValidity), "with a new window from the new send")
			// c1 gave the grant back: the service refuses the release (the
			// lease is gone, c2 holds the lock) and rejects c1's new acquire.
			h.deliver(ServiceNode, MsgRelease)
			assert.Equal(t, c2, h.sys.Service.Lock().Holder)
			h.deliver(ServiceNode, MsgAcquire)
			h.deliver(c1, MsgReject)
			// The late grant spent c1's one retry: this rejection ends the
			// section, given up.
			assert.True(t, h.sys.Clients[0].Done())
			assert.Equal(t, 1, h.sys.Clients[0].Aborted())
			assert.False(t, h.pending(c1, TimerValidity), "a finished client leaves no timer")
			for _, inv := range Invariants() {
				if !inv.AppliesTo(DesignFenceAll) {
					continue // no tokens, or unordered ones: the property says nothing here
				}
				assert.False(t, h.broken(inv.Name), "%s: %s", inv.Name, h.sys)
			}
		})
	}
}

// TestLateGrantReleasedFreesTheLock: under the send rule a late grant that
// is still the service's current lease is freed by the client's release,
// and the client's next acquire gets the lock again.
func TestLateGrantReleasedFreesTheLock(t *testing.T) {
	h := newHarness(t, DesignNoFencing, 1)
	c1 := ClientNode(0)
	h.start(c1)
	h.deliver(ServiceNode, MsgAcquire)
	h.fire(c1, TimerValidity)
	h.deliver(c1, MsgGrant)
	require.False(t, h.sys.Clients[0].Holds())
	h.deliver(ServiceNode, MsgRelease)
	assert.Equal(t, Available, h.sys.Service.Lock().Status, "the release freed the lease")
	h.deliver(ServiceNode, MsgAcquire)
	h.deliver(c1, MsgGrant)
	assert.True(t, h.sys.Clients[0].Holds(), "the second grant came in its window")
}
