package run_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/linearizability"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/internal/livetest"
	"github.com/fencelab/fencelab/live/run"
	"github.com/fencelab/fencelab/live/server"
	"github.com/fencelab/fencelab/live/setup"
)

// runPostgresStory runs setup name under fault once, scripted: two
// clients, one section each, the think time the setup's story needs.
func runPostgresStory(t *testing.T, name string, fault history.Fault) *run.Result {
	t.Helper()
	if err := server.PostgresInstalled(); err != nil {
		t.Skip(err.Error())
	}
	if err := server.PgBouncerInstalled(); err != nil {
		t.Skip(err.Error())
	}
	s := livetest.MustSetup(t, setup.All(), "postgres", name)
	cfg := livetest.Config(t, s, fault)
	cfg.Sections, cfg.Think, cfg.Timeout = 1, s.ScriptedThink(fault), 60*time.Second
	// The postgres system user must reach the run's folder: t.TempDir's
	// parent is 0700 (a real run's parent is the temporary folder).
	require.NoError(t, server.GrantSearch(filepath.Dir(cfg.TempRoot)))
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	res, err := run.Run(ctx, cfg)
	require.NoError(t, err)
	for _, f := range res.History.Faults {
		assert.Empty(t, f.Error)
	}
	assert.Contains(t, res.Versions, "postgres 15")
	return res
}

// With no fault a session lock straight to PostgreSQL makes no two
// holders: inconclusive, no violation, no harness error.
func TestPostgresStoryNoFault(t *testing.T) {
	res := runPostgresStory(t, "advisory", history.FaultNone)
	j := res.Judgement
	assert.False(t, j.TookEffect)
	assert.Empty(t, j.Overlap)
	assert.False(t, j.Violated(), "%v", j.Verdicts)
	assert.Equal(t, 2, j.Committed)
}

// A paused client keeps its session, and so the lock, until the idle
// timeout its story runs the server with ends it while the client is
// stopped: the other client is granted, the fault took effect, and the
// sequence's tokens and the fenced UPDATE refuse the stale operation.
func TestPostgresStoryPauseEndsTheSession(t *testing.T) {
	res := runPostgresStory(t, "xact-durable", history.FaultClientPause)
	j := res.Judgement
	require.NotEmpty(t, res.History.Faults)
	assert.Equal(t, history.FaultClientPause, res.History.Faults[0].Fault)
	require.True(t, j.TookEffect, "the idle timeout ended the paused holder's session (%v)", j.Verdicts)
	checkVerdicts(t, j, livetest.Story{
		Violated: []string{impl.AtMostOneClientHoldLock},
		Holds:    []string{impl.TokenIsMonotonical, impl.NoLostUpdate, linearizability.RegisterLinearizable},
	})
}

// A restart that keeps the data ends the holder's session: two holders,
// but the sequence's tokens and the fenced UPDATE refuse the stale one.
func TestPostgresStoryRestartDurable(t *testing.T) {
	res := runPostgresStory(t, "xact-durable", history.FaultRestartKeep)
	checkVerdicts(t, res.Judgement, livetest.Story{
		Violated: []string{impl.AtMostOneClientHoldLock},
		Holds:    []string{impl.TokenIsMonotonical, impl.NoLostUpdate, linearizability.RegisterLinearizable},
	})
	assert.GreaterOrEqual(t, res.Judgement.Refused, 1, "the stale operation was refused")
}

// PgBouncer in transaction pooling: two holders with no fault at all,
// the deployment's fault — an expected violation of row off, not the
// harness's error.
func TestPostgresStoryPgBouncerTwoHoldersWithoutAFault(t *testing.T) {
	res := runPostgresStory(t, "advisory-pgbouncer", history.FaultNone)
	j := res.Judgement
	require.Len(t, res.History.Faults, 1)
	assert.Equal(t, history.FaultDeployment, res.History.Faults[0].Fault)
	assert.Equal(t, "pgbouncer", res.History.Faults[0].Target)
	checkVerdicts(t, j, livetest.Story{Violated: []string{impl.AtMostOneClientHoldLock, impl.NoLostUpdate}})
	assert.Contains(t, j.Effect, "the deployment is the fault")
	assert.Contains(t, res.Versions, "pgbouncer 1.")
}
