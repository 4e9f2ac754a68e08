package check

import (
	"slices"
	"testing"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/linearizability"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/verdict"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hist builds a history from compact records: times in milliseconds.
type hb struct {
	h *history.History
}

func newHB(clients int) *hb {
	return &hb{h: &history.History{Start: 0, End: int64(10 * time.Second), Clients: clients}}
}

func (b *hb) add(ms int, c int, op, ev string, token uint64, value int64, ok bool) *hb {
	b.h.Records = append(b.h.Records, history.Record{Client: c, Op: op, Ev: ev, Wall: int64(ms) * int64(time.Millisecond), Token: token, Value: value, OK: ok})
	return b
}

// testTTL is the lease of the tests' histories.
const testTTL = 100 * time.Millisecond

// pause logs a client pause of client c from ms to until.
func (b *hb) pause(c, ms, until int) *hb {
	return b.fault(history.FaultClientPause, history.ClientName(c), ms, until)
}

// fault logs fault f on target from ms to until.
func (b *hb) fault(f history.Fault, target string, ms, until int) *hb {
	b.h.Faults = append(b.h.Faults, history.FaultRecord{Fault: f, Target: target, Start: int64(ms) * int64(time.Millisecond), End: int64(until) * int64(time.Millisecond)})
	return b
}

// section adds a whole section of client c: acquire at ms, read, write
// read+1 (accepted or not), release.
func (b *hb) section(ms, c int, token uint64, read int64, readOK, writeOK bool, think int) *hb {
	b.add(ms, c, history.OpAcquire, history.Call, 0, 0, false).add(ms+1, c, history.OpAcquire, history.Return, token, 0, true)
	b.add(ms+2, c, history.OpRead, history.Call, token, 0, false).add(ms+3, c, history.OpRead, history.Return, token, read, readOK)
	end := ms + 3
	if readOK {
		b.add(ms+3+think, c, history.OpWrite, history.Call, token, read+1, false).add(ms+4+think, c, history.OpWrite, history.Return, token, read+1, writeOK)
		end = ms + 4 + think
	}
	return b.add(end+1, c, history.OpRelease, history.Call, token, 0, false).add(end+2, c, history.OpRelease, history.Return, token, 0, true)
}

// resource replays the accepted operations of a history into a register
// of mode, in the order of their returns — the register's log as it
// would have been.
func resourceOf(t *testing.T, h *history.History, mode impl.FenceMode) *impl.Resource {
	t.Helper()
	r := impl.NewResource(mode)
	var out impl.Effects
	calls := map[int]history.Record{}
	for _, rec := range h.Records {
		if rec.Op != history.OpRead && rec.Op != history.OpWrite {
			continue
		}
		if rec.Ev == history.Call {
			calls[rec.Client] = rec
			continue
		}
		m := impl.Message{Kind: impl.MsgRead, From: impl.ClientNode(rec.Client), To: impl.ResourceNode, Token: rec.Token}
		if rec.Op == history.OpWrite {
			m.Kind, m.Value = impl.MsgWrite, calls[rec.Client].Value
		}
		out.Reset()
		r.Step(&impl.Input{Kind: impl.InputMessage, Msg: m}, &out)
		require.Equal(t, rec.OK, out.Send[0].OK, "the history agrees with the register of mode %v at %d ms", mode, rec.Wall/1e6)
	}
	return &r
}

func TestJudge(t *testing.T) {
	// c1 (token 1) reads 0 and is paused; c2 (token 2) runs a whole
	// section inside c1's belief; c1 then writes 1 on top.
	paused := func(staleOK bool) *history.History {
		b := newHB(2)
		b.add(0, 0, history.OpAcquire, history.Call, 0, 0, false).add(1, 0, history.OpAcquire, history.Return, 1, 0, true)
		b.add(2, 0, history.OpRead, history.Call, 1, 0, false).add(3, 0, history.OpRead, history.Return, 1, 0, true)
		b.section(100, 1, 2, 0, true, true, 10)
		b.add(500, 0, history.OpWrite, history.Call, 1, 1, false).add(501, 0, history.OpWrite, history.Return, 1, 1, staleOK)
		b.add(502, 0, history.OpRelease, history.Call, 1, 0, false).add(503, 0, history.OpRelease, history.Return, 1, 0, false)
		return b.pause(0, 3, 499).h
	}
	serial := newHB(2).section(0, 0, 1, 0, true, true, 10).section(100, 1, 2, 1, true, true, 10).h
	tests := []struct {
		name      string
		h         *history.History
		design    impl.Design
		took      bool
		want      map[string]verdict.Status
		committed int
		refused   int
	}{
		{"row none: two holders, an update lost", paused(true), impl.DesignFenceNone, true, map[string]verdict.Status{
			impl.AtMostOneClientHoldLock: verdict.Violated, impl.TokenIsMonotonical: verdict.Violated, impl.NoLostUpdate: verdict.Violated,
			linearizability.SectionsLinearizable: verdict.Violated, linearizability.RegisterLinearizable: verdict.Holds,
		}, 2, 0},
		{"row all: two holders, the stale write refused", paused(false), impl.DesignFenceAll, true, map[string]verdict.Status{
			impl.AtMostOneClientHoldLock: verdict.Violated, impl.TokenIsMonotonical: verdict.Holds, impl.NoLostUpdate: verdict.Holds,
			linearizability.SectionsLinearizable: verdict.Holds, linearizability.RegisterLinearizable: verdict.Holds,
		}, 1, 1},
		{"row off: TokenIsMonotonical does not apply", paused(true), impl.DesignNoFencing, true, map[string]verdict.Status{
			impl.AtMostOneClientHoldLock: verdict.Violated, impl.TokenIsMonotonical: verdict.NotApplicable, impl.NoLostUpdate: verdict.Violated,
		}, 2, 0},
		{"no overlap, tokens going back (a restart): a violation still counts", newHB(2).section(0, 0, 2, 0, true, true, 10).section(100, 1, 1, 1, true, true, 10).h,
			impl.DesignFenceNone, false, map[string]verdict.Status{
				impl.AtMostOneClientHoldLock: verdict.Unknown, impl.TokenIsMonotonical: verdict.Violated, impl.NoLostUpdate: verdict.Unknown,
			}, 2, 0},
		{"touching beliefs do not overlap", newHB(2).section(0, 0, 1, 0, true, true, 10).section(16, 1, 2, 1, true, true, 10).h,
			impl.DesignFenceAll, false, map[string]verdict.Status{impl.AtMostOneClientHoldLock: verdict.Unknown}, 2, 0},
		{"no overlap: inconclusive, never holds", serial, impl.DesignFenceAll, false, map[string]verdict.Status{
			impl.AtMostOneClientHoldLock: verdict.Unknown, impl.TokenIsMonotonical: verdict.Unknown, impl.NoLostUpdate: verdict.Unknown,
			linearizability.SectionsLinearizable: verdict.Unknown, linearizability.RegisterLinearizable: verdict.Unknown,
		}, 2, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := resourceOf(t, tc.h, tc.design.Mode())
			j, err := Judge(tc.h, tc.design, testTTL, res, time.Second)
			require.NoError(t, err)
			assert.Equal(t, tc.took, j.TookEffect)
			for p, want := range tc.want {
				v := j.Verdicts.Get(p)
				assert.Equal(t, want, v.Status, "%s: %v", p, v)
				if want == verdict.Unknown {
					assert.Equal(t, Inconclusive, v.Detail)
				}
				if want == verdict.Violated {
					assert.NotEmpty(t, v.Detail, "a violation says why")
				}
			}
			assert.Equal(t, tc.committed, j.Committed)
			assert.Equal(t, tc.refused, j.Refused)
		})
	}
}

