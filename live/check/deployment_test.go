package check

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/verdict"
)

// TestJudgeDeploymentFault: an overlap with no fault injected is the
// harness's error, unless the run's log holds the deployment's fault
// (a setup whose deployment is the fault): then it is the deployment's
// effect, an expected violation of row off, and no error. Without an
// overlap the deployment's fault did not take effect.
func TestJudgeDeploymentFault(t *testing.T) {
	res := impl.NewResource(impl.FenceNone)
	deployed := func(b *hb) *hb {
		b.h.Faults = append(b.h.Faults, history.DeploymentFault("pgbouncer", "a pooled session", 0, int64(time.Second)))
		return b
	}
	tests := []struct {
		name       string
		h          *history.History
		harnessErr bool
		took       bool
		hold       verdict.Status
	}{
		{"overlap, no fault: the harness's error",
			newHB(2).hold(0, 0, 1, 120, 121).hold(1, 10, 20, 130, 131).h, true, false, verdict.Violated},
		{"overlap, the deployment's fault: its effect",
			deployed(newHB(2).hold(0, 0, 1, 120, 121).hold(1, 10, 20, 130, 131)).h, false, true, verdict.Violated},
		{"no overlap, the deployment's fault: no effect",
			deployed(newHB(2).hold(0, 0, 1, 50, 51).hold(1, 10, 60, 80, 81)).h, false, false, verdict.Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, err := Judge(tt.h, impl.DesignNoFencing, testTTL, &res, time.Second)
			require.NotNil(t, j)
			var u *UnexplainedOverlap
			assert.Equal(t, tt.harnessErr, err != nil && errors.As(err, &u), "error %v", err)
			if !tt.harnessErr {
				assert.NoError(t, err)
			}
			assert.Equal(t, tt.took, j.TookEffect, "effect %q", j.Effect)
			if tt.took {
				assert.Contains(t, j.Effect, "the deployment is the fault (a pooled session)")
			}
			assert.Equal(t, tt.hold, j.Verdicts.Get(impl.AtMostOneClientHoldLock).Status)
		})
	}
	assert.NotContains(t, history.AllFaults(), history.FaultDeployment, "--fault cannot inject it")
	_, err := history.ParseFault(string(history.FaultDeployment))
	assert.Error(t, err)
}
