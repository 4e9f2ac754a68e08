package impl

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// harness drives a System by hand: messages wait in a list until a test
// delivers them, timers fire when a test says so.
type harness struct {
	t        *testing.T
	sys      *System
	inflight []Message
	timers   map[NodeID]map[Timer]bool
	out      Effects
}

func newHarness(t *testing.T, d Design, clients int) *harness {
	sys, err := NewSystem(Config{Design: d, Clients: clients, Sections: 1, Retries: 1, TTL: 10, Margin: 1})
	require.NoError(t, err)
	return &harness{t: t, sys: sys, timers: map[NodeID]map[Timer]bool{}}
}

func (h *harness) step(n NodeID, in Input) {
	h.out.Reset()
	h.sys.Step(n, in, &h.out)
	h.inflight = append(h.inflight, h.out.Send...)
	if h.timers[n] == nil {
		h.timers[n] = map[Timer]bool{}
	}
	for _, ts := range h.out.Set {
		h.timers[n][ts.Timer] = true
	}
	for _, tm := range h.out.Cancel {
		delete(h.timers[n], tm)
	}
}

// deliver hands the first in-flight message of the given kind to n.
func (h *harness) deliver(to NodeID, kind MsgKind) {
	h.t.Helper()
	for i, m := range h.inflight {
		if m.To == to && m.Kind == kind {
			h.inflight = append(h.inflight[:i], h.inflight[i+1:]...)
			h.step(to, Input{Kind: InputMessage, Msg: m})
			return
		}
	}
	h.t.Fatalf("no %s in flight to %s; in flight: %v", kind, to, h.inflight)
}

func (h *harness) fire(n NodeID, k TimerKind) {
	h.t.Helper()
	tm := Timer{Kind: k}
	require.True(h.t, h.timers[n][tm], "no %s timer pending at %s", k, n)
	delete(h.timers[n], tm)
	h.step(n, Input{Kind: InputTimer, Timer: tm})
}

func (h *harness) broken(name string) bool {
	inv, err := LookupInvariant(name)
	require.NoError(h.t, err)
	return inv.Check(h.sys) != nil
}

// kleppmann plays the GC-pause story: c1 gets the lock and reads, its lease
// expires at the service while it is paused, c2 gets the lock, reads and
// writes, then c1 wakes up and writes its stale value.
func kleppmann(h *harness) {
	c1, c2 := ClientNode(0), ClientNode(1)
	h.step(c1, Input{Kind: InputStart})
	h.deliver(ServiceNode, MsgAcquire)
	h.deliver(c1, MsgGrant)
	h.deliver(ResourceNode, MsgRead)
	h.deliver(c1, MsgReadReply)
	h.fire(ServiceNode, TimerLease)
	h.step(c2, Input{Kind: InputStart})
	h.deliver(ServiceNode, MsgAcquire)
	h.deliver(c2, MsgGrant)
	h.deliver(ResourceNode, MsgRead)
	h.deliver(c2, MsgReadReply)
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
		t.Run(d.String(), func(t *testing.T) {
			h := newHarness(t, d, 2)
			c1, c2 := ClientNode(0), ClientNode(1)
			h.step(c1, Input{Kind: InputStart})
			h.deliver(ServiceNode, MsgAcquire)
			h.deliver(c1, MsgGrant)
			h.deliver(ResourceNode, MsgRead)
			h.deliver(c1, MsgReadReply)
			h.fire(c1, TimerValidity) // c1's own clock: the lease is over
			h.fire(ServiceNode, TimerLease)
			h.step(c2, Input{Kind: InputStart})
			h.deliver(ServiceNode, MsgAcquire)
			h.deliver(c2, MsgGrant)
			h.deliver(ResourceNode, MsgRead)
			h.deliver(c2, MsgReadReply)
			h.fire(c1, TimerThink) // c1 checks its belief and gives the section up
			h.fire(c2, TimerThink)
			h.deliver(ResourceNode, MsgWrite)
			for _, name := range InvariantNames() {
				assert.False(t, h.broken(name), "%s: %s", name, h.sys)
			}
			assert.Equal(t, int64(1), h.sys.Resource.Counter())
			assert.Equal(t, 1, h.sys.Clients[0].Aborted())
			for _, m := range h.inflight {
				assert.NotEqual(t, MsgWrite, m.Kind, "c1 must not have written")
			}
			// c1's release names its old lease: the service refuses it and
			// c2 keeps the lock.
			h.deliver(ServiceNode, MsgRelease)
			_, holder, _ := h.sys.Service.Lock(0)
			assert.Equal(t, c2, holder)
		})
	}
}
