package impl

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestClientRenewal: a renewing client's rules, both validity rules. The
// renewal timer runs from the grant; each firing while the client believes
// sends one renewal of its lease, up to the section's budget; a granted
// renewal extends the belief (send rule: to the window started at the
// renewal's send, the second validity timer; arrival rule: a fresh window
// from the answer), a refused one ends it, and an answer for another lease
// or after the belief ended changes nothing.
func TestClientRenewal(t *testing.T) {
	c := ClientNode(0)
	send := ClientConfig{Sections: 1, MaxRetries: 1, Validity: 9 * time.Second, Think: time.Second, Renewals: 2, RenewEvery: 3 * time.Second}
	arrival := send
	arrival.Rule = ValidityArrival
	renew := func(lease uint64) []Message {
		return []Message{{Kind: MsgRenew, From: c, To: ServiceNode, Lease: lease}}
	}
	renewed := func(lease uint64, ok bool) Message {
		return Message{Kind: MsgRenewed, From: ServiceNode, Lease: lease, OK: ok}
	}
	renewTimer := TimerSet{Timer: Timer{Kind: TimerRenew}, After: 3 * time.Second}
	window := func(k TimerKind) TimerSet { return TimerSet{Timer: Timer{Kind: k}, After: 9 * time.Second} }
	held := func(d *clientDriver) {
		d.start()
		out := d.grant(4, 0)
		assert.Contains(t, out.Set, renewTimer, "the renewal timer runs from the grant")
	}
	tests := []struct {
		name string
		cfg  ClientConfig
		run  func(t *testing.T, d *clientDriver)
	}{
		{"send rule: a granted renewal moves the belief to the window started at its send, and the next one back", send, func(t *testing.T, d *clientDriver) {
			held(d)
			out := d.fire(TimerRenew)
			assert.Equal(t, renew(4), out.Send)
			assert.Equal(t, []TimerSet{window(TimerRenewalValidity)}, out.Set, "the renewal's window starts at its send")
			out = d.msg(renewed(4, true))
			assert.Equal(t, []Timer{{Kind: TimerValidity}}, out.Cancel, "the acquire's window is no longer the belief's")
			assert.Equal(t, []TimerSet{renewTimer}, out.Set, "within the budget: the next renewal")
			assert.Equal(t, []EventKind{EvBeliefExtended}, kinds(out.Events))
			assert.True(t, d.c.Extended())
			out = d.fire(TimerRenew)
			assert.Equal(t, []TimerSet{window(TimerValidity)}, out.Set, "the second renewal's window uses the free kind")
			out = d.msg(renewed(4, true))
			assert.Equal(t, []Timer{{Kind: TimerRenewalValidity}}, out.Cancel)
			assert.Empty(t, out.Set, "budget spent: no more renewals")
			out = d.fire(TimerValidity)
			assert.False(t, d.c.Holds(), "the second renewal's window ended the belief")
			assert.Equal(t, []EventKind{EvLeaseLost}, kinds(out.Events))
		}},
		{"send rule: a renewal whose window ended before its answer extends nothing", send, func(t *testing.T, d *clientDriver) {
			held(d)
			d.fire(TimerRenew)
			out := d.fire(TimerRenewalValidity)
			assert.True(t, d.c.Holds(), "the acquire's window still runs")
			assert.Empty(t, out.Events)
			out = d.msg(renewed(4, true))
			assert.Empty(t, out.Set)
			assert.Empty(t, out.Cancel)
			assert.Empty(t, out.Events)
			d.fire(TimerValidity)
			assert.False(t, d.c.Holds())
		}},
		{"arrival rule: a granted renewal starts a fresh window", arrival, func(t *testing.T, d *clientDriver) {
			held(d)
			out := d.fire(TimerRenew)
			assert.Equal(t, renew(4), out.Send)
			assert.Empty(t, out.Set)
			out = d.msg(renewed(4, true))
			assert.Equal(t, []TimerSet{window(TimerValidity), renewTimer}, out.Set)
		}},
		{"a refused renewal ends the belief", send, func(t *testing.T, d *clientDriver) {
			held(d)
			d.fire(TimerRenew)
			out := d.msg(renewed(4, false))
			assert.False(t, d.c.Holds())
			assert.Equal(t, []EventKind{EvRenewalRefused}, kinds(out.Events))
			assert.Empty(t, out.Set)
			assert.False(t, d.c.Extended())
		}},
		{"an answer for another lease, or after the belief ended, changes nothing", arrival, func(t *testing.T, d *clientDriver) {
			held(d)
			d.fire(TimerRenew)
			before := d.c
			for _, m := range []Message{renewed(3, true), renewed(5, false)} {
				out := d.msg(m)
				assert.Equal(t, before, d.c)
				assert.Empty(t, out.Send)
				assert.Empty(t, out.Set)
			}
			d.fire(TimerValidity)
			before = d.c
			out := d.msg(renewed(4, true))
			assert.Equal(t, before, d.c, "a renewal is not a grant: an ended belief stays ended")
			assert.Empty(t, out.Set)
		}},
		{"a client that no longer believes sends no renewal", arrival, func(t *testing.T, d *clientDriver) {
			held(d)
			d.fire(TimerValidity)
			out := d.fire(TimerRenew)
			assert.Empty(t, out.Send)
			assert.Zero(t, d.c.Renewals())
		}},
		{"the section's end stops the renewals; the next section renews afresh", ClientConfig{Sections: 2, MaxRetries: 1, Validity: 9, Think: 1, Renewals: 1, RenewEvery: 3}, func(t *testing.T, d *clientDriver) {
			d.start()
			d.grant(4, 0)
			d.fire(TimerRenew)
			assert.Equal(t, 1, d.c.Renewals())
			out := d.fire(TimerRenew)
			assert.Empty(t, out.Send, "budget spent")
			d.readReply(true, 0)
			d.fire(TimerThink)
			out = d.writeReply(true)
			assert.Contains(t, out.Cancel, Timer{Kind: TimerRenew})
			assert.Contains(t, out.Cancel, Timer{Kind: TimerRenewalValidity})
			assert.Zero(t, d.c.Renewals())
			assert.False(t, d.c.Extended())
			out = d.msg(renewed(4, true))
			assert.Empty(t, out.Set, "the old section's renewal answered after it ended")
			assert.Empty(t, out.Events)
			out = d.grant(5, 0)
			assert.Contains(t, out.Set, TimerSet{Timer: Timer{Kind: TimerRenew}, After: 3})
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newClientDriver(t, tc.cfg)) })
	}
}

