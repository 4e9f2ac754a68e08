package run_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/linearizability"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/internal/livetest"
	"github.com/fencelab/fencelab/live/nemesis"
	"github.com/fencelab/fencelab/live/report"
	"github.com/fencelab/fencelab/live/run"
	"github.com/fencelab/fencelab/live/story"
	"github.com/fencelab/fencelab/verdict"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gateRun is what the story at the write gate did in one run: the
// stale holder's write, the other's first accepted read, the pause.
type gateRun struct {
	stale                    int
	writeCall, validUntil    int64 // the stale write's call, its grant's end
	writeReturn              int64
	writeAccepted            bool
	otherRead, otherWriteRet int64 // the other's first accepted read's return, its next write's return
	pause                    history.FaultRecord
}

func gateRunOf(t *testing.T, h *history.History) gateRun {
	t.Helper()
	require.NotEmpty(t, h.Faults)
	g := gateRun{stale: -1, pause: h.Faults[0]}
	for _, r := range h.Records {
		if r.Op == history.OpWrite && r.Ev == history.Call && g.stale < 0 {
			g.stale, g.writeCall = r.Client, r.Wall
		}
	}
	require.GreaterOrEqual(t, g.stale, 0, "some client reached its write gate")
	var token uint64
	for _, r := range h.Records {
		switch {
		case r.Client == g.stale && r.Op == history.OpAcquire && r.Ev == history.Return && r.OK && r.Wall <= g.writeCall:
			// The grant the write was made under: the last before it (on a
			// loaded machine a first grant can run out before its write,
			// and the client writes under its next).
			g.validUntil, token = r.ValidUntil, r.Token
		case r.Client == g.stale && r.Op == history.OpWrite && r.Ev == history.Return && g.writeReturn == 0:
			g.writeReturn, g.writeAccepted = r.Wall, r.OK
		case r.Client != g.stale && r.Op == history.OpRead && r.Ev == history.Return && r.OK && g.otherRead == 0:
			g.otherRead = r.Wall
		case r.Client != g.stale && r.Op == history.OpWrite && r.Ev == history.Return && g.otherRead != 0 && g.otherWriteRet == 0:
			g.otherWriteRet = r.Wall
		}
	}
	require.NotZero(t, token+1)
	return g
}

// TestToyWriteGateStory: the models' story of a lost update, live with
// the checked client: the stale holder passes its write's check in time,
// is stopped at its gate until the newer holder's read is accepted, then
// its write lands, then the newer holder writes. Row writes (and none)
// lose the update while NoActionPastValidity holds; row all, told the
// same story, refuses the stale write: the distinction the models make.
func TestToyWriteGateStory(t *testing.T) {
	writes, ok := story.Lookup(impl.DesignFenceWrites, impl.NoLostUpdate)
	require.True(t, ok)
	require.Equal(t, story.AtWriteGate, writes.Point)
	for _, tc := range []struct {
		setup  string
		script *story.Story // nil: the row's own story
		lost   bool
	}{
		{setup: "writes", lost: true},
		{setup: "none", lost: true},
		{setup: "all", script: &writes, lost: false},
	} {
		t.Run(tc.setup, func(t *testing.T) {
			t.Parallel()
			cfg := livetest.Config(t, livetest.MustSetup(t, livetest.Toy(), "toy", tc.setup), history.FaultClientPause)
			cfg.Script = tc.script
			sched := cfg.Schedule()
			require.Len(t, sched.Events, 1)
			require.Equal(t, nemesis.TriggerAtWriteGate, sched.Events[0].Trigger, "the story at the write gate")
			ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
			defer cancel()
			res, err := run.Run(ctx, cfg)
			require.NoError(t, err)
			h, j := res.History, res.Judgement
			g := gateRunOf(t, h)
			assert.Equal(t, history.ClientName(g.stale), g.pause.Target, "the first client at its write gate is paused")
			assert.Less(t, g.writeCall, g.validUntil, "its check was in time")
			assert.Less(t, g.writeCall, g.pause.Start, "paused after its check")
			assert.Greater(t, g.pause.End, g.validUntil, "paused past its validity")
			require.NotZero(t, g.otherRead, "the other read")
			assert.Less(t, g.otherRead, g.pause.End, "resumed only after the other's accepted read")
			assert.Greater(t, g.writeReturn, g.otherRead, "the stale write landed after the other's read")
			assert.True(t, j.TookEffect, "took effect: %s", j.Effect)
			assert.Equal(t, verdict.Holds, j.Verdicts.Get(impl.NoActionPastValidity).Status, "no action past validity: %v", j.Verdicts.Get(impl.NoActionPastValidity))
			// The saved run keeps its story beside its schedule.
			dir, err := report.SaveRun(t.TempDir(), cfg, res, nil)
			require.NoError(t, err)
			told, err := os.ReadFile(filepath.Join(dir, report.StoryFile))
			require.NoError(t, err)
			assert.Contains(t, string(told), "Model trace:")
			assert.Contains(t, string(told), "stopped after its write's validity check")
			// The simulator's pause sits in a think and lasts a fixed
			// time; a stop at the gate until the other's read has no
			// counterpart there, and the saved run says so rather than
			// tell another story.
			_, err = report.TellSim(cfg, res)
			assert.ErrorContains(t, err, "outside its think time")
			lost := j.Verdicts.Get(impl.NoLostUpdate).Status
			if tc.lost {
				assert.True(t, g.writeAccepted, "the stale write was accepted")
				assert.Equal(t, verdict.Violated, lost, "%v", j.Verdicts.Get(impl.NoLostUpdate))
				assert.Equal(t, verdict.Violated, j.Verdicts.Get(linearizability.SectionsLinearizable).Status)
			} else {
				assert.False(t, g.writeAccepted, "the stale write was refused")
				assert.GreaterOrEqual(t, j.Refused, 1)
				assert.NotEqual(t, verdict.Violated, lost, "%v", j.Verdicts.Get(impl.NoLostUpdate))
			}
		})
	}
}
