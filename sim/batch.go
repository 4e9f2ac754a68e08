package sim

import (
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/words"
	"github.com/fencelab/fencelab/linearizability"
	"github.com/fencelab/fencelab/verdict"
)

// Batch is many runs: seeds Seed, Seed+1, ..., Seed+Runs-1, each run once
// per design with the same schedule, so the designs face the very same
// faults side by side.
type Batch struct {
	Config Config
	// Designs, when set, runs every seed once per design, with Config's
	// Design replaced by each in turn; empty means Config.Design alone.
	Designs []impl.Design
	Seed    uint64
	Runs    int
	// Workers is how many goroutines run runs; 0 means GOMAXPROCS. A run
	// is single-threaded and deterministic, and results are merged in seed
	// order, so the summary does not depend on Workers.
	Workers int
	// Porcupine bounds each Porcupine check; 0 means
	// linearizability.DefaultTimeout.
	Porcupine time.Duration
	// Progress, if set, is called with the number of runs (seed × design)
	// just finished; calls may come from several goroutines at once.
	Progress func(runs int)

	// noMemo makes every worker's Checker judge every history afresh
	// (tests: the memory of verdicts changes no output); memo, if set,
	// receives the sum of the workers' Checkers' MemoStats (benchmarks).
	noMemo bool
	memo   *linearizability.MemoStats
}

// Summary is what a batch found, per design in Batch.Designs order.
type Summary struct {
	Faults  FaultKinds
	Designs []DesignSummary
}

// DesignSummary counts one design's runs; Verdicts says what they found
// about each property.
type DesignSummary struct {
	Design    impl.Design
	Runs      int
	Committed int // sections committed, over all runs
	// Witnessed counts the runs that reached VacuityWitness's goal.
	Witnessed  int
	violations [numProps]int
	firstSeed  [numProps]Seed // the lowest seed that violated each property
	Stalls     int
	FirstStall Seed
	// Porcupine: sections against an atomic counter, operations against
	// the fenced register.
	SectionsIllegal, SectionsUnknown int
	RegisterIllegal, RegisterUnknown int
	FirstRegisterIllegal             Seed
	// Disagree counts runs where NoLostUpdate and the sections' verdict
	// disagree (Unknown verdicts are not counted): a run violates
	// NoLostUpdate iff its section history is Illegal, so this is 0.
	Disagree      int
	FirstDisagree Seed
	// FirstFailing is the lowest seed of a run that failed in any way.
	FirstFailing Seed
	Steps        int64
	Virtual      time.Duration
	// porcupineRuns counts the runs whose history Porcupine judged.
	porcupineRuns int
}

// NoneCommitted is the Detail of a verdict left Unknown because no run
// reached VacuityWitness's goal, no section committed: a property no run
// violated holds vacuously when nothing happened (a resource that refuses
// everything, a service that never grants), and a vacuous holds is no
// holds.
const NoneCommitted = "no section committed"

// VacuityWitness is the witness of impl.Properties whose goal some run
// must reach for a holds to count: some section commits. Not every
// client committing every section (impl.NotEveryClientCommits): under
// faults clients give sections up, so runs that hold need not reach it.
const VacuityWitness = impl.NoSectionCommits

