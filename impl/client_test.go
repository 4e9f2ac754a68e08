package impl

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// clientDriver feeds one client its inputs and keeps the last effects.
type clientDriver struct {
	t   *testing.T
	c   Client
	out Effects
}

func newClientDriver(t *testing.T, cfg ClientConfig) *clientDriver {
	return &clientDriver{t: t, c: NewClient(ClientNode(0), cfg)}
}

func (d *clientDriver) in(in Input) *Effects {
	d.out.Reset()
	d.c.Step(&in, &d.out)
	return &d.out
}

func (d *clientDriver) start() *Effects { return d.in(Input{Kind: InputStart}) }
func (d *clientDriver) msg(m Message) *Effects {
	m.To = d.c.ID()
	return d.in(Input{Kind: InputMessage, Msg: m})
}
func (d *clientDriver) fire(k TimerKind) *Effects {
	return d.in(Input{Kind: InputTimer, Timer: Timer{Kind: k}})
}

func (d *clientDriver) grant(lease, token uint64) *Effects {
	return d.msg(Message{Kind: MsgGrant, From: ServiceNode, Lease: lease, Token: token})
}
func (d *clientDriver) reject() *Effects { return d.msg(Message{Kind: MsgReject, From: ServiceNode}) }
func (d *clientDriver) readReply(ok bool, v int64) *Effects {
	return d.msg(Message{Kind: MsgReadReply, From: ResourceNode, OK: ok, Value: v})
}
func (d *clientDriver) writeReply(ok bool) *Effects {
	return d.msg(Message{Kind: MsgWriteReply, From: ResourceNode, OK: ok})
}

func kinds(events []Event) []EventKind {
	var ks []EventKind
	for _, e := range events {
		ks = append(ks, e.Kind)
	}
	return ks
}

