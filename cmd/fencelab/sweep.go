package main

import (
	"strings"
	"time"

	"github.com/fencelab/fencelab/bounds"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/pipeline"
	"github.com/fencelab/fencelab/sim"
	"github.com/fencelab/fencelab/sweep"
)

func sweepCommand() command {
	return command{name: "sweep", summary: "draw where an unfenced lease lock stops being safe: a grid of bounds, simulated", run: runSweep}
}

const sweepUsage = `fencelab sweep [flags]

Runs the simulator over a grid of two bounds (--grid) for each design
(--design): in every cell the derivation's worst-case schedule for each
property (the one fencelab sim --worst-case runs) and --runs random runs
drawn inside the cell's bounds, beside DESIGN.md's condition. Writes
sweep.csv and sweep.svg (open it in a browser) to --out, with the derived
boundary drawn over the grid. The bounds the axes do not vary come from
the flags, as in fencelab bounds; --max-delay is the one-way bound D,
processing + latency + jitter + the longest spike, and must cover the
normal network (3.1ms by default).

  --grid pause:0..500ms/10,margin:0..500ms/10
        two axes, x then y: name:from..to/cells, cells evenly spaced,
        both ends included; names: pause, delay, drift (50ppm, 10% or 0.1),
        jump, ttl, margin, lock-delay

Random runs draw at most one fault of each kind (two overlapping pauses
would merge into one longer than the bound) with a small workload, 2
clients × 2 sections by default. Same flags, same bytes.
Exit codes: 0 the sweep agrees with the derivation, 1 a violation inside
the boundary, by the worst case or by any random run (the random runs
inside that violated are counted and printed), or of NoLostUpdate with
fencing all, 2 bad input.`

// maxSweepRuns bounds --runs: a cell of the default grid runs 50, and a
// sweep of 100,000 runs in each of its 578 cells would already take days.
const maxSweepRuns = 100_000

// sweepRun is a parsed fencelab sweep: the sweep, its --out, its
// --design as given (the header repeats it) and its shard, if any.
type sweepRun struct {
	sweep   *sweep.Sweep
	out     string
	designs string
	shard   *pipeline.ShardRun
}

func runSweep(e *env, args []string) error {
	r, err := parseSweepFlags(e, args)
	if err != nil {
		return err
	}
	if r.shard != nil {
		return pipeline.SweepShard(&e.Env, r.sweep, r.out, r.shard)
	}
	return pipeline.Sweep(&e.Env, r.sweep, r.out, r.designs)
}

func parseSweepFlags(e *env, args []string) (*sweepRun, error) {
	defSim := sim.DefaultConfig()
	def := defSim.Assumptions()
	fs := newFlagSet("sweep")
	grid := fs.String("grid", "pause:0..400ms/17,lock-delay:0..800ms/17", "the two axes, `x,y`: name:from..to/cells each")
	fencing := designFlag(fs, "off,all", "designs to sweep, comma-separated: off, none, writes, all or renewal, the rows sweep supports (renewal's worst case comes after a renewal)")
	runs := runsFlag(fs, 50, "cell and design, random inside the cell's bounds")
	seed := seedFlag(fs, "a cell's first random run")
	clients := clientsFlag(fs, 2, " in the random runs")
	sections := sectionsFlag(fs, 2, " in the random runs")
	workers := workersFlag(e, fs, "running cells")
	out := outFlag(fs, defaultOut("sweep"), "folder", "sweep.csv and sweep.svg")
	ttl := ttlFlag(fs, def.TTL, "")
	margin := marginFlag(fs, def.Margin, "")
	lockDelay := lockDelayFlag(fs, def.LockDelay, "")
	drift := driftFlag(fs, def.Drift, "largest clock rate error `ρ`")
	jump := maxJumpFlag(fs, 20*time.Millisecond, ", net during one lease")
	pause := maxPauseFlag(fs, 100*time.Millisecond, "")
	delay := maxDelayFlag(fs, defSim.OneWay()+50*time.Millisecond, " (at least processing + latency + jitter)")
	shardValue := shardFlag(fs)
	rest, err := parseFlags(e, fs, sweepUsage, args)
	if err != nil {
		return nil, err
	}
	if len(rest) > 0 {
		return nil, badInput("unexpected argument %s", quote.Q(rest[0]))
	}
	r := &sweepRun{out: *out, designs: *fencing}
	if r.shard, err = shardRun(fs, "sweep", *shardValue); err != nil {
		return nil, err
	}
	checkOut := func(out string) error { return pipeline.CheckOutDir("out", out) }
	if r.shard != nil {
		checkOut = pipeline.CheckSweepShardOut
	}
	if err := checkOut(*out); err != nil {
		return nil, err
	}
	x, y, err := sweep.ParseGrid(*grid)
	if err != nil {
		return nil, badInput("%v", err)
	}
	if strings.TrimSpace(*fencing) == "" {
		// impl.ParseDesigns reads "" as every design; a sweep wants them named.
		return nil, badInput("--design names no design (want some of off, none, writes, all, renewal)")
	}
	designs, err := impl.ParseDesigns(*fencing)
	if err != nil {
		return nil, badInput("%v", err)
	}
	for _, d := range designs {
		if err := sweep.Supported(d); err != nil {
			return nil, badInput("--fencing: %v", err)
		}
	}
	switch {
	case *runs < 0:
		return nil, badInput("runs must not be negative, got %d", *runs)
	case *runs > maxSweepRuns:
		return nil, badInput("runs must be at most %d per cell, got %d", maxSweepRuns, *runs)
	case *workers < 1:
		return nil, badInput("workers must be positive, got %d", *workers)
	case *workers > pipeline.MaxWorkers:
		return nil, badInput("workers must be at most %d, got %d", pipeline.MaxWorkers, *workers)
	}
	c := defSim
	c.Clients, c.Sections = *clients, *sections
	b := bounds.Bounds{Drift: float64(*drift), Jump: *jump, Delay: *delay, Pause: *pause, TTL: *ttl, Margin: *margin, LockDelay: *lockDelay}
	if err := c.Validate(); err != nil {
		return nil, badInput("%v", err)
	}
	s := &sweep.Sweep{Config: c, Designs: designs, Bounds: b, X: x, Y: y, Runs: *runs, Seed: *seed, Workers: *workers}
	if err := s.Validate(); err != nil {
		return nil, badInput("%v", err)
	}
	r.sweep = s
	return r, nil
}
