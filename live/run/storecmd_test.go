package run_test

import (
	"context"
	"testing"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/linearizability"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/internal/livetest"
	"github.com/fencelab/fencelab/live/internal/toystore"
	"github.com/fencelab/fencelab/live/run"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/fencelab/fencelab/verdict"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// storeCmdConfig is the toy lock of row all, its unchecked client (the
// one whose stale write reaches the store), with the toy store of
// behaviour as its resource, under a client pause.
func storeCmdConfig(t *testing.T, behaviour string) run.Config {
	t.Helper()
	s, err := livetest.MustSetup(t, livetest.Toy(), "toy", "all"+setup.UncheckedSuffix).WithStoreCommand(toystore.Command(behaviour))
	require.NoError(t, err)
	return livetest.Config(t, s, history.FaultClientPause)
}

// TestStoreCommandRunFenced: a store command that fences as row all
// refuses the paused client's stale write; the judge reads its log as
// the register's: nothing lost.
func TestStoreCommandRunFenced(t *testing.T) {
	cfg := storeCmdConfig(t, toystore.Good)
	res := livetest.CheckStory(t, cfg, livetest.Story{
		Violated: []string{impl.AtMostOneClientHoldLock, impl.NoActionPastValidity},
		Holds:    []string{impl.TokenIsMonotonical, impl.NoLostUpdate, linearizability.SectionsLinearizable, linearizability.RegisterLinearizable},
	}, true)
	assert.Contains(t, res.Versions, "store command: toystore good")
	writes := 0
	for _, op := range res.Resource.Log() {
		assert.True(t, op.Accepted, "the judge's log is the accepted operations")
		if op.Kind == impl.OpWrite {
			writes++
		}
	}
	assert.Equal(t, res.Judgement.Committed, writes, "every committed section's write is in the store's log")
	livetest.NothingLeft(t, cfg.TempRoot)
}

// TestStoreCommandRunUnfenced: a store that claims row all and fences
// nothing lets the stale write through: the lost update is the judge's
// verdict, and so is the store breaking the claimed row's fencing.
func TestStoreCommandRunUnfenced(t *testing.T) {
	cfg := storeCmdConfig(t, toystore.AcceptAll)
	livetest.CheckStory(t, cfg, livetest.Story{
		Violated: []string{impl.NoLostUpdate, linearizability.SectionsLinearizable, linearizability.RegisterLinearizable},
	}, false)
	livetest.NothingLeft(t, cfg.TempRoot)
}

// TestStoreCommandRunHostile: a store command that breaks the protocol,
// at its hello, mid-run or in its log, is the run's harness error naming
// the line, never a verdict; nothing is left behind.
func TestStoreCommandRunHostile(t *testing.T) {
	tests := []struct{ behaviour, want string }{
		{toystore.ExitAtOnce, `the store exited (exit status 3) before it replied to input line 1 ("hello")`},
		{toystore.Garbage, `output line 2 "garbage{": not a reply object`},
		{toystore.WrongOp, `a reply to "write", but input line 2 was "read"`},
		{toystore.Silent, `no reply to input line 2 ("read") within 5s`},
		{toystore.Huge, `a line longer than 1048576 bytes`},
		{toystore.LogMissing, `(log): it has `},
		{toystore.LogFlipped, `(log): operation 1 is c`},
		{toystore.LogOrder, `(log): operation 1 is c`},
		{toystore.BadClose, `the store exited (exit status 1) after close`},
	}
	for _, tc := range tests {
		t.Run(tc.behaviour, func(t *testing.T) {
			cfg := storeCmdConfig(t, tc.behaviour)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			res, err := run.Run(ctx, cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "store command broke fencelab-store/1: ")
			assert.Contains(t, err.Error(), tc.want)
			if res != nil && res.Judgement != nil {
				assert.False(t, res.Judgement.Violated(), "no verdict of a broken store: %v", res.Judgement.Verdicts)
			}
			livetest.NothingLeft(t, cfg.TempRoot)
		})
	}
}

// TestStoreCommandRunRefusesEverything: a store that refuses every read
// and write loses nothing because it keeps nothing: no verdict of the
// store's properties may read as held.
func TestStoreCommandRunRefusesEverything(t *testing.T) {
	cfg := storeCmdConfig(t, toystore.RefuseAll)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := run.Run(ctx, cfg)
	require.NoError(t, err)
	j := res.Judgement
	assert.Zero(t, j.Committed)
	assert.Positive(t, j.Refused)
	t.Logf("took effect %v; %v", j.TookEffect, j.Verdicts)
	for _, p := range []string{impl.TokenIsMonotonical, impl.NoLostUpdate, linearizability.SectionsLinearizable, linearizability.RegisterLinearizable} {
		assert.NotEqual(t, verdict.Holds, j.Verdicts.Get(p).Status, "%s: %v", p, j.Verdicts.Get(p))
	}
	livetest.NothingLeft(t, cfg.TempRoot)
}
