package live

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/linearizability"
	"github.com/fencelab/fencelab/live/check"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/nemesis"
	"github.com/fencelab/fencelab/live/run"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/fencelab/fencelab/live/store"
	"github.com/fencelab/fencelab/verdict"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testRun is a run configuration for tests: this test binary as the
// client processes (TestMain), two clients, two sections each.
func testRun(t *testing.T, s setup.Setup, f history.Fault) run.Config {
	t.Helper()
	return run.Config{
		Setup: s, Fault: f, Nemesis: nemesis.Scripted, Seed: 1,
		Clients: 2, Sections: 2, Think: 100 * time.Millisecond, Timeout: 15 * time.Second,
		Self: []string{os.Args[0]}, Env: []string{roleEnv + "=client"},
		TempRoot: t.TempDir(), CheckTimeout: 5 * time.Second,
	}
}

func mustSetup(t *testing.T, setups []setup.Setup, service, name string) setup.Setup {
	t.Helper()
	s, err := setup.Find(setups, service, name)
	require.NoError(t, err)
	return s
}

// story is the outcome a scripted story must have, property by property.
type story struct {
	violated []string
	holds    []string // not violated, in a run where the fault took effect
}

// checkStory runs cfg once and checks that the fault took effect, that
// every property of want.violated was violated and that every one of
// want.holds was not, with the witness that the good path was taken: at
// least two sections committed, and (fenced rows) the stale operation
// refused.
func checkStory(t *testing.T, cfg run.Config, want story, fenced bool) *run.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	res, err := run.Run(ctx, cfg)
	require.NoError(t, err)
	j := res.Judgement
	require.True(t, j.TookEffect, "the %s took effect: beliefs overlapped (%v)", cfg.Fault, j.Beliefs)
	require.NotEmpty(t, res.History.Faults, "the fault is logged")
	assert.Equal(t, cfg.Fault, res.History.Faults[0].Fault)
	assert.Empty(t, res.History.Faults[0].Error)
	assert.Greater(t, res.History.Faults[0].End, res.History.Faults[0].Start, "the fault has wall times")
	for _, p := range want.violated {
		assert.Equal(t, verdict.Violated, j.Verdicts.Get(p).Status, "%s: %v", p, j.Verdicts.Get(p))
	}
	for _, p := range want.holds {
		assert.Equal(t, verdict.Holds, j.Verdicts.Get(p).Status, "%s: %v", p, j.Verdicts.Get(p))
	}
	assert.GreaterOrEqual(t, j.Committed, 2, "sections committed")
	if fenced {
		assert.GreaterOrEqual(t, j.Refused, 1, "the stale operation refused")
	}
	return res
}

func TestToyPauseUnfenced(t *testing.T) {
	cfg := testRun(t, mustSetup(t, toySetups(), "toy", "none"), history.FaultClientPause)
	checkStory(t, cfg, story{
		violated: []string{impl.AtMostOneClientHoldLock, impl.NoLostUpdate, linearizability.SectionsLinearizable},
		holds:    []string{linearizability.RegisterLinearizable},
	}, false)
}

func TestToyPauseFenced(t *testing.T) {
	cfg := testRun(t, mustSetup(t, toySetups(), "toy", "all"), history.FaultClientPause)
	checkStory(t, cfg, story{
		violated: []string{impl.AtMostOneClientHoldLock},
		holds:    []string{impl.TokenIsMonotonical, impl.NoLostUpdate, linearizability.SectionsLinearizable, linearizability.RegisterLinearizable},
	}, true)
}

func TestToyWithoutFaultIsInconclusive(t *testing.T) {
	cfg := testRun(t, mustSetup(t, toySetups(), "toy", "all"), history.FaultNone)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := run.Run(ctx, cfg)
	require.NoError(t, err)
	j := res.Judgement
	require.False(t, j.TookEffect)
	assert.Equal(t, 4, j.Committed, "every section committed")
	for _, v := range j.Verdicts {
		assert.NotEqual(t, verdict.Holds, v.Status, "%s: an inconclusive run never holds", v.Property)
		assert.NotEqual(t, verdict.Violated, v.Status, v.Property)
	}
}

