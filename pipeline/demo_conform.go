package pipeline

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fencelab/fencelab/conform"
	"github.com/fencelab/fencelab/distlockspec"
	"github.com/fencelab/fencelab/explore"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/inputfile"
	"github.com/fencelab/fencelab/report"
	"github.com/fencelab/fencelab/tlc"
)

// demoWalks is how many seeded walks per design the demo has TLC validate
// (2 clients, 1 section: one TLC run per design).
const demoWalks = 25

// designConformance is the demo's conformance of one design: Go walks
// validated by TLC, and TLC's counterexamples of the design's models
// replayed in Go.
type designConformance struct {
	traces, rejected   int
	replayed, departed int
	// findings are what kept a check from its verdict, one line each (TLC
	// could not judge the walks, a replay that failed): findings, as a
	// rejection is, never an abort of the demo.
	findings []string
	cached   bool // TLC's verdicts on the walks read from the cache
}

func (c designConformance) ok() bool {
	return c.rejected == 0 && c.departed == 0 && len(c.findings) == 0
}

// demoConformance checks, per design of the untimed specs, demoWalks walks
// against the spec with TLC, and replays in Go the counterexamples TLC
// wrote under tlcOut for the models it checked (a model whose system Go
// does not run is left out, as fencelab conform says).
// step is told each design as TLC has validated its walks (progress).
func demoConformance(ctx context.Context, runner *tlc.Runner, specs, tlcOut string, models []tlc.Model, step func(string)) (map[impl.Design]*designConformance, error) {
	out := map[impl.Design]*designConformance{}
	k := &conform.Checker{TLC: runner, SpecsDir: specs}
	// One TLC run per design, each a JVM that spends most of its time
	// starting and parsing: modelsAtOnce of them at a time, as the
	// models. The Checker keeps nothing between runs.
	designs := distlockspec.Designs()
	checked := make([]*designConformance, len(designs))
	errs := make([]error, len(designs))
	slots := make(chan struct{}, modelsAtOnce())
	var wg sync.WaitGroup
	for i, d := range designs {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			checked[i], errs[i] = validateWalks(ctx, k, d)
			step(d.String() + cachedMark(checked[i] != nil && checked[i].cached))
		}()
	}
	wg.Wait()
	for i, d := range designs {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errs[i] != nil {
			if errors.Is(errs[i], tlc.ErrNotTLC) || errors.Is(errs[i], tlc.ErrTooBig) {
				return nil, errs[i] // the tools are at fault, not the system
			}
			checked[i] = &designConformance{findings: []string{OneLine(errs[i].Error())}}
		}
		out[d] = checked[i]
	}
	for _, mod := range models {
		if mod.Expected == tlc.ResultOK {
			continue
		}
		if _, err := conform.ModelReplayable(specs, mod); err != nil {
			continue
		}
		d, err := impl.ParseDesign(mod.Design)
		if err != nil || out[d] == nil {
			continue
		}
		output, err := inputfile.Read(filepath.Join(tlcOut, mod.Name, "tlc.out"), inputfile.MaxOutput)
		if err != nil {
			continue // TLC did not run it (a --model run): nothing to replay
		}
		_, err = conform.ReplayModel(specs, mod, output)
		var re *conform.ReplayError
		switch {
		case errors.As(err, &re), errors.Is(err, conform.ErrOtherOutput):
			// The demo's own TLC run: an output that is not the model's
			// is Go and TLC disagreeing.
			out[d].departed++
			out[d].findings = append(out[d].findings, fmt.Sprintf("%s departs from TLC's counterexample at %s", mod.Name, OneLine(err.Error())))
		case err != nil:
			out[d].departed++
			out[d].findings = append(out[d].findings, fmt.Sprintf("replay of %s: %s", mod.Name, OneLine(err.Error())))
		default:
			out[d].replayed++
		}
	}
	return out, nil
}

// validateWalks has TLC validate demoWalks seeded walks of design d.
func validateWalks(ctx context.Context, k *conform.Checker, d impl.Design) (*designConformance, error) {
	c := explore.DefaultConfig(d, 2).Config // the explorer's untimed configuration, 1 section
	g, err := conform.Walks(c, demoWalks, 200)
	if err != nil {
		return nil, err
	}
	run, err := k.Check(ctx, c, g.Traces)
	if err != nil {
		return nil, fmt.Errorf("trace validation, %s: %w", d, err)
	}
	dc := &designConformance{traces: run.Traces, cached: run.Cached}
	for _, v := range run.Verdict {
		if !v.Accepted {
			dc.rejected++
		}
	}
	return dc, nil
}

// demoConformanceSection prints the demo's conformance table: per design
// of the untimed specs, the walks TLC validated and the counterexamples of
// the demo's own TLC run replayed in Go. The error it returns first is a
// failed check (a walk rejected, a replay that departs), which the demo
// reports after its tables; the second stops the demo.
func demoConformanceSection(e *Env, specs, pin, tlcOut string, models []tlc.Model, noCache bool) (failedCheck, err error) {
	ctx, stop := Interruptible()
	defer stop()
	runner, err := NewTLCRunner(ctx, e, pin, 10*time.Minute, len(models), noCache)
	if err != nil {
		return nil, err
	}
	runner.Workers = "1"
	step, stepsDone := NewStepProgress(e, len(distlockspec.Designs()), "conformance", "design")
	got, err := demoConformance(ctx, runner, specs, tlcOut, models, step)
	stepsDone()
	if ctx.Err() != nil {
		return nil, Stopped(ctx)
	}
	if err != nil {
		return nil, Failed("conformance: %v", err)
	}
	t := report.NewTable("design", "Go walks TLC accepted", "TLC counterexamples replayed in Go")
	var bad []string
	for _, d := range distlockspec.Designs() {
		c := got[d]
		t.Add(d.Describe(), fmt.Sprintf("%d of %d", c.traces-c.rejected, c.traces)+cachedMark(c.cached), fmt.Sprintf("%d of %d", c.replayed, c.replayed+c.departed))
		if !c.ok() {
			bad = append(bad, d.String())
		}
	}
	if err := t.WriteText(e.Stdout); err != nil {
		return nil, err
	}
	fmt.Fprintf(e.Stdout, "\n(%d seeded walks per design, 2 clients, 1 section; fencelab conform checks many more runs)\n", demoWalks)
	for _, d := range distlockspec.Designs() {
		for _, f := range got[d].findings {
			fmt.Fprintf(e.Stdout, "✗ %s: %s\n", d, f)
		}
	}
	if len(bad) > 0 {
		return Failed("conformance fails for %s: run fencelab conform for the rejected traces and departing replays", strings.Join(bad, ", ")), nil
	}
	return nil, nil
}