// Verdicts is what the runs found about each property of impl.Invariants,
// then about the Porcupine checks of their histories: Violated in
// Violating of Runs runs (Detail names the first seed), Holds in all Runs
// (Covered says how many runs and committed sections) if some section
// committed, Unknown (NoneCommitted) if none did, NotApplicable
// (TokenIsMonotonical without tokens), or for Porcupine Unknown when no
// run was illegal but some check timed out.
func (d *DesignSummary) Verdicts() verdict.Set {
	covered := fmt.Sprintf("%s, %s committed", words.Count(d.Runs, "run"), words.Count(d.Committed, "section"))
	var s verdict.Set
	for p, inv := range impl.Checked() {
		v := verdict.Verdict{Property: inv.Name, Covered: covered, Runs: d.Runs, Violating: d.violations[p]}
		switch {
		case !inv.AppliesTo(d.Design):
			v.Status = verdict.NotApplicable
		case d.Runs == 0:
			v.Status = verdict.NotChecked
		case v.Violating > 0:
			v.Status, v.Detail = verdict.Violated, "first seed "+d.firstSeed[p].String()
		case d.Witnessed == 0:
			v.Status, v.Detail = verdict.Unknown, NoneCommitted
		default:
			v.Status = verdict.Holds
		}
		s = append(s, v)
	}
	porcupine := func(property string, illegal, unknown int) verdict.Verdict {
		v := verdict.Verdict{Property: property, Covered: covered, Runs: d.porcupineRuns, Violating: illegal}
		switch {
		case d.porcupineRuns == 0:
			v.Status = verdict.NotChecked
		case illegal > 0:
			v.Status = verdict.Violated
		case unknown > 0:
			v.Status, v.Detail = verdict.Unknown, fmt.Sprintf("Porcupine timed out in %s", words.Count(unknown, "run"))
		case d.Witnessed == 0:
			v.Status, v.Detail = verdict.Unknown, NoneCommitted
		default:
			v.Status = verdict.Holds
		}
		return v
	}
	return append(s, porcupine(linearizability.SectionsLinearizable, d.SectionsIllegal, d.SectionsUnknown),
		porcupine(linearizability.RegisterLinearizable, d.RegisterIllegal, d.RegisterUnknown))
}

// FirstSeed is the lowest seed that violated the named property.
func (d *DesignSummary) FirstSeed(property string) Seed {
	if p := propIndex(property); p >= 0 {
		return d.firstSeed[p]
	}
	return Seed{}
}

// Seed is an optional seed: the first seed that showed something.
type Seed struct {
	Seed uint64
	Ok   bool
}

func (s *Seed) offer(seed uint64) {
	if !s.Ok || seed < s.Seed {
		*s = Seed{Seed: seed, Ok: true}
	}
}

func (s Seed) String() string {
	if !s.Ok {
		return "none"
	}
	return fmt.Sprint(s.Seed)
}

// Failed reports whether res failed in any way: a property violated, a
// stall, an Illegal Porcupine verdict.
func (res *Result) Failed() bool {
	for p := range numProps {
		if res.violations[p].Step > 0 {
			return true
		}
	}
	return res.Stall != "" || res.Sections.Status == verdict.Violated || res.Register.Status == verdict.Violated
}

// Add counts one run of the design.
func (d *DesignSummary) Add(res *Result) {
	d.Runs++
	d.Steps += int64(res.Steps)
	d.Virtual = time.Duration(satAdd(int64(d.Virtual), int64(res.End))) // runs of years add up past int64
	d.Committed += res.Committed
	if res.Witnessed {
		d.Witnessed++
	}
	for p := range numProps {
		if res.violations[p].Step > 0 {
			d.violations[p]++
			d.firstSeed[p].offer(res.Seed)
		}
	}
	if res.Stall != "" {
		d.Stalls++
		d.FirstStall.offer(res.Seed)
	}
	if res.Sections.Status != verdict.NotChecked {
		d.porcupineRuns++
	}
	switch res.Sections.Status {
	case verdict.Violated:
		d.SectionsIllegal++
	case verdict.Unknown:
		d.SectionsUnknown++
	}
	switch res.Register.Status {
	case verdict.Violated:
		d.RegisterIllegal++
		d.FirstRegisterIllegal.offer(res.Seed)
	case verdict.Unknown:
		d.RegisterUnknown++
	}
	if s := res.Sections.Status; s == verdict.Violated || s == verdict.Holds {
		if (s == verdict.Violated) != (res.violations[propLostUpdate].Step > 0) {
			d.Disagree++
			d.FirstDisagree.offer(res.Seed)
		}
	}
	if res.Failed() {
		d.FirstFailing.offer(res.Seed)
	}
}

