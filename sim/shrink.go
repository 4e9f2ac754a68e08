package sim

import (
	"slices"
	"time"

	"github.com/fencelab/fencelab/impl"
)

// MaxShrinkRuns bounds the runs one Shrink may take (a run of the default
// workload takes about 0.1ms, so this is seconds at most).
const MaxShrinkRuns = 50_000

// Failure says whether a run's result shows the failure being shrunk.
type Failure func(*Result) bool

// Violates is the failure "the named property is violated".
func Violates(property string) Failure {
	return func(res *Result) bool { return res.Violated(property) }
}

// ViolatesFenced is the failure "the named property is violated, and the
// resource fenced off a stale operation": a run that shows both what
// breaks and what fencing does about it.
func ViolatesFenced(property string) Failure {
	return func(res *Result) bool { return res.Violated(property) && res.Fenced > 0 }
}

// Stalls is the failure "the run stalls".
func Stalls() Failure { return func(res *Result) bool { return res.Stall != "" } }

// Shrink reduces schedule s, whose run fails, to a locally minimal one
// whose run still fails the same way: no single fault can be removed, and
// no pause, spike, clock step or clock rate made smaller (to shrinkResolution),
// without the failure going away. It alternates the two reductions until
// neither changes anything. The seed is kept, so the normal latencies and
// backoffs come from the same draws throughout (faults.go, draws: counted
// per link and per client, not from one sequence). It returns the
// shrunk schedule and the number of runs it took; if s does not fail, it
// returns s unchanged.
//
// A fault on a client that takes no part in the violation (not one of the
// shrunk run's Violation.Involved) tells a reader nothing and hides the
// story: when the shrunk schedule keeps one (dropping it alone lost the
// failure: it had lined up the others), Shrink starts again from s
// without any fault on such clients, and keeps that shrink if it still
// fails and involves every client it faults (refocus, up to maxRefocus
// times within MaxShrinkRuns).
func (r *Runner) Shrink(s *Schedule, fails Failure) (*Schedule, int) {
	// A failure reads a run's Result, never its history: the Porcupine
	// verdicts are not part of one (Check adds them).
	defer r.withoutHistory()()
	best, runs, ok := r.shrink(s, fails, 0)
	if !ok {
		return s, runs
	}
	from := s
	for range maxRefocus {
		out := r.Uninvolved(best)
		if len(out) == 0 || runs >= MaxShrinkRuns {
			break
		}
		c := from.Clone()
		c.Faults = slices.DeleteFunc(c.Faults, func(f Fault) bool { return slices.Contains(out, f.Node) })
		small, n, ok := r.shrink(c, fails, runs)
		runs = n
		if ok {
			best, from = small, c
			continue
		}
		// The failure needs what the fault did: try it on each client
		// the violation involves (or on the service) instead, where it
		// is part of the story, and shrink from there.
		moved, n, ok := r.reassign(best, out, fails, runs)
		runs = n
		if !ok {
			break
		}
		if best, runs, ok = r.shrink(moved, fails, runs); !ok {
			break
		}
		from = moved
	}
	return best, runs
}

// reassign moves every fault of s on a client of out to a node the run's
// violations involve, or to the service, trying them in order; it returns
// the first schedule that still fails.
func (r *Runner) reassign(s *Schedule, out []impl.NodeID, fails Failure, runs int) (*Schedule, int, bool) {
	res := r.Run(s)
	targets := []impl.NodeID{impl.ServiceNode}
	for _, v := range res.violations {
		for _, n := range v.Involved {
			if !slices.Contains(targets, n) {
				targets = append(targets, n)
			}
		}
	}
	c := s.Clone()
	for i, f := range s.Faults {
		if !slices.Contains(out, f.Node) {
			continue
		}
		placed := false
		for _, n := range targets {
			if runs >= MaxShrinkRuns {
				return s, runs, false
			}
			try := c.Clone()
			try.Faults[i].Node = n
			runs++
			if res := r.Run(try); fails(&res) {
				c, placed = try, true
				break
			}
		}
		if !placed {
			return s, runs, false
		}
	}
	c.Sort()
	return c, runs, true
}

// maxRefocus bounds Shrink's fresh starts without uninvolved clients' faults.
const maxRefocus = 3

// Uninvolved are the clients s faults that take no part in its run's
// violations (none for a run that violates nothing: a stall has no
// involved clients to keep).
func (r *Runner) Uninvolved(s *Schedule) []impl.NodeID {
	res := r.Run(s)
	var involved []impl.NodeID
	for _, v := range res.violations {
		involved = append(involved, v.Involved...)
	}
	if len(involved) == 0 {
		return nil
	}
	var out []impl.NodeID
	for _, f := range s.Faults {
		if f.Node.IsClient() && !slices.Contains(involved, f.Node) && !slices.Contains(out, f.Node) {
			out = append(out, f.Node)
		}
	}
	return out
}

