package impl

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func newRedlockHarness(t *testing.T, d Design, nodes int) *harness {
	w, err := NewWorld(Config{Design: d, Clients: 2, Sections: 1, Retries: 1, TTL: 10, Margin: 1, Nodes: nodes})
	require.NoError(t, err)
	return &harness{t: t, w: w, sys: w.Sys}
}

// deliverFrom hands the in-flight message of the given kind from from to
// to.
func (h *harness) deliverFrom(to NodeID, kind MsgKind, from NodeID) {
	h.t.Helper()
	h.take(kind.String()+" from "+from.String()+" to "+to.String(), func(a Action) bool {
		return a.Node == to && a.Input.Kind == InputMessage && a.Input.Msg.Kind == kind && a.Input.Msg.From == from
	})
}

// restart restarts lock node n.
func (h *harness) restart(n NodeID) {
	h.t.Helper()
	h.take("restart of "+n.String(), func(a Action) bool { return a.Node == n && a.Input.Kind == InputRestart })
}

// redlockSplit plays the start of both of Kleppmann's Redlock stories with
// three nodes A (service), B (service2) and C (service3): c1's acquires
// reach A and B first, c2's reaches C first, so c1 holds a bare majority
// {A, B} and c2, with one grant, releases on every node and backs off; its
// release frees C.
func redlockSplit(h *harness) {
	c1, c2 := ClientNode(0), ClientNode(1)
	a, b, c := LockNode(0), LockNode(1), LockNode(2)
	h.start(c1)
	h.start(c2)
	h.deliverFrom(a, MsgAcquire, c1)
	h.deliverFrom(b, MsgAcquire, c1)
	h.deliverFrom(c, MsgAcquire, c2)
	h.deliverFrom(a, MsgAcquire, c2)
	h.deliverFrom(b, MsgAcquire, c2)
	h.deliverFrom(c, MsgAcquire, c1)
	for _, n := range []NodeID{a, b, c} {
		h.deliverFrom(c1, h.answer(n, c1), n)
	}
	require.True(h.t, h.sys.Clients[0].Holds(), "c1 won A and B, a majority of three: %s", h.sys)
	for _, n := range []NodeID{a, b, c} {
		h.deliverFrom(c2, h.answer(n, c2), n)
	}
	require.False(h.t, h.sys.Clients[1].Holds(), "c2 won only C: %s", h.sys)
	require.Equal(h.t, BackingOff, h.sys.Clients[1].Phase())
	released := 0
	for _, m := range h.w.InFlight {
		if m.Kind == MsgRelease && m.From == c2 {
			released++
		}
	}
	require.Equal(h.t, 3, released, "a client without a majority releases on every node")
	h.deliverFrom(c, MsgRelease, c2)
	require.Equal(h.t, Available, h.sys.LockNodes[1].Lock().Status, "C is free again")
}

// answer is the kind of n's answer to client c in flight.
func (h *harness) answer(n, c NodeID) MsgKind {
	for _, m := range h.w.InFlight {
		if m.From == n && m.To == c && (m.Kind == MsgGrant || m.Kind == MsgReject) {
			return m.Kind
		}
	}
	h.t.Fatalf("no answer from %s to %s in flight: %v", n, c, h.w.InFlight)
	return 0
}

// redlockSecondMajority lets c2 ask again after B let c1's key go (its
// clock jumped, or it restarted without persistence): B and C grant, A
// refuses, and c2 holds a majority while c1 still does; both read, c1
// writes, then c2.
func redlockSecondMajority(h *harness) {
	c1, c2 := ClientNode(0), ClientNode(1)
	h.fire(c2, TimerBackoff)
	for _, n := range []NodeID{LockNode(0), LockNode(1), LockNode(2)} {
		h.deliverFrom(n, MsgAcquire, c2)
	}
	for _, n := range []NodeID{LockNode(0), LockNode(1), LockNode(2)} {
		h.deliverFrom(c2, h.answer(n, c2), n)
	}
	require.True(h.t, h.sys.Clients[1].Holds(), "%s", h.sys)
	h.deliverFrom(ResourceNode, MsgRead, c1)
	h.deliverFrom(c1, MsgReadReply, ResourceNode)
	h.deliverFrom(ResourceNode, MsgRead, c2)
	h.deliverFrom(c2, MsgReadReply, ResourceNode)
	h.fire(c1, TimerThink)
	h.fire(c2, TimerThink)
	h.deliverFrom(ResourceNode, MsgWrite, c1)
	h.deliverFrom(ResourceNode, MsgWrite, c2)
}

