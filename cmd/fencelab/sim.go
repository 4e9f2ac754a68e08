package main

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/pipeline"
	"github.com/fencelab/fencelab/sim"
)

func simCommand() command {
	return command{name: "sim", summary: "simulate the lock under network delay, process pauses and clock drift", run: runSim}
}

const simUsage = `fencelab sim [flags]

Runs the lock's reference implementation in a deterministic simulator that
injects NPC faults (network delay spikes, process pauses, clock drift and
steps), drawn from each run's seed, and prints one table: for each design,
the runs that violated each property, Porcupine's verdicts and stalls. It
shrinks the first failing run of each design to a minimal schedule and
writes that run's files to --out: its trace (focused on the violation, on
to the resource's decision on the stale operation; the steps and clients
that do not tell it elided and marked), a run summary, the schedule and
Porcupine's page; and it prints the commands that replay it, whole and
shrunk. --out then holds this invocation's files only.

  --replay SEED / --schedule FILE  run one run (one --design), print
                                   its timeline and write its files
  --worst-case PROPERTY            run the adversarial schedule of the fault
                                   bounds (AtMostOneClientHoldLock or
                                   NoLostUpdate; one --design): the
                                   worst case of DESIGN.md's derivation,
                                   with its slack beside the derived one
  --shrink                         with --replay or --schedule: also shrink
                                   the run's schedule and save it
  --npc                            the NPC table: each fault kind alone

Same flags, same output: stdout is byte-identical from run to run; the
wall-clock figures (progress, runs/s, events/s) go to stderr.
Exit codes: 0 every verdict as DESIGN.md expects: every expected violation
found and nothing else violated (one run of --replay or --schedule: nothing
contradicts DESIGN.md); 1 an unexpected verdict, or an expected violation
no run showed ("expected violated, none found in N runs": too few runs or
too mild faults); 2 bad input.`

