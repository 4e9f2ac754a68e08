package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/fencelab/fencelab/conform"
	"github.com/fencelab/fencelab/distlockspec"
	"github.com/fencelab/fencelab/explore"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/atomicfile"
	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/internal/words"
	"github.com/fencelab/fencelab/tlc"
	"github.com/fencelab/fencelab/trace"
	"github.com/fencelab/fencelab/verdict"
)

// conformSource is one part of the conformance check: the groups of
// traces it validates, each made by a function of its own (walks
// recorded, an explorer search, simulator runs), so that making one group
// overlaps TLC's check of another (checkGroups).
type conformSource struct {
	name   string
	groups []func() (conform.Group, error)
}

// groupNotMade is the error of a group whose traces could not be made: a
// finding about the source, no TLC run.
type groupNotMade struct{ err error }

func (e *groupNotMade) Error() string { return e.err.Error() }

// ConformPlan is what fencelab conform checks: the Go runs to validate
// with TLC (seeded walks, the explorer's counterexamples, simulator runs),
// how many rejections to render, and the replay of TLC's counterexamples
// in Go (from a run of its own, or from ReplayFrom, a fencelab tlc --out
// folder).
type ConformPlan struct {
	Walks, MaxSteps     int
	SimRuns, SimFailing int
	Explore             bool
	Show                int
	Out, Specs, Pin     string
	Timeout             time.Duration
	Replay              bool
	ReplayFrom          string
	// Fixtures is the folder of the committed TLC outputs of the replay
	// (conform/testdata/replay): a model whose spec and cfg are those its
	// output was made from is replayed from it, as CI does, and TLC runs
	// for the others ("": TLC runs for every model; so does NoCache).
	Fixtures string
	// Shard, when set, validates only its part of the walks (the other
	// sources off) and saves the tallies for MergeConform.
	Shard   *ShardRun
	NoCache bool // run every TLC check, reading no cached result
}

