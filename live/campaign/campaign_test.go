package campaign

import (
	"context"
	"errors"
	"github.com/fencelab/fencelab/bounds"
	"github.com/fencelab/fencelab/impl"
	"github.com/stretchr/testify/require"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fencelab/fencelab/linearizability"
	"github.com/fencelab/fencelab/live/check"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/internal/livetest"
	"github.com/fencelab/fencelab/live/nemesis"
	"github.com/fencelab/fencelab/live/report"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/fencelab/fencelab/verdict"
	"github.com/stretchr/testify/assert"
)

// TestTallyCells: the live cell keeps apart a property violated, one that
// held while the fault took effect, and a campaign that could not tell;
// none of them is Holds.
func TestTallyCells(t *testing.T) {
	tests := []struct {
		name   string
		tally  Tally
		cell   string
		status verdict.Status
	}{
		{"violated", Tally{Expected: verdict.Violated, Runs: 5, Violated: 2, TookEffect: 2, Unknown: 3}, "violated (2 of 5)", verdict.Violated},
		{"held where the fault took effect", Tally{Expected: verdict.Holds, Runs: 5, TookEffect: 4, Unknown: 1}, "held while the fault took effect in 4 of 5", verdict.Unknown},
		{"held in fewer runs than took effect (one undecided)", Tally{Expected: verdict.Holds, Runs: 5, TookEffect: 4, Unknown: 2}, "held while the fault took effect in 3 of 5", verdict.Unknown},
		{"the fault never took effect", Tally{Expected: verdict.Holds, Runs: 3, Unknown: 3}, "inconclusive (the fault took effect in 0 of 3)", verdict.Unknown},
		{"took effect, never decided", Tally{Expected: verdict.Holds, Runs: 3, TookEffect: 2, Unknown: 3}, "inconclusive (the fault took effect in 2 of 3)", verdict.Unknown},
		{"an expected violation not shown", Tally{Expected: verdict.Violated, Runs: 3, Unknown: 3}, "inconclusive (the fault took effect in 0 of 3)", verdict.Unknown},
		{"not applicable", Tally{Expected: verdict.NotApplicable, Runs: 3}, "— (not applicable)", verdict.NotApplicable},
		// A claim of safety shows only with runs that witnessed it, and
		// never as holds.
		{"safe, witnessed", Tally{Expected: verdict.Violated, Runs: 3, Unknown: 3, Safe: 3, Mechanism: "leases survive a restart"}, "safe: leases survive a restart (3 of 3)", verdict.Unknown},
		{"safe in some runs", Tally{Expected: verdict.Holds, Runs: 3, Unknown: 3, Safe: 2, Mechanism: "leases survive a restart"}, "safe: leases survive a restart (2 of 3)", verdict.Unknown},
		{"claimed safe, never witnessed", Tally{Expected: verdict.Violated, Runs: 3, Unknown: 3, Mechanism: "leases survive a restart"}, "inconclusive (the fault took effect in 0 of 3)", verdict.Unknown},
		{"witnessed without a claim", Tally{Expected: verdict.Violated, Runs: 3, Unknown: 3, Safe: 3}, "inconclusive (the fault took effect in 0 of 3)", verdict.Unknown},
		{"claimed safe, violated", Tally{Expected: verdict.Violated, Runs: 3, Violated: 1, Unknown: 2, Safe: 2, Mechanism: "leases survive a restart"}, "violated (1 of 3)", verdict.Violated},
		{"claimed safe, the fault took effect", Tally{Expected: verdict.Holds, Runs: 3, TookEffect: 1, Unknown: 2, Safe: 2, Mechanism: "m"}, "held while the fault took effect in 1 of 3", verdict.Unknown},
		{"not applicable, claimed safe", Tally{Expected: verdict.NotApplicable, Runs: 3, Safe: 3, Mechanism: "m"}, "— (not applicable)", verdict.NotApplicable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.cell, tc.tally.String())
			assert.Equal(t, tc.status, tc.tally.Status(), "a live campaign never says holds")
		})
	}
	nv := Tally{Expected: verdict.Holds, Runs: 5, TookEffect: 4, Unknown: 1}
	assert.False(t, nv.Unexpected())
	bad := Tally{Expected: verdict.Holds, Runs: 5, Violated: 1}
	assert.True(t, bad.Unexpected())
	s := &Summary{Tallies: []Tally{nv, bad}}
	assert.True(t, s.Failed())
	s = &Summary{Tallies: []Tally{nv, {Expected: verdict.Violated, Runs: 1, Violated: 1}}}
	assert.False(t, s.Failed())
}

