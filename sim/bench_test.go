package sim

import (
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
	"github.com/fencelab/fencelab/linearizability"
)

// Benchmarks measure speed; no test asserts a wall-clock time.
//
//	go test ./sim -run '^$' -bench . -benchmem
//
// events/s counts the inputs nodes handled (steps) per wall-clock second
// on one core; sim-s/s is virtual seconds simulated per wall-clock second.

func benchRuns(b *testing.B, d impl.Design, faults FaultKinds, porcupine bool) {
	c := config(d, faults)
	r, err := NewRunner(c)
	require.NoError(b, err)
	// Every iteration runs a seed of its own (1, 2, 3, ...): a Checker
	// remembers the verdicts of thousands of histories, and seeds run
	// again would find theirs remembered. The schedules are drawn in
	// blocks, outside the timed part.
	const block = 1024
	scheds := make([]*Schedule, 0, block)
	seed := uint64(1)
	draw := func() {
		scheds = scheds[:0]
		for range block {
			scheds = append(scheds, Generate(seed, c))
			seed++
		}
	}
	draw()
	var steps int64
	var virtual time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if i > 0 && i%block == 0 {
			b.StopTimer()
			draw()
			b.StartTimer()
		}
		res := r.Run(scheds[i%block])
		if porcupine {
			r.Check(&res, 0)
		}
		steps += int64(res.Steps)
		virtual += res.End
	}
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(steps)/secs, "events/s")
	b.ReportMetric(virtual.Seconds()/secs, "sim-s/s")
	b.ReportMetric(float64(steps)/float64(b.N), "events/run")
	if porcupine {
		b.ReportMetric(float64(b.N)/secs, "runs/s")
		reportMemo(b, r.checker.MemoStats())
	}
}

// BenchmarkRun is the simulator alone: one run (default workload, default
// faults) per iteration, invariants checked, history recorded.
func BenchmarkRun(b *testing.B) {
	for _, d := range []impl.Design{impl.DesignFenceNone, impl.DesignFenceAll} {
		b.Run(d.String(), func(b *testing.B) { benchRuns(b, d, AllFaults, false) })
	}
}

