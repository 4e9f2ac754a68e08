// Package campaign is N live runs of one setup under one fault, judged
// and tallied property by property (Run, Summary): "violated (k of N)",
// "held while the fault took effect in H of N" or "inconclusive (the
// fault took effect in M of N)"; the campaigns of
// a matrix split into shards and merged (RunShard, MergeShards); and the
// live block of a README written from their saved summaries.
package campaign

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/fencelab/fencelab/bounds"
	"github.com/fencelab/fencelab/internal/atomicfile"
	"github.com/fencelab/fencelab/internal/words"
	"github.com/fencelab/fencelab/live/check"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/report"
	"github.com/fencelab/fencelab/live/run"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/fencelab/fencelab/verdict"
)

// Config is N runs of one setup under one fault.
type Config struct {
	Run  run.Config // Seed is the first run's; run i has Seed+i
	Runs int
	// Out is where runs are saved (Out/<service>/<setup>/<fault>/
	// run-<seed>/), those Keep says, beside the campaign's summary; ""
	// saves nothing.
	Out  string
	Keep Keep
	// Progress gets one line per run; nil for none.
	Progress io.Writer
}

// Keep is which runs a campaign saves: the zero value, KeepFailing, is
// the runs that violated a property or ended in a harness error.
type Keep int

// The runs a campaign saves.
const (
	KeepFailing Keep = iota
	KeepAll
	KeepNone
)

var keepNames = [...]string{KeepFailing: "failing", KeepAll: "all", KeepNone: "none"}

func (k Keep) String() string {
	if k < 0 || int(k) >= len(keepNames) {
		return fmt.Sprintf("Keep(%d)", int(k))
	}
	return keepNames[k]
}

// Set reads a --keep value: failing, all or none.
func (k *Keep) Set(s string) error {
	for i, name := range keepNames {
		if name == s {
			*k = Keep(i)
			return nil
		}
	}
	return fmt.Errorf("%.40q (want failing, all or none)", s)
}

// saves reports whether a run is saved: failing tells whether it violated
// a property or ended in a harness error.
func (k Keep) saves(failing bool) bool {
	return k == KeepAll || (k == KeepFailing && failing)
}

// Tally is one property over a campaign's runs.
type Tally struct {
	Property string
	Expected verdict.Status
	// Runs is how many runs were judged; Violated how many violated the
	// property; TookEffect how many the fault took effect in (it did what
	// its story needs: check.Judgement.TookEffect); Unknown how many could not decide (inconclusive runs
	// included).
	Runs, Violated, TookEffect, Unknown int
	// Safe counts the runs, among the Unknown, that showed the service's
	// mechanism at work (check.Judgement.SafeBy) where the setup claims
	// it is safe against the fault; Mechanism is that claim
	// (setup.Setup.Safe), "" where it makes none.
	Safe      int
	Mechanism string
	// FirstViolation is the folder of the first violating run saved.
	FirstViolation string
	// Model is the model's word for the campaign's own story (the
	// simulator on the runs' schedules), beside Expected, the row's.
	Model ModelWord
}

// Unexpected reports whether the runs contradict the models: a violation
// of a property the models say holds.
func (t Tally) Unexpected() bool { return t.Expected == verdict.Holds && t.Violated > 0 }

// Disagrees reports whether the runs contradict the model's story: the
// simulator violated the property on every mapped story of the
// campaign's runs (the live client's own story: no caveat), yet no run
// violated it although the fault took effect in every one.
func (t Tally) Disagrees() bool {
	story, ok := t.Model.Story(t.Expected)
	return ok && story == verdict.Violated && t.Model.Caveat == "" && t.Runs > 0 && t.Violated == 0 && t.TookEffect == t.Runs
}