// TestCampaignSavesFailingRuns: a campaign of the unfenced row's
// unchecked client saves each violating run with its files, and tallies
// "violated (k of N)"; the line is not failed by its expected violations
// (the row's, and the unchecked client's NoActionPastValidity).
func TestCampaignSavesFailingRuns(t *testing.T) {
	out := t.TempDir()
	cfg := Config{Run: livetest.Config(t, livetest.MustSetup(t, livetest.Toy(), "toy", "none"+setup.UncheckedSuffix), history.FaultClientPause), Runs: 2, Out: out}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := Run(ctx, cfg)
	require.NoError(t, err)
	assert.False(t, s.Failed(), "row none: every violation is expected")
	require.Len(t, s.Saved, 2)
	for _, dir := range s.Saved {
		for _, f := range []string{report.HistoryFile, report.FaultsFile, report.VerdictsFile, report.ScheduleFile, check.PorcupineFile, check.RegisterFile, "trace.html", "trace.txt"} {
			st, err := os.Stat(filepath.Join(dir, f))
			if assert.NoError(t, err, f) {
				assert.Positive(t, st.Size(), f)
			}
		}
	}
	st, err := os.Stat(s.Saved[0])
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), st.Mode().Perm())
	vs, err := os.ReadFile(filepath.Join(s.Saved[0], report.VerdictsFile))
	require.NoError(t, err)
	assert.Contains(t, string(vs), `"property": "NoLostUpdate",
      "expected": "violated",
      "status": "violated"`)
	sum, err := os.ReadFile(filepath.Join(out, "toy", "none+unchecked", string(history.FaultClientPause), SummaryFile))
	require.NoError(t, err)
	assert.Contains(t, string(sum), `"live": "violated (2 of 2)"`)
	hold := s.Tallies[0]
	assert.Equal(t, impl.AtMostOneClientHoldLock, hold.Property)
	assert.Equal(t, "violated (2 of 2)", hold.String())
	assert.Equal(t, s.Saved[0], hold.FirstViolation)
	// Every run's story told to the simulator, which violates what the
	// live runs did: the model's word for this story, no disagreement.
	assert.Equal(t, 2, s.Model.runs())
	for _, tl := range s.Tallies {
		if tl.Property == impl.AtMostOneClientHoldLock || tl.Property == impl.NoLostUpdate {
			assert.Equal(t, ModelWord{Decides: true, Runs: 2, Violated: 2}, tl.Model, tl.Property)
			assert.Equal(t, "violated on this story (sim, 2 of 2 runs)", tl.ModelString())
		}
		assert.False(t, tl.Disagrees(), tl.Property)
	}
	assert.Contains(t, string(sum), `"model": "violated on this story (sim, 2 of 2 runs)"`)
	// A campaign saves again into the same folders, replacing them whole.
	_, err = Run(ctx, cfg)
	require.NoError(t, err)
}

// TestRandomCampaign: a seeded random nemesis over a few runs ends with no
// harness error, and each run's fault log follows its schedule.
func TestRandomCampaign(t *testing.T) {
	cfg := Config{Run: livetest.Config(t, livetest.MustSetup(t, livetest.Toy(), "toy", "all"), history.FaultClientPause), Runs: 3}
	cfg.Run.Nemesis = nemesis.Random
	var progress strings.Builder
	cfg.Progress = &progress
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := Run(ctx, cfg)
	require.NoError(t, err)
	assert.Equal(t, 3, s.Runs)
	assert.False(t, s.Failed(), "row all under client pauses: nothing the models say holds is violated")
	assert.Equal(t, 3, strings.Count(progress.String(), "\n"), "a progress line per run")
	assert.Positive(t, s.Committed)
	livetest.NothingLeft(t, cfg.Run.TempRoot)
}