func TestClientRules(t *testing.T) {
	c := ClientNode(0)
	one := ClientConfig{Sections: 1, MaxRetries: 2, Validity: 9 * time.Second, Think: time.Second}
	arrival := one
	arrival.Rule = ValidityArrival
	release := func(lease uint64) Message { return Message{Kind: MsgRelease, From: c, To: ServiceNode, Lease: lease} }
	acquire := Message{Kind: MsgAcquire, From: c, To: ServiceNode}
	validity := TimerSet{Timer: Timer{Kind: TimerValidity}, After: 9 * time.Second}
	tests := []struct {
		name string
		cfg  ClientConfig
		run  func(t *testing.T, d *clientDriver)
	}{
		{"a committed section: read, think, write read+1 with the token, release with the lease", one, func(t *testing.T, d *clientDriver) {
			out := d.start()
			assert.Equal(t, []Message{{Kind: MsgAcquire, From: c, To: ServiceNode}}, out.Send)
			assert.Equal(t, []TimerSet{validity}, out.Set, "the send rule: the window starts with the acquire")
			out = d.grant(4, 7)
			assert.Equal(t, []Message{{Kind: MsgRead, From: c, To: ResourceNode, Token: 7}}, out.Send)
			assert.Empty(t, out.Set, "the window already runs")
			assert.True(t, d.c.Holds())
			out = d.readReply(true, 41)
			assert.Equal(t, []TimerSet{{Timer: Timer{Kind: TimerThink}, After: time.Second}}, out.Set)
			out = d.fire(TimerThink)
			assert.Equal(t, []Message{{Kind: MsgWrite, From: c, To: ResourceNode, Token: 7, Value: 42}}, out.Send)
			out = d.writeReply(true)
			assert.Equal(t, []Message{release(4)}, out.Send)
			assert.Equal(t, []Timer{{Kind: TimerValidity}}, out.Cancel)
			assert.Equal(t, []EventKind{EvSectionCommitted, EvFinished}, kinds(out.Events))
			assert.False(t, d.c.Holds())
			assert.True(t, d.c.Done())
			assert.Equal(t, 1, d.c.Committed())
		}},
		{"after a rejection it backs off for the time the runtime chose, then asks again", one, func(t *testing.T, d *clientDriver) {
			d.start()
			out := d.in(Input{Kind: InputMessage, Msg: Message{Kind: MsgReject, From: ServiceNode, To: c}, Backoff: 1234})
			assert.Empty(t, out.Send)
			assert.Equal(t, []TimerSet{{Timer: Timer{Kind: TimerBackoff}, After: 1234}}, out.Set)
			assert.Equal(t, []Timer{{Kind: TimerValidity}}, out.Cancel, "no acquire in flight while it backs off")
			assert.Equal(t, BackingOff, d.c.Phase())
			out = d.fire(TimerBackoff)
			assert.Equal(t, []Message{acquire}, out.Send)
			assert.Equal(t, []TimerSet{validity}, out.Set, "a new window with the new acquire")
		}},
		{"the send rule: a grant that comes after its window is given back and asked for again", one, func(t *testing.T, d *clientDriver) {
			d.start()
			out := d.fire(TimerValidity) // the client's clock: TTL − margin since the send
			assert.Empty(t, out.Send)
			assert.Empty(t, out.Events)
			assert.Equal(t, Acquiring, d.c.Phase())
			out = d.grant(6, 6)
			assert.Equal(t, []Message{release(6), acquire}, out.Send, "released so the service can free it, then asked again")
			assert.Equal(t, []TimerSet{validity}, out.Set, "a new window from the new send")
			assert.Equal(t, []EventKind{EvGrantLate}, kinds(out.Events))
			assert.False(t, d.c.Holds(), "it never believes in a late grant")
			assert.Equal(t, Acquiring, d.c.Phase())
			out = d.grant(7, 7) // in time: the new window still runs
			assert.True(t, d.c.Holds())
			assert.Equal(t, []EventKind{EvHolding}, kinds(out.Events))
		}},
		{"the send rule: late grants count against the retry budget, like rejections", one, func(t *testing.T, d *clientDriver) {
			d.start()
			d.reject()
			d.fire(TimerBackoff)
			d.fire(TimerValidity)
			d.grant(1, 1) // the second failed attempt: the budget of 2 is spent
			d.fire(TimerValidity)
			out := d.grant(2, 2)
			assert.Equal(t, []Message{release(2)}, out.Send, "given back, not asked again")
			assert.Equal(t, []Timer{{Kind: TimerValidity}}, out.Cancel)
			assert.Equal(t, []EventKind{EvGrantLate, EvGaveUp, EvFinished}, kinds(out.Events))
			assert.True(t, d.c.Done())
			assert.Equal(t, 1, d.c.Aborted())
			assert.False(t, d.c.Holds())
		}},
		{"the send rule: the window runs on from the send through the section", one, func(t *testing.T, d *clientDriver) {
			d.start()
			d.grant(3, 3)
			out := d.fire(TimerValidity)
			assert.Equal(t, []EventKind{EvLeaseLost}, kinds(out.Events))
			assert.False(t, d.c.Holds())
		}},
		{"the arrival rule: the window starts with the grant, however late", arrival, func(t *testing.T, d *clientDriver) {
			out := d.start()
			assert.Empty(t, out.Set, "no window while acquiring")
			out = d.fire(TimerValidity) // a stray timer changes nothing
			assert.Empty(t, out.Events)
			out = d.grant(4, 4)
			assert.True(t, d.c.Holds(), "it believes, however long the grant travelled")
			assert.Equal(t, []TimerSet{validity}, out.Set)
			assert.Equal(t, []EventKind{EvHolding}, kinds(out.Events))
			d.readReply(true, 1)
			d.fire(TimerThink)
			out = d.writeReply(true)
			assert.Equal(t, []Message{release(4)}, out.Send)
			assert.Equal(t, []Timer{{Kind: TimerValidity}}, out.Cancel)
			assert.True(t, d.c.Done())
		}},
		{"the arrival rule: a rejection sets no window", arrival, func(t *testing.T, d *clientDriver) {
			d.start()
			out := d.reject()
			assert.Empty(t, out.Cancel)
			out = d.fire(TimerBackoff)
			assert.Empty(t, out.Set)
		}},
		{"it gives up after MaxRetries rejections, without a release", one, func(t *testing.T, d *clientDriver) {
			d.start()
			for range 2 {
				d.reject()
				d.fire(TimerBackoff)
			}
			out := d.reject()
			assert.Equal(t, []EventKind{EvGaveUp, EvFinished}, kinds(out.Events))
			assert.Empty(t, out.Send, "nothing to release: it never held the lock")
			assert.True(t, d.c.Done())
			assert.Equal(t, 1, d.c.Aborted())
		}},
		{"with MaxRetries 0 it gives up at the first rejection", ClientConfig{Sections: 1}, func(t *testing.T, d *clientDriver) {
			d.start()
			assert.Equal(t, []EventKind{EvGaveUp, EvFinished}, kinds(d.reject().Events))
		}},
		{"fenced at the read: it aborts and releases with its lease", one, func(t *testing.T, d *clientDriver) {
			d.start()
			d.grant(2, 2)
			out := d.readReply(false, 0)
			assert.Equal(t, []Message{release(2)}, out.Send)
			assert.Equal(t, []EventKind{EvSectionAborted, EvFinished}, kinds(out.Events))
			assert.Equal(t, 1, d.c.Aborted())
		}},
		{"fenced at the write: the section is aborted, the lock released", one, func(t *testing.T, d *clientDriver) {
			d.start()
			d.grant(2, 2)
			d.readReply(true, 0)
			d.fire(TimerThink)
			out := d.writeReply(false)
			assert.Equal(t, []Message{release(2)}, out.Send)
			assert.Equal(t, 0, d.c.Committed())
			assert.Equal(t, 1, d.c.Aborted())
		}},
		{"its validity timer fired before the write: it does not write, aborts and releases", one, func(t *testing.T, d *clientDriver) {
			d.start()
			d.grant(3, 3)
			d.readReply(true, 5)
			out := d.fire(TimerValidity)
			assert.Equal(t, []EventKind{EvLeaseLost}, kinds(out.Events))
			assert.False(t, d.c.Holds())
			out = d.fire(TimerThink)
			assert.Equal(t, []Message{release(3)}, out.Send, "no write after the lease ran out")
			assert.Equal(t, 1, d.c.Aborted())
		}},
		{"its validity timer fired before the read's reply: it aborts there", one, func(t *testing.T, d *clientDriver) {
			d.start()
			d.grant(3, 3)
			d.fire(TimerValidity)
			out := d.readReply(true, 5)
			assert.Equal(t, []Message{release(3)}, out.Send)
			assert.Empty(t, out.Set, "no think timer")
		}},
		{"the next section starts with a fresh acquire and a fresh retry budget", ClientConfig{Sections: 2, MaxRetries: 1}, func(t *testing.T, d *clientDriver) {
			d.start()
			d.reject()
			d.fire(TimerBackoff)
			d.grant(1, 1)
			d.readReply(true, 0)
			d.fire(TimerThink)
			out := d.writeReply(true)
			assert.Equal(t, []Message{release(1), {Kind: MsgAcquire, From: c, To: ServiceNode}}, out.Send)
			assert.Equal(t, Acquiring, d.c.Phase())
			d.reject()
			assert.Equal(t, BackingOff, d.c.Phase(), "one retry again in the new section")
		}},
		{"a grant it does not wait for is given back", one, func(t *testing.T, d *clientDriver) {
			out := d.grant(5, 5)
			assert.Equal(t, []Message{release(5)}, out.Send)
			assert.False(t, d.c.Holds())
			assert.Equal(t, Idle, d.c.Phase())
		}},
		{"inputs out of phase are ignored", one, func(t *testing.T, d *clientDriver) {
			for _, out := range []*Effects{d.reject(), d.readReply(true, 1), d.writeReply(true), d.fire(TimerThink), d.fire(TimerBackoff), d.fire(TimerValidity)} {
				assert.Empty(t, out.Send)
				assert.Empty(t, out.Events)
			}
			assert.Equal(t, Idle, d.c.Phase())
			d.start()
			assert.Empty(t, d.start().Send, "starting twice does nothing")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.run(t, newClientDriver(t, tc.cfg))
		})
	}
}