// TestJudgeNothingCommitted: a store that refused every read and write
// under a pause that took effect lost nothing because it kept nothing:
// NoLostUpdate and SectionsLinearizable are unknown, never held.
func TestJudgeNothingCommitted(t *testing.T) {
	b := newHB(2)
	b.add(0, 0, history.OpAcquire, history.Call, 0, 0, false).add(1, 0, history.OpAcquire, history.Return, 1, 0, true)
	b.add(2, 0, history.OpRead, history.Call, 1, 0, false).add(3, 0, history.OpRead, history.Return, 1, 0, false)
	b.section(150, 1, 2, 0, false, false, 10)
	b.add(502, 0, history.OpRelease, history.Call, 1, 0, false).add(503, 0, history.OpRelease, history.Return, 1, 0, false)
	b.pause(0, 3, 499)
	res := impl.NewResource(impl.FenceNone) // the accepted operations: none
	j, err := Judge(b.h, impl.DesignFenceAll, testTTL, &res, time.Second)
	require.NoError(t, err)
	require.True(t, j.TookEffect, "c2 was granted while c1, paused past its lease, believed")
	assert.Zero(t, j.Committed)
	assert.Equal(t, 2, j.Refused)
	for _, p := range []string{impl.NoLostUpdate, linearizability.SectionsLinearizable} {
		v := j.Verdicts.Get(p)
		assert.Equal(t, verdict.Unknown, v.Status, "%s: %v", p, v)
		assert.Equal(t, NothingCommitted, v.Detail, p)
	}
}