// ModelString is the model's word in the live column's terms: the
// simulator's on this story ("violated on this story (sim, 3 of 3
// runs)"), marked where the story is the unchecked client's, or, where
// no run's faults map, the row's ("violated (the row's; no model story:
// …)").
func (t Tally) ModelString() string {
	story, ok := t.Model.Story(t.Expected)
	switch {
	case t.Expected == verdict.NotApplicable:
		return "—"
	case !ok && !t.Model.Decides:
		return fmt.Sprintf("%s (the row's)", t.Expected)
	case !ok && t.Model.NoStory != "":
		return fmt.Sprintf("%s (the row's; no model story: %s)", t.Expected, t.Model.NoStory)
	case !ok:
		return fmt.Sprintf("%s (the row's; no model story kept)", t.Expected)
	}
	what, whose := "this story", "sim"
	if t.Model.Caveat != "" {
		// The full reason is report.StoryCaveat's, in the docs.
		what, whose = "the unchecked client's story", "sim*"
	}
	if story == verdict.Unknown {
		return fmt.Sprintf("violated on %d of %d runs' stories (%s)", t.Model.Violated, t.Model.Runs, whose)
	}
	return fmt.Sprintf("%s on %s (%s, %d of %d runs)", story, what, whose, t.Model.Runs, t.Runs)
}

// Status is the tally as one verdict: Violated if any run violated it,
// NotApplicable where the row says so, Unknown otherwise — a live campaign
// samples, and "held while the fault took effect" is never "holds".
func (t Tally) Status() verdict.Status {
	switch {
	case t.Expected == verdict.NotApplicable:
		return verdict.NotApplicable
	case t.Violated > 0:
		return verdict.Violated
	}
	return verdict.Unknown
}

// Held is how many runs decided the property holds: the runs neither
// violated nor undecided. The judge decides Holds only where the fault
// took effect (else the run is inconclusive), so Held ≤ TookEffect.
func (t Tally) Held() int { return t.Runs - t.Violated - t.Unknown }

// String is the live column's cell, in words that keep apart a property
// that held while the fault took effect from a campaign that could not
// tell: "violated (k of N)"; "held while the fault took effect in H of N"
// (H runs decided it holds, none violated it: a sample, never a proof);
// "safe: <mechanism> (S of N)" (the fault did not take effect, and S runs
// showed the mechanism the setup claims keeps the service safe against
// it: still a sample, the status Unknown); "inconclusive (the fault took
// effect in M of N)" (no run decided it).
func (t Tally) String() string {
	switch {
	case t.Expected == verdict.NotApplicable:
		return "— (not applicable)"
	case t.Violated > 0:
		return fmt.Sprintf("violated (%d of %d)", t.Violated, t.Runs)
	case t.Held() > 0:
		return fmt.Sprintf("held while the fault took effect in %d of %d", t.Held(), t.Runs)
	case t.Mechanism != "" && t.Safe > 0:
		return fmt.Sprintf("safe: %s (%d of %d)", t.Mechanism, t.Safe, t.Runs)
	}
	return fmt.Sprintf("inconclusive (the fault took effect in %d of %d)", t.TookEffect, t.Runs)
}

// Summary is a campaign's outcome.
type Summary struct {
	Setup    setup.Setup
	Fault    history.Fault
	Nemesis  string
	Runs     int
	Tallies  []Tally
	Versions string // servers
	Library  string
	// TookEffect counts the runs the fault took effect in; Committed the
	// sections committed and Refused the operations the resource refused,
	// over every run (the witnesses of a "held while the fault took
	// effect").
	TookEffect, Committed, Refused int
	// Errors counts the calls of clients that returned an error (a
	// service down or unreachable during a fault).
	Errors int
	// StartUp is the mean start-up time of the service; Elapsed the
	// campaign's wall time.
	StartUp, Elapsed time.Duration
	Saved            []string
	// Model is the simulator's telling of the runs: the model's word for
	// this very story (each tally's Model).
	Model Model
	// Liveness is each run's liveness figures, under a holder's death or
	// a client pause (measure; liveness.json).
	Liveness []bounds.LiveRun
}