// TestNonRenewingClientIgnoresRenewal: without a budget nothing of renewal
// shows — no renewal timer with a grant, and the encoding of before.
func TestNonRenewingClientIgnoresRenewal(t *testing.T) {
	d := newClientDriver(t, ClientConfig{Sections: 1, Validity: 9, Think: 1})
	d.start()
	out := d.grant(1, 0)
	for _, s := range out.Set {
		assert.NotEqual(t, TimerRenew, s.Kind)
	}
	out = d.fire(TimerRenew)
	assert.Empty(t, out.Send)
	c := NewClient(ClientNode(0), ClientConfig{Sections: 1})
	r := NewClient(ClientNode(0), ClientConfig{Sections: 1, Renewals: 1})
	assert.Len(t, r.Encode(nil), len(c.Encode(nil))+4, "the renewal's four bytes only in renewing designs")
}

// TestRenewalInTheUntimedWorld: every run of the renewing rows' untimed
// world, either validity rule, keeps the renewal rules: at most
// UntimedRenewals renewals a section; a renewal granted only to the
// current holder's current lease (the service's lease timer then runs);
// a client that hears a renewal granted believes on; no two renewal
// windows pending at once with the belief on neither.
func TestRenewalInTheUntimedWorld(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := Config{
			Design:   DesignRenewal,
			Clients:  rapid.IntRange(1, 3).Draw(t, "clients"),
			Sections: rapid.IntRange(1, 2).Draw(t, "sections"),
			Retries:  1, TTL: 10, Margin: 1,
			Validity: rapid.SampledFrom(ValidityRules()).Draw(t, "validity"),
		}
		w, err := NewWorld(cfg)
		require.NoError(t, err)
		choose := func(n int) int { return rapid.IntRange(0, n-1).Draw(t, "choice") }
		w.Walk(choose, rapid.IntRange(0, 80).Draw(t, "steps"), func(a Action, out *Effects) bool {
			for i := range w.Sys.Clients {
				require.LessOrEqual(t, w.Sys.Clients[i].Renewals(), UntimedRenewals)
			}
			for _, m := range out.Send {
				if m.Kind == MsgRenewed && m.OK {
					l := w.Sys.Service.Lock()
					assert.Equal(t, Acquired, l.Status)
					assert.Equal(t, m.To, l.Holder)
					assert.Equal(t, m.Lease, l.Lease)
				}
			}
			for _, ev := range out.Events {
				if ev.Kind == EvBeliefExtended {
					assert.True(t, w.Sys.Clients[ev.Node.ClientIndex()].Holds())
				}
			}
			return true
		})
	})
}

