package run_test

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/linearizability"
	"github.com/fencelab/fencelab/live/check"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/internal/livetest"
	"github.com/fencelab/fencelab/live/nemesis"
	"github.com/fencelab/fencelab/live/run"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/fencelab/fencelab/live/story"
	"github.com/fencelab/fencelab/verdict"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRedisScriptedPause is the story against real Redis and
// go-redis, each client its own process: c1 paused with SIGSTOP right
// after its read, past the lease; c2 acquires meanwhile. The clients are
// the unchecked client (application code that does not check its lease):
// c1 resumes and acts past its validity; the checked client gives up
// (TestRedisScriptedPauseCheckedClient).
func TestRedisScriptedPause(t *testing.T) {
	livetest.NeedRedis(t)
	tests := []struct {
		design string
		want   livetest.Story
		fenced bool
	}{
		{"none", livetest.Story{
			Violated: []string{impl.AtMostOneClientHoldLock, impl.NoLostUpdate, impl.NoActionPastValidity, linearizability.SectionsLinearizable},
			Holds:    []string{linearizability.RegisterLinearizable},
		}, false},
		{"all", livetest.Story{
			Violated: []string{impl.AtMostOneClientHoldLock, impl.NoActionPastValidity},
			Holds:    []string{impl.TokenIsMonotonical, impl.NoLostUpdate, linearizability.SectionsLinearizable, linearizability.RegisterLinearizable},
		}, true},
		{"off", livetest.Story{
			Violated: []string{impl.AtMostOneClientHoldLock, impl.NoLostUpdate, impl.NoActionPastValidity},
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.design, func(t *testing.T) {
			cfg := livetest.Config(t, livetest.MustSetup(t, setup.All(), "redis", tc.design+setup.UncheckedSuffix), history.FaultClientPause)
			res := livetest.CheckStory(t, cfg, tc.want, tc.fenced)
			assert.Contains(t, res.Versions, "redis-server")
			assert.Contains(t, res.Library, "go-redis")
			livetest.NothingLeft(t, cfg.TempRoot)
		})
	}
}

// TestRedisScriptedPauseCheckedClient: the classic story with the
// checked client (the default): c1, paused after its read, resumes past
// its grant's validity, checks, and does not write; its belief ended at
// its validity, so no two overlap, and nothing is violated.
func TestRedisScriptedPauseCheckedClient(t *testing.T) {
	livetest.NeedRedis(t)
	cfg := livetest.Config(t, livetest.MustSetup(t, setup.All(), "redis", "none"), history.FaultClientPause)
	cfg.Classic = true
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	res, err := run.Run(ctx, cfg)
	require.NoError(t, err)
	j := res.Judgement
	assert.True(t, j.TookEffect, "the pause story took effect: %v", j.Beliefs)
	assert.Empty(t, j.Overlap, "its belief ended at its validity")
	assert.False(t, j.Violated(), "%v", j.Verdicts)
	expired := 0
	for _, r := range res.History.Records {
		if r.Op == history.OpExpire {
			expired++
			assert.Equal(t, livetest.FirstReader(res.History), r.Client, "the paused client gave up")
		}
	}
	assert.Equal(t, 1, expired)
	livetest.NothingLeft(t, cfg.TempRoot)
}

// TestRedisWriteGateStory: row none's own story with the checked client,
// against real Redis: c1 passes its write's check in time and is stopped
// at its gate until c2's read is accepted; its write lands, c2's follows:
// an update lost while NoActionPastValidity holds, as the model says.
func TestRedisWriteGateStory(t *testing.T) {
	livetest.NeedRedis(t)
	cfg := livetest.Config(t, livetest.MustSetup(t, setup.All(), "redis", "none"), history.FaultClientPause)
	st, ok := cfg.Story()
	require.True(t, ok)
	require.Equal(t, impl.NoLostUpdate, st.Property)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	res, err := run.Run(ctx, cfg)
	require.NoError(t, err)
	j := res.Judgement
	assert.True(t, j.TookEffect, "the pause story took effect: %s", j.Effect)
	assert.Equal(t, verdict.Violated, j.Verdicts.Get(impl.NoLostUpdate).Status, "%v", j.Verdicts)
	assert.Equal(t, verdict.Holds, j.Verdicts.Get(impl.NoActionPastValidity).Status, "%v", j.Verdicts)
	assert.Contains(t, res.History.Faults[0].Detail, "until another client's accepted read")
	livetest.NothingLeft(t, cfg.TempRoot)
}

// TestRedisRestartWipe: Redis killed and restarted without persistence
// right after the first read; the lock and the INCR counter are gone, so
// a second client acquires at once with token 1 again, the very token the
// paused reader holds: the register's >= check accepts both writes and an
// update is lost (row restart-volatile), while the tokens it accepted
// never went down.
func TestRedisRestartWipe(t *testing.T) {
	livetest.NeedRedis(t)
	cfg := livetest.Config(t, livetest.MustSetup(t, setup.All(), "redis", "restart-volatile"), history.FaultRestartWipe)
	cfg.Think = cfg.Setup.ScriptedThink(history.FaultRestartWipe)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	res, err := run.Run(ctx, cfg)
	require.NoError(t, err)
	require.Len(t, res.History.Faults, 1)
	assert.Empty(t, res.History.Faults[0].Error)
	j := res.Judgement
	require.True(t, j.TookEffect, "the restart took effect: beliefs overlapped (%v)", j.Beliefs)
	assert.Equal(t, verdict.Violated, j.Verdicts.Get(impl.AtMostOneClientHoldLock).Status)
	assert.Equal(t, verdict.Violated, j.Verdicts.Get(impl.NoLostUpdate).Status)
	assert.Equal(t, verdict.Holds, j.Verdicts.Get(impl.TokenIsMonotonical).Status)
	livetest.NothingLeft(t, cfg.TempRoot)
}

// TestRedisServerPause: the scripted server pause stops redis-server for
// three TTLs and resumes it; with SET NX PX no second client can acquire
// while the first still thinks, so the run is inconclusive — never a
// "holds".
func TestRedisServerPause(t *testing.T) {
	livetest.NeedRedis(t)
	cfg := livetest.Config(t, livetest.MustSetup(t, setup.All(), "redis", "all"), history.FaultServerPause)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	res, err := run.Run(ctx, cfg)
	require.NoError(t, err)
	require.Len(t, res.History.Faults, 1)
	f := res.History.Faults[0]
	assert.Empty(t, f.Error)
	assert.Contains(t, f.Detail, "SIGSTOP pids [")
	assert.GreaterOrEqual(t, time.Duration(f.End-f.Start), 3*cfg.Setup.TTL)
	for _, v := range res.Judgement.Verdicts {
		assert.NotEqual(t, verdict.Holds, v.Status, v.Property)
	}
	livetest.NothingLeft(t, cfg.TempRoot)
}

// TestRedisNetworkFaults: the delay and blackhole of the first reader's
// own link, scripted after its read, are logged with their wall times and
// leave no harness error (calls that failed while the link was cut are
// the clients' records) and nothing behind. Against SET NX PX they do not
// take effect (why they are MoreFaults): the holder's write lands inside
// its fixed lease, and only its release is lost or late.
func TestRedisNetworkFaults(t *testing.T) {
	livetest.NeedRedis(t)
	for _, f := range []history.Fault{history.FaultDelay, history.FaultBlackhole} {
		t.Run(string(f), func(t *testing.T) {
			cfg := livetest.Config(t, livetest.MustSetup(t, setup.All(), "redis", "all"), f)
			ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
			defer cancel()
			res, err := run.Run(ctx, cfg)
			require.NoError(t, err)
			require.Len(t, res.History.Faults, 1)
			rec := res.History.Faults[0]
			assert.Equal(t, f, rec.Fault)
			assert.Empty(t, rec.Error)
			assert.Equal(t, history.ClientName(livetest.FirstReader(res.History)), rec.Target, "aimed at the holder's link")
			assert.False(t, res.Judgement.TookEffect, "%v", res.Judgement.Beliefs)
			assert.GreaterOrEqual(t, time.Duration(rec.End-rec.Start), 3*cfg.Setup.TTL)
			assert.Positive(t, res.Judgement.Committed)
			for _, p := range check.Properties() {
				if check.Expected(cfg.Setup.Design, p) == verdict.Holds {
					assert.NotEqual(t, verdict.Violated, res.Judgement.Verdicts.Get(p).Status, p)
				}
			}
			livetest.NothingLeft(t, cfg.TempRoot)
		})
	}
}

// TestRedisClockStep: redis-server's own wall clock stepped forward by
// two TTLs at the holder's write expires its key at once: a second
// client acquires and reads while the first still believes. Row all: the
// stale write is refused.
func TestRedisClockStep(t *testing.T) {
	livetest.NeedRedis(t)
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("cc not installed (Debian package gcc): the clock shim cannot be built")
	}
	cfg := livetest.Config(t, livetest.MustSetup(t, setup.All(), "redis", "all"), history.FaultClockStep)
	// The step comes after the holder's write passed its validity check
	// (its lease has time left by the real clock), and its write waits
	// at the gate until the other client's read was accepted: the stale
	// write lands after the newer holder's read whatever the load, as in
	// the models' story.
	cfg.Script = &story.Story{Design: cfg.Setup.Design, Property: impl.NoLostUpdate, Fault: history.FaultClockStep,
		Point: story.AtWriteGate, Until: nemesis.UntilOtherRead, Lands: history.OpWrite}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := run.Run(ctx, cfg)
	require.NoError(t, err)
	require.Len(t, res.History.Faults, 1)
	assert.Empty(t, res.History.Faults[0].Error)
	j := res.Judgement
	require.True(t, j.TookEffect, "the clock step took effect: beliefs overlapped (%v)", j.Beliefs)
	assert.Equal(t, verdict.Violated, j.Verdicts.Get(impl.AtMostOneClientHoldLock).Status)
	assert.Equal(t, verdict.Holds, j.Verdicts.Get(impl.NoLostUpdate).Status)
	assert.Positive(t, j.Refused, "the stale write refused")
	livetest.NothingLeft(t, cfg.TempRoot)
}