// Failed reports whether any property was violated where the models say
// it holds.
func (s *Summary) Failed() bool {
	for _, t := range s.Tallies {
		if t.Unexpected() || t.Disagrees() {
			return true
		}
	}
	return false
}

// Inconclusive reports whether the campaign says nothing: it ran, and no
// applicable property was violated in a run, decided to hold where the
// fault took effect, or shown safe by the setup's mechanism at work.
func (s *Summary) Inconclusive() bool {
	for _, t := range s.Tallies {
		if t.Expected == verdict.NotApplicable {
			continue
		}
		if t.Violated > 0 || t.Held() > 0 || t.Safe > 0 {
			return false
		}
	}
	return s.Runs > 0
}

// MaxInconclusivePercent is the share of a matrix's campaigns that may end
// inconclusive: past it the stories do not bite (a fault that never takes
// effect, a judge that never sees it), and the matrix fails.
const MaxInconclusivePercent = 5

// TooInconclusive reports whether inconclusive of ran campaigns is more
// than MaxInconclusivePercent.
func TooInconclusive(inconclusive, ran int) bool {
	return ran > 0 && inconclusive*100 > ran*MaxInconclusivePercent
}

// RunsPerSecond is the campaign's rate.
func (s *Summary) RunsPerSecond() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Runs) / s.Elapsed.Seconds()
}

// Write prints the summary: a header naming the setup, its row, the
// versions and the rate, then one line per property.
func (s *Summary) Write(w io.Writer) error {
	fmt.Fprintf(w, "%s (row %s) under %s %s: %d runs in %.1f s (%.2f runs/s), start-up %v\n",
		s.Setup.ID(), s.Setup.Design, s.Nemesis, s.Fault, s.Runs, s.Elapsed.Seconds(), s.RunsPerSecond(), s.StartUp.Round(time.Millisecond))
	fmt.Fprintf(w, "  %s; %s\n", s.Versions, s.Library)
	fmt.Fprintf(w, "  the fault took effect in %d of %d runs; %d sections committed, %d operations refused, %d calls failed\n", s.TookEffect, s.Runs, s.Committed, s.Refused, s.Errors)
	for _, t := range s.Tallies {
		mark := ""
		if t.Unexpected() {
			mark = "  UNEXPECTED: the models say it holds"
		}
		if t.Disagrees() {
			mark += "  DISAGREES: the model violates it on this very story, the fault took effect in every run"
		}
		link := ""
		if t.FirstViolation != "" {
			link = " → " + t.FirstViolation
		}
		if _, err := fmt.Fprintf(w, "  %-24s expected %-9s live %s%s%s\n", t.Property, t.Expected, t, link, mark); err != nil {
			return err
		}
		if t.Model.Decides && t.Expected != verdict.NotApplicable {
			// The model's word for this story, where it can differ from
			// the row's.
			if _, err := fmt.Fprintf(w, "  %-24s model %s\n", "", t.ModelString()); err != nil {
				return err
			}
		}
	}
	return s.writeLiveness(w)
}

// Verdict is the campaign's closing line, the last of fencelab-live run's
// stdout as fencelab sim's is: the properties violated as the models say,
// those violated where they say it holds, those the models expect
// violated that no run showed, and the runs the fault took effect in; or,
// after a harness error, that there is no verdict.
func (s *Summary) Verdict(harnessErr error) string {
	head := fmt.Sprintf("live: %s under %s %s", s.Setup.ID(), s.Nemesis, s.Fault)
	if harnessErr != nil {
		return fmt.Sprintf("%s: a harness error after %s, no verdict (the error is on stderr)", head, words.Count(s.Runs, "run"))
	}
	var expected, unexpected, notShown, disagree int
	for _, t := range s.Tallies {
		if t.Disagrees() {
			disagree++
		}
		switch {
		case t.Unexpected():
			unexpected++
		case t.Expected == verdict.Violated && t.Violated > 0:
			expected++
		case t.Expected == verdict.Violated:
			notShown++
		}
	}
	disagreeing := ""
	if disagree > 0 {
		disagreeing = fmt.Sprintf(", %d disagreeing with the model's story", disagree)
	}
	return fmt.Sprintf("%s, %s: %s violated as the models say, %d unexpected, %d expected but not shown%s; the fault took effect in %d of %d",
		head, words.Count(s.Runs, "run"), words.Count(expected, "property"), unexpected, notShown, disagreeing, s.TookEffect, s.Runs)
}