// TestJudgeRegisterBreaksItsRule: a resource that accepted what its mode
// refuses — c1's stale write after c2's newer read in mode all — is not
// linearizable against the fenced register, and TokenIsMonotonical is
// violated by its log.
func TestJudgeRegisterBreaksItsRule(t *testing.T) {
	b := newHB(2)
	b.add(0, 0, history.OpAcquire, history.Call, 0, 0, false).add(1, 0, history.OpAcquire, history.Return, 1, 0, true)
	b.add(2, 0, history.OpRead, history.Call, 1, 0, false).add(3, 0, history.OpRead, history.Return, 1, 0, true)
	b.section(100, 1, 2, 0, true, true, 10)
	b.add(500, 0, history.OpWrite, history.Call, 1, 1, false).add(501, 0, history.OpWrite, history.Return, 1, 1, true)
	b.add(502, 0, history.OpRelease, history.Call, 1, 0, false).add(503, 0, history.OpRelease, history.Return, 1, 0, true)
	// The log as a broken register of mode all would have it: it accepted
	// everything, as mode none does.
	res := resourceOf(t, b.h, impl.FenceNone)
	b.pause(0, 3, 499)
	j, err := Judge(b.h, impl.DesignFenceAll, testTTL, res, time.Second)
	require.NoError(t, err)
	assert.Equal(t, verdict.Violated, j.Verdicts.Get(linearizability.RegisterLinearizable).Status)
	assert.Equal(t, verdict.Violated, j.Verdicts.Get(impl.TokenIsMonotonical).Status)
	assert.Equal(t, verdict.Violated, j.Verdicts.Get(impl.NoLostUpdate).Status)
}

func TestJudgeUnknownOutcomes(t *testing.T) {
	tests := []struct {
		name string
		edit func(b *hb)
	}{
		{"a write that failed", func(b *hb) {
			b.h.Records = append(b.h.Records, history.Record{Client: 0, Op: history.OpWrite, Ev: history.Call, Wall: 600e6, Token: 1, Value: 1},
				history.Record{Client: 0, Op: history.OpWrite, Ev: history.Return, Wall: 601e6, Token: 1, Value: 1, Error: "i/o timeout"})
		}},
		{"a write never returned", func(b *hb) {
			b.h.Records = append(b.h.Records, history.Record{Client: 0, Op: history.OpWrite, Ev: history.Call, Wall: 600e6, Token: 1, Value: 1})
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newHB(2)
			b.add(0, 0, history.OpAcquire, history.Call, 0, 0, false).add(1, 0, history.OpAcquire, history.Return, 1, 0, true)
			b.add(2, 0, history.OpRead, history.Call, 1, 0, false).add(3, 0, history.OpRead, history.Return, 1, 0, true)
			b.section(100, 1, 2, 0, true, true, 10)
			b.pause(0, 3, 499)
			tc.edit(b)
			res := resourceOf(t, &history.History{Records: b.h.Records[:len(b.h.Records)-2]}, impl.FenceAll)
			j, err := Judge(b.h, impl.DesignFenceAll, testTTL, res, time.Second)
			require.NoError(t, err)
			require.True(t, j.TookEffect, "c1, paused past its lease, never released: c2 was granted meanwhile")
			require.NotEmpty(t, j.Overlap, "c1 believed until the run ended")
			for _, p := range []string{linearizability.SectionsLinearizable, linearizability.RegisterLinearizable} {
				v := j.Verdicts.Get(p)
				assert.Equal(t, verdict.Unknown, v.Status, p)
				assert.NotEqual(t, Inconclusive, v.Detail, "unknown because of the failed call, not the overlap")
			}
			assert.Positive(t, j.Errors)
		})
	}
}