// TestRedlockScriptedPause: Redlock over five redis-server processes
// through redsync, c1 (the unchecked client) paused past its validity:
// two holders and a lost update without fencing; with the unique values
// checked-and-set, the stale write is refused.
func TestRedlockScriptedPause(t *testing.T) {
	livetest.NeedRedis(t)
	tests := []struct {
		design string
		want   livetest.Story
		fenced bool
	}{
		{"redlock", livetest.Story{Violated: []string{impl.AtMostOneClientHoldLock, impl.NoLostUpdate, impl.NoActionPastValidity}}, false},
		{"redlock-unique", livetest.Story{
			Violated: []string{impl.AtMostOneClientHoldLock, impl.NoActionPastValidity},
			Holds:    []string{impl.NoLostUpdate, linearizability.SectionsLinearizable, linearizability.RegisterLinearizable},
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.design, func(t *testing.T) {
			cfg := livetest.Config(t, livetest.MustSetup(t, setup.All(), "redlock", tc.design+setup.UncheckedSuffix), history.FaultClientPause)
			res := livetest.CheckStory(t, cfg, tc.want, tc.fenced)
			assert.Contains(t, res.Library, "redsync")
			assert.Equal(t, verdict.NotApplicable, res.Judgement.Verdicts.Get(impl.TokenIsMonotonical).Status)
			livetest.NothingLeft(t, cfg.TempRoot)
		})
	}
}

// TestRedisWithoutFault: without a fault no two clients hold at once (the
// sections fit in their leases), so every run's overlap is the fault's.
func TestRedisWithoutFault(t *testing.T) {
	livetest.NeedRedis(t)
	for _, id := range [][2]string{{"redis", "none"}, {"redis", "restart-volatile"}, {"redlock", "redlock"}} {
		t.Run(id[1], func(t *testing.T) {
			s := livetest.MustSetup(t, setup.All(), id[0], id[1])
			cfg := livetest.Config(t, s, history.FaultNone)
			cfg.Think = s.ScriptedThink(s.Faults[0])
			ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
			defer cancel()
			res, err := run.Run(ctx, cfg)
			require.NoError(t, err)
			assert.False(t, res.Judgement.TookEffect, "%v", res.Judgement.Beliefs)
			assert.Equal(t, 4, res.Judgement.Committed)
		})
	}
}
