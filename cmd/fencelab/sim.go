package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fencelab/fencelab/bounds"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/inputfile"
	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/internal/words"
	"github.com/fencelab/fencelab/report"
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

// Bounds of the counts sim takes besides impl.Config's: a billion runs is
// hours, and more workers than this only wait.
const (
	maxRuns    = 1_000_000_000
	maxWorkers = 1024
)

// simOptions are the parsed flags of fencelab sim.
type simOptions struct {
	cfg       sim.Config
	designs   []impl.Design
	runs      int
	seed      uint64
	workers   int
	out       string
	replay    *uint64
	schedule  string
	worstCase string
	shrink    bool
	npc       bool
	porcupine time.Duration
	fs        *flag.FlagSet
}

func parseSimFlags(e *env, args []string) (*simOptions, error) {
	def := sim.DefaultConfig()
	fs := newFlagSet("sim")
	o := &simOptions{fs: fs}
	fs.IntVar(&o.runs, "runs", 1000, "runs per design")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the first run; run i uses seed+i")
	clients := fs.Int("clients", def.Clients, "clients contending for the lock")
	sections := fs.Int("sections", def.Sections, "critical sections per client (acquire, read, think, write read+1, release)")
	retries := fs.Int("retries", def.Retries, "rejections per section before a client gives it up")
	nodes := nodesFlag(fs, impl.DesignRedlock.DefaultNodes(), "independent lock nodes of the Redlock rows, 1 to 9 (Redlock's 5 unless given); the other rows have one service")
	fencing := fs.String("design", "", "designs to run, comma-separated rows of the matrix: "+impl.Flags()+" (fencelab designs lists them; default every design side by side)")
	faults := fs.String("faults", def.Faults.String(), "fault kinds a seed may draw: any of delay, pause, drift (comma-separated), or none; the rows whose service restarts draw its crashes too under any setting but none (crash: crashes alone)")
	ttl := fs.Duration("ttl", def.TTL, "lease TTL at the service")
	margin := fs.Duration("margin", def.Margin, "safety margin: a client believes in its lease for ttl-margin of its own clock; it covers a clock rate drift of ±d when margin ≥ ttl·2d/(1+d)")
	validity := fs.String("validity", def.Validity.String(), "when that window starts: send (when the client sends the acquire; a grant that lands after it is given back, Redlock's rule) or arrival (when the grant lands: the flaw, a late grant outlives its lease)")
	think := fs.Duration("think", def.Think, "time between reading the counter and writing read+1")
	lockDelay := fs.Duration("lock-delay", def.LockDelay, "time after an expiry before the lock is granted again (0: none)")
	backoff := fs.Duration("backoff", def.Backoff, "mean retry backoff after a rejection (drawn from [b/2, 3b/2])")
	latency := fs.Duration("latency", def.Latency, "base one-way message latency")
	jitter := fs.Duration("jitter", def.Jitter, "latency jitter: up to this much is added to each message")
	reorder := fs.Bool("reorder", false, "let messages overtake each other on a link (default FIFO links)")
	maxFaults := fs.Int("max-faults", def.MaxFaults, "faults of each kind per run, at most")
	maxPause := fs.Duration("max-pause", def.MaxPause, "longest process pause P (unless given, 3×ttl; 0: no pauses)")
	maxDelay := fs.Duration("max-delay", def.OneWay()+def.MaxSpike, "longest one-way message delay D, from the step that sends it: processing + latency + jitter + the longest spike (unless given, processing + latency + jitter + 3×ttl; processing + latency + jitter: no spikes)")
	maxJump := fs.Duration("max-jump", def.MaxJump, "largest clock step J, forward or back (unless given, 2×ttl; 0: no steps)")
	maxDrift := driftFlag(fs, float64(def.MaxDriftPPM)/1e6, "largest clock rate error `ρ` (0.1: clocks run at 0.9× to 1.1×; 0: no drift)")
	fs.StringVar(&o.out, "out", filepath.Join("out", "sim"), "folder for each design's first failing run, shrunk (or the run of --replay/--schedule): its trace files, run summary, schedule and Porcupine page")
	fs.IntVar(&o.workers, "workers", runtime.GOMAXPROCS(0), "goroutines running runs (results do not depend on it)")
	replay := fs.String("replay", "", "run only seed `SEED` (with one --design), print its timeline and write its files to --out")
	fs.StringVar(&o.worstCase, "worst-case", "", "run the adversarial schedule of the fault bounds for `PROPERTY` (AtMostOneClientHoldLock or NoLostUpdate; one --design): 2 clients, 1 section, the worst case of DESIGN.md's derivation")
	fs.StringVar(&o.schedule, "schedule", "", "run the fault schedule in `FILE` (with one --design), print its timeline and write its files to --out")
	fs.BoolVar(&o.shrink, "shrink", false, "with --replay or --schedule: shrink the run's failing schedule and save it (a batch always shrinks each design's first failing run)")
	fs.BoolVar(&o.npc, "npc", false, "print the NPC table: every design under each fault kind alone")
	fs.DurationVar(&o.porcupine, "porcupine-timeout", 10*time.Second, "time limit of one Porcupine check (a run that hits it counts as unknown)")
	rest, err := parseFlags(e, fs, simUsage, args)
	if err != nil {
		return nil, err
	}
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
	if o.designs, err = parseDesigns(*fencing); err != nil {
		return nil, badInput("%v", err)
	}
	switch {
	case o.runs < 1:
		return nil, badInput("runs must be positive, got %d", o.runs)
	case o.runs > maxRuns:
		return nil, badInput("runs must be at most %d, got %d", maxRuns, o.runs)
	case o.seed > math.MaxUint64-uint64(o.runs-1):
		return nil, badInput("seed %d + runs %d passes the largest seed, %d", o.seed, o.runs, uint64(math.MaxUint64))
	case o.workers < 1:
		return nil, badInput("workers must be positive, got %d", o.workers)
	case o.workers > maxWorkers:
		return nil, badInput("workers must be at most %d, got %d", maxWorkers, o.workers)
	}
	if err := impl.DurationBetween("porcupine-timeout", o.porcupine, time.Nanosecond, impl.MaxDuration); err != nil {
		return nil, badInput("%v", err)
	}
	if err := checkOutDir("out", o.out); err != nil {
		return nil, err
	}
	// A design's folder is replaced at the end: one holding a user's
	// file is refused now, before the work, not after it.
	for _, d := range impl.Designs() {
		if err := checkOwn(filepath.Join(o.out, d.String())); err != nil {
			return nil, badInput("--out %s: %v", quote.S(o.out), err)
		}
	}
	for _, d := range o.designs {
		if len(o.designs) == 1 {
			// Asked of one row alone, --nodes must suit it.
			c.Design = d
		}
		if err := c.Config.ForDesign(d).Validate(); err != nil && len(o.designs) > 1 {
			return nil, badInput("%v", err)
		}
	}
	check := c
	if len(o.designs) > 1 {
		// Of several rows, --nodes is the Redlock rows' (ForDesign), each
		// row checked above: the rest is checked as the first row's.
		check.Config = c.Config.ForDesign(o.designs[0])
	}
	if err := check.Validate(); err != nil {
		return nil, badInput("%v", err)
	}
	o.cfg = c
	if *replay != "" {
		seed, err := strconv.ParseUint(*replay, 10, 64)
		if err != nil {
			return nil, badInput("replay: %s is not a seed (a non-negative integer)", quote.Q(*replay))
		}
		o.replay = &seed
	}
	one := o.replay != nil || o.schedule != "" || o.worstCase != ""
	switch {
	case o.replay != nil && o.schedule != "":
		return nil, badInput("--replay and --schedule are exclusive: a schedule file carries its own seed")
	case o.worstCase != "" && (o.replay != nil || o.schedule != ""):
		return nil, badInput("--worst-case builds its own schedule: it cannot be combined with --replay or --schedule")
	case o.worstCase != "" && o.shrink:
		return nil, badInput("--worst-case is already minimal: it cannot be combined with --shrink")
	case one && o.npc:
		return nil, badInput("--npc runs many runs; it cannot be combined with --replay or --schedule")
	case o.npc && o.shrink:
		return nil, badInput("--shrink cannot be combined with --npc")
	case one && len(o.designs) != 1:
		return nil, badInput("--replay, --schedule and --worst-case run one run: name one design with --design (%s)", impl.Flags())
	}
	return o, nil
}

