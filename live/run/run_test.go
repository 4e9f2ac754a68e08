package run_test

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/linearizability"
	"github.com/fencelab/fencelab/live/check"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/internal/livetest"
	"github.com/fencelab/fencelab/live/run"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/fencelab/fencelab/live/store"
	"github.com/fencelab/fencelab/verdict"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The pause stories of the unchecked client (application code that does
// not check its lease): paused past its validity, it resumes and writes.
func TestToyPauseUnfenced(t *testing.T) {
	cfg := livetest.Config(t, livetest.MustSetup(t, livetest.Toy(), "toy", "none"+setup.UncheckedSuffix), history.FaultClientPause)
	res := livetest.CheckStory(t, cfg, livetest.Story{
		Violated: []string{impl.AtMostOneClientHoldLock, impl.NoLostUpdate, impl.NoActionPastValidity, linearizability.SectionsLinearizable},
		Holds:    []string{linearizability.RegisterLinearizable},
	}, false)
	assert.True(t, res.History.Unchecked)
	// The verdict names the client and the operation past its validity.
	paused := livetest.FirstReader(res.History)
	assert.Contains(t, res.Judgement.Verdicts.Get(impl.NoActionPastValidity).Detail, history.ClientName(paused)+" called its write")
}

func TestToyPauseFenced(t *testing.T) {
	cfg := livetest.Config(t, livetest.MustSetup(t, livetest.Toy(), "toy", "all"+setup.UncheckedSuffix), history.FaultClientPause)
	livetest.CheckStory(t, cfg, livetest.Story{
		Violated: []string{impl.AtMostOneClientHoldLock, impl.NoActionPastValidity},
		Holds:    []string{impl.TokenIsMonotonical, impl.NoLostUpdate, linearizability.SectionsLinearizable, linearizability.RegisterLinearizable},
	}, true)
}

// TestToyPauseCheckedClient: the checked client (the default, the
// models' client) paused past its grant's validity by the classic story
// (after its read, before its write's check) checks on resuming,
// records an expire and does not write: no action past validity, no lost
// update, and its belief ended at its validity, so no two beliefs overlap.
func TestToyPauseCheckedClient(t *testing.T) {
	cfg := livetest.Config(t, livetest.MustSetup(t, livetest.Toy(), "toy", "none"), history.FaultClientPause)
	cfg.Classic = true // the pause after the read, before the check
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	res, err := run.Run(ctx, cfg)
	require.NoError(t, err)
	h, j := res.History, res.Judgement
	require.False(t, h.Unchecked)
	require.NotEmpty(t, h.Faults)
	pause := h.Faults[0]
	require.Equal(t, history.FaultClientPause, pause.Fault)
	paused := livetest.FirstReader(h)
	require.Equal(t, history.ClientName(paused), pause.Target)
	var until int64
	var token uint64
	expired, laterExpired, staleWrites := 0, 0, 0
	for _, r := range h.Records {
		if r.Op == history.OpExpire && r.Client != paused {
			laterExpired++
		}
		if r.Client != paused {
			continue
		}
		switch {
		case r.Op == history.OpAcquire && r.Ev == history.Return && r.OK && until == 0:
			until, token = r.ValidUntil, r.Token
			assert.Positive(t, r.Validity, "the grant's validity is recorded")
		case r.Op == history.OpExpire && r.Token == token:
			expired++
			assert.GreaterOrEqual(t, r.Wall, until, "it gave up at or after its validity's end")
		case r.Op == history.OpExpire:
			// A later grant that ran out before its own operation: on a
			// loaded machine a 200 ms lease can, with no fault.
			laterExpired++
		case r.Op == history.OpWrite && r.Ev == history.Call && r.Token == token:
			staleWrites++
		}
	}
	require.Positive(t, until, "the first grant's window is recorded")
	assert.Less(t, until, pause.End, "the pause outlasted the validity")
	assert.Equal(t, 1, expired, "the paused client gave its section up")
	assert.Zero(t, staleWrites, "no write on the expired grant")
	// Its story took effect (validity ran out while it was stopped, the
	// other was granted), and its belief ended at its validity: no overlap.
	assert.True(t, j.TookEffect, "the pause story: %v", j.Beliefs)
	assert.Empty(t, j.Overlap, "its belief ended at its validity")
	for _, p := range []string{impl.NoActionPastValidity, impl.NoLostUpdate, impl.AtMostOneClientHoldLock} {
		assert.NotEqual(t, verdict.Violated, j.Verdicts.Get(p).Status, "%s: %v", p, j.Verdicts.Get(p))
	}
	// Every other section committed but those a load gave up.
	assert.Equal(t, cfg.Clients*cfg.Sections-expired-laterExpired, j.Committed, "the other sections committed")
}

func TestToyWithoutFaultIsInconclusive(t *testing.T) {
	cfg := livetest.Config(t, livetest.MustSetup(t, livetest.Toy(), "toy", "all"), history.FaultNone)
	// A short think: a loaded machine stretched a 100 ms think's section
	// to 245 ms of the 200 ms lease, two holders with no fault — rightly a
	// harness error, not this test's story.
	cfg.Think = 20 * time.Millisecond
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

// TestGrantKeptPastItsLeaseIsAHarnessError: a client whose section
// outlasts its lease (keeper lets a think of 3 TTL pass) makes two holders
// with no fault at all: not a fault that took effect, but the harness's
// error, naming the clients and the times; the judgement comes with it.
func TestGrantKeptPastItsLeaseIsAHarnessError(t *testing.T) {
	s := livetest.MustSetup(t, livetest.Toy(), "toy", "keeper")
	cfg := livetest.Config(t, s, history.FaultNone)
	cfg.Sections, cfg.Think = 1, 3*s.TTL
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := run.Run(ctx, cfg)
	var u *check.UnexplainedOverlap
	require.ErrorAs(t, err, &u)
	assert.Regexp(t, `^an overlap no fault explains: c[12] \(token \d+, [0-9.]+ s to [0-9.]+ s\) and c[12] \(token \d+, [0-9.]+ s to [0-9.]+ s\) both believed they held the lock from [0-9.]+ s to [0-9.]+ s; the run had no fault$`, err.Error())
	assert.NotEqual(t, u.A.Client, u.B.Client)
	require.NotNil(t, res.Judgement)
	assert.False(t, res.Judgement.TookEffect, "with no fault, nothing took effect")
	assert.NotEmpty(t, res.Judgement.Overlap)
	livetest.NothingLeft(t, cfg.TempRoot)
}

func TestRunStopsWhenCancelled(t *testing.T) {
	cfg := livetest.Config(t, livetest.MustSetup(t, livetest.Toy(), "toy", "all"), history.FaultClientPause)
	cfg.Setup.TTL = 2 * time.Second // the pause (3 TTL) outlasts the cancel
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		require.Eventually(t, func() bool { return len(livetest.Children(t)) == 2 }, 10*time.Second, 5*time.Millisecond)
		time.Sleep(300 * time.Millisecond) // c1 is paused by now
		cancel()
	}()
	start := time.Now()
	_, err := run.Run(ctx, cfg)
	require.ErrorIs(t, err, context.Canceled)
	assert.Less(t, time.Since(start), 5*time.Second)
	livetest.NothingLeft(t, cfg.TempRoot)
}

func TestRunReportsAKilledClient(t *testing.T) {
	cfg := livetest.Config(t, livetest.MustSetup(t, livetest.Toy(), "toy", "all"), history.FaultNone)
	cfg.Sections, cfg.Think = 20, 50*time.Millisecond
	go func() {
		var pids []int
		require.Eventually(t, func() bool { pids = livetest.Children(t); return len(pids) == 2 }, 10*time.Second, 5*time.Millisecond)
		time.Sleep(200 * time.Millisecond)
		syscall.Kill(pids[0], syscall.SIGKILL)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := run.Run(ctx, cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "signal: killed")
	livetest.NothingLeft(t, cfg.TempRoot)
}

func TestRunServiceThatWillNotStart(t *testing.T) {
	cfg := livetest.Config(t, livetest.MustSetup(t, livetest.Toy(), "toy", "all"), history.FaultNone)
	cfg.Setup.Start = func(context.Context, setup.StartEnv) (*setup.Deployment, error) {
		return nil, errors.New("address already in use")
	}
	_, err := run.Run(context.Background(), cfg)
	var se *run.StartError
	require.ErrorAs(t, err, &se)
	assert.Contains(t, err.Error(), "toy would not start: address already in use")
	livetest.NothingLeft(t, cfg.TempRoot)
}

func TestRunRejectsBadConfigs(t *testing.T) {
	good := livetest.Config(t, livetest.MustSetup(t, livetest.Toy(), "toy", "all"), history.FaultClientPause)
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

// TestClientThatCannotBeBuiltIsAHarnessError: clients whose store does
// not answer end with the error, and the run is the harness's failure,
// not an inconclusive run.
func TestClientThatCannotBeBuiltIsAHarnessError(t *testing.T) {
	s := livetest.MustSetup(t, livetest.Toy(), "toy", "broken-all")
	start := s.Start
	s.Start = func(ctx context.Context, env setup.StartEnv) (*setup.Deployment, error) {
		d, err := start(ctx, env)
		if err == nil {
			d.StoreAddrs = []string{"127.0.0.1:1"} // nothing listens there
		}
		return d, err
	}
	cfg := livetest.Config(t, s, history.FaultNone)
	_, err := run.Run(context.Background(), cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "store: register:")
	livetest.NothingLeft(t, cfg.TempRoot)
}

// TestStoreAuditIsBounded: the read of a real store's log after a run is
// given a deadline (a server that does not answer made a matrix wait
// without end: the clients' libraries retry it forever), and its failure
// is the run's error, not a verdict.
func TestStoreAuditIsBounded(t *testing.T) {
	s := livetest.MustSetup(t, livetest.Toy(), "toy", "broken-all")
	var deadline time.Time
	var hasDeadline bool
	s.Audit = func(ctx context.Context, _ *setup.Deployment) ([]impl.Op, int64, error) {
		deadline, hasDeadline = ctx.Deadline()
		return nil, 0, errors.New("the store does not answer")
	}
	asked := time.Now()
	_, err := run.Run(context.Background(), livetest.Config(t, s, history.FaultNone))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "reading the store's log")
	assert.Contains(t, err.Error(), "the store does not answer")
	require.True(t, hasDeadline, "the audit ran without a deadline")
	assert.LessOrEqual(t, deadline.Sub(asked), time.Minute+livetest.Config(t, s, history.FaultNone).Timeout, "the audit's deadline is not a bound")
}
