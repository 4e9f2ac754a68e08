package main

import (
	"fmt"

	"github.com/fencelab/fencelab/conform"
	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/pipeline"
	"github.com/fencelab/fencelab/verdict"
)

const conformUsage = "fencelab conform [--walks 100] [--max-steps 200] [--sim-runs 20] [--sim-failing 3] [--explore=true] [--show 3] [--out DIR] [--specs DIR] [--pin FILE] [--timeout D] [--replay=true] [--replay-from DIR] [--fixtures DIR] [--no-cache]"

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

// runConform validates Go runs against the specs with TLC and prints, per
// source and design, the traces accepted and rejected, their steps and
// TLC's time. Any rejection fails (exit 1) and is rendered like a
// counterexample; without TLC nothing runs and the command says so (exit
// 2), never "passed".
func runConform(e *env, args []string) error {
	p, err := parseConformFlags(e, args)
	if err != nil {
		return err
	}
	return pipeline.Conform(&e.Env, *p)
}

// parseConformFlags reads conform's flags into its plan.
func parseConformFlags(e *env, args []string) (*pipeline.ConformPlan, error) {
	fs := newFlagSet("conform")
	walks := fs.Int("walks", 100, "seeded random walks of the untimed world per configuration (every design, 2 and 3 clients, 1 and 2 sections)")
	maxSteps := fs.Int("max-steps", 200, "steps of one walk at most (a walk also ends when every client has finished)")
	simRuns := fs.Int("sim-runs", 20, "simulator runs per design (default faults, 2 clients, 2 sections, 2 retries, the send rule), seeded 1 to N, failing and passing alike")
	simFailing := fs.Int("sim-failing", 3, "failing simulator runs per design to add after the first --sim-runs, since few runs fail (0: none)")
	withExplore := fs.Bool("explore", true, fmt.Sprintf("validate every counterexample the explorer finds within its first %s states with 2 clients, %s with 3, breadth-first: the shortest ones (every design; the 2-client searches are complete; the searches stopped at their bound are named)", verdict.Thousands(conform.CounterexampleStates), verdict.Thousands(conform.CounterexampleStates3)))
	show := fs.Int("show", 3, "rejected traces to render per group (each costs one more TLC run)")
	outDir := outFlag(fs, defaultOut("conform"), "folder", "the rendered rejections")
	specs := specsFlag(fs, " and the trace specs")
	pin := pinFlag(fs)
	timeout := timeoutFlag(fs)
	replay := fs.Bool("replay", true, "replay in Go every counterexample TLC finds on the default run's models expected to be violated (TLC checks each, one worker)")
	noCache := noCacheFlag(fs)
	replayFrom := fs.String("replay-from", "", "replay the counterexamples of this fencelab tlc --out folder instead of running TLC for them")
	fixtures := fs.String("fixtures", "", "folder of TLC's committed outputs, conform/testdata/replay (make fixtures writes it; make conform passes it): a model whose spec and cfg are unchanged since (their SHA-256 in its specs.sha256) is replayed from its output, as CI does, without running TLC (\"\", the default, or --no-cache: TLC runs for every model)")
	shardValue := shardFlag(fs)
	rest, err := parseFlags(e, fs, conformUsage, args)
	if err != nil {
		return nil, err
	}
	if len(rest) > 0 {
		return nil, badInput("unexpected argument %s (usage: %s)", quote.Q(rest[0]), conformUsage)
	}
	for _, c := range []struct {
		flag      string
		v, lo, hi int
	}{{"walks", *walks, 0, maxWalks}, {"max-steps", *maxSteps, 1, maxWalkLen}, {"sim-runs", *simRuns, 0, maxSimRuns}, {"sim-failing", *simFailing, 0, maxShowRuns}, {"show", *show, 0, maxShowRuns}} {
		if c.v < c.lo || c.v > c.hi {
			return nil, badInput("--%s must be between %d and %d, got %d", c.flag, c.lo, c.hi, c.v)
		}
	}
	if *timeout <= 0 {
		return nil, badInput("--timeout must be positive")
	}
	p := &pipeline.ConformPlan{Walks: *walks, MaxSteps: *maxSteps, SimRuns: *simRuns, SimFailing: *simFailing, Explore: *withExplore,
		Show: *show, Out: *outDir, Specs: *specs, Pin: *pin, Timeout: *timeout, Replay: *replay, ReplayFrom: *replayFrom, Fixtures: *fixtures, NoCache: *noCache}
	if p.Shard, err = shardRun(fs, "conform", *shardValue); err != nil {
		return nil, err
	}
	if p.Shard != nil {
		// A shard splits the walks; the other sources are whole runs of
		// their own (the explorer's counterexamples, TLC's), not split.
		if p.Walks == 0 || p.SimRuns > 0 || p.SimFailing > 0 || p.Explore || p.Replay || p.ReplayFrom != "" {
			return nil, badInput("--shard splits conform's walks only: give --walks N with --explore=false --sim-runs 0 --sim-failing 0 --replay=false")
		}
		if err := pipeline.CheckConformShardOut(p.Out); err != nil {
			return nil, err
		}
	}
	return p, nil
}
