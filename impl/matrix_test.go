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

// handoverStory: c1 holds lease 1 and reads 0 (a snapshot-fence
// resource's transaction begins there); c1's lease expires and c2, granted
// lease 2, reads 0 and writes 1; then c1 writes its 1.
func handoverStory(h *harness) {
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
	h.fire(c2, TimerThink)
	h.deliver(ResourceNode, MsgWrite)
	h.deliver(c2, MsgWriteReply)
	h.fire(c1, TimerThink)
	h.deliver(ResourceNode, MsgWrite)
}

// TestSnapshotFence: in the handover story c1's transaction began before
// the handover, so its write is checked against the fence of that
// snapshot (0) and commits after c2's write with token 2: tokens out of
// order, c2's update lost. Fencing all checks the write against the fence
// as it is (2) and refuses it. The snapshot's fence moves only at a
// commit: c2's read with token 2 leaves it at 0, so a read with token 1
// after it still passes.
func TestSnapshotFence(t *testing.T) {
	for _, tc := range []struct {
		design  Design
		broken  bool
		counter int64
		fence   uint64
	}{
		{DesignSnapshotFence, true, 1, 2},
		{DesignFenceAll, false, 1, 2},
	} {
		t.Run(tc.design.String(), func(t *testing.T) {
			h := newHarness(t, tc.design, 2)
			handoverStory(h)
			assert.Equal(t, tc.broken, h.broken(TokenIsMonotonical), "%s", h.sys)
			assert.Equal(t, tc.broken, h.broken(NoLostUpdate), "%s", h.sys)
			assert.Equal(t, tc.counter, h.sys.Resource.Counter())
			assert.Equal(t, tc.fence, h.sys.Resource.MaxToken())
			last := h.sys.Resource.Log()[len(h.sys.Resource.Log())-1]
			assert.Equal(t, OpWrite, last.Kind)
			assert.Equal(t, uint64(1), last.Token)
			assert.Equal(t, tc.broken, last.Accepted, "c1's stale write")
		})
	}

	// Only a commit raises the fence: a read does not.
	r := NewResource(FenceAll)
	r.snapshot = true
	assert.True(t, r.admit(OpRead, 2))
	assert.Equal(t, uint64(0), r.MaxToken(), "a read raises nothing")
	assert.True(t, r.admit(OpRead, 1), "token 1 after token 2's read: that read committed nothing")
	assert.True(t, r.admit(OpWrite, 2))
	assert.Equal(t, uint64(2), r.MaxToken(), "the write's commit raises the fence")
	assert.False(t, r.admit(OpRead, 1), "a transaction that begins after the commit sees it")
	assert.True(t, r.admit(OpWrite, 1), "a write is checked in its read's snapshot")
	assert.Equal(t, uint64(2), r.MaxToken(), "a commit never lowers the fence")
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
		s.Step(&Input{Kind: InputMessage, Msg: Message{Kind: MsgAcquire, From: ClientNode(0), To: ServiceNode}}, &out)
		if tc.restart == RestartDurable {
			s.Step(&Input{Kind: InputTimer, Timer: Timer{Kind: TimerPersist}}, &out)
		}
		out.Reset()
		s.Step(&Input{Kind: InputRestart}, &out)
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

// TestDurableCounterPersistsBeforeGrant: a durable-counter service
// persists the next lease in the step that takes the acquire and grants in
// a step of its own; a crash in between loses the grant (its client sees a
// rejection) but not the counter, so the next grant is a fresh lease.
func TestDurableCounterPersistsBeforeGrant(t *testing.T) {
	s := NewService(ServiceConfig{TTL: 10, Fencing: true, Restart: RestartDurable})
	var out Effects
	acquire := func(c NodeID) {
		out.Reset()
		s.Step(&Input{Kind: InputMessage, Msg: Message{Kind: MsgAcquire, From: c, To: ServiceNode}}, &out)
	}
	acquire(ClientNode(0))
	l := s.Lock()
	assert.Equal(t, Persisting, l.Status)
	assert.Equal(t, uint64(1), l.Persisted, "the store holds the counter before any grant leaves")
	assert.Empty(t, out.Send, "no grant before the store has the counter")
	assert.Equal(t, []TimerSet{{Timer: Timer{Kind: TimerPersist}}}, out.Set)
	acquire(ClientNode(1))
	require.Len(t, out.Send, 1)
	assert.Equal(t, MsgReject, out.Send[0].Kind, "the lock is taken while persisting")

	out.Reset()
	s.Step(&Input{Kind: InputRestart}, &out)
	l = s.Lock()
	assert.Equal(t, LockState{LastLease: 1, Persisted: 1}, l)
	assert.Contains(t, out.Cancel, Timer{Kind: TimerPersist})
	require.Len(t, out.Send, 1)
	assert.Equal(t, Message{Kind: MsgReject, From: ServiceNode, To: ClientNode(0)}, out.Send[0], "the lost grant's client sees its connection drop")

	acquire(ClientNode(1))
	out.Reset()
	s.Step(&Input{Kind: InputTimer, Timer: Timer{Kind: TimerPersist}}, &out)
	require.Len(t, out.Send, 1)
	assert.Equal(t, Message{Kind: MsgGrant, From: ServiceNode, To: ClientNode(1), Lease: 2, Token: 2}, out.Send[0], "the next grant is fresh")
	assert.Equal(t, Acquired, s.Lock().Status)
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
	assert.ErrorContains(t, err, `unknown design "tokens" (want off, none, writes, all, nonatomic, restart-volatile, restart-durable, unique-cas, revision, version-equality, sequencer, redlock, redlock-unique, renewal or snapshot-fence)`)
	assert.Equal(t, verdict.NotApplicable, Expected(numDesigns, NoLostUpdate))
	assert.Equal(t, verdict.NotApplicable, Expected(DesignFenceAll, "TypeInvariant"))
}

// TestUniqueCAS: check-and-set on unique tokens. In Kleppmann's story
// c2's read sets the resource's token to c2's, so c1's stale write fails
// the compare. When c1's read is the one delayed (it sets c1's token
// after c2's read set c2's), c2's write fails the compare and c1's, based
// on the value c1 read after c2's, is accepted: no update is lost in
// either order, and the tokens accepted need not grow.
func TestUniqueCAS(t *testing.T) {
	h := newHarness(t, DesignUniqueCAS, 2)
	kleppmann(h)
	assert.False(t, h.broken(NoLostUpdate), "%s", h.sys)
	log := h.sys.Resource.Log()
	require.Len(t, log, 4)
	assert.False(t, log[2].Accepted, "c1's stale write fails the compare: %v", log[2])
	assert.True(t, log[3].Accepted, "c2's write carries the current token: %v", log[3])

	c1, c2 := ClientNode(0), ClientNode(1)
	h = newHarness(t, DesignUniqueCAS, 2)
	h.start(c1)
	h.deliver(ServiceNode, MsgAcquire)
	h.deliver(c1, MsgGrant) // c1's read is on its way, and stays there
	h.fire(ServiceNode, TimerLease)
	h.start(c2)
	h.deliver(ServiceNode, MsgAcquire)
	h.deliver(c2, MsgGrant)
	h.take("c2's read", func(a Action) bool {
		return a.Input.Kind == InputMessage && a.Input.Msg.Kind == MsgRead && a.Input.Msg.From == c2
	})
	h.take("c1's read", func(a Action) bool {
		return a.Input.Kind == InputMessage && a.Input.Msg.Kind == MsgRead && a.Input.Msg.From == c1
	})
	h.deliver(c1, MsgReadReply)
	h.deliver(c2, MsgReadReply)
	h.fire(c2, TimerThink)
	h.take("c2's write", func(a Action) bool { return a.Input.Kind == InputMessage && a.Input.Msg.Kind == MsgWrite })
	h.fire(c1, TimerThink)
	h.take("c1's write", func(a Action) bool { return a.Input.Kind == InputMessage && a.Input.Msg.Kind == MsgWrite })
	log = h.sys.Resource.Log()
	require.Len(t, log, 4)
	assert.False(t, log[2].Accepted, "c2's write: c1's read set the token since: %v", log[2])
	assert.True(t, log[3].Accepted, "c1's write: %v", log[3])
	assert.False(t, h.broken(NoLostUpdate), "%s", h.sys)
	assert.Equal(t, int64(1), h.sys.Resource.Counter())
}

// TestScrambleIsUniqueAndUnordered: the unique tokens of the first 100,000
// leases are distinct, never 0, and not in lease order.
func TestScrambleIsUniqueAndUnordered(t *testing.T) {
	seen := map[uint64]bool{}
	down := 0
	for l := uint64(1); l <= 100_000; l++ {
		tok := Scramble(l)
		require.NotZero(t, tok)
		require.False(t, seen[tok], "lease %d", l)
		seen[tok] = true
		if tok < Scramble(l-1) {
			down++
		}
	}
	assert.Greater(t, down, 40_000, "about half the steps go down")
	assert.Zero(t, Scramble(0))
}

// TestRevisionTokens: the token is the store's revision, advanced by the
// grant, the expiry and the next grant: c1 gets 1, c2 gets 3 (the expiry
// took 2). Kleppmann's story then ends as with fencing all: c1's stale
// write is refused, nothing is lost.
func TestRevisionTokens(t *testing.T) {
	h := newHarness(t, DesignRevision, 2)
	kleppmann(h)
	assert.Equal(t, uint64(3), h.sys.Clients[1].Token())
	assert.Equal(t, uint64(3), h.sys.Service.Lock().Revision)
	assert.False(t, h.broken(NoLostUpdate), "%s", h.sys)
	assert.False(t, h.broken(TokenIsMonotonical), "%s", h.sys)
	log := h.sys.Resource.Log()
	require.Len(t, log, 4)
	assert.False(t, log[2].Accepted, "c1's stale write (revision 1 < 3): %v", log[2])
	// A release advances the revision too; a refused one does not.
	h.deliver(ClientNode(0), MsgWriteReply) // c1's section ends: it releases lease 1
	h.deliver(ServiceNode, MsgRelease)      // refused: lease 1 is gone
	assert.Equal(t, uint64(3), h.sys.Service.Lock().Revision)
	h.deliver(ClientNode(1), MsgWriteReply) // c2's section ends: it releases lease 2
	h.deliver(ServiceNode, MsgRelease)
	assert.Equal(t, Available, h.sys.Service.Lock().Status)
	assert.Equal(t, uint64(4), h.sys.Service.Lock().Revision)
}

// TestVersionEquality: etcd's contrib/lock storage. In Kleppmann's story
// the newer holder writes first, the storage remembers its version, and
// the stale write is refused — the demo's case. When the stale holder
// writes first, its version is remembered and the newer holder is refused:
// nothing is lost either way, but the storage now refuses every other
// version for good.
func TestVersionEquality(t *testing.T) {
	c1, c2 := ClientNode(0), ClientNode(1)
	h := newHarness(t, DesignVersionEquality, 2)
	kleppmann(h) // c1's stale write lands first
	log := h.sys.Resource.Log()
	require.Len(t, log, 4)
	assert.True(t, log[2].Accepted, "the first write is accepted and its version remembered: %v", log[2])
	assert.False(t, log[3].Accepted, "the newer holder's write has another version: %v", log[3])
	assert.False(t, h.broken(NoLostUpdate), "%s", h.sys)

	h = newHarness(t, DesignVersionEquality, 2)
	bothRead(h)
	h.fire(c2, TimerThink)
	h.take("c2's write", func(a Action) bool {
		return a.Input.Kind == InputMessage && a.Input.Msg.Kind == MsgWrite && a.Input.Msg.From == c2
	})
	h.fire(c1, TimerThink)
	h.take("c1's write", func(a Action) bool {
		return a.Input.Kind == InputMessage && a.Input.Msg.Kind == MsgWrite && a.Input.Msg.From == c1
	})
	log = h.sys.Resource.Log()
	require.Len(t, log, 4)
	assert.True(t, log[2].Accepted, "c2 writes first: %v", log[2])
	assert.False(t, log[3].Accepted, "c1's stale write is refused, as in the demo: %v", log[3])
	assert.Equal(t, h.sys.Clients[1].Token(), h.sys.Resource.MaxToken(), "the version remembered is c2's")
	assert.False(t, h.broken(NoLostUpdate), "%s", h.sys)
}

// inFlight counts the messages of kind k in flight.
func (h *harness) inFlight(k MsgKind) int {
	n := 0
	for _, m := range h.w.InFlight {
		if m.Kind == k {
			n++
		}
	}
	return n
}

// TestSequencerStaleHolderRefused: Kleppmann's story with Chubby's
// sequencer check. The service says lease 1 is current while it is (c1's
// read), and not once it expired (c1's stale write): c1 is refused, c2's
// section takes effect. After the expiry the lock-delay keeps the lock
// from c2 until its timer fires.
func TestSequencerStaleHolderRefused(t *testing.T) {
	c1, c2 := ClientNode(0), ClientNode(1)
	h := newHarness(t, DesignSequencer, 2)
	h.start(c1)
	h.deliver(ServiceNode, MsgAcquire)
	h.deliver(c1, MsgGrant)
	h.operate(MsgRead)
	h.deliver(c1, MsgReadReply)
	h.fire(ServiceNode, TimerLease) // c1 is paused: it still believes
	require.True(t, h.sys.Service.Lock().Delayed, "an expiry starts the lock-delay")
	h.start(c2)
	h.deliver(ServiceNode, MsgAcquire)
	h.deliver(c2, MsgReject) // the lock-delay holds the expired lock back
	h.fire(c2, TimerBackoff)
	h.fire(ServiceNode, TimerLockDelay)
	h.deliver(ServiceNode, MsgAcquire)
	h.deliver(c2, MsgGrant)
	h.operate(MsgRead)
	h.deliver(c2, MsgReadReply)
	h.fire(c1, TimerThink) // c1 still believes and writes 1
	h.operate(MsgWrite)
	h.fire(c2, TimerThink)
	h.operate(MsgWrite)
	assert.True(t, h.broken(AtMostOneClientHoldLock), "beliefs are the clients' own: %s", h.sys)
	assert.False(t, h.broken(NoLostUpdate), "%s", h.sys)
	assert.False(t, h.broken(TokenIsMonotonical), "%s", h.sys)
	log := h.sys.Resource.Log()
	require.Len(t, log, 4)
	assert.False(t, log[2].Accepted, "c1's write: lease 1 is not the holder's: %v", log[2])
	assert.True(t, log[3].Accepted, "c2's write: %v", log[3])
	assert.Equal(t, int64(1), h.sys.Resource.Counter())
	assert.Zero(t, h.sys.Resource.MaxToken(), "the resource keeps no token of its own")
}

// TestSequencerYesThenExpiry: the service says yes to c1's write, and
// before the answer reaches the resource c1's lease expires and c2 is
// granted and sends its read. The resource handles one operation at a
// time: c2's read waits, unasked, behind c1's write, which takes effect
// first, so c2 reads 1 and nothing is lost. (A resource that asked about
// c2's read at once could apply it, reading 0, before c1's write:
// DESIGN.md gives the explorer's figures for that choice.)
func TestSequencerYesThenExpiry(t *testing.T) {
	c1, c2 := ClientNode(0), ClientNode(1)
	h := newHarness(t, DesignSequencer, 2)
	h.start(c1)
	h.deliver(ServiceNode, MsgAcquire)
	h.deliver(c1, MsgGrant)
	h.operate(MsgRead)
	h.deliver(c1, MsgReadReply)
	h.fire(c1, TimerThink)
	h.deliver(ResourceNode, MsgWrite)
	h.deliver(ServiceNode, MsgCheck) // yes: lease 1 is current
	require.Equal(t, 1, h.inFlight(MsgCheckReply))
	h.fire(ServiceNode, TimerLease)
	h.fire(ServiceNode, TimerLockDelay)
	h.start(c2)
	h.deliver(ServiceNode, MsgAcquire)
	h.deliver(c2, MsgGrant)
	h.deliver(ResourceNode, MsgRead) // c2's read queues behind c1's write
	assert.Zero(t, h.inFlight(MsgCheck), "nothing is asked while an answer is awaited")
	require.Len(t, h.sys.Resource.Queued(), 2)
	h.deliver(ResourceNode, MsgCheckReply) // c1's write takes effect; c2's read is asked about
	assert.Equal(t, int64(1), h.sys.Resource.Counter())
	require.Equal(t, 1, h.inFlight(MsgCheck))
	h.deliver(ServiceNode, MsgCheck)
	h.deliver(ResourceNode, MsgCheckReply)
	h.deliver(c2, MsgReadReply)
	assert.Equal(t, int64(1), h.sys.Clients[1].Read(), "c2 reads c1's write")
	h.fire(c2, TimerThink)
	h.operate(MsgWrite)
	assert.Equal(t, int64(2), h.sys.Resource.Counter())
	assert.Empty(t, h.sys.Resource.Queued())
	for _, name := range []string{TokenIsMonotonical, NoLostUpdate} {
		assert.False(t, h.broken(name), "%s: %s", name, h.sys)
	}
}

// TestSequencerServiceAnswers: the service says yes only for the token of
// the lease held now — not for a lease released, expired or never
// granted — and its answer changes nothing of the lock.
func TestSequencerServiceAnswers(t *testing.T) {
	svc := NewService(ServiceConfig{TTL: 10, LockDelay: 5, Fencing: true})
	var out Effects
	ask := func(token uint64) bool {
		out.Reset()
		before := svc.Lock()
		svc.Step(&Input{Kind: InputMessage, Msg: Message{Kind: MsgCheck, From: ResourceNode, To: ServiceNode, Token: token}}, &out)
		require.Equal(t, before, svc.Lock())
		require.Len(t, out.Send, 1)
		m := out.Send[0]
		require.Equal(t, Message{Kind: MsgCheckReply, From: ServiceNode, To: ResourceNode, Token: token, OK: m.OK}, m)
		return m.OK
	}
	c1 := ClientNode(0)
	assert.False(t, ask(1), "nothing granted yet")
	svc.Step(&Input{Kind: InputMessage, Msg: Message{Kind: MsgAcquire, From: c1, To: ServiceNode}}, &out)
	assert.True(t, ask(1))
	assert.False(t, ask(2), "never granted")
	svc.Step(&Input{Kind: InputTimer, Timer: Timer{Kind: TimerLease}}, &out)
	assert.False(t, ask(1), "expired")
	svc.Step(&Input{Kind: InputTimer, Timer: Timer{Kind: TimerLockDelay}}, &out)
	svc.Step(&Input{Kind: InputMessage, Msg: Message{Kind: MsgAcquire, From: c1, To: ServiceNode}}, &out)
	assert.True(t, ask(2))
	svc.Step(&Input{Kind: InputMessage, Msg: Message{Kind: MsgRelease, From: c1, To: ServiceNode, Lease: 2}}, &out)
	assert.False(t, ask(2), "released")
}

// TestSequencerHasALockDelay: the row's service holds an expired lock back
// even when the configuration gives no lock-delay; another row's does not.
func TestSequencerHasALockDelay(t *testing.T) {
	c := Config{Design: DesignSequencer, Clients: 1, Sections: 1, TTL: 10, Margin: 1}
	assert.Equal(t, c.TTL/5, c.ServiceLockDelay())
	c.LockDelay = 3
	assert.Equal(t, c.LockDelay, c.ServiceLockDelay())
	c = Config{Design: DesignFenceAll, Clients: 1, Sections: 1, TTL: 10, Margin: 1}
	assert.Zero(t, c.ServiceLockDelay())
}