// TestRenewalDoesNotFixThePause is the row's story in the untimed world:
// c1 holds the lock and renews it once, granted — then its lease still
// expires (a pause longer than what is left of it stops the renewals),
// c2 is granted, and c1, resuming, still believes: two holders. c1's late
// renewal — sent before the expiry, landing after it — is refused, never
// a grant.
func TestRenewalDoesNotFixThePause(t *testing.T) {
	w, err := NewWorld(Config{Design: DesignRenewal, Clients: 2, Sections: 1, Retries: 1, TTL: 10, Margin: 1, Validity: ValidityArrival})
	require.NoError(t, err)
	c1, c2 := ClientNode(0), ClientNode(1)
	do := func(node NodeID, kind InputKind, match func(Input) bool) *Effects {
		t.Helper()
		for i := range w.Actions() {
			a := w.Action(i)
			if a.Node == node && a.Input.Kind == kind && (match == nil || match(a.Input)) {
				_, out := w.Apply(i)
				return out
			}
		}
		require.FailNow(t, "action not enabled", "%s %d in %s", node, kind, w.Sys)
		return nil
	}
	msg := func(k MsgKind) func(Input) bool { return func(in Input) bool { return in.Msg.Kind == k } }
	timer := func(k TimerKind) func(Input) bool { return func(in Input) bool { return in.Timer.Kind == k } }
	do(c1, InputStart, nil)
	do(ServiceNode, InputMessage, msg(MsgAcquire))
	do(c1, InputMessage, msg(MsgGrant))
	do(c1, InputTimer, timer(TimerRenew))
	out := do(ServiceNode, InputMessage, msg(MsgRenew))
	assert.Equal(t, []EventKind{EvRenewed}, kinds(out.Events))
	out = do(c1, InputMessage, msg(MsgRenewed))
	assert.Equal(t, []EventKind{EvBeliefExtended}, kinds(out.Events))
	// The pause: nothing of c1 happens while its renewed lease runs out.
	do(ServiceNode, InputTimer, timer(TimerLease))
	do(c2, InputStart, nil)
	do(ServiceNode, InputMessage, msg(MsgAcquire))
	do(c2, InputMessage, msg(MsgGrant))
	assert.True(t, w.Sys.Clients[0].Holds(), "c1 resumes still believing")
	assert.True(t, w.Sys.Clients[1].Holds())
	breach := Invariants()[0].Check(w.Sys)
	require.NotNil(t, breach, "two holders")

	// A renewal that lands after its lease expired is refused.
	w, err = NewWorld(Config{Design: DesignRenewal, Clients: 1, Sections: 1, Retries: 1, TTL: 10, Margin: 1, Validity: ValidityArrival})
	require.NoError(t, err)
	do(c1, InputStart, nil)
	do(ServiceNode, InputMessage, msg(MsgAcquire))
	do(c1, InputMessage, msg(MsgGrant))
	do(c1, InputTimer, timer(TimerRenew))
	do(ServiceNode, InputTimer, timer(TimerLease))
	out = do(ServiceNode, InputMessage, msg(MsgRenew))
	assert.Equal(t, []EventKind{EvRenewRefused}, kinds(out.Events))
	assert.Equal(t, Expired, w.Sys.Service.Lock().Status, "a late renewal does not bring the lease back")
	out = do(c1, InputMessage, msg(MsgRenewed))
	assert.Equal(t, []EventKind{EvRenewalRefused}, kinds(out.Events))
	assert.False(t, w.Sys.Clients[0].Holds())
}
