package impl

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/verdict"
)

// nonAtomicStory: c1 holds lease 1, reads 0 and writes 1; the resource
// checks the write (token 1 >= 1) and queues it. c1's lease expires and
// c2 gets lease 2; c2 reads 0 (c1's write is not applied yet; the read
// raises the highest token to 2); then c1's write is applied — after a
// read with token 2 — and c2 writes 1 over it.
func nonAtomicStory(h *harness) {
	c1, c2 := ClientNode(0), ClientNode(1)
	h.start(c1)
	h.deliver(ServiceNode, MsgAcquire)
	h.deliver(c1, MsgGrant)
	h.deliver(ResourceNode, MsgRead)
	h.deliver(c1, MsgReadReply)
	h.fire(c1, TimerThink)
	h.deliver(ResourceNode, MsgWrite) // checked, queued
	h.fire(ServiceNode, TimerLease)
	h.start(c2)
	h.deliver(ServiceNode, MsgAcquire)
	h.deliver(c2, MsgGrant)
	h.deliver(ResourceNode, MsgRead) // reads 0: c1's write is not applied
	h.deliver(c2, MsgReadReply)
	h.deliver(ResourceNode, MsgApply) // c1's write takes effect after c2's read
	h.fire(c2, TimerThink)
	h.deliver(ResourceNode, MsgWrite)
	h.deliver(ResourceNode, MsgApply)
}

// TestNonAtomicResource: the story breaks TokenIsMonotonical and
// NoLostUpdate in the non-atomic row and is impossible with fencing all,
// whose resource applies c1's write at once, so that c2 reads 1.
func TestNonAtomicResource(t *testing.T) {
	h := newHarness(t, DesignNonAtomic, 2)
	nonAtomicStory(h)
	assert.True(t, h.broken(TokenIsMonotonical), "%s", h.sys)
	assert.True(t, h.broken(NoLostUpdate), "%s", h.sys)
	assert.Equal(t, int64(1), h.sys.Resource.Counter())
	assert.Empty(t, h.sys.Resource.Pending())

	// With fencing all there is no apply to deliver.
	all := newHarness(t, DesignFenceAll, 2)
	all.start(ClientNode(0))
	all.deliver(ServiceNode, MsgAcquire)
	all.deliver(ClientNode(0), MsgGrant)
	all.deliver(ResourceNode, MsgRead)
	all.deliver(ClientNode(0), MsgReadReply)
	all.fire(ClientNode(0), TimerThink)
	all.deliver(ResourceNode, MsgWrite)
	assert.Equal(t, int64(1), all.sys.Resource.Counter(), "fencing all writes in the step that checks")
	for _, m := range all.w.InFlight {
		assert.NotEqual(t, MsgApply, m.Kind)
	}
}

// restartStory: c1 holds lease 1 and reads 0; the service restarts; c2
// asks and is granted; it reads and writes; c1 writes its stale value.
func restartStory(h *harness) {
	c1, c2 := ClientNode(0), ClientNode(1)
	h.start(c1)
	h.deliver(ServiceNode, MsgAcquire)
	h.deliver(c1, MsgGrant)
	h.deliver(ResourceNode, MsgRead)
	h.deliver(c1, MsgReadReply)
	h.take("the service restarting", func(a Action) bool { return a.Node == ServiceNode && a.Input.Kind == InputRestart })
	h.start(c2)
	h.deliver(ServiceNode, MsgAcquire)
	h.deliver(c2, MsgGrant)
	h.deliver(ResourceNode, MsgRead)
	h.deliver(c2, MsgReadReply)
	h.fire(c2, TimerThink)
	h.deliver(ResourceNode, MsgWrite)
	h.fire(c1, TimerThink)
	h.deliver(ResourceNode, MsgWrite)
}