// TestCampaignSavesFailingRuns: a campaign of the unfenced row saves each
// violating run with its files, and tallies "violated (k of N)"; the
// fenced row is not failed by its expected violation.
func TestCampaignSavesFailingRuns(t *testing.T) {
	out := t.TempDir()
	cfg := CampaignConfig{Run: testRun(t, mustSetup(t, toySetups(), "toy", "none"), history.FaultClientPause), Runs: 2, Out: out}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := RunCampaign(ctx, cfg)
	require.NoError(t, err)
	assert.False(t, s.Failed(), "row none: every violation is expected")
	require.Len(t, s.Saved, 2)
	for _, dir := range s.Saved {
		for _, f := range []string{HistoryFile, FaultsFile, VerdictsFile, ScheduleFile, check.PorcupineFile, check.RegisterFile, "trace.html", "trace.txt"} {
			st, err := os.Stat(filepath.Join(dir, f))
			if assert.NoError(t, err, f) {
				assert.Positive(t, st.Size(), f)
			}
		}
	}
	st, err := os.Stat(s.Saved[0])
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), st.Mode().Perm())
	vs, err := os.ReadFile(filepath.Join(s.Saved[0], VerdictsFile))
	require.NoError(t, err)
	assert.Contains(t, string(vs), `"property": "NoLostUpdate",
      "expected": "violated",
      "status": "violated"`)
	sum, err := os.ReadFile(filepath.Join(out, "toy", "none", string(history.FaultClientPause), SummaryFile))
	require.NoError(t, err)
	assert.Contains(t, string(sum), `"live": "violated (2 of 2)"`)
	hold := s.Tallies[0]
	assert.Equal(t, impl.AtMostOneClientHoldLock, hold.Property)
	assert.Equal(t, "violated (2 of 2)", hold.String())
	assert.Equal(t, s.Saved[0], hold.FirstViolation)
	// A campaign saves again into the same folders, replacing them whole.
	_, err = RunCampaign(ctx, cfg)
	require.NoError(t, err)
}

// children lists the pids of this process's children still alive (not
// zombies), from /proc.
func children(t *testing.T) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so fields are
		// read after its closing parenthesis.
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 1 && f[0] != "Z" && f[1] == strconv.Itoa(os.Getpid()) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// assertNothingLeft: no child process and nothing in the run's temporary
// root.
func assertNothingLeft(t *testing.T, root string) {
	t.Helper()
	assert.Empty(t, children(t), "child processes left behind")
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	assert.Empty(t, entries, "data folders left behind")
}

func TestRunStopsWhenCancelled(t *testing.T) {
	cfg := testRun(t, mustSetup(t, toySetups(), "toy", "all"), history.FaultClientPause)
	cfg.Setup.TTL = 2 * time.Second // the pause (3 TTL) outlasts the cancel
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		require.Eventually(t, func() bool { return len(children(t)) == 2 }, 10*time.Second, 5*time.Millisecond)
		time.Sleep(300 * time.Millisecond) // c1 is paused by now
		cancel()
	}()
	start := time.Now()
	_, err := run.Run(ctx, cfg)
	require.ErrorIs(t, err, context.Canceled)
	assert.Less(t, time.Since(start), 5*time.Second)
	assertNothingLeft(t, cfg.TempRoot)
}