func (d *DesignSummary) merge(o *DesignSummary) {
	d.Runs += o.Runs
	d.Steps += o.Steps
	d.Virtual = time.Duration(satAdd(int64(d.Virtual), int64(o.Virtual)))
	d.Committed += o.Committed
	d.Witnessed += o.Witnessed
	d.porcupineRuns += o.porcupineRuns
	for p := range numProps {
		d.violations[p] += o.violations[p]
		if o.firstSeed[p].Ok {
			d.firstSeed[p].offer(o.firstSeed[p].Seed)
		}
	}
	d.Stalls += o.Stalls
	d.SectionsIllegal += o.SectionsIllegal
	d.SectionsUnknown += o.SectionsUnknown
	d.RegisterIllegal += o.RegisterIllegal
	d.RegisterUnknown += o.RegisterUnknown
	d.Disagree += o.Disagree
	for _, s := range []struct{ into, from *Seed }{
		{&d.FirstStall, &o.FirstStall}, {&d.FirstRegisterIllegal, &o.FirstRegisterIllegal},
		{&d.FirstDisagree, &o.FirstDisagree}, {&d.FirstFailing, &o.FirstFailing},
	} {
		if s.from.Ok {
			s.into.offer(s.from.Seed)
		}
	}
}

// Unexpected lists, one sentence each, what in d contradicts DESIGN.md's
// expectations under faults: a property violated that should hold
// (anything at all without faults), a stall, the resource breaking its own
// fencing rule, or Porcupine and NoLostUpdate disagreeing. A property the
// table says can be violated but that no run violated is not a
// contradiction: it says the runs were too few or too mild.
func (d *DesignSummary) Unexpected(faults FaultKinds) []string {
	var out []string
	for p, inv := range impl.Checked() {
		if d.violations[p] == 0 {
			continue
		}
		if faults == NoFaults || impl.Expected(d.Design, inv.Name) != verdict.Violated {
			out = append(out, fmt.Sprintf("%s violated %s in %d of %s (first seed %s)", d.Design, inv.Name, d.violations[p], words.Count(d.Runs, "run"), d.firstSeed[p]))
		}
	}
	if d.Stalls > 0 {
		out = append(out, fmt.Sprintf("%s stalled in %d of %s (first seed %s)", d.Design, d.Stalls, words.Count(d.Runs, "run"), d.FirstStall))
	}
	// A resource that is by design not the atomic fenced register the
	// register model specifies (Design.AtomicRegister): its illegal
	// histories are the row's point, told by TokenIsMonotonical and
	// NoLostUpdate.
	if d.RegisterIllegal > 0 && d.Design.AtomicRegister() {
		out = append(out, fmt.Sprintf("%s: the resource broke its fencing rule (register history illegal) in %s (first seed %s)", d.Design, words.Count(d.RegisterIllegal, "run"), d.FirstRegisterIllegal))
	}
	if d.Disagree > 0 {
		out = append(out, fmt.Sprintf("%s: Porcupine and NoLostUpdate disagree in %s (first seed %s)", d.Design, words.Count(d.Disagree, "run"), d.FirstDisagree))
	}
	return out
}

// NotFound lists, one sentence each, the violations DESIGN.md's table
// expects under faults that none of d's runs showed: "writes:
// NoLostUpdate expected violated, none found in 10 runs". A verdict
// "holds" over a number of runs is not the violation expected: the runs
// were too few, or their faults too mild, to show it. Without faults
// nothing is expected violated.
func (d *DesignSummary) NotFound(faults FaultKinds) []string {
	if faults == NoFaults {
		return nil
	}
	var out []string
	for _, v := range d.Verdicts() {
		if want := impl.Expected(d.Design, v.Property); propIndex(v.Property) >= 0 && v.Against(want) == verdict.NotFound {
			out = append(out, fmt.Sprintf("%s: %s %s", d.Design, v.Property, v.Versus(want)))
		}
	}
	return out
}

// NotFound lists the expected violations no run of any design showed.
func (s *Summary) NotFound() []string {
	var out []string
	for i := range s.Designs {
		out = append(out, s.Designs[i].NotFound(s.Faults)...)
	}
	return out
}