// Run runs cfg.Runs runs one after another, judging and tallying
// each, and saves the runs cfg.Keep says (by default every run that
// violated a property). It stops at the
// first harness error (a service that would not start is a *StartError)
// or when ctx ends; the summary so far comes with the error.
func Run(ctx context.Context, cfg Config) (*Summary, error) {
	if cfg.Runs < 1 || cfg.Runs > 100000 {
		return nil, fmt.Errorf("runs %d (want 1 to 100000)", cfg.Runs)
	}
	if err := cfg.Run.Validate(); err != nil {
		return nil, err
	}
	s := &Summary{Setup: cfg.Run.Setup, Fault: cfg.Run.Fault, Nemesis: cfg.Run.Nemesis}
	for _, p := range check.Properties() {
		s.Tallies = append(s.Tallies, Tally{Property: p, Expected: check.ExpectedOf(cfg.Run.Setup.Design, cfg.Run.Setup.Unchecked, p),
			Mechanism: cfg.Run.Setup.Safe[cfg.Run.Fault]})
	}
	begin := time.Now()
	defer func() { s.Elapsed = time.Since(begin) }()
	var startUp time.Duration
	for i := range cfg.Runs {
		rc := cfg.Run
		rc.Seed = cfg.Run.Seed + uint64(i)
		res, err := run.Run(ctx, rc)
		if res != nil && res.History != nil && err != nil && cfg.Out != "" && cfg.Keep.saves(true) && ctx.Err() == nil {
			// A harness error's run is saved too: what happened is the
			// first thing to look at.
			if dir, serr := report.SaveRun(cfg.Out, rc, res, err); serr == nil {
				err = fmt.Errorf("%w (saved in %s)", err, dir)
			}
		}
		if err != nil {
			s.Elapsed = time.Since(begin)
			return s, fmt.Errorf("run %d (seed %d): %w", i+1, rc.Seed, err)
		}
		s.Runs++
		startUp += res.StartUp
		s.StartUp = startUp / time.Duration(s.Runs)
		s.Versions, s.Library = res.Versions, res.Library
		j := res.Judgement
		s.Model.tell(report.TellSim(rc, res))
		s.measure(rc, res)
		s.modelWords()
		if j.TookEffect {
			s.TookEffect++
		}
		s.Committed += j.Committed
		s.Refused += j.Refused
		s.Errors += j.Errors
		dir := ""
		if cfg.Out != "" && cfg.Keep.saves(j.Violated()) {
			if dir, err = report.SaveRun(cfg.Out, rc, res, nil); err != nil {
				return s, err
			}
			s.Saved = append(s.Saved, dir)
		}
		for k := range s.Tallies {
			t := &s.Tallies[k]
			v := j.Verdicts.Get(t.Property)
			t.Runs++
			if j.TookEffect {
				t.TookEffect++
			}
			switch v.Status {
			case verdict.Violated:
				t.Violated++
				if t.FirstViolation == "" {
					t.FirstViolation = dir
				}
			case verdict.Unknown, verdict.NotChecked:
				t.Unknown++
				if t.Mechanism != "" && j.SafeBy(v) {
					t.Safe++
				}
			}
		}
		s.Elapsed = time.Since(begin)
		if cfg.Out != "" {
			if err := s.save(cfg.Out); err != nil {
				return s, err
			}
		}
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "%s %s %s: run %d/%d seed %d: %s (%.1f s)\n",
				s.Setup.ID(), s.Nemesis, s.Fault, i+1, cfg.Runs, rc.Seed, runLine(j), res.Duration.Seconds())
		}
	}
	return s, nil
}