// TestRandomRunsKeepTheRules drives whole systems through random
// schedules and checks rules that span actors: no actor sets and cancels
// the same timer in one step (the runtimes apply sets before cancels and
// rely on it), tokens granted only grow, a client that believes it holds
// the lock has a lease, and finished clients ran every section.
func TestRandomRunsKeepTheRules(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := drawConfig(t)
		var lastToken uint64
		seen := map[uint64]bool{}
		randomRun(t, cfg, func(sys *System, n NodeID, in Input, out *Effects) {
			if in.Kind == InputRestart && cfg.Design.Restart() == RestartVolatile {
				lastToken = 0 // the counter forgot: tokens start again from 1
			}
			for _, ts := range out.Set {
				for _, c := range out.Cancel {
					require.NotEqual(t, ts.Timer, c, "%s both set and cancelled %v handling %v", n, c, in)
				}
			}
			for _, m := range out.Send {
				if cfg.Design.Redlock() {
					// A node grants a client's value, never a token of
					// its own, and no value twice: each acquire has its own.
					if m.Kind == MsgGrant {
						require.Zero(t, m.Token)
						require.Equal(t, m.To, valueOwner(m.Lease), "%s granted %s a value not its own", n, m.To)
						key := m.Lease ^ uint64(m.From)<<32
						require.False(t, seen[key], "%s granted value %s twice", n, FormatLease(m.Lease))
						seen[key] = true
					}
					continue
				}
				if m.Kind == MsgGrant && cfg.Design.UniqueTokens() {
					require.False(t, seen[m.Token], "token %d granted twice", m.Token)
					seen[m.Token] = true
				} else if m.Kind == MsgGrant && cfg.Design.Tokens() {
					require.Greater(t, m.Token, lastToken)
					lastToken = m.Token
				}
				if m.Kind == MsgGrant && !cfg.Design.Tokens() {
					require.Zero(t, m.Token)
				}
			}
			for i := range sys.Clients {
				c := &sys.Clients[i]
				if c.Holds() {
					require.NotZero(t, c.lease, "%s holds the lock without a lease", c.ID())
				}
				if c.Done() {
					require.Equal(t, cfg.Sections, c.Committed()+c.Aborted())
				}
			}
		})
	})
}
