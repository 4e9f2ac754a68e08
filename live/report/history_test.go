package report

import (
	"bytes"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/run"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// committedHistoryFile is the history file (docs/history.md) of the
// committed run in dir, as today's harness writes it: its judged.json's
// history, row, lease and resource's log, or, for a run saved before
// judged.json was, its history.jsonl with its setup's row, lease and
// fencing (the resource's log then rebuilt from the returns).
func committedHistoryFile(t *testing.T, dir string, sv *savedVerdicts) *history.File {
	t.Helper()
	service, name, _ := strings.Cut(sv.Setup, "/")
	s, err := setup.Find(setup.All(), service, name)
	require.NoError(t, err)
	var sj savedJudged
	err = readJSON(filepath.Join(dir, JudgedFile), &sj)
	if errors.Is(err, fs.ErrNotExist) {
		f, err := ReadHistoryFile(filepath.Join(dir, HistoryFile))
		require.NoError(t, err)
		f.Service, f.Design, f.TTL, f.Fence = s.Service, sv.Row, s.TTL, impl.FenceNone.String()
		if s.UsesRegister() {
			f.Fence = s.Design.Mode().String()
		}
		return f
	}
	require.NoError(t, err)
	f := &history.File{Service: s.Service, Design: sj.Row, TTL: sj.TTL, Fence: sj.Resource.Mode, History: *sj.History, Resource: []history.Access{}}
	if f.TTL == 0 {
		f.TTL = s.TTL
	}
	for _, o := range sj.Resource.Log {
		f.Resource = append(f.Resource, history.Access{Client: o.Client, Op: o.Kind, Accepted: o.Accepted, Token: o.Token, Value: o.Value})
	}
	var b bytes.Buffer
	require.NoError(t, f.WriteJSONL(&b))
	back, err := history.ReadFile(&b)
	require.NoError(t, err, "the history file written for %s does not read back", dir)
	return back
}

// TestCheckHistoryJudgesCommittedRunsAsTheLiveJudge: every run under
// docs/live, as a history file, has the live judge's verdicts today
// (Recheck's) — and so its saved ones, where Recheck finds them the same.
// Each run's own history.jsonl reads as a history file too.
func TestCheckHistoryJudgesCommittedRunsAsTheLiveJudge(t *testing.T) {
	dirs := committedRuns(t)
	require.NotEmpty(t, dirs)
	for _, dir := range dirs {
		t.Run(strings.TrimPrefix(dir, filepath.Join("..", "..", "docs", "live")+"/"), func(t *testing.T) {
			_, err := ReadHistoryFile(filepath.Join(dir, HistoryFile))
			require.NoError(t, err)
			a, err := Recheck(dir, setup.All())
			require.NoError(t, err)
			require.NotNil(t, a.Now)
			c, err := CheckHistory(committedHistoryFile(t, dir, &a.Saved), "", run.DefaultCheckTimeout)
			require.NoError(t, err)
			assert.Equal(t, a.Now.Verdicts, c.Verdicts)
			j := c.Judgement
			assert.Equal(t, []any{a.Now.TookEffect, a.Now.Overlap, a.Now.Committed, a.Now.Refused}, []any{j.TookEffect, j.Overlap, j.Committed, j.Refused})
			if a.Same() {
				for _, v := range a.Saved.Verdicts { // an older run saved fewer properties (Unsaved)
					assert.Contains(t, c.Verdicts, v)
				}
			}
		})
	}
}

// TestCheckHistoryOfASavedRun: the history.jsonl a run of the harness
// saves is a whole history file — row, lease, fencing and the resource's
// log in its header and lines — and judged alone it has the run's saved
// verdicts, its resource's log the file's. Without its resource lines the
// log is rebuilt from the returns, with the same verdicts.
func TestCheckHistoryOfASavedRun(t *testing.T) {
	for _, design := range []string{"all", "none"} {
		t.Run(design, func(t *testing.T) {
			dir := savedToyRun(t, design)
			var sv savedVerdicts
			require.NoError(t, readJSON(filepath.Join(dir, VerdictsFile), &sv))
			f, err := ReadHistoryFile(filepath.Join(dir, HistoryFile))
			require.NoError(t, err)
			assert.Equal(t, history.Version, f.Version)
			assert.Equal(t, design, f.Design)
			assert.Positive(t, f.TTL)
			require.NotEmpty(t, f.Resource)
			c, err := CheckHistory(f, "", run.DefaultCheckTimeout)
			require.NoError(t, err)
			assert.Equal(t, sv.Verdicts, c.Verdicts)
			assert.Contains(t, c.Resource, "the history's (")

			f.Resource = nil
			c, err = CheckHistory(f, "", run.DefaultCheckTimeout)
			require.NoError(t, err)
			assert.Contains(t, c.Resource, "rebuilt from the operations in the order they returned")
			assert.Equal(t, sv.Verdicts, c.Verdicts)
		})
	}
}

// TestCheckHistoryUnknownResourceLog: a resource's log that is not what a
// resource of its fencing does leaves the properties read from it
// unknown, never decided; the file's fencing names the resource's.
func TestCheckHistoryUnknownResourceLog(t *testing.T) {
	h := history.History{Start: 0, End: 100, Clients: 2, Records: []history.Record{
		{Client: 0, Op: history.OpAcquire, Ev: history.Call, Wall: 1},
		{Client: 0, Op: history.OpAcquire, Ev: history.Return, Wall: 2, Token: 2, OK: true},
		{Client: 0, Op: history.OpWrite, Ev: history.Call, Wall: 3, Token: 2, Value: 1},
		{Client: 0, Op: history.OpWrite, Ev: history.Return, Wall: 4, Token: 2, Value: 1, OK: true},
	}}
	stale := []history.Access{{Client: 0, Op: history.OpWrite, Accepted: true, Token: 2, Value: 1}, {Client: 1, Op: history.OpWrite, Accepted: true, Token: 1, Value: 2}}
	c, err := CheckHistory(&history.File{Design: "all", TTL: 50, History: h, Resource: stale}, "", run.DefaultCheckTimeout)
	require.NoError(t, err)
	assert.Contains(t, c.Resource, "is not what a resource fencing all does")
	for _, p := range []string{impl.TokenIsMonotonical, impl.NoLostUpdate} {
		v := c.Judgement.Verdicts.Get(p)
		assert.Equal(t, "unknown", v.Status.String(), p)
		assert.Equal(t, "no resource log", v.Covered, p)
		assert.Contains(t, v.Detail, "the history's is not what a resource fencing all does")
	}
	// The same log under fencing none is a lost-update-free replay.
	c, err = CheckHistory(&history.File{Design: "all", TTL: 50, Fence: "none", History: h, Resource: stale}, "", run.DefaultCheckTimeout)
	require.NoError(t, err)
	assert.Contains(t, c.Resource, "the history's (2 operations, counter 2, fencing none)")
	var out strings.Builder
	require.NoError(t, c.Write(&out, "h.jsonl"))
	assert.Contains(t, out.String(), "note: the history's resource fences none, row all's fences all: RegisterLinearizable holds it to the row's rule")
	out.Reset()
	c, err = CheckHistory(&history.File{Design: "none", TTL: 50, Fence: "none", History: h, Resource: stale}, "", run.DefaultCheckTimeout)
	require.NoError(t, err)
	require.NoError(t, c.Write(&out, "h.jsonl"))
	assert.NotContains(t, out.String(), "note:")
	_, err = CheckHistory(&history.File{Design: "all", TTL: 50, Fence: "sometimes", History: h}, "", run.DefaultCheckTimeout)
	assert.ErrorContains(t, err, `line 1: unknown fencing mode "sometimes"`)
}