// parseDesigns reads --design: empty for every design, else a comma-separated
// list, each at most once, kept in table order.
func parseDesigns(s string) ([]impl.Design, error) {
	if strings.TrimSpace(s) == "" {
		return impl.Designs(), nil
	}
	var ds []impl.Design
	for _, part := range strings.Split(s, ",") {
		d, err := impl.ParseDesign(strings.TrimSpace(part))
		if err != nil {
			return nil, err
		}
		if !slices.Contains(ds, d) {
			ds = append(ds, d)
		}
	}
	slices.Sort(ds)
	return ds, nil
}

func runSim(e *env, args []string) error {
	o, err := parseSimFlags(e, args)
	if err != nil {
		return err
	}
	switch {
	case o.replay != nil || o.schedule != "" || o.worstCase != "":
		return simOne(e, o)
	case o.npc:
		return simNPC(e, o)
	}
	return simBatch(e, o)
}

// config is o's configuration for design d.
func (o *simOptions) config(d impl.Design) sim.Config {
	c := o.cfg
	c.Config = c.Config.ForDesign(d)
	return c
}

// replayFlags are the flags a replay command must repeat: every flag the
// user set except those that choose runs, outputs or modes, in flag order
// (fs.Visit is sorted by name), so the command is the same every time.
func (o *simOptions) replayFlags() []string {
	skip := map[string]bool{"runs": true, "seed": true, "workers": true, "out": true, "npc": true,
		"shrink": true, "replay": true, "schedule": true, "worst-case": true, "design": true, "porcupine-timeout": true}
	var out []string
	o.fs.Visit(func(f *flag.Flag) {
		if !skip[f.Name] {
			out = append(out, fmt.Sprintf("--%s %s", f.Name, shellQuote(f.Value.String())))
		}
	})
	return out
}