// runLine sums a run up in a few words for the progress line.
func runLine(j *check.Judgement) string {
	what := "the fault did not take effect (inconclusive)"
	if j.TookEffect {
		what = "the fault took effect"
	}
	var violated []string
	for _, v := range j.Verdicts {
		if v.Status == verdict.Violated {
			violated = append(violated, v.Property)
		}
	}
	if len(violated) > 0 {
		what += fmt.Sprintf(", violated %v", violated)
	}
	return fmt.Sprintf("%s; %d committed, %d refused", what, j.Committed, j.Refused)
}

// SummaryFile is a campaign's summary, beside its runs' folders.
const SummaryFile = "summary.json"

// SavedSummary is summary.json: what the README's live block is made
// from (ReadSummaries).
type SavedSummary struct {
	Setup      string        `json:"setup"`
	Row        string        `json:"row"`
	Fault      history.Fault `json:"fault"`
	Nemesis    string        `json:"nemesis"`
	Runs       int           `json:"runs"`
	TookEffect int           `json:"took_effect"`
	Committed  int           `json:"committed"`
	Refused    int           `json:"refused"`
	Errors     int           `json:"errors"`
	Versions   string        `json:"versions"`
	Library    string        `json:"library"`
	StartUpMS  float64       `json:"startup_ms"`
	RunsPerSec float64       `json:"runs_per_second"`
	Tallies    []SavedTally  `json:"properties"`
	// Model is the simulator's telling of the runs (absent from a summary
	// written before it was kept: the row's word then).
	Model *Model `json:"model,omitempty"`
}

// SavedTally is one property of summary.json.
type SavedTally struct {
	Property       string `json:"property"`
	Expected       string `json:"expected"`
	Live           string `json:"live"`
	Runs           int    `json:"runs"`
	Violated       int    `json:"violated"`
	TookEffect     int    `json:"took_effect"`
	Unknown        int    `json:"unknown"`
	Safe           int    `json:"safe,omitempty"`
	FirstViolation string `json:"first_violation,omitempty"`
	Unexpected     bool   `json:"unexpected"`
	// Model is Tally.ModelString and Disagrees Tally.Disagrees, for a
	// reader of the file: fencelab-live readme recomputes both.
	Model     string `json:"model,omitempty"`
	Disagrees bool   `json:"disagrees,omitempty"`
}

// save writes the summary so far as Out/<service>/<setup>/<fault>/
// summary.json (atomically): what a table of the live column reads.
func (s *Summary) save(out string) error {
	doc := SavedSummary{
		Setup: s.Setup.ID(), Row: s.Setup.Design.String(), Fault: s.Fault, Nemesis: s.Nemesis, Runs: s.Runs,
		TookEffect: s.TookEffect, Committed: s.Committed, Refused: s.Refused, Errors: s.Errors,
		Versions: s.Versions, Library: s.Library, StartUpMS: float64(s.StartUp.Microseconds()) / 1000, RunsPerSec: s.RunsPerSecond(),
		Model: &s.Model,
	}
	for _, t := range s.Tallies {
		doc.Tallies = append(doc.Tallies, SavedTally{
			Property: t.Property, Expected: t.Expected.String(), Live: t.String(), Runs: t.Runs, Violated: t.Violated,
			TookEffect: t.TookEffect, Unknown: t.Unknown, Safe: t.Safe, FirstViolation: t.FirstViolation, Unexpected: t.Unexpected(),
			Model: t.ModelString(), Disagrees: t.Disagrees(),
		})
	}
	dir := filepath.Join(out, s.Setup.Service, s.Setup.Name, string(s.Fault))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("output folder: %w", err)
	}
	if err := s.saveLiveness(dir); err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, SummaryFile), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	})
}
