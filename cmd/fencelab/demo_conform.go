package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fencelab/fencelab/conform"
	"github.com/fencelab/fencelab/explore"
	"github.com/fencelab/fencelab/impl"
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
}

// String is the demo table's cell: "25/25 walks, 6/6 replays".
func (c designConformance) String() string {
	if c.traces == 0 && c.replayed+c.departed == 0 {
		return "not run"
	}
	return fmt.Sprintf("%d/%d walks, %d/%d replays", c.traces-c.rejected, c.traces, c.replayed, c.replayed+c.departed)
}

func (c designConformance) ok() bool { return c.rejected == 0 && c.departed == 0 }

// demoConformance checks, per design of the untimed specs, demoWalks walks
// against the spec with TLC, and replays in Go the counterexamples TLC
// wrote under tlcOut for the models it checked (a model whose system Go
// does not run is left out, as fencelab conform says).
func demoConformance(ctx context.Context, runner *tlc.Runner, specs, tlcOut string, models []tlc.Model) (map[impl.Design]*designConformance, error) {
	out := map[impl.Design]*designConformance{}
	k := &conform.Checker{TLC: runner, SpecsDir: specs}
	for _, d := range []impl.Design{impl.DesignNoFencing, impl.DesignFenceNone, impl.DesignFenceWrites, impl.DesignFenceAll} {
		c := explore.DefaultConfig(d, 2).Config // the explorer's untimed configuration, 1 section
		g, err := conform.Walks(c, demoWalks, 200)
		if err != nil {
			return nil, err
		}
		run, err := k.Check(ctx, c, g.Traces)
		if err != nil {
			return nil, fmt.Errorf("trace validation, %s: %w", d, err)
		}
		dc := &designConformance{traces: run.Traces}
		for _, v := range run.Verdict {
			if !v.Accepted {
				dc.rejected++
			}
		}
		out[d] = dc
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
		output, err := os.ReadFile(filepath.Join(tlcOut, mod.Name, "tlc.out"))
		if err != nil {
			continue // TLC did not run it (a --model run): nothing to replay
		}
		_, err = conform.ReplayModel(specs, mod, output)
		var re *conform.ReplayError
		switch {
		case errors.As(err, &re):
			out[d].departed++
		case err != nil:
			return nil, fmt.Errorf("replay of %s: %w", mod.Name, err)
		default:
			out[d].replayed++
		}
	}
	return out, nil
}