// BenchmarkBareLoop is the yardstick of BenchmarkRun: a minimal discrete-
// event loop — pop the earliest event, push one due a drawn latency later
// — with as many events pending as a simulated run has on average: about
// 7 under the default workload and faults (messages in flight, timers set,
// faults to come), 55 when stale timer firings stayed in the queue (the
// figure earlier measurements used); 16 for comparison. Each event it handles stands for one the simulator hands to
// a node; what the simulator does beyond this loop (the actors' steps, the
// effects, the fault model, the invariants and the history) is its cost
// over the yardstick: compare the events/s. "minimal" is the least such a
// loop can do: a binary heap of (time, sequence) pairs and nothing else;
// "queue" is the same loop on the simulator's own queue (events of 64
// bytes in a slab, keys in the heap).
func BenchmarkBareLoop(b *testing.B) {
	for _, pending := range []int{7, 16, 55} {
		x := uint64(88172645463325252)
		draw := func() int64 { // xorshift64: a latency in [0, 1ms)
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			return int64(x % 1_000_000)
		}
		b.Run(fmt.Sprintf("minimal/pending=%d", pending), func(b *testing.B) {
			var h bareHeap
			for range pending {
				h.push(draw())
			}
			var events int64
			for b.Loop() {
				at := h.pop()
				events++
				h.push(at + draw())
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
		})
		b.Run(fmt.Sprintf("queue/pending=%d", pending), func(b *testing.B) {
			var q queue
			for range pending {
				q.push(event{at: draw(), kind: evDeliver})
			}
			var events int64
			for b.Loop() {
				e, _ := q.pop()
				events++
				q.push(event{at: e.at + draw(), kind: evDeliver, node: e.node})
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkLoop is the simulator loop against its yardstick at equal
// pending events, both in one run of go test -bench:
//
//	go test ./sim -run '^$' -bench '^BenchmarkLoop$' -benchtime 2s
//
// "sim" is Runner.Run (design none, default workload and faults,
// invariants checked, history recorded) over a fixed pool of seeds; "bare"
// is the simulator's own queue (same keys, same tie-break by sequence)
// popping an event and pushing one a drawn latency later, with as many
// events pending as the simulator has on average when it pops one —
// measured on the same seeds before either is timed, and reported as
// "pending" by both. "paired" interleaves the two run by run (a simulated
// run, then as many bare events as it had steps) and reports both costs,
// in the thread's CPU time (threadTime), and their ratio bare/sim: on a
// loaded machine the time waiting for a core counts for neither, and what
// slows the processor (caches shared with others) slows both alike.
// ns/event is per step (an input a node handled) for the simulator and per
// popped event for the bare loop.
func BenchmarkLoop(b *testing.B) {
	c := config(impl.DesignFenceNone, AllFaults)
	const pool = 1024
	scheds := make([]*Schedule, pool)
	for i := range scheds {
		scheds[i] = Generate(uint64(i)+1, c)
	}
	pending := meanPending(b, c, scheds)
	b.Run("bare", func(b *testing.B) {
		l := newBareLoop(pending)
		const chunk = 1024
		var events int64
		for b.Loop() {
			l.run(chunk)
			events += chunk
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
		b.ReportMetric(float64(pending), "pending")
	})
	b.Run("sim", func(b *testing.B) {
		r, err := NewRunner(c)
		require.NoError(b, err)
		var steps int64
		for i := 0; b.Loop(); i++ {
			res := r.Run(scheds[i%pool])
			steps += int64(res.Steps)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps), "ns/event")
		b.ReportMetric(float64(pending), "pending")
	})
	b.Run("paired", func(b *testing.B) {
		r, err := NewRunner(c)
		require.NoError(b, err)
		l := newBareLoop(pending)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var steps int64
		var simT, bareT time.Duration
		for i := 0; b.Loop(); i++ {
			t0 := threadTime()
			res := r.Run(scheds[i%pool])
			t1 := threadTime()
			l.run(res.Steps)
			t2 := threadTime()
			simT += t1 - t0
			bareT += t2 - t1
			steps += int64(res.Steps)
		}
		b.ReportMetric(float64(simT.Nanoseconds())/float64(steps), "sim-ns/event")
		b.ReportMetric(float64(bareT.Nanoseconds())/float64(steps), "bare-ns/event")
		b.ReportMetric(float64(bareT)/float64(simT), "bare/sim")
		b.ReportMetric(float64(pending), "pending")
	})
}

// meanPending is the mean number of events the simulator's queue holds
// when it pops one a node handles (the event itself included), over the
// runs of scheds, rounded to the nearest whole event.
func meanPending(b *testing.B, c Config, scheds []*Schedule) int {
	r, err := NewRunner(c)
	require.NoError(b, err)
	var sum, steps int64
	for _, s := range scheds {
		r.RunObserved(s, func(impl.Action) {
			sum += int64(r.q.len()) + 1 // the event popped for this step
			steps++
		})
	}
	require.Positive(b, steps)
	return int((sum + steps/2) / steps)
}

// bareLoop is BenchmarkLoop's yardstick: the simulator's queue with a fixed
// number of events pending, each pop followed by a push of one due a drawn
// latency (xorshift64, in [0, 3ms): the default latency plus jitter) later.
type bareLoop struct {
	q queue
	x uint64
}

func newBareLoop(pending int) *bareLoop {
	l := &bareLoop{x: 88172645463325252}
	l.q.reset(0)
	for i := range pending {
		l.q.push(event{at: int64(i) * 3_000_000 / int64(pending), kind: evDeliver})
	}
	return l
}

// run handles n events, the generator's state in a local as a tight
// loop would keep it.
func (l *bareLoop) run(n int) {
	x, q := l.x, &l.q
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		e, _ := q.pop()
		ne := q.add(e.at + int64(x%3_000_000))
		ne.kind, ne.node = evDeliver, e.node
	}
	l.x = x
}

// bareHeap is BenchmarkBareLoop's minimal queue: a binary min-heap of
// (time, sequence) pairs, the sequence breaking ties as the simulator's does.
type bareHeap struct {
	h   []qkey
	seq uint64
}

func (b *bareHeap) push(at int64) {
	k := qkey{at: at, key: b.seq}
	b.seq++
	b.h = append(b.h, k)
	i := len(b.h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !less(k, b.h[p]) {
			break
		}
		b.h[i] = b.h[p]
		i = p
	}
	b.h[i] = k
}

func (b *bareHeap) pop() int64 {
	top := b.h[0]
	last := len(b.h) - 1
	k := b.h[last]
	b.h = b.h[:last]
	if last > 0 {
		i := 0
		for {
			l := 2*i + 1
			if l >= last {
				break
			}
			m := l
			if r := l + 1; r < last && less(b.h[r], b.h[l]) {
				m = r
			}
			if !less(b.h[m], k) {
				break
			}
			b.h[i] = b.h[m]
			i = m
		}
		b.h[i] = k
	}
	return top.at
}

// BenchmarkRunNoFaults is the same without faults.
func BenchmarkRunNoFaults(b *testing.B) { benchRuns(b, impl.DesignFenceAll, NoFaults, false) }

// BenchmarkRunAndPorcupine adds both Porcupine checks of every run, as
// fencelab sim does.
func BenchmarkRunAndPorcupine(b *testing.B) { benchRuns(b, impl.DesignFenceNone, AllFaults, true) }

// BenchmarkFirstUnfencedViolation is the wall time fencelab sim's workers
// take, with default flags, to find the first run of an unfenced design
// that loses an update: runs from seed 1 on, with Porcupine, one core.
func BenchmarkFirstUnfencedViolation(b *testing.B) {
	c := config(impl.DesignFenceWrites, AllFaults)
	var seeds uint64
	for b.Loop() {
		// A Runner of its own each time, as a fresh fencelab sim has:
		// one that ran these seeds before remembers their verdicts.
		r, err := NewRunner(c)
		require.NoError(b, err)
		for seed := uint64(1); ; seed++ {
			res := r.Run(Generate(seed, c))
			r.Check(&res, 0)
			if res.Violated(impl.NoLostUpdate) {
				seeds = seed
				break
			}
		}
	}
	b.ReportMetric(float64(seeds), "seeds")
}

// BenchmarkBatch is fencelab sim's default batch: 1,000 seeds × 4 designs
// with Porcupine, on every core.
func BenchmarkBatch(b *testing.B) {
	var sum *Summary
	var memo linearizability.MemoStats
	for b.Loop() {
		var err error
		memo = linearizability.MemoStats{}
		// The first four designs of the matrix, so that the figure
		// stays comparable as rows are added.
		sum, err = Batch{Config: DefaultConfig(), Designs: impl.Designs()[:4], Seed: 1, Runs: 1000, memo: &memo}.Run()
		require.NoError(b, err)
	}
	runs, steps, virtual := sum.Totals()
	per := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(runs)/per, "runs/s")
	b.ReportMetric(float64(steps)/per, "events/s")
	b.ReportMetric(virtual.Seconds()/per, "sim-s/s")
	b.ReportMetric(float64(runtime.GOMAXPROCS(0)), "cores")
	reportMemo(b, memo)
}

// TestSteadyStateAllocations: a Runner reuses its queue, timers, history,
// effects buffer and system (the actors and the resource's log), so once
// its buffers have grown to the runs' sizes a run allocates nothing.
func TestSteadyStateAllocations(t *testing.T) {
	if testing.CoverMode() != "" || testbuild.Race {
		t.Skip("allocation counts differ under coverage and the race detector")
	}
	c := config(impl.DesignFenceAll, AllFaults)
	r, err := NewRunner(c)
	require.NoError(t, err)
	var scheds []*Schedule
	steps := 0
	for seed := range uint64(8) {
		scheds = append(scheds, Generate(seed+1, c))
		res := r.Run(scheds[seed]) // grows the buffers
		steps += res.Steps
	}
	next := 0
	allocs := testing.AllocsPerRun(16, func() {
		r.Run(scheds[next%len(scheds)])
		next++
	})
	t.Logf("%.2f allocations a run (%d events in 8 runs)", allocs, steps)
	assert.Zero(t, allocs, "a run allocates")
}

// TestManyRunsAllStaysSafe is the long form of the fenced design's
// expectation: 100,000 runs of design all under default faults, no lost
// update and no token out of order. It runs when FENCELAB_LONG is set
// (make sim-long); CI runs TestDefaultFaultsMatchDesign's 1,000.
func TestManyRunsAllStaysSafe(t *testing.T) {
	if os.Getenv("FENCELAB_LONG") == "" {
		t.Skip("set FENCELAB_LONG=1 for the 100,000-run test")
	}
	start := time.Now()
	sum, err := Batch{Config: DefaultConfig(), Designs: []impl.Design{impl.DesignFenceAll}, Seed: 1, Runs: 100_000}.Run()
	require.NoError(t, err)
	d := sum.Designs[0]
	t.Logf("all: %d runs in %v: AtMostOne %d, Token %d, NoLostUpdate %d, sections illegal %d unknown %d, register illegal %d unknown %d, stalls %d",
		d.Runs, time.Since(start).Round(time.Millisecond), d.violations[propAtMostOne], d.violations[propToken], d.violations[propLostUpdate],
		d.SectionsIllegal, d.SectionsUnknown, d.RegisterIllegal, d.RegisterUnknown, d.Stalls)
	assert.Equal(t, 100_000, d.Runs)
	assert.Zero(t, d.violations[propLostUpdate])
	assert.Zero(t, d.violations[propToken])
	assert.Positive(t, d.violations[propAtMostOne], "the runs did break the lock")
	assert.Zero(t, d.Stalls)
	assert.Zero(t, d.SectionsIllegal+d.RegisterIllegal)
	assert.Empty(t, d.Unexpected(AllFaults))
}

// reportMemo reports the share of the Porcupine checks a Checker's memory
// answered, per kind of check (sim.Batch's workers' Checkers summed).
func reportMemo(b *testing.B, s linearizability.MemoStats) {
	if s.SectionsLookups > 0 {
		b.ReportMetric(100*float64(s.SectionsHits)/float64(s.SectionsLookups), "sections-hit%")
	}
	if s.RegisterLookups > 0 {
		b.ReportMetric(100*float64(s.RegisterHits)/float64(s.RegisterLookups), "register-hit%")
	}
}