// TestRestart: a volatile counter grants token 1 twice and check all
// accepts c1's stale write (1 >= 1): an update is lost, tokens stay in
// order. A durable one grants token 2: c1's write is fenced off.
func TestRestart(t *testing.T) {
	for _, tc := range []struct {
		design   Design
		c2Token  uint64
		lost     bool
		fencedC1 bool
	}{{DesignRestartVolatile, 1, true, false}, {DesignRestartDurable, 2, false, true}} {
		t.Run(tc.design.String(), func(t *testing.T) {
			h := newHarness(t, tc.design, 2)
			restartStory(h)
			assert.Equal(t, tc.c2Token, h.sys.Clients[1].Token())
			assert.True(t, h.broken(AtMostOneClientHoldLock), "the restart forgot who held the lock")
			assert.Equal(t, tc.lost, h.broken(NoLostUpdate), "%s", h.sys)
			assert.False(t, h.broken(TokenIsMonotonical))
			log := h.sys.Resource.Log()
			require.NotEmpty(t, log)
			assert.Equal(t, tc.fencedC1, !log[len(log)-1].Accepted, "c1's stale write: %v", log[len(log)-1])
			assert.Equal(t, 1, h.w.Restarts)
			assert.Equal(t, uint64(1), h.w.HeldAtRestart, "c1 held the lock at the restart")
			for i := range h.w.Actions() {
				assert.NotEqual(t, InputRestart, h.w.Action(i).Input.Kind, "at most UntimedRestarts restarts")
			}
		})
	}
	// The other rows' services never restart: no such action.
	h := newHarness(t, DesignFenceAll, 2)
	for i := range h.w.Actions() {
		assert.NotEqual(t, InputRestart, h.w.Action(i).Input.Kind)
	}
}

// TestServiceRestart: what a restart keeps, for each Restart kind, and
// that it cancels the lease timer of the lock it forgot.
func TestServiceRestart(t *testing.T) {
	for _, tc := range []struct {
		restart Restart
		last    uint64
		changed bool
	}{{NoRestart, 1, false}, {RestartVolatile, 0, true}, {RestartDurable, 1, true}} {
		s := NewService(ServiceConfig{TTL: 10, Fencing: true, Restart: tc.restart})
		var out Effects
		s.Step(Input{Kind: InputMessage, Msg: Message{Kind: MsgAcquire, From: ClientNode(0), To: ServiceNode}}, &out)
		out.Reset()
		s.Step(Input{Kind: InputRestart}, &out)
		l := s.Lock()
		assert.Equal(t, tc.last, l.LastLease, "%v", tc.restart)
		if !tc.changed {
			assert.Equal(t, Acquired, l.Status, "a service that never crashes ignores a restart")
			assert.Empty(t, out.Cancel)
			continue
		}
		assert.Equal(t, Available, l.Status)
		assert.Contains(t, out.Cancel, Timer{Kind: TimerLease})
		require.Len(t, out.Events, 1)
		assert.Equal(t, EvRestarted, out.Events[0].Kind)
	}
}

// TestDesignsTable: every design is a complete row — a flag that parses
// back, a name, an assumption, an expected verdict for every property —
// and a property is "—" exactly where the row says why.
func TestDesignsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range Designs() {
		got, err := ParseDesign(d.String())
		require.NoError(t, err)
		assert.Equal(t, d, got)
		assert.NotEmpty(t, d.Describe())
		assert.NotEmpty(t, d.Assumption())
		assert.False(t, seen[d.Describe()], "two rows named %q", d.Describe())
		seen[d.Describe()] = true
		for k, inv := range Invariants() {
			assert.Equal(t, k, invariantIndex(inv.Name))
			want := Expected(d, inv.Name)
			assert.Contains(t, []verdict.Status{verdict.Holds, verdict.Violated, verdict.NotApplicable}, want)
			assert.Equal(t, want == verdict.NotApplicable, NotApplicableWhy(d, inv.Name) != "", "%s %s", d, inv.Name)
			assert.Equal(t, want != verdict.NotApplicable, inv.AppliesTo(d))
		}
		assert.Equal(t, verdict.Violated, Expected(d, AtMostOneClientHoldLock), "fencing never changes beliefs")
	}
	_, err := ParseDesign("tokens")
	assert.ErrorContains(t, err, `unknown design "tokens" (want off, none, writes, all, nonatomic, restart-volatile or restart-durable)`)
	assert.Equal(t, verdict.NotApplicable, Expected(numDesigns, NoLostUpdate))
	assert.Equal(t, verdict.NotApplicable, Expected(DesignFenceAll, "TypeInvariant"))
}
