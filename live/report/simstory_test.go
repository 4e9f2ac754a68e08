package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/internal/livetest"
	"github.com/fencelab/fencelab/live/nemesis"
	"github.com/fencelab/fencelab/live/run"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/fencelab/fencelab/sim"
	"github.com/fencelab/fencelab/verdict"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSimScheduleTellsTheSameStory: a saved client-pause run of an
// unfenced row and of a fenced row writes sim-schedule.json, which the
// simulator's own parser reads against the configuration sim-command.txt
// gives, and the simulator's run of it (package sim, in-process) has the
// live run's verdicts: two holders and a lost update unfenced, no lost
// update with sections committed fenced. Without the pause the same seed
// violates nothing: the pause is what tells the story.
func TestSimScheduleTellsTheSameStory(t *testing.T) {
	for _, tc := range []struct {
		design string
		fenced bool
	}{{"none", false}, {"all", true}} {
		t.Run(tc.design, func(t *testing.T) {
			// The unchecked client: the simulator's pause delays the
			// paused client's timers with it, so its validity check (a
			// timer) does not see the pause, and it writes on resuming —
			// what a live client that does not check does.
			cfg := livetest.Config(t, livetest.MustSetup(t, livetest.Toy(), "toy", tc.design+setup.UncheckedSuffix), history.FaultClientPause)
			want := livetest.Story{Violated: []string{impl.AtMostOneClientHoldLock, impl.NoLostUpdate}}
			if tc.fenced {
				want = livetest.Story{Violated: []string{impl.AtMostOneClientHoldLock}, Holds: []string{impl.NoLostUpdate}}
			}
			res := livetest.CheckStory(t, cfg, want, tc.fenced)
			dir, err := SaveRun(t.TempDir(), cfg, res, nil)
			require.NoError(t, err)

			cmdText, err := os.ReadFile(filepath.Join(dir, SimCommandFile))
			require.NoError(t, err)
			think := simThink(cfg.Think, cfg.Setup.TTL)
			require.Positive(t, think)
			wantCmd := "fencelab sim --design " + cfg.Setup.Design.String() + " --clients 2 --sections 2 --think " + think.String() + " --schedule " + SimScheduleFile
			assert.Contains(t, string(cmdText), "\n"+wantCmd+"\n")
			faults, err := os.ReadFile(filepath.Join(dir, FaultsFile))
			require.NoError(t, err)
			assert.Contains(t, string(faults), "the simulator's version: "+SimScheduleFile)

			// The configuration the command line gives.
			c := sim.DefaultConfig()
			c.Design, c.Clients, c.Sections, c.Think = cfg.Setup.Design, 2, 2, think
			data, err := os.ReadFile(filepath.Join(dir, SimScheduleFile))
			require.NoError(t, err)
			sched, err := sim.ReadSchedule(bytes.NewReader(data), c)
			require.NoError(t, err)
			require.Len(t, sched.Faults, 1)
			f := sched.Faults[0]
			assert.Equal(t, sim.FaultPause, f.Kind)
			assert.Equal(t, impl.ClientNode(livetest.FirstReader(res.History)), f.Node, "the live run's holder")
			assert.Greater(t, f.Duration, c.TTL, "past the simulator's lease")

			runner, err := sim.NewRunner(c)
			require.NoError(t, err)
			got := runner.Run(sched)
			for _, p := range []string{impl.AtMostOneClientHoldLock, impl.NoLostUpdate} {
				live := res.Judgement.Verdicts.Get(p).Status == verdict.Violated
				assert.Equal(t, live, got.Violated(p), "%s: live violated %v, simulator %v", p, live, got.Violated(p))
			}
			if tc.fenced {
				assert.Positive(t, got.Fenced, "the simulator refused the stale operation")
				assert.GreaterOrEqual(t, got.Committed, 2, "sections committed in the simulator")
			}
			calm := runner.Run(&sim.Schedule{Version: sim.ScheduleVersion, Seed: sched.Seed})
			for _, p := range []string{impl.AtMostOneClientHoldLock, impl.NoLostUpdate} {
				assert.False(t, calm.Violated(p), "%s without the pause", p)
			}
		})
	}
}