func TestRunReportsAKilledClient(t *testing.T) {
	cfg := testRun(t, mustSetup(t, toySetups(), "toy", "all"), history.FaultNone)
	cfg.Sections, cfg.Think = 20, 50*time.Millisecond
	go func() {
		var pids []int
		require.Eventually(t, func() bool { pids = children(t); return len(pids) == 2 }, 10*time.Second, 5*time.Millisecond)
		time.Sleep(200 * time.Millisecond)
		syscall.Kill(pids[0], syscall.SIGKILL)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := run.Run(ctx, cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "signal: killed")
	assertNothingLeft(t, cfg.TempRoot)
}

func TestRunServiceThatWillNotStart(t *testing.T) {
	cfg := testRun(t, mustSetup(t, toySetups(), "toy", "all"), history.FaultNone)
	cfg.Setup.Start = func(context.Context, setup.StartEnv) (*setup.Deployment, error) {
		return nil, errors.New("address already in use")
	}
	_, err := run.Run(context.Background(), cfg)
	var se *run.StartError
	require.ErrorAs(t, err, &se)
	assert.Contains(t, err.Error(), "toy would not start: address already in use")
	assertNothingLeft(t, cfg.TempRoot)
}

func TestRunRejectsBadConfigs(t *testing.T) {
	good := testRun(t, mustSetup(t, toySetups(), "toy", "all"), history.FaultClientPause)
	tests := map[string]func(*run.Config){
		"one client":         func(c *run.Config) { c.Clients = 1 },
		"think past the TTL": func(c *run.Config) { c.Think = c.Setup.TTL },
		"no sections":        func(c *run.Config) { c.Sections = 0 },
		"bad nemesis":        func(c *run.Config) { c.Nemesis = "chaos" },
		"no timeout":         func(c *run.Config) { c.Timeout = 0 },
		"fault not of setup": func(c *run.Config) { c.Fault = history.FaultDelay },
		"no client command":  func(c *run.Config) { c.Self = nil },
		"store without audit": func(c *run.Config) {
			c.Setup.Store = func(context.Context, setup.StoreConfig) (store.Store, error) { return nil, errors.New("unused") }
		},
	}
	require.NoError(t, good.Validate())
	for name, edit := range tests {
		cfg := good
		edit(&cfg)
		assert.Error(t, cfg.Validate(), name)
	}
}

// TestRandomCampaign: a seeded random nemesis over a few runs ends with no
// harness error, and each run's fault log follows its schedule.
func TestRandomCampaign(t *testing.T) {
	cfg := CampaignConfig{Run: testRun(t, mustSetup(t, toySetups(), "toy", "all"), history.FaultClientPause), Runs: 3}
	cfg.Run.Nemesis = nemesis.Random
	var progress strings.Builder
	cfg.Progress = &progress
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := RunCampaign(ctx, cfg)
	require.NoError(t, err)
	assert.Equal(t, 3, s.Runs)
	assert.False(t, s.Failed(), "row all under client pauses: nothing the models say holds is violated")
	assert.Equal(t, 3, strings.Count(progress.String(), "\n"), "a progress line per run")
	assert.Positive(t, s.Committed)
	assertNothingLeft(t, cfg.Run.TempRoot)
}

// TestCampaignFailsOnAnUnexpectedViolation: a store that claims row all
// but ignores the tokens (brokenSetup) loses an update under a client
// pause; the models say row all never does, so the campaign fails — the
// check that makes fencelab-live exit 1 can fail.
func TestCampaignFailsOnAnUnexpectedViolation(t *testing.T) {
	s := mustSetup(t, toySetups(), "toy", "broken-all")
	cfg := CampaignConfig{Run: testRun(t, s, history.FaultClientPause), Runs: 1, Out: t.TempDir()}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sum, err := RunCampaign(ctx, cfg)
	require.NoError(t, err)
	require.True(t, sum.Failed())
	for _, tally := range sum.Tallies {
		if tally.Property == impl.NoLostUpdate {
			assert.True(t, tally.Unexpected())
			assert.Equal(t, "violated (1 of 1)", tally.String())
		}
	}
	var out strings.Builder
	require.NoError(t, sum.Write(&out))
	assert.Contains(t, out.String(), "UNEXPECTED")
}

// TestClientThatCannotBeBuiltIsAHarnessError: clients whose store does
// not answer end with the error, and the run is the harness's failure,
// not an inconclusive run.
func TestClientThatCannotBeBuiltIsAHarnessError(t *testing.T) {
	s := mustSetup(t, toySetups(), "toy", "broken-all")
	start := s.Start
	s.Start = func(ctx context.Context, env setup.StartEnv) (*setup.Deployment, error) {
		d, err := start(ctx, env)
		if err == nil {
			d.StoreAddrs = []string{"127.0.0.1:1"} // nothing listens there
		}
		return d, err
	}
	cfg := testRun(t, s, history.FaultNone)
	_, err := run.Run(context.Background(), cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "store: register:")
	assertNothingLeft(t, cfg.TempRoot)
}
