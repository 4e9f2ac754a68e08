package main

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

const conformUsage = "fencelab conform [--walks 100] [--max-steps 200] [--sim-runs 20] [--sim-failing 3] [--explore=true] [--show 3] [--out DIR] [--specs DIR] [--pin FILE] [--timeout D] [--replay=true] [--replay-from DIR]"

func conformCommand() command {
	return command{name: "conform", summary: "check the Go code and the specs against each other: Go runs validated by TLC, TLC's counterexamples replayed in Go", run: runConform}
}

// Bounds of conform's counts.
const (
	maxWalks    = 100_000
	maxWalkLen  = 10_000
	maxSimRuns  = 100_000
	maxShowRuns = 100
)

// conformSource is one part of the conformance check: it yields the groups
// of traces it validates. The replay of TLC counterexamples in Go and the
// witness checks are parts to come; each adds a source or a step of its own.
type conformSource struct {
	name   string
	groups func() ([]conform.Group, error)
}

// runConform validates Go runs against the specs with TLC and prints, per
// source and design, the traces accepted and rejected, their steps and
// TLC's time. Any rejection fails (exit 1) and is rendered like a
// counterexample; without TLC nothing runs and the command says so (exit
// 2), never "passed".
func runConform(e *env, args []string) error {
	fs := newFlagSet("conform")
	walks := fs.Int("walks", 100, "seeded random walks of the untimed world per configuration (every design, 2 and 3 clients, 1 and 2 sections)")
	maxSteps := fs.Int("max-steps", 200, "steps of one walk at most (a walk also ends when every client has finished)")
	simRuns := fs.Int("sim-runs", 20, "simulator runs per design (default faults, 2 clients, 2 sections, 2 retries, the send rule), seeded 1 to N, failing and passing alike")
	simFailing := fs.Int("sim-failing", 3, "failing simulator runs per design to add after the first --sim-runs, since few runs fail (0: none)")
	withExplore := fs.Bool("explore", true, "validate every counterexample of the explorer (every design, 2 and 3 clients)")
	show := fs.Int("show", 3, "rejected traces to render per group (each costs one more TLC run)")
	outDir := fs.String("out", filepath.Join("out", "conform"), "folder for the rendered rejections")
	specs := fs.String("specs", "specs", "folder with the specs and the trace specs")
	pin := fs.String("pin", "tla2tools.version", "the pinned TLA+ tools release")
	timeout := fs.Duration("timeout", 10*time.Minute, "time limit for one TLC run")
	replay := fs.Bool("replay", true, "replay in Go every counterexample TLC finds on the default run's models expected to be violated (TLC checks each, one worker)")
	replayFrom := fs.String("replay-from", "", "replay the counterexamples of this fencelab tlc --out folder instead of running TLC for them")
	rest, err := parseFlags(e, fs, conformUsage, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return badInput("unexpected argument %s (usage: %s)", quote.Q(rest[0]), conformUsage)
	}
	for _, c := range []struct {
		flag      string
		v, lo, hi int
	}{{"walks", *walks, 0, maxWalks}, {"max-steps", *maxSteps, 1, maxWalkLen}, {"sim-runs", *simRuns, 0, maxSimRuns}, {"sim-failing", *simFailing, 0, maxShowRuns}, {"show", *show, 0, maxShowRuns}} {
		if c.v < c.lo || c.v > c.hi {
			return badInput("--%s must be between %d and %d, got %d", c.flag, c.lo, c.hi, c.v)
		}
	}
	if *timeout <= 0 {
		return badInput("--timeout must be positive")
	}
	for _, d := range []impl.Design{impl.DesignNoFencing, impl.DesignFenceAll} {
		for _, name := range []string{distlockspec.Spec(d), distlockspec.TraceSpec(d)} {
			if fi, err := os.Stat(filepath.Join(*specs, name+".tla")); err != nil || !fi.Mode().IsRegular() {
				return badInput("--specs %s has no %s.tla", quote.S(*specs), name)
			}
		}
	}
	if *replayFrom != "" {
		if !*replay {
			return badInput("--replay-from needs --replay")
		}
		if fi, err := os.Stat(*replayFrom); err != nil || !fi.IsDir() {
			return badInput("--replay-from %s is not a folder of fencelab tlc's outputs", quote.S(*replayFrom))
		}
	}
	if *walks == 0 && *simRuns == 0 && *simFailing == 0 && !*withExplore && !*replay {
		return nothingChecked("--walks 0, --sim-runs 0, --sim-failing 0, --explore=false and --replay=false leave conform no trace and no counterexample")
	}
	if err := checkOutDir("out", *outDir); err != nil {
		return err
	}
	removeIfEmpty, err := makeOutDir(e, *outDir)
	if err != nil {
		return err
	}
	defer removeIfEmpty()
	ctx, stop := interruptible()
	defer stop()
	jar, java, err := resolveTLC(ctx, *pin)
	if err != nil {
		return badInput("conformance: not run (no tla2tools.jar: %v)", err)
	}
	fmt.Fprintf(e.stderr, "fencelab conform: %s (from %s)\n", jar.Path, jar.Source)
	checker := &conform.Checker{TLC: &tlc.Runner{Java: java, Jar: jar.Path, Timeout: *timeout, Classes: tlc.DefaultClassArchive()}, SpecsDir: *specs}

	var sources []conformSource
	if *walks > 0 {
		sources = append(sources, conformSource{"walk", func() ([]conform.Group, error) {
			var gs []conform.Group
			for _, c := range conform.UntimedConfigs() {
				g, err := conform.Walks(c, *walks, *maxSteps)
				if err != nil {
					return nil, err
				}
				gs = append(gs, g)
			}
			return gs, nil
		}})
	}
	if *withExplore {
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
	if *simRuns > 0 || *simFailing > 0 {
		sources = append(sources, conformSource{"sim", func() ([]conform.Group, error) {
			var gs []conform.Group
			for _, d := range distlockspec.Designs() {
				g, err := conform.SimRuns(conform.SimConfig(d), *simRuns, *simFailing)
				if err != nil {
					return nil, err
				}
				gs = append(gs, g)
			}
			return gs, nil
		}})
	}

	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "source\tdesign\tclients\tsections\tvalidity\ttraces\taccepted\trejected\tsteps\tlease lost\texpired\tfailing runs\tTLC time")
	var total, rejected, steps, failing int
	var tlcTime time.Duration
	var rendered []string
	// Each group is a TLC run of seconds, the whole minutes; the table
	// comes at the end (tabwriter), so progress says where it is.
	step, stepsDone := newStepProgress(e, 0, "conform", "group")
	defer stepsDone()
	for _, src := range sources {
		groups, err := src.groups()
		if err != nil {
			return fmt.Errorf("%s: %w", src.name, err)
		}
		for _, g := range groups {
			run, err := checker.Check(ctx, g.Config, g.Traces)
			if ctx.Err() != nil {
				return stopped(ctx)
			}
			if errors.Is(err, tlc.ErrNotTLC) || errors.Is(err, tlc.ErrTooBig) {
				return badInput("%s, %s: %v", src.name, g.Config.Design, err)
			}
			if err != nil {
				return failed("%s, %s: %v", src.name, g.Config.Design, err)
			}
			step(fmt.Sprintf("%s %s, %s × %s", src.name, g.Config.Design, words.Count(g.Config.Clients, "client"), words.Count(g.Config.Sections, "section")))
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
				g.Config.Validity, run.Traces, acc, len(bad), run.Steps, lost, exp, fail, run.Wall.Round(10*time.Millisecond))
			for k, v := range bad {
				if k >= *show {
					break
				}
				dir, err := renderRejection(ctx, e.disk, checker, *outDir, src.name, g, k, v)
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
	fmt.Fprintf(e.stdout, "\n%s, %s, %d of them failing runs; TLC %s in all", words.Count(total, "trace"), words.Count(steps, "step"), failing, tlcTime.Round(10*time.Millisecond))
	if total > 0 {
		fmt.Fprintf(e.stdout, " (%s per trace)", (tlcTime / time.Duration(total)).Round(time.Microsecond))
	}
	fmt.Fprintln(e.stdout)
	if rejected > 0 {
		for _, d := range rendered {
			fmt.Fprintf(e.stdout, "rejection rendered in %s\n", d)
		}
		return failed("%d of %s rejected by the specs", rejected, words.Count(total, "trace"))
	}
	if !*replay {
		if total == 0 {
			return nothingChecked("no trace was made to validate")
		}
		fmt.Fprintf(e.stdout, "conformance: all %s accepted by the specs\n", words.Count(total, "trace"))
		return nil
	}
	fmt.Fprintln(e.stdout)
	stepsDone()
	rs, err := replayCounterexamples(ctx, e, checker.TLC, *specs, *replayFrom)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "\n%d TLC counterexamples replayed in Go, %d of systems Go does not run; TLC %s\n", rs.replayed, rs.notGo, rs.tlcTime.Round(10*time.Millisecond))
	if rs.failed > 0 {
		return failed("%d TLC counterexamples depart from the Go system", rs.failed)
	}
	if total == 0 && rs.replayed == 0 {
		return nothingChecked("no trace validated and no counterexample replayed (every model's system is one Go does not run)")
	}
	fmt.Fprintf(e.stdout, "conformance: all %s accepted by the specs; all %s replayed in Go\n", words.Count(total, "trace"), words.Count(rs.replayed, "counterexample"))
	return nil
}

// renderRejection finds how far the spec follows a rejected trace, renders
// it like a counterexample and writes its files.
func renderRejection(ctx context.Context, disk *atomicfile.Disk, checker *conform.Checker, outDir, source string, g conform.Group, k int, v conform.Verdict) (string, error) {
	matched, err := checker.Diagnose(ctx, v.Trace)
	if err != nil {
		return "", failed("%s: %v", v.Trace.Name, err)
	}
	t, err := conform.Render(v.Trace, matched)
	if err != nil {
		return "", failed("%s: %v", v.Trace.Name, err)
	}
	dir := filepath.Join(outDir, fmt.Sprintf("%s_%s_%dc_%ds_%d", source, g.Config.Design, g.Config.Clients, g.Config.Sections, k+1))
	if _, err := trace.WriteFilesTo(disk.Folder(dir), t); err != nil {
		return "", couldNotSave(err)
	}
	return dir, nil
}
