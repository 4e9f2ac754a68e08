package pipeline

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"path/filepath"
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

// SimOptions are what fencelab sim runs: the simulator's configuration,
// the designs, the runs and their seeds, where the files go, and the mode
// (a batch; one run of Replay, Schedule or WorstCase; the NPC table).
type SimOptions struct {
	Cfg       sim.Config
	Designs   []impl.Design
	Runs      int
	Seed      uint64
	Workers   int
	Out       string
	Replay    *uint64
	Schedule  string
	WorstCase string
	Shrink    bool
	NPC       bool
	Porcupine time.Duration
	// Shard, when set, runs only its part of the batch's runs and saves
	// them for fencelab merge (MergeSim) instead of reporting the batch.
	Shard *ShardRun
	// ReplayFlags are the flags a printed replay command repeats: every
	// flag the user set but those that choose runs, outputs or modes, in
	// flag order, so that the command is the same every time.
	ReplayFlags []string
}

// Bounds of the counts fencelab sim takes besides impl.Config's: a
// billion runs is hours, and more workers than this only wait.
const (
	MaxSimRuns = 1_000_000_000
	MaxWorkers = 1024
)

// CheckCounts refuses runs, seeds and workers out of bounds (bad input).
func (o *SimOptions) CheckCounts() error {
	switch {
	case o.Runs < 1:
		return BadInput("runs must be positive, got %d", o.Runs)
	case o.Runs > MaxSimRuns:
		return BadInput("runs must be at most %d, got %d", MaxSimRuns, o.Runs)
	case o.Seed > math.MaxUint64-uint64(o.Runs-1):
		return BadInput("seed %d + runs %d passes the largest seed, %d", o.Seed, o.Runs, uint64(math.MaxUint64))
	case o.Workers < 1:
		return BadInput("workers must be positive, got %d", o.Workers)
	case o.Workers > MaxWorkers:
		return BadInput("workers must be at most %d, got %d", MaxWorkers, o.Workers)
	}
	return nil
}

// CheckModes refuses modes that cannot run together (bad input): one run
// (--replay, --schedule, --worst-case) of one design, a batch, the NPC
// table or a shard.
func (o *SimOptions) CheckModes() error {
	one := o.Replay != nil || o.Schedule != "" || o.WorstCase != ""
	switch {
	case o.Replay != nil && o.Schedule != "":
		return BadInput("--replay and --schedule are exclusive: a schedule file carries its own seed")
	case o.WorstCase != "" && (o.Replay != nil || o.Schedule != ""):
		return BadInput("--worst-case builds its own schedule: it cannot be combined with --replay or --schedule")
	case o.WorstCase != "" && o.Shrink:
		return BadInput("--worst-case is already minimal: it cannot be combined with --shrink")
	case one && o.NPC:
		return BadInput("--npc runs many runs; it cannot be combined with --replay or --schedule")
	case o.NPC && o.Shrink:
		return BadInput("--shrink cannot be combined with --npc")
	case o.Shard != nil && (one || o.NPC):
		return BadInput("--shard splits a batch of runs: it cannot be combined with --replay, --schedule, --worst-case or --npc")
	case one && len(o.Designs) != 1:
		return BadInput("--replay, --schedule and --worst-case run one run: name one design with --design (%s)", impl.Flags())
	}
	return nil
}

// CheckSimOut refuses, before any work, an --out of fencelab sim that
// cannot be written, or whose design folders, replaced at the end, hold a
// file fencelab sim did not write.
func CheckSimOut(out string) error {
	if err := CheckOutDir("out", out); err != nil {
		return err
	}
	for _, d := range impl.Designs() {
		if err := simOwner().Check(filepath.Join(out, d.String())); err != nil {
			return BadInput("--out %s: %v", quote.S(out), err)
		}
	}
	return nil
}

// Sim runs o: one run, the NPC table, or a batch with each design's first
// failing run shrunk and saved.
func Sim(e *Env, o *SimOptions) error {
	switch {
	case o.Replay != nil || o.Schedule != "" || o.WorstCase != "":
		return simOne(e, o)
	case o.NPC:
		return simNPC(e, o)
	}
	return simBatch(e, o)
}

// config is o's configuration for design d.
func (o *SimOptions) config(d impl.Design) sim.Config {
	c := o.Cfg
	c.Config = c.Config.ForDesign(d)
	return c
}

func (o *SimOptions) replayCommand(d impl.Design, how string) string {
	parts := append([]string{"fencelab sim --design", d.String(), how}, o.ReplayFlags...)
	return strings.Join(parts, " ")
}

// ShellQuote quotes s for a POSIX shell when it needs quoting.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.,/:+=", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func (o *SimOptions) batch(faults sim.FaultKinds, progress func(int)) sim.Batch {
	c := o.Cfg
	c.Faults = faults
	return sim.Batch{Config: c, Designs: o.Designs, Seed: o.Seed, Runs: o.Runs, Workers: o.Workers, Porcupine: o.Porcupine, Progress: progress}
}