// Conform validates Go runs against the specs with TLC and prints, per
// source and design, the traces accepted and rejected, their steps and
// TLC's time; then it replays TLC's counterexamples in Go. Any rejection
// or departure fails (exit 1) and a rejection is rendered like a
// counterexample; without TLC nothing runs and it says so (exit 2), never
// "passed".
func Conform(e *Env, p ConformPlan) error {
	for _, d := range []impl.Design{impl.DesignNoFencing, impl.DesignFenceAll} {
		for _, name := range []string{distlockspec.Spec(d), distlockspec.TraceSpec(d)} {
			if fi, err := os.Stat(filepath.Join(p.Specs, name+".tla")); err != nil || !fi.Mode().IsRegular() {
				return BadInput("--specs %s has no %s.tla", quote.S(p.Specs), name)
			}
		}
	}
	// --replay-from's outputs are read and checked before anything runs
	// or prints: a bad one is bad input, one line, whatever else is given.
	var replayFrom map[string]replayInput
	if p.ReplayFrom != "" {
		if !p.Replay {
			return BadInput("--replay-from needs --replay")
		}
		var err error
		if replayFrom, err = loadReplayFrom(p.Specs, p.ReplayFrom); err != nil {
			return err
		}
	}
	if p.Replay && p.ReplayFrom == "" && !p.NoCache {
		if err := checkFixtures(p.Fixtures); err != nil {
			return err
		}
	}
	if p.Shard != nil {
		return conformShard(e, p)
	}
	if p.Walks == 0 && p.SimRuns == 0 && p.SimFailing == 0 && !p.Explore && !p.Replay {
		return NothingChecked("--walks 0, --sim-runs 0, --sim-failing 0, --explore=false and --replay=false leave conform no trace and no counterexample")
	}
	if err := CheckOutDir("out", p.Out); err != nil {
		return err
	}
	removeIfEmpty, err := MakeOutDir(e, p.Out)
	if err != nil {
		return err
	}
	defer removeIfEmpty()
	ctx, stop := Interruptible()
	defer stop()
	jar, java, err := ResolveTLC(ctx, p.Pin)
	if err != nil {
		return BadInput("conformance: not run (no tla2tools.jar: %v)", err)
	}
	fmt.Fprintf(e.Stderr, "fencelab conform: %s (from %s)\n", jar.Path, jar.Source)
	heap, err := tlc.HeapLimit(os.Getenv, "/proc/meminfo")
	if err != nil {
		return BadInput("%v", err)
	}
	cache := TLCCache(e, p.NoCache)
	fmt.Fprintf(e.Stderr, "fencelab conform: TLC's %s\n", cacheNote(cache))
	checker := &conform.Checker{TLC: &tlc.Runner{Java: java, Jar: jar.Path, Timeout: p.Timeout, Classes: tlc.DefaultClassArchive(),
		Cache: cache, HeapLimit: heap}, SpecsDir: p.Specs, HeapLimit: heap}

	var sources []conformSource
	if p.Walks > 0 {
		src := conformSource{name: "walk"}
		for _, c := range conform.UntimedConfigs() {
			src.groups = append(src.groups, func() (conform.Group, error) { return conform.Walks(c, p.Walks, p.MaxSteps) })
		}
		sources = append(sources, src)
	}
	if p.Explore {
		src := conformSource{name: "explore"}
		for _, d := range distlockspec.Designs() {
			for _, n := range []int{2, 3} {
				if n > explore.RoutineClients(d) {
					continue
				}
				src.groups = append(src.groups, func() (conform.Group, error) {
					progress, progressDone := NewSearchProgress(e, fmt.Sprintf("conform explore %s, %d clients", d, n))
					defer progressDone()
					return conform.Counterexamples(ctx, d, n, progress)
				})
			}
		}
		sources = append(sources, src)
	}
	if p.SimRuns > 0 || p.SimFailing > 0 {
		src := conformSource{name: "sim"}
		for _, d := range distlockspec.Designs() {
			src.groups = append(src.groups, func() (conform.Group, error) {
				return conform.SimRuns(conform.SimConfig(d), p.SimRuns, p.SimFailing)
			})
		}
		sources = append(sources, src)
	}
	// bounded are the explorer's searches that stopped at their bound.
	var bounded []string

	tw := newConformTable(e.Stdout)
	var total, rejected, steps, failing int
	var tlcTime time.Duration
	var rendered []string
	// Each group is a TLC run of seconds, the whole minutes; the table
	// comes at the end (tabwriter), so progress says where it is.
	step, stepsDone := NewStepProgress(e, 0, "conform", "group")
	defer stepsDone()
	// findings are what went wrong with the system checked, each one line:
	// a source that could not make its traces, a group TLC could not
	// judge, a rejection that could not be rendered. None stops the run:
	// the tables and the summary come first, then the exit 1.
	var findings []string
	for _, src := range sources {
		groups, runs, errs := checkGroups(ctx, checker, src.name, src.groups, step)
		if ctx.Err() != nil {
			return StoppedWith(ctx, "conform stopped")
		}
		for i, g := range groups {
			run, err := runs[i], errs[i]
			var notMade *groupNotMade
			if errors.As(err, &notMade) {
				findings = append(findings, fmt.Sprintf("%s: no traces: %v", src.name, notMade.err))
				continue
			}
			if g.Bounded {
				bounded = append(bounded, fmt.Sprintf("%s × %s (%s states, %s)", g.Config.Design, words.Count(g.Config.Clients, "client"),
					verdict.Thousands(conform.CounterexampleBound(g.Config.Clients)), words.Count(len(g.Traces), "counterexample")))
			}
			if err != nil {
				if isToolOrStop(err) {
					return err
				}
				// The traces are not judged, never accepted: a finding.
				findings = append(findings, fmt.Sprintf("%s, %s, %s × %s: %s not judged: %v", src.name, g.Config.Design,
					words.Count(g.Config.Clients, "client"), words.Count(g.Config.Sections, "section"), words.Count(len(g.Traces), "trace"), OneLine(err.Error())))
				continue
			}
			t, bad := tallyRun(src.name, g.Config, run)
			total += t.Traces
			rejected += t.Rejected
			steps += t.Steps
			failing += t.Failing
			tlcTime += t.Wall
			t.writeRow(tw)
			for k, v := range bad {
				if k >= p.Show {
					break
				}
				dir, err := renderRejection(ctx, e.Disk, checker, p.Out, src.name, g, k, v)
				var ee *ExitError
				if errors.As(err, &ee) && ee.Code == ExitFailure {
					findings = append(findings, fmt.Sprintf("%s not rendered: %v", v.Trace.Name, OneLine(ee.Err.Error())))
					continue
				}
				if err != nil {
					return err
				}
				rendered = append(rendered, dir)
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(bounded) > 0 {
		fmt.Fprintf(e.Stdout, "\nthe explorer's searches of %s stopped at their bounds: the counterexamples found within them validated (shortest ones: the search is breadth-first), none deeper\n",
			strings.Join(bounded, "; "))
	}
	// The validation's failure waits for the replay: both parts finish
	// and print their summaries, then the run fails with both.
	validation := conformTotals(e, total, steps, failing, rejected, tlcTime, rendered, findings)
	if !p.Replay {
		switch {
		case validation != "":
			return Failed("%s", validation)
		case total == 0:
			return NothingChecked("no trace was made to validate")
		}
		fmt.Fprintf(e.Stdout, "conformance: all %s accepted by the specs\n", words.Count(total, "trace"))
		return nil
	}
	fmt.Fprintln(e.Stdout)
	stepsDone()
	fixtures := p.Fixtures
	if p.NoCache {
		fixtures = ""
	}
	rs, err := replayCounterexamples(ctx, e, checker.TLC, p.Specs, replayFrom, fixtures, p.Out)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.Stdout, "\n%d TLC counterexamples replayed in Go, %d of systems Go does not run; TLC %s\n", rs.replayed, rs.notGo, rs.tlcTime.Round(10*time.Millisecond))
	if rs.committed > 0 {
		fmt.Fprintf(e.Stdout, "%d of them TLC's committed outputs in %s (marked %s), made from the specs and cfgs as they are (their SHA-256 in %s); --no-cache runs TLC for them\n",
			rs.committed, quote.S(fixtures), strings.TrimSpace(committedMark), conform.FixtureSums)
	}
	for _, d := range rs.rendered {
		fmt.Fprintf(e.Stdout, "departure rendered in %s\n", d)
	}
	switch {
	case validation != "" && rs.failed > 0:
		return Failed("%s; %d TLC counterexamples depart from the Go system", validation, rs.failed)
	case validation != "":
		return Failed("%s", validation)
	case rs.failed > 0:
		return Failed("%d TLC counterexamples depart from the Go system", rs.failed)
	case total == 0 && rs.replayed == 0:
		return NothingChecked("no trace validated and no counterexample replayed (every model's system is one Go does not run)")
	}
	fmt.Fprintf(e.Stdout, "conformance: all %s accepted by the specs; all %s replayed in Go\n", words.Count(total, "trace"), words.Count(rs.replayed, "counterexample"))
	return nil
}

// checkGroups makes each group (a *groupNotMade error when it cannot)
// and validates it with checkGroup, modelsAtOnce groups at a time (each
// TLC process with its own folder, as make tlc's models; one group's
// walks or search made while another's TLC runs), and returns the groups,
// their runs and their errors in makers' order, whatever order they
// finish in, after every one has ended. step hears of each group checked.
func checkGroups(ctx context.Context, checker *conform.Checker, source string, makers []func() (conform.Group, error), step func(string)) ([]conform.Group, []*conform.Run, []error) {
	gs, runs, errs := make([]conform.Group, len(makers)), make([]*conform.Run, len(makers)), make([]error, len(makers))
	slots := make(chan struct{}, modelsAtOnce())
	var wg sync.WaitGroup
	for i, makeGroup := range makers {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		// select picks at random among the cases ready: a stop is
		// looked at after a slot was taken too.
		if ctx.Err() != nil {
			wg.Wait()
			for j := i; j < len(makers); j++ {
				errs[j] = Stopped(ctx)
			}
			return gs, runs, errs
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			g, err := makeGroup()
			if err != nil {
				errs[i] = &groupNotMade{err}
				return
			}
			gs[i] = g
			runs[i], errs[i] = checkGroup(ctx, checker, source, g)
			if errs[i] == nil {
				step(fmt.Sprintf("%s %s, %s × %s%s", source, g.Config.Design, words.Count(g.Config.Clients, "client"), words.Count(g.Config.Sections, "section"), cachedMark(runs[i].Cached)))
			}
		}()
	}
	wg.Wait()
	return gs, runs, errs
}

// checkGroup validates g's traces in one TLC run: TLC's own failure is
// bad input (not TLC, a model too big), a run that did not complete a
// failed check (its message the caller's to place: Conform makes it a
// finding about the group).
func checkGroup(ctx context.Context, checker *conform.Checker, source string, g conform.Group) (*conform.Run, error) {
	run, err := checker.Check(ctx, g.Config, g.Traces)
	if ctx.Err() != nil {
		return nil, Stopped(ctx)
	}
	if errors.Is(err, tlc.ErrNotTLC) || errors.Is(err, tlc.ErrTooBig) {
		return nil, BadInput("%s, %s: %v", source, g.Config.Design, err)
	}
	if err != nil {
		return nil, Failed("%v", err)
	}
	return run, nil
}

// conformTally is what one group's TLC run found: the row of conform's
// table, and the walk seeds of its rejected traces (a shard's result).
type conformTally struct {
	Source    string        `json:"source"`
	Design    string        `json:"design"`
	Clients   int           `json:"clients"`
	Sections  int           `json:"sections"`
	Validity  string        `json:"validity"`
	Traces    int           `json:"traces"`
	Accepted  int           `json:"accepted"`
	Rejected  int           `json:"rejected"`
	Steps     int           `json:"steps"`
	LeaseLost int           `json:"lease_lost"`
	Expired   int           `json:"expired"`
	Failing   int           `json:"failing"`
	Wall      time.Duration `json:"tlc_ns"`
	// RejectedSeeds are the walk seeds of the rejected traces, in order.
	RejectedSeeds []int `json:"rejected_seeds"`
	// Cached says TLC's verdicts were read from the cache (shown in the
	// table, not a result: a merged shard's row is not marked).
	Cached bool `json:"-"`
}

// tallyRun counts run's verdicts on the traces of group config c, and
// returns the rejected ones.
func tallyRun(source string, c impl.Config, run *conform.Run) (conformTally, []conform.Verdict) {
	t := conformTally{Source: source, Design: c.Design.String(), Clients: c.Clients, Sections: c.Sections, Validity: c.Validity.String(),
		Traces: run.Traces, Steps: run.Steps, Wall: run.Wall, RejectedSeeds: []int{}, Cached: run.Cached}
	var bad []conform.Verdict
	for _, v := range run.Verdict {
		if v.Accepted {
			t.Accepted++
		} else {
			bad = append(bad, v)
		}
		if v.Trace.LeaseLost {
			t.LeaseLost++
		}
		if v.Trace.Expired {
			t.Expired++
		}
		if len(v.Trace.Violates) > 0 {
			t.Failing++
		}
	}
	t.Rejected = len(bad)
	return t, bad
}

// newConformTable starts conform's table on w.
func newConformTable(w io.Writer) *tabwriter.Writer {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "source\tdesign\tclients\tsections\tvalidity\ttraces\taccepted\trejected\tsteps\tlease lost\texpired\tfailing runs\tTLC time")
	return tw
}

// writeRow writes t's row of conform's table.
func (t *conformTally) writeRow(tw io.Writer) {
	fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", t.Source, t.Design, t.Clients, t.Sections,
		t.Validity, t.Traces, t.Accepted, t.Rejected, t.Steps, t.LeaseLost, t.Expired, t.Failing, t.Wall.Round(10*time.Millisecond).String()+cachedMark(t.Cached))
}