func (o *simOptions) replayCommand(d impl.Design, how string) string {
	parts := append([]string{"fencelab sim --design", d.String(), how}, o.replayFlags()...)
	return strings.Join(parts, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.,/:+=", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func (o *simOptions) batch(faults sim.FaultKinds, progress func(int)) sim.Batch {
	c := o.cfg
	c.Faults = faults
	return sim.Batch{Config: c, Designs: o.designs, Seed: o.seed, Runs: o.runs, Workers: o.workers, Porcupine: o.porcupine, Progress: progress}
}

func (o *simOptions) writeHeader(w io.Writer, faults string) {
	c := o.cfg
	links := "FIFO links"
	if c.Reorder {
		links = "links may reorder"
	}
	// Three short lines rather than two long ones: no line of the output
	// is wider than report.MaxWidth.
	fmt.Fprintf(w, "fencelab sim: %s per design (seeds %d–%d), %s × %s\n",
		words.Count(o.runs, "run"), o.seed, o.seed+uint64(o.runs)-1, words.Count(c.Clients, "client"), words.Count(c.Sections, "section"))
	fmt.Fprintf(w, "faults %s; ttl %v, margin %v counted from the %s\n", faults, c.TTL, c.Margin, validityFrom(c.Validity))
	fmt.Fprintf(w, "think %v, lock-delay %v, backoff %v, latency %v + jitter %v, %s\n", c.Think, c.LockDelay, c.Backoff, c.Latency, c.Jitter, links)
	for _, d := range o.designs {
		if own := (impl.Config{Design: d, TTL: c.TTL, LockDelay: c.LockDelay}).ServiceLockDelay(); own != c.LockDelay {
			fmt.Fprintf(w, "design %s: its service's own lock-delay, %v\n", d, own)
		}
	}
	fmt.Fprintln(w)
}

// validityFrom names the moment a client's validity window starts.
func validityFrom(v impl.ValidityRule) string {
	if v == impl.ValidityArrival {
		return "grant's arrival"
	}
	return "acquire's send"
}

func simBatch(e *env, o *simOptions) error {
	progress, done := newProgress(e, o.runs*len(o.designs), "sim")
	start := time.Now()
	sum, err := o.batch(o.cfg.Faults, progress).Run()
	done()
	if err != nil {
		return badInput("%v", err)
	}
	sum.WriteSpeed(e.stderr, time.Since(start))
	o.writeHeader(e.stdout, sum.Faults.String())
	if err := report.SimTable(e.stdout, sum); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout)
	if err := report.FirstSeeds(e.stdout, sum); err != nil {
		return err
	}
	if err := o.firstFailures(e, sum); err != nil {
		return err
	}
	return sayVerdicts(e, sum.Unexpected(), sum.NotFound(), true)
}