func (o *SimOptions) writeHeader(w io.Writer, faults string) {
	c := o.Cfg
	links := "FIFO links"
	if c.Reorder {
		links = "links may reorder"
	}
	// Three short lines rather than two long ones: no line of the output
	// is wider than report.MaxWidth.
	fmt.Fprintf(w, "fencelab sim: %s per design (seeds %d–%d), %s × %s\n",
		words.Count(o.Runs, "run"), o.Seed, o.Seed+uint64(o.Runs)-1, words.Count(c.Clients, "client"), words.Count(c.Sections, "section"))
	fmt.Fprintf(w, "faults %s; ttl %v, margin %v counted from the %s\n", faults, c.TTL, c.Margin, validityFrom(c.Validity))
	fmt.Fprintf(w, "think %v, lock-delay %v, backoff %v, latency %v + jitter %v, %s\n", c.Think, c.LockDelay, c.Backoff, c.Latency, c.Jitter, links)
	for _, d := range o.Designs {
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

func simBatch(e *Env, o *SimOptions) error {
	b := o.batch(o.Cfg.Faults, nil)
	if o.Shard != nil {
		lo, hi := o.Shard.Spec.Range(o.Runs)
		b.Seed, b.Runs = o.Seed+uint64(lo), hi-lo
	}
	progress, done := NewProgress(e, b.Runs*len(o.Designs), "sim")
	b.Progress = progress
	start := time.Now()
	sum := b.EmptySummary()
	var err error
	if b.Runs > 0 {
		sum, err = b.Run()
	}
	done()
	if err != nil {
		return BadInput("%v", err)
	}
	sum.WriteSpeed(e.Stderr, time.Since(start))
	if o.Shard != nil {
		return o.saveShard(e, sum)
	}
	return o.report(e, sum)
}

// report prints the batch's table, first seeds and verdicts, and shrinks
// and saves each design's first failing run: the same for a batch run on
// one machine and for one merged from its shards.
func (o *SimOptions) report(e *Env, sum *sim.Summary) error {
	o.writeHeader(e.Stdout, sum.Faults.String())
	if err := report.SimTable(e.Stdout, sum); err != nil {
		return err
	}
	fmt.Fprintln(e.Stdout)
	if err := report.FirstSeeds(e.Stdout, sum); err != nil {
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
func (o *SimOptions) firstFailures(e *Env, sum *sim.Summary) error {
	w := e.Stdout
	st, err := newSimStage(e.Disk, o.Out)
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
		whole, err := sim.NewReplay(c, sim.Generate(seed, c), o.Porcupine)
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
		folder, err := st.dir(d.Design.String())
		if err != nil {
			return err
		}
		files, err := rp.Artifacts(folder)
		if err != nil {
			return CouldNotSave(err)
		}
		dir := filepath.Join(o.Out, d.Design.String())
		fmt.Fprintf(w, "          files:  %s/{%s}\n", dir, strings.Join(files, ","))
		if rp != whole {
			fmt.Fprintf(w, "          replay: %s\n", o.replayCommand(d.Design, "--schedule "+ShellQuote(filepath.Join(dir, "schedule.json"))))
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
func (o *SimOptions) focusedSeed(c sim.Config, first uint64) (uint64, error) {
	r, err := sim.NewRunner(c)
	if err != nil {
		return 0, err
	}
	end := o.Seed + uint64(o.Runs)
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
func (o *SimOptions) shrinkReplay(w io.Writer, c sim.Config, rp *sim.Replay) (*sim.Replay, bool, error) {
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
	out, err := sim.NewReplay(c, small, o.Porcupine)
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
func simOne(e *Env, o *SimOptions) error {
	c := o.config(o.Designs[0])
	var sched *sim.Schedule
	var derived *bounds.Verdict // the derivation's verdict on --worst-case's property
	faults := c.Faults
	switch {
	case o.WorstCase != "":
		b := c.Assumptions()
		wc, err := sim.NewWorstCase(c, b, o.WorstCase)
		if err != nil {
			return BadInput("worst-case: %v", err)
		}
		verdicts, err := bounds.Check(b)
		if err != nil {
			return BadInput("worst-case: %v", err)
		}
		for _, v := range verdicts {
			if v.Property != o.WorstCase {
				continue
			}
			derived = &v
			safe := "unsafe: the slack is not positive"
			if v.Safe {
				safe = "safe"
			}
			// The run's slack is the derived one plus the message legs the
			// derivation takes as instantaneous but the simulator cannot.
			fmt.Fprintf(e.Stdout, "worst case of %s under %s\nderived slack %v (%s); this run's slack %v\n\n", o.WorstCase, b, v.Slack, safe, wc.Slack)
		}
		c, sched, faults = wc.Config, wc.Schedule, wc.Schedule.Kinds()
	case o.Replay != nil:
		sched = sim.Generate(*o.Replay, c)
	default:
		data, err := ReadInput("--schedule", o.Schedule, inputfile.MaxText)
		if err != nil {
			return err
		}
		sched, err = sim.ReadSchedule(bytes.NewReader(data), c)
		if err != nil {
			return BadInput("--schedule %s: %v", quote.S(o.Schedule), err)
		}
		faults = sched.Kinds()
	}
	rp, err := sim.NewReplay(c, sched, o.Porcupine)
	if err != nil {
		return BadInput("%v", err)
	}
	if err := rp.WriteTimeline(e.Stdout); err != nil {
		return err
	}
	st, err := newSimStage(e.Disk, o.Out)
	if err != nil {
		return err
	}
	defer st.abandon()
	dir := filepath.Join(o.Out, c.Design.String())
	folder, err := st.dir(c.Design.String())
	if err != nil {
		return err
	}
	files, err := rp.Artifacts(folder)
	if err != nil {
		return CouldNotSave(err)
	}
	fmt.Fprintf(e.Stdout, "\nfiles: %s/{%s}\n", dir, strings.Join(files, ","))
	if o.Shrink {
		fmt.Fprintln(e.Stdout)
		small, ok, err := o.shrinkReplay(e.Stdout, c, rp)
		if err != nil {
			return err
		}
		if ok {
			path := filepath.Join(dir, "shrunk-schedule.json")
			if err := folder.WriteFile("shrunk-schedule.json", small.Schedule.WriteJSON); err != nil {
				return CouldNotSave(err)
			}
			fmt.Fprintf(e.Stdout, "          saved:  %s\n", path)
			fmt.Fprintf(e.Stdout, "          replay: %s\n", o.replayCommand(c.Design, "--schedule "+ShellQuote(path)))
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
func sayWorstCase(e *Env, d impl.Design, v bounds.Verdict, violated bool, unexpected []string) error {
	if len(unexpected) > 0 {
		return sayVerdicts(e, unexpected, nil, false)
	}
	w := e.Stdout
	fenced := d.Mode() == impl.FenceAll || d.Mode() == impl.FenceCAS || d.Mode() == impl.FenceVersion || d.Mode() == impl.FenceSequencer
	switch {
	case v.Safe && !violated:
		fmt.Fprintf(w, "\nHeld, as derived: these bounds keep %s in design %s (derived slack %v), as long as they hold.\n", v.Property, d, v.Slack)
	case v.Safe && violated:
		return Failed("the worst case violated %s inside the derived boundary (slack %v): a contradiction of DESIGN.md's condition", v.Property, v.Slack)
	case violated:
		fmt.Fprintf(w, "\nViolated, as derived: these bounds do not keep %s in design %s (derived slack %v).\n", v.Property, d, v.Slack)
	case fenced && v.Property == impl.NoLostUpdate:
		fmt.Fprintf(w, "\nHeld: outside the derived boundary (slack %v) two clients believe at once, and design %s's fencing refuses the stale write.\n", v.Slack, d)
	default:
		fmt.Fprintf(w, "\nHeld, though outside the derived boundary (slack %v): the simulator cannot make every message leg instantaneous, so it falls short of the bound by up to a few milliseconds (README: the sweep).\n", v.Slack)
	}
	return nil
}

func simNPC(e *Env, o *SimOptions) error {
	progress, done := NewProgress(e, o.Runs*len(o.Designs)*len(sim.Singles()), "npc")
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
	total.WriteSpeed(e.Stderr, wall)
	o.writeHeader(e.Stdout, "each kind alone (the NPC table)")
	if err := report.NPCTable(e.Stdout, sums); err != nil {
		return err
	}
	// DESIGN.md's table is about every fault kind together: that one kind
	// alone does not break a property is a finding of the NPC table, not a
	// contradiction, so it is said and does not fail.
	if len(notFound) > 0 {
		fmt.Fprintln(e.Stdout, "\nNot found with one fault kind alone (DESIGN.md expects them with every kind together):")
		for _, n := range notFound {
			fmt.Fprintf(e.Stdout, "  · %s\n", n)
		}
	}
	return sayVerdicts(e, unexpected, nil, false)
}

// npcSummaries runs the batch once per fault kind alone: the NPC table.
func (o *SimOptions) npcSummaries(progress func(int)) ([]*sim.Summary, error) {
	var sums []*sim.Summary
	for _, k := range sim.Singles() {
		sum, err := o.batch(k, progress).Run()
		if err != nil {
			return nil, BadInput("%v", err)
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
func sayVerdicts(e *Env, unexpected, notFound []string, all bool) error {
	w := e.Stdout
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
		return Failed("%s, %s not found (see above)", words.Count(len(unexpected), "unexpected verdict"), words.Count(len(notFound), "expected violation"))
	case len(unexpected) > 0:
		return Failed("%s (see above)", words.Count(len(unexpected), "unexpected verdict"))
	}
	return Failed("%s not found (see above)", words.Count(len(notFound), "expected violation"))
}

// sayOneRun prints how one run compares with DESIGN.md's table. One run
// cannot confirm the table, only contradict it: what it did not show is
// said, and exits 1 only if something contradicts the table.
func sayOneRun(e *Env, unexpected, notFound []string) error {
	w := e.Stdout
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