// conformTotals prints the traces' totals, where the rejections are
// rendered and the findings, one line each; it returns why validation
// failed ("" when every trace was accepted and nothing went wrong).
func conformTotals(e *Env, total, steps, failing, rejected int, tlcTime time.Duration, rendered, findings []string) string {
	fmt.Fprintf(e.Stdout, "\n%s, %s, %d of them failing runs; TLC %s in all", words.Count(total, "trace"), words.Count(steps, "step"), failing, tlcTime.Round(10*time.Millisecond))
	if total > 0 {
		fmt.Fprintf(e.Stdout, " (%s per trace)", (tlcTime / time.Duration(total)).Round(time.Microsecond))
	}
	fmt.Fprintln(e.Stdout)
	for _, d := range rendered {
		fmt.Fprintf(e.Stdout, "rejection rendered in %s\n", d)
	}
	for _, f := range findings {
		fmt.Fprintf(e.Stdout, "✗ %s\n", f)
	}
	if rejected == 0 && len(findings) == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %s rejected by the specs%s", rejected, words.Count(total, "trace"), findingsNote(findings))
}

// isToolOrStop tells checkGroup's errors that end the run (TLC is not
// TLC or the model is too big: bad input; an interrupt) from a group TLC
// could not judge, which is a finding about the system checked.
func isToolOrStop(err error) bool {
	var ee *ExitError
	return errors.As(err, &ee) && ee.Code != ExitFailure
}

// findingsNote is the exit message's part for the findings besides the
// rejections: "" when there are none.
func findingsNote(findings []string) string {
	if len(findings) == 0 {
		return ""
	}
	return ", and " + words.Count(len(findings), "finding") + " (see above)"
}

// renderRejection finds how far the spec follows a rejected trace, renders
// it like a counterexample and writes its files.
func renderRejection(ctx context.Context, disk *atomicfile.Disk, checker *conform.Checker, outDir, source string, g conform.Group, k int, v conform.Verdict) (string, error) {
	matched, err := checker.Diagnose(ctx, v.Trace)
	if err != nil {
		return "", Failed("%s: %v", v.Trace.Name, err)
	}
	t, err := conform.Render(v.Trace, matched)
	if err != nil {
		return "", Failed("%s: %v", v.Trace.Name, err)
	}
	dir := filepath.Join(outDir, fmt.Sprintf("%s_%s_%dc_%ds_%d", source, g.Config.Design, g.Config.Clients, g.Config.Sections, k+1))
	if _, err := trace.WriteFilesTo(disk.Folder(dir), t); err != nil {
		return "", CouldNotSave(err)
	}
	return dir, nil
}
