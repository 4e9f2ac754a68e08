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
