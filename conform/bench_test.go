package conform

import (
	"syscall"
	"testing"
	"time"
)

// childCPU is the CPU time (user and system) of this process's finished
// children: TLC's JVMs. On a shared machine it says what a run costs
// where the wall time says how long it waited.
func childCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkValidate measures trace validation with TLC: one TLC run over
// n walks (design all, 3 clients, 2 sections, up to 200 steps each), and
// one over a single walk, whose time is mostly the JVM's start, SANY's
// parse and TLC's set-up: the fixed cost of a run. It reports traces per
// minute and the fixed cost's share of the large run.
func BenchmarkValidate(b *testing.B) {
	k := checker(b)
	c := UntimedConfigs()[15] // all, 3 clients, 2 sections: walks of 20–60 steps
	for _, n := range []int{1, 1000} {
		g, err := Walks(c, n, 200)
		if err != nil {
			b.Fatal(err)
		}
		steps := 0
		for _, t := range g.Traces {
			steps += t.Steps()
		}
		var wall time.Duration
		cpu0 := childCPU()
		for range b.N {
			run, err := k.Check(b.Context(), c, g.Traces)
			if err != nil {
				b.Fatal(err)
			}
			for _, v := range run.Verdict {
				if !v.Accepted {
					b.Fatalf("%s rejected", v.Trace.Name)
				}
			}
			wall += run.Wall
		}
		per := wall / time.Duration(b.N)
		cpu := (childCPU() - cpu0) / time.Duration(b.N)
		b.Logf("%d traces (%d steps, %.1f steps/trace): %v wall and %v of CPU per TLC run; %.0f traces/minute of wall, %.0f per minute of one core's CPU",
			n, steps, float64(steps)/float64(n), per.Round(time.Millisecond), cpu.Round(time.Millisecond), float64(n)/per.Minutes(), float64(n)/cpu.Minutes())
	}
}
