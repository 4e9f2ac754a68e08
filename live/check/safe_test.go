package check

import (
	"testing"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/verdict"
	"github.com/stretchr/testify/assert"
)

// TestWitness: a setup's claim of safety stands in a run only with the
// mechanism at work in the run's own history — the holder kept the lock
// through the restart and the waiter was granted after its release; the
// waiter stayed queued through the whole pause — and every history where
// a part of that is missing has no witness (testTTL: a grant asked for at
// t is valid until t+100 ms).
func TestWitness(t *testing.T) {
	const toy = "toy"
	restart := func(b *hb) *hb { return b.fault(history.FaultRestartKeep, toy, 50, 150) }
	pause := func(b *hb) *hb { return b.fault(history.FaultServerPause, toy, 20, 300) }
	cut := func(b *hb) *hb { return b.fault(history.FaultBlackhole, "c1", 50, 300) }
	tests := []struct {
		name string
		h    *hb
		want string // "" for no witness
	}{
		{"restart: the holder kept the lock through it, the waiter granted after its release",
			restart(newHB(2).hold(0, 0, 1, 200, 201).hold(1, 10, 210, 220, 221)),
			"c1 held the lock from 0.001 s through the restart (0.050 s to 0.150 s) and released it at 0.200 s; c2 was granted only at 0.210 s"},
		{"restart of a wiped service: the same witness",
			newHB(2).hold(0, 0, 1, 200, 201).hold(1, 10, 210, 220, 221).fault(history.FaultRestartWipe, toy, 50, 150),
			"c1 held the lock from 0.001 s through the restart"},
		{"restart: the holder released while the service was down",
			restart(newHB(2).hold(0, 0, 1, 100, 160).hold(1, 10, 210, 220, 221)), ""},
		{"restart: the holder's release failed (the lock may have gone with the restart)",
			restart(newHB(2).hold(0, 0, 1, 200, 0).hold(1, 10, 210, 220, 221)), ""},
		{"restart: a checked holder gave up at its validity, no release",
			restart(newHB(2).checkedHold(0, 0, 1, 180, 180).hold(1, 10, 210, 220, 221)), ""},
		{"restart: the waiter was granted while the holder believed",
			restart(newHB(2).hold(0, 0, 1, 200, 201).hold(1, 10, 170, 220, 221)), ""},
		{"restart: the waiter was never granted",
			restart(newHB(2).hold(0, 0, 1, 200, 201)), ""},
		{"restart: the holder was granted after it",
			restart(newHB(2).hold(0, 155, 160, 200, 201).hold(1, 165, 210, 220, 221)), ""},
		{"restart: the holder's section through it, its write accepted",
			restart(newHB(2).section(0, 0, 1, 0, true, true, 190).section(200, 1, 2, 1, true, true, 10)),
			"c1 held the lock from 0.001 s through the restart (0.050 s to 0.150 s) and released it at 0.195 s; c2 was granted only at 0.201 s"},
		{"restart: the holder's write refused (the store saw its lock gone)",
			restart(newHB(2).section(0, 0, 1, 0, true, false, 190).section(200, 1, 2, 0, true, true, 10)), ""},
		{"restart that failed",
			newHB(2).hold(0, 0, 1, 200, 201).hold(1, 10, 210, 220, 221).failed(history.FaultRestartKeep, toy, 50, 150), ""},

		{"server pause: the lease ran out during it, the waiter queued until after it",
			pause(newHB(2).hold(0, 0, 1, 30, 301).hold(1, 10, 305, 310, 311)),
			"c1's validity ran out at 0.100 s while the service was paused (0.020 s to 0.300 s); c1 had stopped believing at 0.030 s, and c2 was granted only at 0.305 s, after the pause"},
		{"server pause shorter than the lease",
			newHB(2).hold(0, 0, 1, 30, 81).hold(1, 10, 105, 110, 111).fault(history.FaultServerPause, toy, 20, 80), ""},
		{"server pause: the waiter granted while the holder believed",
			pause(newHB(2).hold(0, 0, 1, 350, 351).hold(1, 10, 305, 310, 311)), ""},
		{"server pause: the waiter granted before the service resumed",
			pause(newHB(2).hold(0, 0, 1, 30, 301).hold(1, 10, 200, 210, 211)), ""},
		{"server pause: nobody held the lock when it began",
			pause(newHB(2).hold(0, 0, 1, 10, 11).hold(1, 5, 305, 310, 311)), ""},
		{"server pause: the waiter never granted",
			pause(newHB(2).hold(0, 0, 1, 30, 301)), ""},

		{"a client pause shaped like the restart's witness has none",
			newHB(2).hold(0, 0, 1, 200, 201).hold(1, 10, 210, 220, 221).pause(0, 50, 150), ""},
		{"blackhole: the holder's release lost, the waiter granted once its validity ended",
			cut(newHB(2).hold(0, 0, 1, 60, 0).hold(1, 10, 105, 110, 111)),
			"c1's release, sent at 0.060 s during the blackhole of its links (0.050 s to 0.300 s), did not come back within its validity (until 0.100 s); c2 was granted only at 0.105 s, once the lease had run out"},
		{"delay: the holder's release answered after its validity",
			newHB(2).hold(0, 0, 1, 60, 180).hold(1, 10, 185, 190, 191).fault(history.FaultDelay, "c1", 50, 200),
			"c1's release, sent at 0.060 s during the delay of its links (0.050 s to 0.200 s)"},
		{"delay: the holder's release answered within its validity",
			newHB(2).hold(0, 0, 1, 60, 80).hold(1, 10, 85, 90, 91).fault(history.FaultDelay, "c1", 50, 200), ""},
		{"blackhole: the waiter granted before the holder's validity ended",
			cut(newHB(2).hold(0, 0, 1, 60, 0).hold(1, 10, 90, 110, 111)), ""},
		{"blackhole: the waiter granted while the holder believed",
			cut(newHB(2).hold(0, 0, 1, 160, 0).hold(1, 10, 150, 170, 171)), ""},
		{"blackhole: the waiter never granted",
			cut(newHB(2).hold(0, 0, 1, 60, 0)), ""},
		{"blackhole of the waiter's links, not the holder's",
			newHB(2).hold(0, 0, 1, 60, 0).hold(1, 10, 105, 110, 111).fault(history.FaultBlackhole, "c2", 50, 300), ""},
		{"blackhole that began after the holder's section",
			newHB(2).hold(0, 0, 1, 40, 0).hold(1, 10, 105, 110, 111).fault(history.FaultBlackhole, "c1", 50, 300), ""},
		{"a blackhole the holder's section outlasted has none",
			newHB(2).hold(0, 0, 1, 200, 201).hold(1, 10, 210, 220, 221).fault(history.FaultBlackhole, "c1", 50, 150), ""},
		{"blackhole that failed",
			newHB(2).hold(0, 0, 1, 60, 0).hold(1, 10, 105, 110, 111).failed(history.FaultBlackhole, "c1", 50, 300), ""},
		{"no fault", newHB(2).hold(0, 0, 1, 200, 201).hold(1, 10, 210, 220, 221), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := witness(tc.h.h, beliefs(tc.h.h, testTTL))
			if tc.want == "" {
				assert.Empty(t, got)
				return
			}
			assert.Contains(t, got, tc.want)
		})
	}
}