// TestRedlockKleppmannStories: Kleppmann's two counterexamples to Redlock
// ("How to do distributed locking"), played in the untimed world with three
// nodes: node B's key for c1 goes early — its clock jumped forward (its
// lease timer fires at once), or it crashed and restarted without
// persistence — and c2 wins a majority {B, C} while c1 still holds {A, B}
// in its belief. Without fencing both writes land and an update is lost;
// with the unique values as tokens, check-and-set refuses c1's write.
func TestRedlockKleppmannStories(t *testing.T) {
	stories := map[string]func(h *harness){
		"clock jump": func(h *harness) { h.fire(LockNode(1), TimerLease) },
		"restart":    func(h *harness) { h.restart(LockNode(1)) },
	}
	for name, breakB := range stories {
		for _, tc := range []struct {
			design     Design
			lostUpdate bool
			counter    int64
		}{{DesignRedlock, true, 1}, {DesignRedlockUnique, false, 1}} {
			t.Run(name+"/"+tc.design.String(), func(t *testing.T) {
				h := newRedlockHarness(t, tc.design, 3)
				redlockSplit(h)
				breakB(h)
				assert.NotEqual(t, Acquired, h.sys.LockNodes[0].Lock().Status, "B's key is gone")
				redlockSecondMajority(h)
				assert.True(t, h.broken(AtMostOneClientHoldLock), "%s", h.sys)
				assert.Equal(t, tc.lostUpdate, h.broken(NoLostUpdate), "%s", h.sys)
				assert.Equal(t, tc.counter, h.sys.Resource.Counter())
				log := h.sys.Resource.Log()
				require.Len(t, log, 4)
				assert.Equal(t, tc.lostUpdate, log[2].Accepted, "c1's stale write: %v", log[2])
				assert.True(t, log[3].Accepted, "c2's write: %v", log[3])
			})
		}
	}
}

// TestRedlockTimelyNodesKeepOneHolder: the same split with every node's
// key kept until c1 releases: c2's second attempt wins only C, so it
// releases everywhere again, and once c1 released on every node, c2 wins
// all three — both sections commit, one after the other.
func TestRedlockTimelyNodesKeepOneHolder(t *testing.T) {
	for _, d := range []Design{DesignRedlock, DesignRedlockUnique} {
		t.Run(d.String(), func(t *testing.T) {
			h := newRedlockHarness(t, d, 3)
			c1, c2 := ClientNode(0), ClientNode(1)
			redlockSplit(h)
			redlockSection(h, c1)
			assert.Equal(t, 1, h.sys.Clients[0].Committed())
			for _, n := range []NodeID{LockNode(0), LockNode(1)} {
				h.deliverFrom(n, MsgRelease, c1)
				assert.Equal(t, Available, h.sys.LockNode(n.LockIndex()).Lock().Status, "%s released c1's key", n)
			}
			h.deliverFrom(LockNode(2), MsgRelease, c1) // refused: C holds no key of c1
			h.fire(c2, TimerBackoff)
			for _, n := range []NodeID{LockNode(0), LockNode(1), LockNode(2)} {
				h.deliverFrom(n, MsgAcquire, c2)
				h.deliverFrom(c2, MsgGrant, n)
			}
			require.True(t, h.sys.Clients[1].Holds())
			assert.False(t, h.broken(AtMostOneClientHoldLock))
			redlockSection(h, c2)
			assert.Equal(t, 1, h.sys.Clients[1].Committed())
			assert.Equal(t, int64(2), h.sys.Resource.Counter())
			assert.False(t, h.broken(NoLostUpdate))
		})
	}
}