// Unexpected lists what contradicts the expectations in every design.
func (s *Summary) Unexpected() []string {
	var out []string
	for i := range s.Designs {
		out = append(out, s.Designs[i].Unexpected(s.Faults)...)
	}
	return out
}

// Totals adds up the steps and virtual time of all runs, for speed figures
// (the virtual time saturates at the largest Duration).
func (s *Summary) Totals() (runs int, steps int64, virtual time.Duration) {
	for _, d := range s.Designs {
		runs += d.Runs
		steps += d.Steps
		virtual = time.Duration(satAdd(int64(virtual), int64(d.Virtual)))
	}
	return runs, steps, virtual
}

// chunk is how many seeds a worker takes at a time: big enough that
// handing out work costs nothing, small enough to balance the workers.
const chunk = 64

// Run runs the batch and summarises it. Each worker owns one Runner per
// design and runs whole chunks of seeds; chunk summaries are merged in
// seed order.
func (b Batch) Run() (*Summary, error) {
	if b.Runs < 1 {
		return nil, fmt.Errorf("runs must be positive, got %d", b.Runs)
	}
	if len(b.Designs) == 0 {
		b.Designs = []impl.Design{b.Config.Design}
	}
	for _, d := range b.Designs {
		c := b.Config
		c.Config = c.Config.ForDesign(d)
		if err := c.Validate(); err != nil {
			return nil, err
		}
	}
	workers := b.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	chunks := (b.Runs + chunk - 1) / chunk
	workers = min(workers, chunks)
	partial := make([][]DesignSummary, chunks)
	next := make(chan int)
	var wg sync.WaitGroup
	checkers := make([]*linearizability.Checker, workers)
	for w := range workers {
		runners := make([]*Runner, len(b.Designs))
		checker := linearizability.NewChecker()
		if b.noMemo {
			checker = linearizability.NewCheckerMemo(0)
		}
		checkers[w] = checker
		for i, d := range b.Designs {
			c := b.Config
			c.Config = c.Config.ForDesign(d)
			runners[i], _ = NewRunner(c) // validated above
			runners[i].checker = checker
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				partial[k] = b.runChunk(runners, k)
			}
		}()
	}
	for k := range chunks {
		next <- k
	}
	close(next)
	wg.Wait()
	if b.memo != nil {
		for _, c := range checkers {
			b.memo.Add(c.MemoStats())
		}
	}
	s := &Summary{Faults: b.Config.Faults, Designs: make([]DesignSummary, len(b.Designs))}
	for i, d := range b.Designs {
		s.Designs[i].Design = d
	}
	for _, p := range partial {
		for i := range p {
			s.Designs[i].merge(&p[i])
		}
	}
	return s, nil
}

func (b Batch) runChunk(runners []*Runner, k int) []DesignSummary {
	out := make([]DesignSummary, len(runners))
	lo := k * chunk
	hi := min(lo+chunk, b.Runs)
	for i := lo; i < hi; i++ {
		seed := b.Seed + uint64(i)
		// The NPC faults of one lock service's nodes, whatever
		// b.Config's own design.
		single := b.Config
		single.Config = single.Config.ForDesign(impl.DesignFenceAll)
		npc := generateNPC(seed, single)
		var npcRedlock *Schedule
		for j, r := range runners {
			// Every row faces the seed's NPC faults; a row whose
			// service restarts, its crashes on top. The Redlock rows
			// have more nodes to strike: they share the seed's faults
			// drawn over their nodes (as Generate draws them for one
			// run, so a replay is the batch's run).
			faults := npc
			if r.cfg.Design.Redlock() {
				if npcRedlock == nil {
					npcRedlock = generateNPC(seed, r.cfg)
				}
				faults = npcRedlock
			}
			res := r.Run(WithCrashes(faults, r.cfg))
			r.Check(&res, b.Porcupine)
			out[j].Add(&res)
		}
	}
	if b.Progress != nil {
		b.Progress((hi - lo) * len(runners))
	}
	return out
}