// firstFailures shrinks each design's first failing run, writes the files
// of the shrunk run (its trace focused on the violation, run.txt, its
// schedule, Porcupine's page) and prints where they are and how to replay
// both the whole run and the shrunk one. The files are written to a
// staging folder and renamed into place, so that --out holds this
// invocation's files and nothing else: the folder of a design with no
// failing run is removed, not left from an earlier invocation.
func (o *simOptions) firstFailures(e *env, sum *sim.Summary) error {
	w := e.stdout
	st, err := newStage(e.disk, o.out)
	if err != nil {
		return err
	}
	defer st.abandon()
	fmt.Fprintf(w, "\nFirst failing run of each design, shrunk, its pictures focused on the violation\n(files: trace, run summary, schedule and Porcupine page):\n")
	for _, d := range sum.Designs {
		if !d.FirstFailing.Ok {
			fmt.Fprintf(w, "  %-7s no run failed\n", d.Design)
			continue
		}
		c := o.config(d.Design)
		seed, err := o.focusedSeed(c, d.FirstFailing.Seed)
		if err != nil {
			return err
		}
		whole, err := sim.NewReplay(c, sim.Generate(seed, c), o.porcupine)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  %-7s seed %d: %s\n", d.Design, seed, failureName(&whole.Result))
		if seed != d.FirstFailing.Seed {
			fmt.Fprintf(w, "          (seed %d's shrunk run kept a fault on a client the violation does not involve)\n", d.FirstFailing.Seed)
		}
		fmt.Fprintf(w, "          replay: %s\n", o.replayCommand(d.Design, fmt.Sprintf("--replay %d", seed)))
		rp := whole
		if small, ok, err := o.shrinkReplay(w, c, whole); err != nil {
			return err
		} else if ok {
			rp = small
		}
		files, err := rp.Artifacts(st.dir(d.Design.String()))
		if err != nil {
			return couldNotSave(err)
		}
		dir := filepath.Join(o.out, d.Design.String())
		fmt.Fprintf(w, "          files:  %s/{%s}\n", dir, strings.Join(files, ","))
		if rp != whole {
			fmt.Fprintf(w, "          replay: %s\n", o.replayCommand(d.Design, "--schedule "+shellQuote(filepath.Join(dir, "schedule.json"))))
		}
	}
	return st.commit(designNames(impl.Designs()))
}

func designNames(ds []impl.Design) []string {
	var names []string
	for _, d := range ds {
		names = append(names, d.String())
	}
	return names
}

// maxFocusSeeds bounds the failing seeds focusedSeed shrinks.
const maxFocusSeeds = 5