// TestSimScheduleNotForUnmappedFaults: a run whose fault has no
// counterpart in the simulator (a server pause), or that struck outside
// a think, writes no sim schedule, and faults.txt says why.
func TestSimScheduleNotForUnmappedFaults(t *testing.T) {
	setup := livetest.MustSetup(t, livetest.Toy(), "toy", "none")
	rc := run.Config{Setup: setup, Fault: history.FaultServerPause, Nemesis: nemesis.Scripted, Seed: 3, Clients: 2, Sections: 1}
	ms := func(d int) int64 { return int64(time.Duration(d) * time.Millisecond) }
	h := &history.History{Start: 0, End: ms(900), Clients: 2, Records: []history.Record{
		{Client: 0, Op: history.OpAcquire, Ev: history.Call, Wall: ms(1)}, {Client: 0, Op: history.OpAcquire, Ev: history.Return, OK: true, Token: 1, Wall: ms(2)},
		{Client: 0, Op: history.OpRead, Ev: history.Call, Token: 1, Wall: ms(3)}, {Client: 0, Op: history.OpRead, Ev: history.Return, OK: true, Token: 1, Wall: ms(4)},
		{Client: 0, Op: history.OpWrite, Ev: history.Call, Token: 1, Value: 1, Wall: ms(700)}, {Client: 0, Op: history.OpWrite, Ev: history.Return, OK: true, Token: 1, Value: 1, Wall: ms(701)},
	}}
	for _, tc := range []struct {
		name  string
		fault history.FaultRecord
		why   string
	}{
		{"server pause", history.FaultRecord{Fault: history.FaultServerPause, Target: "toy", Start: ms(5), End: ms(600)}, "a server pause does not map"},
		{"pause outside the think", history.FaultRecord{Fault: history.FaultClientPause, Target: "c1", Start: ms(800), End: ms(850)}, "paused outside its think time"},
		{"delay", history.FaultRecord{Fault: history.FaultDelay, Target: "c1", Start: ms(5), End: ms(600)}, "does not map"},
		{"restart outside a restart row", history.FaultRecord{Fault: history.FaultRestartWipe, Target: "toy", Start: ms(5), End: ms(40)}, "never restarts in the simulator"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hh := *h
			hh.Faults = []history.FaultRecord{tc.fault}
			res := &run.Result{Seed: 3, History: &hh, Schedule: nemesis.Schedule{Mode: nemesis.Scripted, Fault: tc.fault.Fault, Events: []nemesis.FaultEvent{{Fault: tc.fault.Fault, Trigger: nemesis.TriggerAfterRead, Client: -1, For: 600 * time.Millisecond}}}}
			_, err := TellSim(rc, res)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.why)
			dir, err := SaveRun(t.TempDir(), rc, res, nil)
			require.NoError(t, err)
			faults, err := os.ReadFile(filepath.Join(dir, FaultsFile))
			require.NoError(t, err)
			assert.Contains(t, string(faults), "no simulator schedule: ")
			assert.Contains(t, string(faults), tc.why)
			for _, f := range []string{SimScheduleFile, SimCommandFile} {
				_, err := os.Stat(filepath.Join(dir, f))
				assert.ErrorIs(t, err, os.ErrNotExist, f)
			}
		})
	}
	// The same history with a client pause in c1's think maps.
	hh := *h
	hh.Faults = []history.FaultRecord{{Fault: history.FaultClientPause, Target: "c1", Start: ms(5), End: ms(605)}}
	res := &run.Result{History: &hh, Schedule: nemesis.Schedule{Events: []nemesis.FaultEvent{{Fault: history.FaultClientPause, For: 600 * time.Millisecond}}}}
	rc.Fault = history.FaultClientPause
	st, err := TellSim(rc, res)
	require.NoError(t, err)
	require.Len(t, st.Schedule.Faults, 1)
	assert.Equal(t, impl.ClientNode(0), st.Schedule.Faults[0].Node)
	assert.Equal(t, 3*time.Second, st.Schedule.Faults[0].Duration, "600ms of a 200ms lease: 3 simulated TTLs")
	assert.True(t, strings.HasPrefix(st.Command, "fencelab sim --design none "))
	assert.True(t, st.Result.Violated(impl.NoLostUpdate), "the simulator tells the story: %v", st.Mapped)

	// A clock step of the service in a thinking client's section is a
	// jump of the simulator's service clock, scaled the same way.
	hh.Faults = []history.FaultRecord{{Fault: history.FaultClockStep, Target: "toy", Start: ms(5), End: ms(5)}}
	res = &run.Result{History: &hh, Schedule: nemesis.Schedule{Events: []nemesis.FaultEvent{{Fault: history.FaultClockStep, For: 400 * time.Millisecond}}}}
	st, err = TellSim(rc, res)
	require.NoError(t, err)
	require.Len(t, st.Schedule.Faults, 1)
	assert.Equal(t, sim.Fault{Kind: sim.FaultJump, Node: impl.ServiceNode, At: st.Schedule.Faults[0].At, By: 2 * time.Second}, st.Schedule.Faults[0])
}
