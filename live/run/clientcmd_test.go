package run_test

import (
	"context"
	"testing"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/linearizability"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/internal/livetest"
	"github.com/fencelab/fencelab/live/run"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/fencelab/fencelab/verdict"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClientCommandSetupsRun: each library of another language, its
// example speaking the lock-client protocol in its own process, under
// the real harness and real servers: no fault breaks nothing; the
// client pause takes effect, the checked client gives up (an expire) and
// nothing is violated, or (a session lock) the row's verdicts hold.
func TestClientCommandSetupsRun(t *testing.T) {
	for _, s := range setup.All() {
		if s.ClientCommand == "" {
			continue
		}
		t.Run(s.ID(), func(t *testing.T) {
			livetest.NeedSetup(t, s)
			t.Run("none", func(t *testing.T) {
				cfg := livetest.Config(t, s, history.FaultNone)
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				res, err := run.Run(ctx, cfg)
				require.NoError(t, err)
				assert.False(t, res.Judgement.Violated(), "%v", res.Judgement.Verdicts)
				assert.GreaterOrEqual(t, res.Judgement.Committed, 3, "sections committed")
				assert.Contains(t, res.Library, s.Library)
				livetest.NothingLeft(t, cfg.TempRoot)
			})
			t.Run("client-pause", func(t *testing.T) {
				cfg := livetest.Config(t, s, history.FaultClientPause)
				cfg.Classic = true // the pause after the first read, past the lease
				res := livetest.CheckStory(t, cfg, livetest.Story{}, false)
				if s.Leased {
					assert.False(t, res.Judgement.Violated(), "the checked client gave up: %v", res.Judgement.Verdicts)
					assert.Equal(t, 1, expires(res.History), "the paused client's expire")
				}
				livetest.NothingLeft(t, cfg.TempRoot)
			})
		})
	}
}

func expires(h *history.History) int {
	n := 0
	for _, r := range h.Records {
		if r.Op == history.OpExpire {
			n++
		}
	}
	return n
}

// TestRedisPyUncheckedPause: redis-py's Lock with the unchecked client
// (application code that trusts its lock until it releases) under the
// client pause: the row off's violations, as go-redis's.
func TestRedisPyUncheckedPause(t *testing.T) {
	s := livetest.MustSetup(t, setup.All(), "redis", "redis-py"+setup.UncheckedSuffix)
	livetest.NeedSetup(t, s)
	cfg := livetest.Config(t, s, history.FaultClientPause)
	cfg.Classic = true
	livetest.CheckStory(t, cfg, livetest.Story{
		Violated: []string{impl.AtMostOneClientHoldLock, impl.NoLostUpdate, impl.NoActionPastValidity, linearizability.SectionsLinearizable},
		Holds:    []string{linearizability.RegisterLinearizable},
	}, false)
	livetest.NothingLeft(t, cfg.TempRoot)
}

// TestClientCommandBreachIsAHarnessError: a client command that breaks
// the protocol mid-run (here bad JSON for its first acquire) ends the run
// with the harness's error naming the line, not with a verdict.
func TestClientCommandBreachIsAHarnessError(t *testing.T) {
	livetest.NeedRedis(t)
	base := livetest.MustSetup(t, setup.All(), "redis", "off")
	tests := []struct{ name, command, want string }{
		{"bad JSON at acquire", `read -r l; echo '{"op":"hello","ok":true,"library":"fake","version":"1"}'; read -r l; echo '{"op":"acquire","ok":tru'; sleep 5`,
			`output line 2 "{\"op\":\"acquire\",\"ok\":tru": not a reply object`},
		{"wrong op at release", `read -r l; echo '{"op":"hello","ok":true,"library":"fake","version":"1"}'; read -r l; echo '{"op":"acquire","ok":true}'; read -r l; echo '{"op":"acquire","ok":true}'; sleep 5`,
			`a reply to "acquire", but input line 3 was "release"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := livetest.Config(t, base.WithClientCommand(tc.command), history.FaultNone)
			ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
			defer cancel()
			_, err := run.Run(ctx, cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "client command broke fencelab-lock-client/1")
			assert.Contains(t, err.Error(), tc.want)
			livetest.NothingLeft(t, cfg.TempRoot)
		})
	}
}

// TestKazooPause: kazoo's Lock under the client pause: the paused
// holder's session expires, the other client is granted, and the holder,
// which kazoo does not tell (its Lock still says acquired), writes on
// resuming with its old czxid, which the register refuses: row
// revision's verdicts, as go-zookeeper's.
func TestKazooPause(t *testing.T) {
	s := livetest.MustSetup(t, setup.All(), "zookeeper", "kazoo")
	livetest.NeedSetup(t, s)
	cfg := livetest.Config(t, s, history.FaultClientPause)
	cfg.Classic = true
	livetest.CheckStory(t, cfg, livetest.Story{
		Violated: []string{impl.AtMostOneClientHoldLock},
		Holds:    []string{impl.TokenIsMonotonical, impl.NoLostUpdate, linearizability.SectionsLinearizable, linearizability.RegisterLinearizable},
	}, true)
	livetest.NothingLeft(t, cfg.TempRoot)
}

// TestRedisPyWriteGateStory: redis-py's Lock told row off's own story
// (derived from the model) with the checked client: the holder passes its
// write's check in time, is stopped at its gate until the other's read is
// accepted, and its write lands: an update lost while
// NoActionPastValidity holds, as go-redis's.
func TestRedisPyWriteGateStory(t *testing.T) {
	s := livetest.MustSetup(t, setup.All(), "redis", "redis-py")
	livetest.NeedSetup(t, s)
	cfg := livetest.Config(t, s, history.FaultClientPause)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	res, err := run.Run(ctx, cfg)
	require.NoError(t, err)
	j := res.Judgement
	assert.True(t, j.TookEffect, "the pause story took effect: %s", j.Effect)
	assert.Equal(t, verdict.Violated, j.Verdicts.Get(impl.NoLostUpdate).Status, "%v", j.Verdicts)
	assert.Equal(t, verdict.Holds, j.Verdicts.Get(impl.NoActionPastValidity).Status, "%v", j.Verdicts)
	livetest.NothingLeft(t, cfg.TempRoot)
}

// matrixConfig is the run the matrix makes of setup s under fault f:
// the setup's scripted workload, its story's think derived from the
// servers' start-up.
func matrixConfig(t *testing.T, s setup.Setup, f history.Fault) run.Config {
	cfg := livetest.Config(t, s, f)
	cfg.Clients, cfg.Sections = s.ScriptedWorkload(f)
	cfg.Think, cfg.StoryThink, cfg.Timeout = s.ScriptedThink(f), true, 20*time.Second
	return cfg
}

// TestLibraryFaultCells: the cells each library of another language
// gained beside its pause, one run each as the matrix makes it: a restart
// that wipes Redis and a clock step (of Redis, or of Redlock's five
// nodes together) take effect (two holders, the rows' violation); against a delay or a blackhole of the
// holder's links, the fixed leases of redis-py and node-redlock are safe,
// witnessed (the holder's release lost, the waiter granted only after its
// validity), and claimed by their setups.
func TestLibraryFaultCells(t *testing.T) {
	if testing.Short() {
		t.Skip("real services, one run a cell")
	}
	for _, tc := range []struct {
		service, name string
		fault         history.Fault
		safe          bool // the cell is the setup's claim of safety, witnessed
	}{
		{"redis", "redis-py", history.FaultRestartWipe, false},
		{"redis", "redis-py", history.FaultDelay, true},
		{"redis", "redis-py", history.FaultBlackhole, true},
		{"redis", "redis-semaphore", history.FaultRestartWipe, false},
		{"redis", "redis-semaphore", history.FaultClockStep, false},
		{"redlock", "node-redlock", history.FaultDelay, true},
		{"redlock", "node-redlock", history.FaultBlackhole, true},
		{"redlock", "node-redlock", history.FaultClockStep, false},
	} {
		t.Run(tc.name+"/"+string(tc.fault), func(t *testing.T) {
			s := livetest.MustSetup(t, setup.All(), tc.service, tc.name)
			livetest.NeedSetup(t, s)
			require.Contains(t, s.Faults, tc.fault, "the matrix runs it")
			cfg := matrixConfig(t, s, tc.fault)
			ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
			defer cancel()
			res, err := run.Run(ctx, cfg)
			require.NoError(t, err)
			j := res.Judgement
			require.NotEmpty(t, res.History.Faults, "the fault is logged")
			assert.Empty(t, res.History.Faults[0].Error)
			if tc.safe {
				require.NotEmpty(t, s.Safe[tc.fault], "the setup claims the mechanism")
				assert.False(t, j.Violated(), "%v", j.Verdicts)
				assert.NotEmpty(t, j.Witness, "the lease ran out by itself after the lost release (beliefs %v, faults %v)", j.Beliefs, res.History.Faults)
				assert.True(t, j.TookEffect || j.SafeBy(j.Verdicts.Get(impl.AtMostOneClientHoldLock)), "conclusive: %s", j.Verdicts)
			} else {
				assert.True(t, j.TookEffect, "the %s took effect by its story (faults %v, beliefs %v)", tc.fault, res.History.Faults, j.Beliefs)
				assert.Equal(t, verdict.Violated, j.Verdicts.Get(impl.AtMostOneClientHoldLock).Status, "%v", j.Verdicts)
			}
			livetest.NothingLeft(t, cfg.TempRoot)
		})
	}
}

// TestLateClientCommandIsWaitedFor: a story triggered by the run's first
// read waits for every client to be in the run. redis-py's second client
// here answers hello 0.5 s late (as a Python process at load 20 started):
// the restart comes at a read once it waits for the lock, not at the
// first client's first read with nobody waiting, and takes effect.
func TestLateClientCommandIsWaitedFor(t *testing.T) {
	s := livetest.MustSetup(t, setup.All(), "redis", "redis-py")
	livetest.NeedSetup(t, s)
	// The wrapper reads hello, sleeps when it is c2's, and hands hello and
	// the rest of its input to the example.
	late := `IFS= read -r hello; case "$hello" in *'"client":"c2"'*) sleep 0.5;; esac; { printf '%s\n' "$hello"; exec cat; } | ` + s.ClientCommand
	slow := s
	slow.ClientCommand = late
	slow.Locker = s.WithClientCommand(late).Locker
	cfg := matrixConfig(t, slow, history.FaultRestartWipe)
	res := livetest.CheckStory(t, cfg, livetest.Story{Violated: []string{impl.AtMostOneClientHoldLock}}, false)
	calls := map[int]int64{}
	for _, r := range res.History.Records {
		if _, ok := calls[r.Client]; !ok && r.Op == history.OpAcquire && r.Ev == history.Call {
			calls[r.Client] = r.Wall
		}
	}
	require.Len(t, calls, 2)
	assert.Greater(t, res.History.Faults[0].Start, max(calls[0], calls[1]), "the restart came after both clients' first acquire")
	livetest.NothingLeft(t, cfg.TempRoot)
}