func parseSimFlags(e *env, args []string) (*pipeline.SimOptions, error) {
	def := sim.DefaultConfig()
	fs := newFlagSet("sim")
	o := &pipeline.SimOptions{}
	runs := runsFlag(fs, 1000, "design")
	seed := seedFlag(fs, "the first run")
	clients := clientsFlag(fs, def.Clients, "")
	sections := sectionsFlag(fs, def.Sections, " (acquire, read, think, write read+1, release)")
	retries := retriesFlag(fs, def.Retries, " before it gives the section up")
	nodes := nodesFlag(fs, impl.DesignRedlock.DefaultNodes(), "independent lock nodes of the Redlock rows, 1 to 9 (Redlock's 5 unless given); the other rows have one service")
	fencing := designFlag(fs, "", "designs to run, comma-separated (default every design side by side)")
	faults := fs.String("faults", def.Faults.String(), "fault kinds a seed may draw: any of delay, pause, drift (comma-separated), or none; the rows whose service restarts draw its crashes too under any setting but none (crash: crashes alone)")
	ttl := ttlFlag(fs, def.TTL, "")
	margin := marginFlag(fs, def.Margin, "; it covers a clock rate drift of ±d when margin ≥ ttl·2d/(1+d)")
	validity := validityFlag(fs, def.Validity, "")
	think := fs.Duration("think", def.Think, "time between reading the counter and writing read+1")
	lockDelay := lockDelayFlag(fs, def.LockDelay, " (0: none)")
	backoff := fs.Duration("backoff", def.Backoff, "mean retry backoff after a rejection (drawn from [b/2, 3b/2])")
	latency := fs.Duration("latency", def.Latency, "base one-way message latency")
	jitter := fs.Duration("jitter", def.Jitter, "latency jitter: up to this much is added to each message")
	reorder := fs.Bool("reorder", false, "let messages overtake each other on a link (default FIFO links)")
	maxFaults := fs.Int("max-faults", def.MaxFaults, "faults of each kind per run, at most")
	maxPause := maxPauseFlag(fs, def.MaxPause, " (unless given, 3×ttl; 0: no pauses)")
	maxDelay := maxDelayFlag(fs, def.OneWay()+def.MaxSpike, ": processing + latency + jitter + the longest spike (unless given, processing + latency + jitter + 3×ttl; processing + latency + jitter: no spikes)")
	maxJump := maxJumpFlag(fs, def.MaxJump, " (unless given, 2×ttl; 0: no steps)")
	maxDrift := driftFlag(fs, float64(def.MaxDriftPPM)/1e6, "largest clock rate error `ρ` (0.1: clocks run at 0.9× to 1.1×; 0: no drift)")
	out := outFlag(fs, defaultOut("sim"), "folder", "each design's first failing run, shrunk (or the run of --replay/--schedule): its trace files, run summary, schedule and Porcupine page")
	workers := workersFlag(e, fs, "running runs")
	replay := fs.String("replay", "", "run only seed `SEED` (with one --design), print its timeline and write its files to --out")
	fs.StringVar(&o.WorstCase, "worst-case", "", "run the adversarial schedule of the fault bounds for `PROPERTY` (AtMostOneClientHoldLock or NoLostUpdate; one --design): 2 clients, 1 section, the worst case of DESIGN.md's derivation")
	fs.StringVar(&o.Schedule, "schedule", "", "run the fault schedule in `FILE` (with one --design), print its timeline and write its files to --out")
	fs.BoolVar(&o.Shrink, "shrink", false, "with --replay or --schedule: shrink the run's failing schedule and save it (a batch always shrinks each design's first failing run)")
	fs.BoolVar(&o.NPC, "npc", false, "print the NPC table: every design under each fault kind alone")
	shardValue := shardFlag(fs)
	fs.DurationVar(&o.Porcupine, "porcupine-timeout", 10*time.Second, "time limit of one Porcupine check (a run that hits it counts as unknown)")
	rest, err := parseFlags(e, fs, simUsage, args)
	if err != nil {
		return nil, err
	}
	o.Runs, o.Seed, o.Out, o.Workers = *runs, *seed, *out, *workers
	if len(rest) > 0 {
		return nil, badInput("unexpected argument %s", quote.Q(rest[0]))
	}

	c := def
	if *nodes, err = lockNodes(fs, *nodes); err != nil {
		return nil, err
	}
	c.Clients, c.Sections, c.Retries, c.Nodes = *clients, *sections, *retries, *nodes
	c.TTL, c.Margin, c.Think, c.LockDelay, c.Backoff = *ttl, *margin, *think, *lockDelay, *backoff
	c.Latency, c.Jitter, c.Reorder = *latency, *jitter, *reorder
	c.MaxFaults = *maxFaults
	// The fault bounds: the defaults for the TTL given, then each bound
	// given as given — 0 is zero, never "the default".
	c = c.DefaultFaultBounds()
	if given(fs, "max-pause") {
		c.MaxPause = *maxPause
	}
	if given(fs, "max-jump") {
		c.MaxJump = *maxJump
	}
	if given(fs, "max-delay") {
		if *maxDelay < c.OneWay() {
			return nil, badInput("max-delay (%v) must be at least the network's one-way delay, processing + latency + jitter (%v)", *maxDelay, c.OneWay())
		}
		c.MaxSpike = *maxDelay - c.OneWay()
		if c.MaxSpike > sim.MaxFaultLength {
			return nil, badInput("max-delay must be at most %v (processing + latency + jitter + %v), got %v", c.OneWay()+sim.MaxFaultLength, sim.MaxFaultLength, *maxDelay)
		}
	}
	// ParseDrift has judged the range: the fraction becomes parts per million.
	c.MaxDriftPPM = int64(math.Round(float64(*maxDrift) * 1e6))
	if c.Validity, err = impl.ParseValidityRule(*validity); err != nil {
		return nil, badInput("%v", err)
	}
	if c.Faults, err = sim.ParseFaults(*faults); err != nil {
		return nil, badInput("%v", err)
	}
	if o.Designs, err = impl.ParseDesigns(*fencing); err != nil {
		return nil, badInput("%v", err)
	}
	if err := o.CheckCounts(); err != nil {
		return nil, err
	}
	if err := impl.DurationBetween("porcupine-timeout", o.Porcupine, time.Nanosecond, impl.MaxDuration); err != nil {
		return nil, badInput("%v", err)
	}
	if o.Shard, err = shardRun(fs, "sim", *shardValue); err != nil {
		return nil, err
	}
	// A design's folder (a shard's result folder) is replaced at the end:
	// one holding a user's file is refused now, before the work, not after it.
	checkOut := pipeline.CheckSimOut
	if o.Shard != nil {
		checkOut = pipeline.CheckSimShardOut
	}
	if err := checkOut(o.Out); err != nil {
		return nil, err
	}
	for _, d := range o.Designs {
		if len(o.Designs) == 1 {
			// Asked of one row alone, --nodes must suit it.
			c.Design = d
		}
		if err := c.Config.ForDesign(d).Validate(); err != nil && len(o.Designs) > 1 {
			return nil, badInput("%v", err)
		}
	}
	check := c
	if len(o.Designs) > 1 {
		// Of several rows, --nodes is the Redlock rows' (ForDesign), each
		// row checked above: the rest is checked as the first row's.
		check.Config = c.Config.ForDesign(o.Designs[0])
	}
	if err := check.Validate(); err != nil {
		return nil, badInput("%v", err)
	}
	o.Cfg = c
	o.ReplayFlags = replayFlags(fs)
	// Each of these asks for one run; given empty it would be taken as
	// not given, and a whole batch would run instead of the one run asked.
	for _, f := range []struct{ name, want string }{
		{"worst-case", "name a property (AtMostOneClientHoldLock or NoLostUpdate)"},
		{"schedule", "name a schedule file"},
		{"replay", "name a seed"},
	} {
		if given(fs, f.name) && strings.TrimSpace(fs.Lookup(f.name).Value.String()) == "" {
			return nil, badInput("--%s is empty: %s", f.name, f.want)
		}
	}
	if *replay != "" {
		seed, err := strconv.ParseUint(*replay, 10, 64)
		if err != nil {
			return nil, badInput("replay: %s is not a seed (a non-negative integer)", quote.Q(*replay))
		}
		o.Replay = &seed
	}
	return o, o.CheckModes()
}

func runSim(e *env, args []string) error {
	o, err := parseSimFlags(e, args)
	if err != nil {
		return err
	}
	return pipeline.Sim(&e.Env, o)
}

// replayFlags are the flags a replay command must repeat: every flag the
// user set except those that choose runs, outputs or modes, in flag order
// (fs.Visit is sorted by name), so the command is the same every time.
func replayFlags(fs *flag.FlagSet) []string {
	skip := map[string]bool{"runs": true, "seed": true, "workers": true, "out": true, "npc": true,
		"shrink": true, "replay": true, "schedule": true, "worst-case": true, "design": true, "porcupine-timeout": true, "shard": true}
	var out []string
	fs.Visit(func(f *flag.Flag) {
		if !skip[f.Name] {
			out = append(out, fmt.Sprintf("--%s %s", f.Name, pipeline.ShellQuote(f.Value.String())))
		}
	})
	return out
}
