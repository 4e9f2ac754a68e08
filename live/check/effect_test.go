package check

import (
	"testing"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/verdict"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hold adds a grant of client c, no section: its acquire called at call
// and granted at start (ms), its release called at end and answered at
// released (an error when released is 0; no release at all when end is
// 0: it believed until it ended).
func (b *hb) hold(c, call, start, end, released int) *hb {
	b.add(call, c, history.OpAcquire, history.Call, 0, 0, false).add(start, c, history.OpAcquire, history.Return, uint64(start), 0, true)
	if end == 0 {
		return b
	}
	b.add(end, c, history.OpRelease, history.Call, uint64(start), 0, false)
	if released == 0 {
		b.h.Records = append(b.h.Records, history.Record{Client: c, Op: history.OpRelease, Ev: history.Return, Wall: int64(end+1) * int64(time.Millisecond), Token: uint64(start), Error: "i/o timeout"})
		return b
	}
	return b.add(released, c, history.OpRelease, history.Return, uint64(start), 0, true)
}

// checkedHold adds a grant of a checked client c: its acquire called at
// call and granted at start with validity until until (ms), which the
// client recorded; it gave up (expire) at expire, its window gone.
func (b *hb) checkedHold(c, call, start, until, expire int) *hb {
	ms := func(n int) int64 { return int64(n) * int64(time.Millisecond) }
	b.add(call, c, history.OpAcquire, history.Call, 0, 0, false)
	b.h.Records = append(b.h.Records,
		history.Record{Client: c, Op: history.OpAcquire, Ev: history.Return, Wall: ms(start), Token: uint64(start), OK: true, Validity: ms(until - call), ValidUntil: ms(until)},
		history.Record{Client: c, Op: history.OpExpire, Ev: history.Return, Wall: ms(expire), Token: uint64(start)})
	return b
}

// TestTookEffect: each fault's story, from the fault log and the grants
// (testTTL is 100 ms: a grant asked for at t is valid until t+100), and
// the overlaps no fault explains, a harness error naming the clients and
// times.
func TestTookEffect(t *testing.T) {
	const toy = "toy"
	tests := []struct {
		name string
		h    *hb
		took bool
		// effect is in the effect's words; unexplained in the harness
		// error's ("" for none).
		effect, unexplained string
	}{
		// Client pause.
		{"pause: validity ran out while stopped, another granted meanwhile",
			newHB(2).hold(0, 0, 1, 401, 402).hold(1, 10, 150, 160, 161).pause(0, 3, 400), true,
			"c1's validity ran out at 0.100 s while it was paused (0.003 s to 0.400 s), and c2 was granted at 0.150 s", ""},
		// A checked client's belief ends with its validity, before the
		// other's grant: no overlap, and the story took effect all the same.
		{"pause: a checked client's validity ran out while stopped, then another granted",
			newHB(2).checkedHold(0, 0, 1, 100, 401).hold(1, 10, 150, 160, 161).pause(0, 3, 400), true,
			"c1's validity ran out at 0.100 s while it was paused (0.003 s to 0.400 s), and c2 was granted at 0.150 s", ""},
		{"pause: a checked client stopped after its validity ran out",
			newHB(2).checkedHold(0, 0, 1, 100, 401).hold(1, 10, 150, 160, 161).pause(0, 120, 400), false, "", ""},
		{"pause ended before the validity ran out",
			newHB(2).hold(0, 0, 1, 55, 56).hold(1, 10, 57, 60, 61).pause(0, 3, 50), false, "", ""},
		{"pause: no other grant during it",
			newHB(2).hold(0, 0, 1, 401, 402).hold(1, 10, 403, 410, 411).pause(0, 3, 400), false, "", ""},
		// The overlap's timing is the pause's, so no harness error (a
		// renewed lease's end is not in the history), but not its story.
		{"pause: the validity ran out before the pause",
			newHB(2).hold(0, 0, 1, 401, 402).hold(1, 10, 250, 260, 261).pause(0, 200, 300), false, "", ""},
		{"pause of a client that held nothing",
			newHB(2).hold(0, 0, 1, 50, 51).hold(1, 10, 60, 70, 71).pause(1, 100, 400), false, "", ""},
		{"pause of the other client cannot explain the overlap",
			newHB(3).hold(0, 0, 1, 401, 402).hold(1, 10, 150, 160, 161).pause(2, 3, 400), false, "", "c1 (token 1"},
		{"pause of a client waiting in its acquire, the other's section over before it resumed",
			newHB(2).hold(0, 0, 450, 460, 461).hold(1, 10, 150, 160, 161).pause(0, 3, 399), false, "", ""},
		{"pause: a grant that came back after the pause",
			newHB(2).hold(0, 0, 400, 410, 411).hold(1, 10, 150, 405, 406).pause(0, 3, 399), true,
			"c1's validity ran out at 0.100 s while it was paused (0.003 s to 0.399 s), and c2 was granted at 0.150 s", ""},

		// Restart.
		{"restart: a grant after it overlaps a belief from before it",
			newHB(2).hold(0, 0, 1, 80, 81).hold(1, 10, 40, 50, 51).fault(history.FaultRestartWipe, toy, 20, 25), true,
			"c2 was granted at 0.040 s, after the restart at 0.020 s, while c1 still believed from 0.001 s", ""},
		{"restart with no overlap across it",
			newHB(2).hold(0, 0, 1, 15, 16).hold(1, 10, 40, 50, 51).fault(history.FaultRestartKeep, toy, 20, 25), false, "", ""},
		// etcd/lease under restart-keep (docs/live, run-1): a client's
		// acquire asked for soon after the restart waits behind the key of
		// an acquire the restart cut short, its unrenewed lease running
		// meanwhile; granted late, its lease ends in its section and the
		// other client is granted while it believes.
		{"restart: a grant held up by it, its lease ending in its section",
			newHB(2).hold(0, 50, 140, 180, 181).hold(1, 141, 155, 195, 196).fault(history.FaultRestartKeep, toy, 4, 21), true,
			"c1's acquire, asked at 0.050 s within a lease of the restart (0.004 s to 0.021 s), was granted only at 0.140 s, its validity ending at 0.150 s within its section; c2 was granted at 0.155 s while c1 still believed", ""},
		{"restart: an acquire asked for more than a lease after it",
			newHB(2).hold(0, 130, 220, 260, 261).hold(1, 221, 235, 270, 271).fault(history.FaultRestartKeep, toy, 4, 21), false, "",
			"c1 (token 220, 0.220 s to 0.260 s) and c2 (token 235"},
		{"restart: a section longer than the lease",
			newHB(2).hold(0, 50, 60, 200, 201).hold(1, 61, 155, 210, 211).fault(history.FaultRestartKeep, toy, 4, 21), false, "",
			"c1 (token 60, 0.060 s to 0.200 s) and c2 (token 155"},
		{"restart: the other granted while the held-up grant was still valid",
			newHB(2).hold(0, 50, 140, 180, 181).hold(1, 141, 145, 195, 196).fault(history.FaultRestartKeep, toy, 4, 21), false, "",
			"c1 (token 140, 0.140 s to 0.180 s) and c2 (token 145"},
		{"restart: both beliefs began before it",
			newHB(2).hold(0, 0, 1, 80, 81).hold(1, 5, 10, 50, 51).fault(history.FaultRestartKeep, toy, 20, 25), false, "",
			"c1 (token 1, 0.001 s to 0.080 s) and c2 (token 10, 0.010 s to 0.050 s)"},

		// Delay and blackhole.
		{"delay: another client granted during it once the holder had released in time",
			newHB(2).hold(0, 0, 1, 82, 90).hold(1, 10, 150, 160, 161).fault(history.FaultDelay, "c1", 3, 300), false, "", ""},
		{"blackhole: the holder's release answered after its validity",
			newHB(2).hold(0, 0, 1, 82, 310).hold(1, 10, 311, 320, 321).fault(history.FaultBlackhole, "c1", 3, 300), true,
			"c1's release, sent at 0.082 s during the fault (0.003 s to 0.300 s), was answered at 0.310 s, after its validity ended at 0.100 s", ""},
		{"blackhole with no grant during it, the release in time",
			newHB(2).hold(0, 0, 1, 82, 90).hold(1, 10, 400, 410, 411).fault(history.FaultBlackhole, "c1", 3, 300), false, "", ""},
		{"blackhole: a release lost (an error) is not delivered",
			newHB(2).hold(0, 0, 1, 82, 0).hold(1, 10, 400, 410, 411).fault(history.FaultBlackhole, "c1", 3, 300), false, "", ""},
		{"delay of a client that held nothing during it",
			newHB(2).hold(0, 0, 1, 300, 301).hold(1, 305, 310, 320, 321).fault(history.FaultDelay, "c2", 3, 200), false, "", ""},
		{"delay: the holder's grant overlapped by one granted during it, its release lost",
			newHB(2).hold(0, 0, 1, 250, 0).hold(1, 10, 150, 160, 161).fault(history.FaultDelay, "c1", 3, 300), true,
			"c2 was granted at 0.150 s during the fault (0.003 s to 0.300 s) on c1, which believed from 0.001 s to 0.250 s", ""},

		// Server pause.
		{"server pause: validity ran out, another granted while the holder believed",
			newHB(2).hold(0, 0, 1, 320, 321).hold(1, 10, 310, 330, 331).fault(history.FaultServerPause, toy, 3, 300), true,
			"c1's validity ran out at 0.100 s while the service was paused (0.003 s to 0.300 s), and c2 was granted at 0.310 s while c1 still believed", ""},
		{"server pause: a client that waited in its acquire through it held nothing",
			newHB(2).hold(0, 0, 1, 305, 306).hold(0, 306, 310, 315, 316).hold(1, 2, 320, 330, 331).fault(history.FaultServerPause, toy, 3, 300), false, "", ""},
		{"server pause: the holder released first",
			newHB(2).hold(0, 0, 1, 305, 306).hold(1, 10, 310, 330, 331).fault(history.FaultServerPause, toy, 3, 300), false, "", ""},

		// Clock step.
		{"clock step: another granted while the first's lease had time left",
			newHB(2).hold(0, 0, 1, 80, 81).hold(1, 10, 30, 40, 41).fault(history.FaultClockStep, toy, 20, 20), true,
			"c2 was granted at 0.030 s, after the clock step at 0.020 s, while c1's lease had time left until 0.100 s", ""},
		{"clock step: the first had released",
			newHB(2).hold(0, 0, 1, 25, 26).hold(1, 10, 30, 40, 41).fault(history.FaultClockStep, toy, 20, 20), false, "", ""},
		{"clock step: the grant came after the first's lease ended",
			newHB(2).hold(0, 0, 1, 120, 121).hold(1, 10, 110, 130, 131).fault(history.FaultClockStep, toy, 20, 20), false, "", ""},

		// No fault, and overlaps before any fault.
		{"no fault, no overlap", newHB(2).hold(0, 0, 1, 50, 51).hold(1, 10, 52, 60, 61), false, "", ""},
		{"an overlap with no fault",
			newHB(2).hold(0, 0, 1, 200, 201).hold(1, 10, 150, 160, 161), false, "",
			"c1 (token 1, 0.001 s to 0.200 s) and c2 (token 150, 0.150 s to 0.160 s) both believed they held the lock from 0.150 s to 0.160 s; the run had no fault"},
		{"an overlap before any fault began",
			newHB(2).hold(0, 0, 1, 200, 201).hold(1, 10, 150, 160, 161).pause(0, 170, 400), false, "",
			"an overlap no fault explains: c1 (token 1, 0.001 s to 0.200 s) and c2 (token 150, 0.150 s to 0.160 s) both believed they held the lock from 0.150 s to 0.160 s; the run's faults: client-pause on c1 from 0.170 s to 0.400 s"},
		{"a fault that failed explains nothing",
			newHB(2).hold(0, 0, 1, 401, 402).hold(1, 10, 150, 160, 161).failed(history.FaultClientPause, "c1", 3, 400), false, "", "c1 (token 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.h.h.Sort()
			bs := beliefs(tc.h.h, testTTL)
			took, effect := tookEffect(tc.h.h.Faults, bs, 0)
			assert.Equal(t, tc.took, took, effect)
			if tc.took {
				assert.Contains(t, effect, tc.effect)
			} else {
				assert.Empty(t, effect)
			}
			u := unexplained(tc.h.h.Faults, bs, 0)
			if tc.unexplained == "" {
				assert.Nil(t, u)
				return
			}
			require.NotNil(t, u, "the overlap is the harness's error")
			assert.Contains(t, u.Error(), tc.unexplained)
		})
	}
}