// focusedSeed is the first failing seed, from first on within the batch's
// seeds, whose shrunk schedule faults only clients its violation involves
// (sim.Runner.Shrink drops the others where it can; a few runs need what
// such a fault did to another client's timing): at most maxFocusSeeds
// failing seeds are shrunk, and first is kept when none is focused.
func (o *simOptions) focusedSeed(c sim.Config, first uint64) (uint64, error) {
	r, err := sim.NewRunner(c)
	if err != nil {
		return 0, err
	}
	end := o.seed + uint64(o.runs)
	tried := 0
	for seed := first; seed < end && tried < maxFocusSeeds; seed++ {
		s := sim.Generate(seed, c)
		res := r.Run(s)
		fails := shrinkFailure(&res)
		if fails == nil {
			continue
		}
		tried++
		small, _ := r.Shrink(s, fails)
		if len(r.Uninvolved(small)) == 0 {
			return seed, nil
		}
	}
	return first, nil
}

// shrinkFailure is the failure a run's shrink keeps: its headline
// property (with a fenced operation, when the run fenced one), else its
// stall; nil for a run that neither violates nor stalls.
func shrinkFailure(res *sim.Result) sim.Failure {
	target := sim.Headline(res)
	switch {
	case target != "" && res.Fenced > 0:
		// Keep what fencing did: the shrunk run still shows the resource
		// rejecting a stale operation.
		return sim.ViolatesFenced(target)
	case target != "":
		return sim.Violates(target)
	case res.Stall != "":
		return sim.Stalls()
	}
	return nil
}

// shrinkReplay shrinks a failing replay's schedule for its headline
// failure, prints the shrunk faults, and returns the shrunk run retold;
// ok is false when there is nothing to shrink.
func (o *simOptions) shrinkReplay(w io.Writer, c sim.Config, rp *sim.Replay) (*sim.Replay, bool, error) {
	fails := shrinkFailure(&rp.Result)
	if fails == nil {
		fmt.Fprintln(w, "          shrink: nothing to shrink, the run violates no property")
		return nil, false, nil
	}
	r, err := sim.NewRunner(c)
	if err != nil {
		return nil, false, err
	}
	small, tries := r.Shrink(rp.Schedule, fails)
	fmt.Fprintf(w, "          shrunk: %s → %d in %s, still %s\n", words.Count(len(rp.Schedule.Faults), "fault"), len(small.Faults), words.Count(tries, "run"), failureName(&rp.Result))
	for _, f := range small.Faults {
		if f.Kind == sim.FaultDrift {
			fmt.Fprintf(w, "            always  %s\n", f)
		} else {
			fmt.Fprintf(w, "            at %-7s %s\n", f.At, f)
		}
	}
	out, err := sim.NewReplay(c, small, o.porcupine)
	if err != nil {
		return nil, false, err
	}
	return out, true, nil
}

// failureName names how a run failed: its headline property, a stall, or
// a Porcupine verdict.
func failureName(res *sim.Result) string {
	if p := sim.Headline(res); p != "" {
		return p + " violated"
	}
	if res.Stall != "" {
		return "stall: " + res.Stall
	}
	return sim.PorcupineWords(res)
}

