package check

import (
	"errors"
	"testing"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/linearizability"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/verdict"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stale: c1 (token 1) reads 0 and is paused; c2 (token 2) runs a whole
// section inside c1's belief; c1 then writes 1 on top, accepted (an
// update lost, row none) or refused (row all).
func stale(accepted bool) *history.History {
	b := newHB(2)
	b.add(0, 0, history.OpAcquire, history.Call, 0, 0, false).add(1, 0, history.OpAcquire, history.Return, 1, 0, true)
	b.add(2, 0, history.OpRead, history.Call, 1, 0, false).add(3, 0, history.OpRead, history.Return, 1, 0, true)
	b.section(100, 1, 2, 0, true, true, 10)
	b.add(500, 0, history.OpWrite, history.Call, 1, 1, false).add(501, 0, history.OpWrite, history.Return, 1, 1, accepted)
	b.add(502, 0, history.OpRelease, history.Call, 1, 0, false).add(503, 0, history.OpRelease, history.Return, 1, 0, true)
	return b.pause(0, 3, 499).h // c1 paused past its lease: the fault that explains the overlap
}

// TestSelfCheck feeds the judge's verdicts of real histories, some with a
// planted bug (one property's verdict replaced), to SelfCheck: the judge
// is caught exactly when NoLostUpdate and SectionsLinearizable were both
// decided and decided apart.
func TestSelfCheck(t *testing.T) {
	serial := newHB(2).section(0, 0, 1, 0, true, true, 10).section(100, 1, 2, 1, true, true, 10).h
	overlapping := stale(false)
	set := func(p string, st verdict.Status, detail string) func(*Judgement) {
		return func(j *Judgement) {
			v := j.Verdicts.Get(p)
			v.Status, v.Detail = st, detail
			j.Verdicts.Put(v)
		}
	}
	tests := []struct {
		name   string
		h      *history.History
		design impl.Design
		judged verdict.Status   // what the judge decides of both, before the plant
		plant  func(*Judgement) // nil: the judge as it is
		// contradiction names the property that held beside a violation; "" none.
		contradiction string
	}{
		{"row none, lost update: both violated", stale(true), impl.DesignFenceNone, verdict.Violated, nil, ""},
		{"row all, serial: both inconclusive", serial, impl.DesignFenceAll, verdict.Unknown, nil, ""},
		{"row all, overlap: both held", overlapping, impl.DesignFenceAll, verdict.Holds, nil, ""},
		{"planted: the judge ignores lost updates", stale(true), impl.DesignFenceNone, verdict.Violated, set(impl.NoLostUpdate, verdict.Holds, ""), impl.NoLostUpdate},
		{"planted: Porcupine's violation dropped", stale(true), impl.DesignFenceNone, verdict.Violated, set(linearizability.SectionsLinearizable, verdict.Holds, ""), linearizability.SectionsLinearizable},
		{"planted: a lost update invented", overlapping, impl.DesignFenceAll, verdict.Holds, set(impl.NoLostUpdate, verdict.Violated, "invented"), linearizability.SectionsLinearizable},
		{"planted: a sections violation invented", overlapping, impl.DesignFenceAll, verdict.Holds, set(linearizability.SectionsLinearizable, verdict.Violated, "invented"), impl.NoLostUpdate},
		{"planted, inconclusive run: held, then made unknown", serial, impl.DesignFenceAll, verdict.Unknown, set(impl.NoLostUpdate, verdict.Violated, "invented"), linearizability.SectionsLinearizable},
		{"undecided beside a violation is no contradiction", stale(true), impl.DesignFenceNone, verdict.Violated, set(linearizability.SectionsLinearizable, verdict.Unknown, "Porcupine timed out"), ""},
		{"not applicable beside a violation is no contradiction", stale(true), impl.DesignFenceNone, verdict.Violated, set(impl.NoLostUpdate, verdict.NotApplicable, "planted"), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			j, err := Judge(tc.h, tc.design, testTTL, resourceOf(t, tc.h, tc.design.Mode()), time.Second)
			require.NoError(t, err)
			for _, p := range []string{impl.NoLostUpdate, linearizability.SectionsLinearizable} {
				require.Equal(t, tc.judged, j.Verdicts.Get(p).Status, p)
			}
			if tc.plant != nil {
				tc.plant(j)
			}
			err = SelfCheck(j)
			if tc.contradiction == "" {
				assert.NoError(t, err)
				return
			}
			var c *Contradiction
			require.True(t, errors.As(err, &c), "want a contradiction, got %v", err)
			assert.Equal(t, tc.contradiction, c.Holds.Property)
			assert.Equal(t, verdict.Violated, c.Violated.Status)
			assert.NotEqual(t, c.Holds.Property, c.Violated.Property)
			assert.Contains(t, err.Error(), impl.NoLostUpdate)
			assert.Contains(t, err.Error(), linearizability.SectionsLinearizable)
		})
	}
}

// TestSelfCheckNothingCommitted: a verdict made unknown only because no
// write was accepted was decided held by its check: beside the other
// check's violation it is a contradiction, not a quiet unknown.
func TestSelfCheckNothingCommitted(t *testing.T) {
	j := &Judgement{}
	j.Verdicts.Put(verdict.Verdict{Property: impl.NoLostUpdate, Status: verdict.Unknown, Detail: NothingCommitted})
	j.Verdicts.Put(verdict.Verdict{Property: linearizability.SectionsLinearizable, Status: verdict.Violated, Detail: "planted"})
	var c *Contradiction
	require.ErrorAs(t, SelfCheck(j), &c)
	assert.Equal(t, impl.NoLostUpdate, c.Holds.Property)
}