// shrink is Shrink's reductions from s, counting runs on from the given
// number; ok is false when s does not fail (or the budget is spent first).
func (r *Runner) shrink(s *Schedule, fails Failure, runs int) (*Schedule, int, bool) {
	try := func(c *Schedule) bool {
		if runs >= MaxShrinkRuns {
			return false // out of budget: keep what has been found
		}
		runs++
		res := r.Run(c)
		return fails(&res)
	}
	if !try(s) {
		return s, runs, false
	}
	best := s.Clone()
	for changed := true; changed; {
		changed = false
		// Fewer faults: drop one at a time, from the last, keeping every
		// drop after which the run still fails. Dropping a pause also
		// moves the node's whole later timeline earlier by its length, so
		// the faults that came after it would strike the node at another
		// point of its work; the second try drops it and moves the node's
		// later faults earlier by as much, so they strike where they did;
		// the third moves every later fault (a pause of the service holds
		// up every client). Draws are counted per link and per client, so
		// dropping a fault leaves every other link's latencies as they
		// were; but where the fault changed which message was a link's
		// k-th, or how often a client was rejected, the later latencies or
		// backoffs there change, and a remaining fault may miss the
		// moment it struck. The last resort (dropAndRelocate) looks for a
		// nearby time at which one remaining fault strikes again.
		for i := len(best.Faults) - 1; i >= 0; i-- {
			c := best.Clone()
			c.Faults = slices.Delete(c.Faults, i, i+1)
			if try(c) {
				best, changed = c, true
				continue
			}
			shifted := false
			for _, all := range []bool{false, true} {
				if c, ok := dropPauseAndShift(best, i, all); ok && try(c) {
					best, changed, shifted = c, true, true
					break
				}
			}
			if !shifted {
				spent := func() bool { return runs >= MaxShrinkRuns }
				if c, ok := dropAndRelocate(best, i, r.cfg.horizon(), try, spent); ok {
					best, changed = c, true
				}
			}
		}
		// Smaller faults: for each, the smallest magnitude (by bisection)
		// at which the run still fails.
		for i := range best.Faults {
			if c, ok := shrinkMagnitude(best, i, try); ok {
				best, changed = c, true
			}
		}
	}
	return best, runs, true
}

// shrinkResolution is the precision of a shrunk duration; clock rates
// shrink to 1,000 ppm (0.1%).
const (
	shrinkResolution    = time.Millisecond
	shrinkPPMResolution = 1000
)

// shrinkMagnitude bisects fault i's magnitude between 0 (taken to pass:
// removing the fault was tried first) and its current value (fails), and
// returns the schedule with the smallest failing value found, if smaller.
func shrinkMagnitude(s *Schedule, i int, try func(*Schedule) bool) (*Schedule, bool) {
	f := s.Faults[i]
	var cur, res int64
	var set func(f *Fault, v int64) // sets the magnitude; every kind below assigns it or returns
	switch f.Kind {
	case FaultPause, FaultSpike, FaultCrash:
		cur, res = int64(f.Duration), int64(shrinkResolution)
		set = func(f *Fault, v int64) { f.Duration = time.Duration(v) }
	case FaultJump:
		cur, res = int64(abs(f.By)), int64(shrinkResolution)
		sign := time.Duration(1)
		if f.By < 0 {
			sign = -1
		}
		set = func(f *Fault, v int64) { f.By = sign * time.Duration(v) }
	case FaultDrift:
		cur, res = f.PPM, shrinkPPMResolution
		sign := int64(1)
		if f.PPM < 0 {
			cur, sign = -f.PPM, -1
		}
		set = func(f *Fault, v int64) { f.PPM = sign * v }
	default:
		return nil, false
	}
	lo, hi := int64(0), cur
	var best *Schedule
	for hi-lo > res {
		// Round the midpoint to the resolution so that shrunk values read
		// as round numbers (1.016s rather than 1.015873421s).
		mid := lo + (hi-lo)/2
		mid -= mid % res
		if mid <= lo {
			mid = lo + res
		}
		if mid >= hi {
			break
		}
		c := s.Clone()
		set(&c.Faults[i], mid)
		if try(c) {
			hi, best = mid, c
		} else {
			lo = mid
		}
	}
	return best, best != nil
}

// dropPauseAndShift returns s without pause i, with the later pauses,
// spikes and clock steps of the same node (or of every node, if all) moved
// earlier by its length.
func dropPauseAndShift(s *Schedule, i int, all bool) (*Schedule, bool) {
	p := s.Faults[i]
	if p.Kind != FaultPause {
		return nil, false
	}
	c := s.Clone()
	c.Faults = slices.Delete(c.Faults, i, i+1)
	moved := false
	for j := range c.Faults {
		f := &c.Faults[j]
		if (all || f.Node == p.Node) && f.Kind != FaultDrift && f.At > p.At {
			f.At = max(p.At, f.At-p.Duration)
			moved = true
		}
	}
	c.Sort()
	return c, moved
}

// relocateStep is the step of dropAndRelocate's search.
const relocateStep = time.Millisecond

// dropAndRelocate drops fault i and searches, for one remaining timed fault
// at a time, the nearest time (within limit, nearest first, later before
// earlier) at which the run fails again. It stops when spent says the
// shrinker's budget of runs is used up (a horizon of years holds billions
// of candidate times).
func dropAndRelocate(s *Schedule, i int, limit time.Duration, try func(*Schedule) bool, spent func() bool) (*Schedule, bool) {
	base := s.Clone()
	base.Faults = slices.Delete(base.Faults, i, i+1)
	for j := range base.Faults {
		if base.Faults[j].Kind == FaultDrift {
			continue
		}
		for d := relocateStep; d <= limit && !spent(); d += relocateStep {
			for _, at := range []time.Duration{base.Faults[j].At + d, base.Faults[j].At - d} {
				if at < 0 {
					continue
				}
				c := base.Clone()
				c.Faults[j].At = at
				if try(c) {
					c.Sort()
					return c, true
				}
			}
		}
	}
	return nil, false
}