// simOne runs exactly one run, of --replay SEED or --schedule FILE, and
// prints its timeline.
func simOne(e *env, o *simOptions) error {
	c := o.config(o.designs[0])
	var sched *sim.Schedule
	var derived *bounds.Verdict // the derivation's verdict on --worst-case's property
	faults := c.Faults
	switch {
	case o.worstCase != "":
		b := c.Assumptions()
		wc, err := sim.NewWorstCase(c, b, o.worstCase)
		if err != nil {
			return badInput("worst-case: %v", err)
		}
		verdicts, err := bounds.Check(b)
		if err != nil {
			return badInput("worst-case: %v", err)
		}
		for _, v := range verdicts {
			if v.Property != o.worstCase {
				continue
			}
			derived = &v
			safe := "unsafe: the slack is not positive"
			if v.Safe {
				safe = "safe"
			}
			// The run's slack is the derived one plus the message legs the
			// derivation takes as instantaneous but the simulator cannot.
			fmt.Fprintf(e.stdout, "worst case of %s under %s\nderived slack %v (%s); this run's slack %v\n\n", o.worstCase, b, v.Slack, safe, wc.Slack)
		}
		c, sched, faults = wc.Config, wc.Schedule, wc.Schedule.Kinds()
	case o.replay != nil:
		sched = sim.Generate(*o.replay, c)
	default:
		data, err := readInput("--schedule", o.schedule, inputfile.MaxText)
		if err != nil {
			return err
		}
		sched, err = sim.ReadSchedule(bytes.NewReader(data), c)
		if err != nil {
			return badInput("--schedule %s: %v", quote.S(o.schedule), err)
		}
		faults = sched.Kinds()
	}
	rp, err := sim.NewReplay(c, sched, o.porcupine)
	if err != nil {
		return badInput("%v", err)
	}
	if err := rp.WriteTimeline(e.stdout); err != nil {
		return err
	}
	st, err := newStage(e.disk, o.out)
	if err != nil {
		return err
	}
	defer st.abandon()
	dir := filepath.Join(o.out, c.Design.String())
	files, err := rp.Artifacts(st.dir(c.Design.String()))
	if err != nil {
		return couldNotSave(err)
	}
	fmt.Fprintf(e.stdout, "\nfiles: %s/{%s}\n", dir, strings.Join(files, ","))
	if o.shrink {
		fmt.Fprintln(e.stdout)
		small, ok, err := o.shrinkReplay(e.stdout, c, rp)
		if err != nil {
			return err
		}
		if ok {
			path := filepath.Join(dir, "shrunk-schedule.json")
			if err := st.dir(c.Design.String()).WriteFile("shrunk-schedule.json", small.Schedule.WriteJSON); err != nil {
				return couldNotSave(err)
			}
			fmt.Fprintf(e.stdout, "          saved:  %s\n", path)
			fmt.Fprintf(e.stdout, "          replay: %s\n", o.replayCommand(c.Design, "--schedule "+shellQuote(path)))
		}
	}
	if err := st.commit([]string{c.Design.String()}); err != nil {
		return err
	}
	var d sim.DesignSummary
	d.Design = c.Design
	d.Add(&rp.Result)
	if derived != nil {
		return sayWorstCase(e, c.Design, *derived, rp.Result.Violated(derived.Property), d.Unexpected(faults))
	}
	return sayOneRun(e, d.Unexpected(faults), d.NotFound(faults))
}

// sayWorstCase ends a --worst-case run with what it shows beside the
// derivation: a run within the bounds is not expected to violate what
// they keep, so a safe worst case that held ends in a plain "held", not
// in a list of violations the run did not show.
func sayWorstCase(e *env, d impl.Design, v bounds.Verdict, violated bool, unexpected []string) error {
	if len(unexpected) > 0 {
		return sayVerdicts(e, unexpected, nil, false)
	}
	w := e.stdout
	fenced := d.Mode() == impl.FenceAll || d.Mode() == impl.FenceCAS || d.Mode() == impl.FenceVersion || d.Mode() == impl.FenceSequencer
	switch {
	case v.Safe && !violated:
		fmt.Fprintf(w, "\nHeld, as derived: these bounds keep %s in design %s (derived slack %v), as long as they hold.\n", v.Property, d, v.Slack)
	case v.Safe && violated:
		return failed("the worst case violated %s inside the derived boundary (slack %v): a contradiction of DESIGN.md's condition", v.Property, v.Slack)
	case violated:
		fmt.Fprintf(w, "\nViolated, as derived: these bounds do not keep %s in design %s (derived slack %v).\n", v.Property, d, v.Slack)
	case fenced && v.Property == impl.NoLostUpdate:
		fmt.Fprintf(w, "\nHeld: outside the derived boundary (slack %v) two clients believe at once, and design %s's fencing refuses the stale write.\n", v.Slack, d)
	default:
		fmt.Fprintf(w, "\nHeld, though outside the derived boundary (slack %v): the simulator cannot make every message leg instantaneous, so it falls short of the bound by up to a few milliseconds (README: the sweep).\n", v.Slack)
	}
	return nil
}