// TestCampaignFailsOnAnUnexpectedViolation: a store that claims row all
// but ignores the tokens (broken-all) loses an update under a client
// pause; the models say row all never does, so the campaign fails — the
// check that makes fencelab-live exit 1 can fail.
func TestCampaignFailsOnAnUnexpectedViolation(t *testing.T) {
	s := livetest.MustSetup(t, livetest.Toy(), "toy", "broken-all"+setup.UncheckedSuffix)
	cfg := Config{Run: livetest.Config(t, s, history.FaultClientPause), Runs: 1, Out: t.TempDir()}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sum, err := Run(ctx, cfg)
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

func TestKeep(t *testing.T) {
	tests := []struct {
		value         string
		keep          Keep
		failing, pass bool // whether a failing and a passing run are saved
	}{
		{"failing", KeepFailing, true, false},
		{"all", KeepAll, true, true},
		{"none", KeepNone, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.value, func(t *testing.T) {
			var k Keep
			require.NoError(t, k.Set(tc.value))
			assert.Equal(t, tc.keep, k)
			assert.Equal(t, tc.value, k.String())
			assert.Equal(t, tc.failing, k.saves(true))
			assert.Equal(t, tc.pass, k.saves(false))
		})
	}
	var zero Keep
	assert.Equal(t, KeepFailing, zero, "the default keeps the failing runs, as before --keep")
	for _, bad := range []string{"", "All", "some", "failing\n"} {
		assert.Error(t, zero.Set(bad), "%q", bad)
	}
	assert.Equal(t, "Keep(7)", Keep(7).String())
}

// TestCampaignKeep: --keep all saves every run, each of which check
// judges again the same from its files; --keep none saves no run, the
// summary only.
func TestCampaignKeep(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	s := livetest.MustSetup(t, livetest.Toy(), "toy", "all")
	out := t.TempDir()
	cfg := Config{Run: livetest.Config(t, s, history.FaultClientPause), Runs: 2, Out: out, Keep: KeepAll}
	sum, err := Run(ctx, cfg)
	require.NoError(t, err)
	require.Len(t, sum.Saved, 2)
	for _, dir := range sum.Saved {
		a, err := report.Recheck(dir, nil)
		require.NoError(t, err)
		assert.True(t, a.Same(), "%s: %v", dir, a.Differences)
		assert.Empty(t, a.Rebuilt, "judged.json saved")
	}

	out = t.TempDir()
	cfg.Out, cfg.Keep = out, KeepNone
	sum, err = Run(ctx, cfg)
	require.NoError(t, err)
	assert.Empty(t, sum.Saved)
	caseDir := filepath.Join(out, "toy", "all", string(history.FaultClientPause))
	entries, err := os.ReadDir(caseDir)
	require.NoError(t, err)
	require.Len(t, entries, 2, "the summary and, under a client pause, the liveness figures alone")
	assert.Equal(t, bounds.LiveFile, entries[0].Name())
	assert.Equal(t, SummaryFile, entries[1].Name())
	assert.Equal(t, 2, sum.Model.runs(), "the unsaved runs' stories kept in the summary")
}

// TestCampaignCatchesABrokenJudge: a judge with a planted bug — it drops
// NoLostUpdate's violations, so NoLostUpdate "holds" beside
// SectionsLinearizable violated — does not make a plausible table: the
// first run is a harness error (fencelab-live exits 2) naming both
// verdicts and the run, saved with its verdicts and error.txt. (The
// unchecked client: the checked one gives up on resuming, and no update
// is lost for the bug to hide.)
func TestCampaignCatchesABrokenJudge(t *testing.T) {
	out := t.TempDir()
	cfg := Config{Run: livetest.Config(t, livetest.MustSetup(t, livetest.Toy(), "toy", "none"+setup.UncheckedSuffix), history.FaultClientPause), Runs: 2, Out: out}
	cfg.Run.Judge = func(h *history.History, d impl.Design, ttl time.Duration, res *impl.Resource, timeout time.Duration) (*check.Judgement, error) {
		j, err := check.Judge(h, d, ttl, res, timeout)
		if v := j.Verdicts.Get(impl.NoLostUpdate); v.Status == verdict.Violated {
			v.Status, v.Detail = verdict.Holds, ""
			j.Verdicts.Put(v)
		}
		return j, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := Run(ctx, cfg)
	var c *check.Contradiction
	require.True(t, errors.As(err, &c), "a planted judge bug must be a harness error, got %v", err)
	assert.Equal(t, impl.NoLostUpdate, c.Holds.Property)
	assert.Equal(t, linearizability.SectionsLinearizable, c.Violated.Property)
	assert.Contains(t, err.Error(), "run 1 (seed ")
	assert.Equal(t, 0, s.Runs, "a contradicting run is not tallied")
	dir := report.RunDir(out, cfg.Run.Setup, cfg.Run.Fault, cfg.Run.Seed)
	assert.Contains(t, err.Error(), dir)
	e, err := os.ReadFile(filepath.Join(dir, report.ErrorFile))
	require.NoError(t, err)
	assert.Contains(t, string(e), "the judge contradicts itself")
	vs, err := os.ReadFile(filepath.Join(dir, report.VerdictsFile))
	require.NoError(t, err)
	assert.Contains(t, string(vs), `"property": "SectionsLinearizable",
      "expected": "violated",
      "status": "violated"`)
	livetest.NothingLeft(t, cfg.Run.TempRoot)
}

// TestVerdictLine: the closing line counts the properties violated as the
// models say, the unexpected ones and the expected violations no run
// showed, with the runs the fault took effect in; a harness error has no
// verdict.
func TestVerdictLine(t *testing.T) {
	s := livetest.MustSetup(t, livetest.Toy(), "toy", "all")
	sum := &Summary{Setup: s, Fault: history.FaultClientPause, Nemesis: nemesis.Scripted, Runs: 3, TookEffect: 2}
	tally := func(want verdict.Status, violated int) Tally {
		return Tally{Expected: want, Runs: 3, TookEffect: 2, Violated: violated}
	}
	tests := []struct {
		name    string
		tallies []Tally
		err     error
		want    string
	}{
		{"as the models say", []Tally{tally(verdict.Violated, 2), tally(verdict.Violated, 1), tally(verdict.Holds, 0), tally(verdict.NotApplicable, 0)}, nil,
			"live: toy/all under scripted client-pause, 3 runs: 2 properties violated as the models say, 0 unexpected, 0 expected but not shown; the fault took effect in 2 of 3"},
		{"one unexpected, one not shown", []Tally{tally(verdict.Violated, 0), tally(verdict.Holds, 1), tally(verdict.Violated, 1)}, nil,
			"live: toy/all under scripted client-pause, 3 runs: 1 property violated as the models say, 1 unexpected, 1 expected but not shown; the fault took effect in 2 of 3"},
		{"a harness error", []Tally{tally(verdict.Violated, 2)}, errors.New("boom"),
			"live: toy/all under scripted client-pause: a harness error after 3 runs, no verdict (the error is on stderr)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sum.Tallies = tc.tallies
			line := sum.Verdict(tc.err)
			assert.Equal(t, tc.want, line)
			assert.NotContains(t, line, "\n")
		})
	}
}

// TestCampaignFailsOnADisagreement: a store that refuses more than its
// row says (overfenced-none: row none's claim, tokens checked on every
// operation) keeps the unchecked client's stale write out under a client
// pause, so NoLostUpdate and TokenIsMonotonical hold live in every run
// the fault took effect in, while the simulator, told the same story on
// row none, violates them: two disagreements with the model's story
// (exit 1), beside the register's Porcupine check, the one verdict that
// caught such a store before (the refusal is not what row none's
// register does: unexpected).
func TestCampaignFailsOnADisagreement(t *testing.T) {
	s := livetest.MustSetup(t, livetest.Toy(), "toy", "overfenced-none"+setup.UncheckedSuffix)
	cfg := Config{Run: livetest.Config(t, s, history.FaultClientPause), Runs: 2, Out: t.TempDir()}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sum, err := Run(ctx, cfg)
	require.NoError(t, err)
	require.Equal(t, 2, sum.TookEffect, "the pause took effect in every run")
	var disagree []string
	for _, tl := range sum.Tallies {
		assert.Equal(t, tl.Property == linearizability.RegisterLinearizable, tl.Unexpected(), tl.Property)
		if tl.Disagrees() {
			disagree = append(disagree, tl.Property)
		}
	}
	assert.Equal(t, []string{impl.TokenIsMonotonical, impl.NoLostUpdate}, disagree)
	assert.True(t, sum.Failed())
	var out strings.Builder
	require.NoError(t, sum.Write(&out))
	assert.Equal(t, 2, strings.Count(out.String(), "DISAGREES"), out.String())
	assert.Contains(t, sum.Verdict(nil), ", 2 disagreeing with the model's story;")
}

// TestInconclusive: a campaign says nothing only when no applicable
// property was violated, held where the fault took effect, or shown safe;
// a matrix fails past 5% of such campaigns.
func TestInconclusive(t *testing.T) {
	tally := func(expected verdict.Status, runs, violated, unknown, safe int) Tally {
		return Tally{Property: "P", Expected: expected, Runs: runs, Violated: violated, Unknown: unknown, Safe: safe}
	}
	tests := []struct {
		name    string
		tallies []Tally
		want    bool
	}{
		{"every run unknown", []Tally{tally(verdict.Violated, 3, 0, 3, 0), tally(verdict.Holds, 3, 0, 3, 0)}, true},
		{"a violation", []Tally{tally(verdict.Violated, 3, 1, 2, 0), tally(verdict.Holds, 3, 0, 3, 0)}, false},
		{"held where it took effect", []Tally{tally(verdict.Violated, 3, 0, 2, 0)}, false},
		{"safe by the mechanism", []Tally{tally(verdict.Violated, 3, 0, 3, 2)}, false},
		{"a property that does not apply says nothing", []Tally{tally(verdict.NotApplicable, 3, 0, 0, 0), tally(verdict.Holds, 3, 0, 3, 0)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Summary{Runs: 3, Tallies: tt.tallies}
			assert.Equal(t, tt.want, s.Inconclusive())
		})
	}
	assert.False(t, (&Summary{}).Inconclusive(), "nothing ran is not this")
	for _, c := range []struct {
		inconclusive, ran int
		want              bool
	}{{0, 0, false}, {0, 79, false}, {3, 79, false}, {4, 79, true}, {4, 80, false}, {5, 80, true}, {1, 1, true}, {1, 20, false}, {2, 20, true}} {
		assert.Equal(t, c.want, TooInconclusive(c.inconclusive, c.ran), "%d of %d", c.inconclusive, c.ran)
	}
}
