package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
)

// conformSource is one part of the conformance check: it yields the groups
// of traces it validates. The replay of TLC counterexamples in Go and the
// witness checks are parts to come; each adds a source or a step of its own.
type conformSource struct {
	name   string
	groups func() ([]conform.Group, error)
}

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
	NoCache             bool // run every TLC check, reading no cached result
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
	if p.ReplayFrom != "" {
		if !p.Replay {
			return BadInput("--replay-from needs --replay")
		}
		if fi, err := os.Stat(p.ReplayFrom); err != nil || !fi.IsDir() {
			return BadInput("--replay-from %s is not a folder of fencelab tlc's outputs", quote.S(p.ReplayFrom))
		}
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
		sources = append(sources, conformSource{"walk", func() ([]conform.Group, error) {
			var gs []conform.Group
			for _, c := range conform.UntimedConfigs() {
				g, err := conform.Walks(c, p.Walks, p.MaxSteps)
				if err != nil {
					return nil, err
				}
				gs = append(gs, g)
			}
			return gs, nil
		}})
	}
	if p.Explore {
		sources = append(sources, conformSource{"explore", func() ([]conform.Group, error) {
			var gs []conform.Group
			for _, d := range distlockspec.Designs() {
				for _, n := range []int{2, 3} {
					if n > explore.RoutineClients(d) {
						continue
					}
					g, err := conform.Counterexamples(d, n)
					if err != nil {
						return nil, err
					}
					gs = append(gs, g)
				}
			}
			return gs, nil
		}})
	}
	if p.SimRuns > 0 || p.SimFailing > 0 {
		sources = append(sources, conformSource{"sim", func() ([]conform.Group, error) {
			var gs []conform.Group
			for _, d := range distlockspec.Designs() {
				g, err := conform.SimRuns(conform.SimConfig(d), p.SimRuns, p.SimFailing)
				if err != nil {
					return nil, err
				}
				gs = append(gs, g)
			}
			return gs, nil
		}})
	}

	tw := tabwriter.NewWriter(e.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "source\tdesign\tclients\tsections\tvalidity\ttraces\taccepted\trejected\tsteps\tlease lost\texpired\tfailing runs\tTLC time")
	var total, rejected, steps, failing int
	var tlcTime time.Duration
	var rendered []string
	// Each group is a TLC run of seconds, the whole minutes; the table
	// comes at the end (tabwriter), so progress says where it is.
	step, stepsDone := NewStepProgress(e, 0, "conform", "group")
	defer stepsDone()
	for _, src := range sources {
		groups, err := src.groups()
		if err != nil {
			return fmt.Errorf("%s: %w", src.name, err)
		}
		for _, g := range groups {
			run, err := checker.Check(ctx, g.Config, g.Traces)
			if ctx.Err() != nil {
				return Stopped(ctx)
			}
			if errors.Is(err, tlc.ErrNotTLC) || errors.Is(err, tlc.ErrTooBig) {
				return BadInput("%s, %s: %v", src.name, g.Config.Design, err)
			}
			if err != nil {
				return Failed("%s, %s: %v", src.name, g.Config.Design, err)
			}
			step(fmt.Sprintf("%s %s, %s × %s%s", src.name, g.Config.Design, words.Count(g.Config.Clients, "client"), words.Count(g.Config.Sections, "section"), cachedMark(run.Cached)))
			acc, lost, exp, fail := 0, 0, 0, 0
			var bad []conform.Verdict
			for _, v := range run.Verdict {
				if v.Accepted {
					acc++
				} else {
					bad = append(bad, v)
				}
				if v.Trace.LeaseLost {
					lost++
				}
				if v.Trace.Expired {
					exp++
				}
				if len(v.Trace.Violates) > 0 {
					fail++
				}
			}
			total += run.Traces
			rejected += len(bad)
			steps += run.Steps
			failing += fail
			tlcTime += run.Wall
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", src.name, g.Config.Design, g.Config.Clients, g.Config.Sections,
				g.Config.Validity, run.Traces, acc, len(bad), run.Steps, lost, exp, fail, run.Wall.Round(10*time.Millisecond).String()+cachedMark(run.Cached))
			for k, v := range bad {
				if k >= p.Show {
					break
				}
				dir, err := renderRejection(ctx, e.Disk, checker, p.Out, src.name, g, k, v)
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
	fmt.Fprintf(e.Stdout, "\n%s, %s, %d of them failing runs; TLC %s in all", words.Count(total, "trace"), words.Count(steps, "step"), failing, tlcTime.Round(10*time.Millisecond))
	if total > 0 {
		fmt.Fprintf(e.Stdout, " (%s per trace)", (tlcTime / time.Duration(total)).Round(time.Microsecond))
	}
	fmt.Fprintln(e.Stdout)
	if rejected > 0 {
		for _, d := range rendered {
			fmt.Fprintf(e.Stdout, "rejection rendered in %s\n", d)
		}
		return Failed("%d of %s rejected by the specs", rejected, words.Count(total, "trace"))
	}
	if !p.Replay {
		if total == 0 {
			return NothingChecked("no trace was made to validate")
		}
		fmt.Fprintf(e.Stdout, "conformance: all %s accepted by the specs\n", words.Count(total, "trace"))
		return nil
	}
	fmt.Fprintln(e.Stdout)
	stepsDone()
	rs, err := replayCounterexamples(ctx, e, checker.TLC, p.Specs, p.ReplayFrom)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.Stdout, "\n%d TLC counterexamples replayed in Go, %d of systems Go does not run; TLC %s\n", rs.replayed, rs.notGo, rs.tlcTime.Round(10*time.Millisecond))
	if rs.failed > 0 {
		return Failed("%d TLC counterexamples depart from the Go system", rs.failed)
	}
	if total == 0 && rs.replayed == 0 {
		return NothingChecked("no trace validated and no counterexample replayed (every model's system is one Go does not run)")
	}
	fmt.Fprintf(e.Stdout, "conformance: all %s accepted by the specs; all %s replayed in Go\n", words.Count(total, "trace"), words.Count(rs.replayed, "counterexample"))
	return nil
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