// TestRedlockReleaseNeedsTheValue: a node deletes a key only for the client
// and value that set it; any other release is refused and changes nothing.
func TestRedlockReleaseNeedsTheValue(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := NewService(ServiceConfig{TTL: 10, ClientValues: true, Node: LockNode(2), Restart: RestartVolatile})
		holder := ClientNode(rapid.IntRange(0, 3).Draw(t, "holder"))
		v := redlockValue(holder, rapid.IntRange(0, 254).Draw(t, "section"), rapid.IntRange(0, 255).Draw(t, "retries"))
		var out Effects
		s.Step(&Input{Kind: InputMessage, Msg: Message{Kind: MsgAcquire, From: holder, To: LockNode(2), Lease: v}}, &out)
		require.Equal(t, []Message{{Kind: MsgGrant, From: LockNode(2), To: holder, Lease: v}}, out.Send)
		from := ClientNode(rapid.IntRange(0, 3).Draw(t, "from"))
		w := redlockValue(from, rapid.IntRange(0, 254).Draw(t, "section of the release"), rapid.IntRange(0, 255).Draw(t, "retries of the release"))
		out.Reset()
		s.Step(&Input{Kind: InputMessage, Msg: Message{Kind: MsgRelease, From: from, To: LockNode(2), Lease: w}}, &out)
		if from == holder && w == v {
			assert.Equal(t, Available, s.Lock().Status)
			assert.Equal(t, []Timer{{Kind: TimerLease}}, out.Cancel)
			return
		}
		assert.Equal(t, LockState{Status: Acquired, Holder: holder, Lease: v}, s.Lock())
		assert.Equal(t, EvReleaseRefused, out.Events[0].Kind)
		// A second acquire, of any value, is refused while the key lives.
		out.Reset()
		s.Step(&Input{Kind: InputMessage, Msg: Message{Kind: MsgAcquire, From: from, To: LockNode(2), Lease: w}}, &out)
		assert.Equal(t, MsgReject, out.Send[0].Kind)
	})
}

// TestRedlockMajority: with N nodes a client holds the lock exactly when
// more than half of them granted — for every N and every way the answers
// come — and otherwise releases on every node.
func TestRedlockMajority(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes := rapid.IntRange(1, MaxLockNodes).Draw(t, "nodes")
		granted := rapid.SliceOfN(rapid.Bool(), nodes, nodes).Draw(t, "granted")
		c := NewClient(ClientNode(0), ClientConfig{Sections: 1, MaxRetries: 1, Validity: 9, Rule: ValidityArrival, Nodes: nodes})
		var out Effects
		c.Step(&Input{Kind: InputStart}, &out)
		require.Len(t, out.Send, nodes, "an acquire to every node")
		v := out.Send[0].Lease
		yes := 0
		for k, g := range granted {
			out.Reset()
			kind := MsgReject
			if g {
				kind, yes = MsgGrant, yes+1
			}
			c.Step(&Input{Kind: InputMessage, Msg: Message{Kind: kind, From: LockNode(k), To: c.ID(), Lease: v}}, &out)
			if k < nodes-1 {
				require.Empty(t, out.Send, "no decision before the last answer")
			}
		}
		if yes > nodes/2 {
			assert.True(t, c.Holds())
			assert.Equal(t, v, c.Lease())
			assert.Equal(t, []Message{{Kind: MsgRead, From: c.ID(), To: ResourceNode}}, out.Send)
			return
		}
		assert.False(t, c.Holds())
		assert.Len(t, out.Send, nodes, "a release on every node")
		for _, m := range out.Send {
			assert.Equal(t, Message{Kind: MsgRelease, From: c.ID(), To: m.To, Lease: v}, m)
		}
	})
}

// redlockSection runs client c's critical section at the resource, with no
// fault in between: the read, its reply, the think timer, the write and
// its reply.
func redlockSection(h *harness, c NodeID) {
	h.deliverFrom(ResourceNode, MsgRead, c)
	h.deliverFrom(c, MsgReadReply, ResourceNode)
	h.fire(c, TimerThink)
	h.deliverFrom(ResourceNode, MsgWrite, c)
	h.deliverFrom(c, MsgWriteReply, ResourceNode)
}