// failed logs fault f that could not be injected.
func (b *hb) failed(f history.Fault, target string, ms, until int) *hb {
	b.fault(f, target, ms, until)
	b.h.Faults[len(b.h.Faults)-1].Error = "no such process"
	return b
}

// TestJudgeTookEffect: through Judge, the effect decides what a verdict
// that is not violated is — Holds where the fault took effect, even with
// no overlap; Unknown where an explained overlap came without the
// story's effect — and an unexplained overlap is the harness's error,
// with the judgement.
func TestJudgeTookEffect(t *testing.T) {
	res := impl.NewResource(impl.FenceAll)
	// A blackhole whose holder's release came late, nobody else granted
	// during it: the story's effect with no overlap.
	late := newHB(2).hold(0, 0, 1, 82, 310).hold(1, 10, 311, 320, 321).fault(history.FaultBlackhole, "c1", 3, 300).h
	j, err := Judge(late, impl.DesignFenceAll, testTTL, &res, time.Second)
	require.NoError(t, err)
	assert.True(t, j.TookEffect)
	assert.Empty(t, j.Overlap)
	assert.Equal(t, verdict.Holds, j.Verdicts.Get(impl.AtMostOneClientHoldLock).Status)

	// A clock step after which the other client was granted past the
	// first's lease: explained, violated, and no effect of the story.
	past := newHB(2).hold(0, 0, 1, 120, 121).hold(1, 10, 110, 130, 131).fault(history.FaultClockStep, "toy", 20, 20).h
	j, err = Judge(past, impl.DesignFenceAll, testTTL, &res, time.Second)
	require.NoError(t, err)
	assert.False(t, j.TookEffect)
	assert.Equal(t, verdict.Violated, j.Verdicts.Get(impl.AtMostOneClientHoldLock).Status)
	assert.Equal(t, verdict.Unknown, j.Verdicts.Get(impl.NoLostUpdate).Status)
	assert.Equal(t, Inconclusive, j.Verdicts.Get(impl.NoLostUpdate).Detail)

	// The same overlap with no fault: the harness's error.
	none := newHB(2).hold(0, 0, 1, 120, 121).hold(1, 10, 110, 130, 131).h
	j, err = Judge(none, impl.DesignFenceAll, testTTL, &res, time.Second)
	var u *UnexplainedOverlap
	require.ErrorAs(t, err, &u)
	assert.Equal(t, 0, u.A.Client)
	assert.Equal(t, 1, u.B.Client)
	require.NotNil(t, j, "the judgement comes with the error, to be saved")
	assert.False(t, j.TookEffect)
}

// TestValidUntil: the send rule, from the acquire's call.
func TestValidUntil(t *testing.T) {
	b := newHB(2).hold(0, 40, 90, 95, 96)
	bs := beliefs(b.h, testTTL)
	require.Len(t, bs, 1)
	assert.Equal(t, int64(140*time.Millisecond), bs[0].Until)
	assert.Equal(t, int64(40*time.Millisecond), bs[0].Call)
	assert.Equal(t, int64(96*time.Millisecond), bs[0].Released)
}