// TestSafeBy: a verdict counts toward a claim of safety only in a run with
// the witness, where the fault did not take effect, and only as the
// Holds the judge made inconclusive for that: never a violation, nor an
// Unknown a check could not decide.
func TestSafeBy(t *testing.T) {
	inconclusive := verdict.Verdict{Property: impl.NoLostUpdate, Status: verdict.Unknown, Detail: Inconclusive}
	tests := []struct {
		name string
		j    Judgement
		v    verdict.Verdict
		want bool
	}{
		{"witnessed, the fault without effect", Judgement{Witness: "w"}, inconclusive, true},
		{"no witness", Judgement{}, inconclusive, false},
		{"the fault took effect", Judgement{Witness: "w", TookEffect: true}, inconclusive, false},
		{"violated", Judgement{Witness: "w"}, verdict.Verdict{Status: verdict.Violated}, false},
		{"undecided by its own check", Judgement{Witness: "w"}, verdict.Verdict{Status: verdict.Unknown, Detail: "c1's read returned an error"}, false},
		{"holds", Judgement{Witness: "w"}, verdict.Verdict{Status: verdict.Holds}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.j.SafeBy(tc.v))
		})
	}
}

// TestJudgeWitness: Judge records the witness of a restart the holder
// kept the lock through, and its verdicts stay inconclusive (the claim is
// the campaign's to weigh, never a Holds).
func TestJudgeWitness(t *testing.T) {
	res := impl.NewResource(impl.FenceAll)
	h := newHB(2).hold(0, 0, 1, 200, 201).hold(1, 10, 210, 220, 221).fault(history.FaultRestartKeep, "toy", 50, 150).h
	j, err := Judge(h, impl.DesignFenceAll, testTTL, &res, 0)
	assert.NoError(t, err)
	assert.Contains(t, j.Witness, "through the restart")
	assert.False(t, j.TookEffect)
	v := j.Verdicts.Get(impl.AtMostOneClientHoldLock)
	assert.Equal(t, verdict.Unknown, v.Status)
	assert.True(t, j.SafeBy(v))
}