// TestBeliefsEndWithTheClient: a client that never released believed until
// its process ended, not until the end of the run.
func TestBeliefsEndWithTheClient(t *testing.T) {
	b := newHB(2)
	b.add(0, 0, history.OpAcquire, history.Call, 0, 0, false).add(1, 0, history.OpAcquire, history.Return, 1, 0, true)
	b.h.Exits = []history.ClientExit{{Client: 0, Wall: 50e6, Status: "exit status 0"}}
	b.section(100, 1, 2, 0, true, true, 10)
	bs := beliefs(b.h, testTTL)
	require.Len(t, bs, 2)
	ok, _ := overlap(bs, 0)
	assert.False(t, ok)
	b.h.Exits = nil
	ok, why := overlap(beliefs(b.h, testTTL), 0)
	assert.True(t, ok)
	assert.Contains(t, why, "c1 (token 1")
}

func TestExpected(t *testing.T) {
	for _, d := range impl.Designs() {
		for _, inv := range liveInvariants() {
			assert.Equal(t, impl.Expected(d, inv.Name), Expected(d, inv.Name))
		}
		assert.Equal(t, impl.Expected(d, impl.NoLostUpdate), Expected(d, linearizability.SectionsLinearizable))
		wantRegister := verdict.Holds
		if !d.AtomicRegister() {
			wantRegister = impl.Expected(d, impl.TokenIsMonotonical)
		}
		assert.Equal(t, wantRegister, Expected(d, linearizability.RegisterLinearizable), "%s", d)
	}
	// The rows whose resource is not the atomic register: theirs falls.
	assert.Equal(t, verdict.Violated, Expected(impl.DesignSnapshotFence, linearizability.RegisterLinearizable))
	assert.Equal(t, verdict.Holds, Expected(impl.DesignFenceAll, linearizability.RegisterLinearizable))
	assert.Len(t, Properties(), 6)
}

// TestExpectedOf: the checked client keeps the models' every verdict; the
// unchecked one only NoActionPastValidity's differs, expected violated.
func TestExpectedOf(t *testing.T) {
	for _, d := range impl.Designs() {
		for _, p := range Properties() {
			assert.Equal(t, Expected(d, p), ExpectedOf(d, false, p), "%s %s checked", d, p)
			want := Expected(d, p)
			if p == impl.NoActionPastValidity {
				require.Equal(t, verdict.Holds, want, "every design's client keeps it")
				want = verdict.Violated
			}
			assert.Equal(t, want, ExpectedOf(d, true, p), "%s %s unchecked", d, p)
		}
	}
}