func simNPC(e *env, o *simOptions) error {
	progress, done := newProgress(e, o.runs*len(o.designs)*len(sim.Singles()), "npc")
	start := time.Now()
	sums, err := o.npcSummaries(progress)
	done()
	if err != nil {
		return err
	}
	wall := time.Since(start)
	total := &sim.Summary{}
	var unexpected, notFound []string
	for _, s := range sums {
		total.Designs = append(total.Designs, s.Designs...)
		unexpected = append(unexpected, s.Unexpected()...)
		for _, n := range s.NotFound() {
			notFound = append(notFound, s.Faults.String()+" only, "+n)
		}
	}
	total.WriteSpeed(e.stderr, wall)
	o.writeHeader(e.stdout, "each kind alone (the NPC table)")
	if err := report.NPCTable(e.stdout, sums); err != nil {
		return err
	}
	// DESIGN.md's table is about every fault kind together: that one kind
	// alone does not break a property is a finding of the NPC table, not a
	// contradiction, so it is said and does not fail.
	if len(notFound) > 0 {
		fmt.Fprintln(e.stdout, "\nNot found with one fault kind alone (DESIGN.md expects them with every kind together):")
		for _, n := range notFound {
			fmt.Fprintf(e.stdout, "  · %s\n", n)
		}
	}
	return sayVerdicts(e, unexpected, nil, false)
}

// npcSummaries runs the batch once per fault kind alone: the NPC table.
func (o *simOptions) npcSummaries(progress func(int)) ([]*sim.Summary, error) {
	var sums []*sim.Summary
	for _, k := range sim.Singles() {
		sum, err := o.batch(k, progress).Run()
		if err != nil {
			return nil, badInput("%v", err)
		}
		sums = append(sums, sum)
	}
	return sums, nil
}

// sayVerdicts prints how a batch compares with DESIGN.md's table: what
// contradicts it, what it expects violated but no run showed, or that
// every verdict is as expected. Either of the first two exits 1: an
// expected violation not found is not agreement (the runs were too few,
// or their faults too mild, to show it).
func sayVerdicts(e *env, unexpected, notFound []string, all bool) error {
	w := e.stdout
	if len(unexpected) == 0 && len(notFound) == 0 {
		if all {
			fmt.Fprintln(w, "\nEvery verdict is as DESIGN.md expects: every expected violation found, nothing else violated.")
		} else {
			fmt.Fprintln(w, "\nNothing violated that DESIGN.md expects to hold.")
		}
		return nil
	}
	if len(unexpected) > 0 {
		fmt.Fprintln(w, "\nUnexpected:")
		for _, u := range unexpected {
			fmt.Fprintf(w, "  ✗ %s\n", u)
		}
	}
	if len(notFound) > 0 {
		fmt.Fprintln(w, "\nExpected but not found (more runs, or other --faults, may show them):")
		for _, n := range notFound {
			fmt.Fprintf(w, "  ? %s\n", n)
		}
	}
	switch {
	case len(unexpected) > 0 && len(notFound) > 0:
		return failed("%s, %s not found (see above)", words.Count(len(unexpected), "unexpected verdict"), words.Count(len(notFound), "expected violation"))
	case len(unexpected) > 0:
		return failed("%s (see above)", words.Count(len(unexpected), "unexpected verdict"))
	}
	return failed("%s not found (see above)", words.Count(len(notFound), "expected violation"))
}

// sayOneRun prints how one run compares with DESIGN.md's table. One run
// cannot confirm the table, only contradict it: what it did not show is
// said, and exits 1 only if something contradicts the table.
func sayOneRun(e *env, unexpected, notFound []string) error {
	w := e.stdout
	if len(unexpected) > 0 {
		return sayVerdicts(e, unexpected, nil, false)
	}
	fmt.Fprintln(w, "\nNothing in this run contradicts DESIGN.md's table.")
	if len(notFound) > 0 {
		fmt.Fprintln(w, "Not shown by this one run (DESIGN.md expects them violated under faults):")
		for _, n := range notFound {
			fmt.Fprintf(w, "  · %s\n", n)
		}
	}
	return nil
}