// TestRedlockValidityFromTheSend: a Redlock client's validity is Redlock's
// — measured by its own clock from the acquire's send (the one timer the
// acquire sets, for Validity: TTL − margin), with a majority of grants
// that all came before it ran out. No lock node's answer sets, restarts or
// stands in for that window (issue 36: a mutant that took the validity
// from a node's grant — the first, the last, any — went unnoticed: the
// untimed explorer lets a timer fire at any moment whenever it was set).
// For every N, every pattern of answers and every moment the window can
// close (before answer k, after the decision, never), the client holds
// exactly when a majority granted before it closed, and stops believing
// when it closes.
func TestRedlockValidityFromTheSend(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes := rapid.IntRange(1, MaxLockNodes).Draw(t, "nodes")
		granted := rapid.SliceOfN(rapid.Bool(), nodes, nodes).Draw(t, "granted")
		// closes: the window closes after this many answers; nodes+1: never.
		closes := rapid.IntRange(0, nodes+1).Draw(t, "closes")
		const validity = 9
		c := NewClient(ClientNode(0), ClientConfig{Sections: 1, MaxRetries: 1, Validity: validity, Rule: ValiditySend, Nodes: nodes})
		var out Effects
		c.Step(&Input{Kind: InputStart}, &out)
		require.Equal(t, []TimerSet{{Timer: Timer{Kind: TimerValidity}, After: validity}}, out.Set, "the window starts at the send")
		v := out.Send[0].Lease
		yes, closed := 0, false
		fire := func() {
			out.Reset()
			c.Step(&Input{Kind: InputTimer, Timer: Timer{Kind: TimerValidity}}, &out)
			closed = true
		}
		for k, g := range granted {
			if k == closes {
				fire()
			}
			out.Reset()
			kind := MsgReject
			if g {
				kind, yes = MsgGrant, yes+1
			}
			c.Step(&Input{Kind: InputMessage, Msg: Message{Kind: kind, From: LockNode(k), To: c.ID(), Lease: v}}, &out)
			for _, s := range out.Set {
				require.NotEqual(t, TimerValidity, s.Kind, "%s's answer set the validity timer: %v", LockNode(k), out.Set)
			}
		}
		won := yes > nodes/2 && !closed
		require.Equal(t, won, c.Holds(), "%d of %d granted, window closed: %v", yes, nodes, closed)
		if !won {
			assert.Len(t, out.Send, nodes, "a release on every node")
			return
		}
		if closes == nodes {
			fire()
			assert.False(t, c.Holds(), "the window closed: the belief ends")
			assert.Equal(t, []Event{{Kind: EvLeaseLost, Node: c.ID(), Lease: v}}, out.Events)
		}
	})
}

// TestRedlockRestartSaysWhoseKeyIsLost: a lock node that restarts without
// persistence tells whose key it lost and under which value — a trace's
// reader sees c1's key on B gone — and, restarted holding nothing, that it
// held no key.
func TestRedlockRestartSaysWhoseKeyIsLost(t *testing.T) {
	restartOf := func(h *harness, n NodeID) Event {
		t.Helper()
		for i := range h.w.Actions() {
			if a := h.w.Action(i); a.Node == n && a.Input.Kind == InputRestart {
				_, eff := h.w.Apply(i)
				for _, e := range eff.Events {
					if e.Kind == EvKeyLost {
						return e
					}
				}
				t.Fatalf("the restart of %s made no key-lost event: %v", n, eff.Events)
			}
		}
		t.Fatalf("no restart of %s is enabled", n)
		return Event{}
	}
	h := newRedlockHarness(t, DesignRedlock, 3)
	fresh := restartOf(h, LockNode(2))
	assert.Zero(t, fresh.Lease)
	assert.Equal(t, "restarted without persistence: it held no key", fresh.String())

	h = newRedlockHarness(t, DesignRedlock, 3)
	redlockSplit(h)
	held := h.sys.LockNodes[0].Lock()
	require.Equal(t, Acquired, held.Status, "B holds c1's key")
	lost := restartOf(h, LockNode(1))
	assert.Equal(t, ClientNode(0), lost.Peer)
	assert.Equal(t, held.Lease, lost.Lease)
	assert.NotZero(t, lost.Lease)
	assert.Contains(t, lost.String(), "the key of c1")
}