// TestNoActionPastValidity: the judge's NoActionPastValidity on the
// records, at the edge of a grant's window (impl.MayAct: a call at the
// window's end is past it), for both client lines, and the belief a
// checked client's validity ends.
func TestNoActionPastValidity(t *testing.T) {
	ms := func(n int) int64 { return int64(n) * int64(time.Millisecond) }
	// c1 is granted at 1 ms, valid until 200 ms, and writes at write ns;
	// c2 runs a whole section from 300 ms.
	story := func(unchecked bool, write int64) *history.History {
		b := newHB(2)
		b.h.Unchecked = unchecked
		b.add(0, 0, history.OpAcquire, history.Call, 0, 0, false)
		b.h.Records = append(b.h.Records, history.Record{Client: 0, Op: history.OpAcquire, Ev: history.Return, Wall: ms(1), Token: 1, OK: true,
			Validity: ms(200), ValidUntil: ms(200)})
		b.add(2, 0, history.OpRead, history.Call, 1, 0, false).add(3, 0, history.OpRead, history.Return, 1, 0, true)
		b.h.Records = append(b.h.Records,
			history.Record{Client: 0, Op: history.OpWrite, Ev: history.Call, Wall: write, Token: 1, Value: 1},
			history.Record{Client: 0, Op: history.OpWrite, Ev: history.Return, Wall: write + 1, Token: 1, Value: 1, OK: true})
		b.add(250, 0, history.OpRelease, history.Call, 1, 0, false).add(251, 0, history.OpRelease, history.Return, 1, 0, true)
		b.section(300, 1, 2, 1, true, true, 10)
		h := b.h
		h.Sort()
		for _, r := range h.Records {
			require.NoError(t, r.Validate(2))
		}
		return h
	}
	tests := []struct {
		name  string
		write int64
		want  verdict.Status
	}{
		{"well inside", ms(100), verdict.Holds},
		{"1 ns before the end", ms(200) - 1, verdict.Holds},
		{"at the end", ms(200), verdict.Violated},
		{"1 ns after the end", ms(200) + 1, verdict.Violated},
		{"long after", ms(240), verdict.Violated},
	}
	for _, unchecked := range []bool{false, true} {
		for _, tt := range tests {
			v := pastValidity(story(unchecked, tt.write))
			assert.Equal(t, tt.want, v.Status, "%s (unchecked %v): %v", tt.name, unchecked, v)
			if tt.want == verdict.Violated {
				assert.Contains(t, v.Detail, "c1 called its write (token 1)", tt.name)
				assert.Contains(t, v.Detail, time.Duration(tt.write-ms(200)).String()+" after its grant's validity ended at 0.200 s", tt.name)
			}
			assert.Equal(t, "4 reads and writes, 1 grants with a validity window", v.Covered)
		}
	}

	// A read past the end is as much an action as a write; a release
	// closes the window, so the next grant's operations are its own.
	b := newHB(1)
	b.add(0, 0, history.OpAcquire, history.Call, 0, 0, false)
	b.h.Records = append(b.h.Records, history.Record{Client: 0, Op: history.OpAcquire, Ev: history.Return, Wall: ms(1), Token: 1, OK: true, Validity: ms(9), ValidUntil: ms(10)})
	b.add(20, 0, history.OpRead, history.Call, 1, 0, false).add(21, 0, history.OpRead, history.Return, 1, 0, true)
	v := pastValidity(b.h)
	require.Equal(t, verdict.Violated, v.Status)
	assert.Contains(t, v.Detail, "c1 called its read")
	b = newHB(1)
	b.add(0, 0, history.OpAcquire, history.Call, 0, 0, false)
	b.h.Records = append(b.h.Records, history.Record{Client: 0, Op: history.OpAcquire, Ev: history.Return, Wall: ms(1), Token: 1, OK: true, Validity: ms(9), ValidUntil: ms(10)})
	b.add(5, 0, history.OpRelease, history.Call, 1, 0, false).add(6, 0, history.OpRelease, history.Return, 1, 0, true)
	b.section(20, 0, 2, 0, true, true, 5) // no validity recorded: not judged
	assert.Equal(t, verdict.Holds, pastValidity(b.h).Status)

	// Beliefs: the checked client's ends at its validity (200 ms), before
	// c2's from 301 ms, and at an expire; the unchecked client's at its
	// release (250 ms).
	checked := beliefs(story(false, ms(100)), testTTL)
	require.Len(t, checked, 2)
	assert.Equal(t, ms(200), checked[0].End)
	// A checked client that wrote past its validity believed until it did.
	assert.Equal(t, ms(240), beliefs(story(false, ms(240)), testTTL)[0].End)
	assert.Equal(t, ms(250), beliefs(story(true, ms(100)), testTTL)[0].End)
	h := story(false, ms(100))
	h.Records = slices.DeleteFunc(h.Records, func(r history.Record) bool { return r.Op == history.OpWrite })
	h.Records = slices.Insert(h.Records, 4, history.Record{Client: 0, Op: history.OpExpire, Ev: history.Return, Wall: ms(150), Token: 1})
	assert.Equal(t, ms(150), beliefs(h, testTTL)[0].End, "an expire ends the belief")

	// The judge: an unchecked client's action past validity is violated in
	// the verdicts, and the checked line's expectation makes it a failure.
	res := impl.NewResource(impl.FenceNone)
	j, err := Judge(story(true, ms(240)), impl.DesignFenceNone, testTTL, &res, time.Second)
	require.NoError(t, err)
	assert.Equal(t, verdict.Violated, j.Verdicts.Get(impl.NoActionPastValidity).Status)
	assert.Equal(t, verdict.Holds, ExpectedOf(impl.DesignFenceNone, false, impl.NoActionPastValidity))
}
