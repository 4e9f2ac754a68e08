package sim

import (
	"fmt"
	"time"

	"github.com/fencelab/fencelab/impl"
)

// Config is everything a run depends on besides its seed and its fault
// schedule: the system under test, the workload, the network's normal
// behaviour and the bounds within which a seed draws faults.
type Config struct {
	// Config is the system under test and its workload, shared with every
	// runtime; the fields below are the simulator's own.
	impl.Config

	// Backoff is the mean retry backoff after a rejection; each one is
	// drawn uniformly from [Backoff/2, 3·Backoff/2] so that retrying
	// clients do not stay in lockstep.
	Backoff time.Duration
	// Latency and Jitter are the network's normal behaviour: a message
	// takes Latency plus a uniform draw from [0, Jitter]. Spikes are
	// faults and come from the schedule.
	Latency time.Duration
	Jitter  time.Duration
	// Processing is the time between a step and the moment its messages
	// leave the node. A pause that begins in between holds them until the
	// node resumes: the gap between a decision and its effect that a real
	// GC pause can fall into.
	Processing time.Duration
	// Reorder lets a message overtake an earlier one on the same link;
	// by default every link is FIFO, as a TCP connection is.
	Reorder bool

	// Faults are the kinds a seed may draw; the bounds below limit how
	// strong they may be. A zero bound is zero: that fault is never drawn
	// (DefaultFaultBounds are the defaults relative to the TTL).
	Faults      FaultKinds
	MaxFaults   int           // faults of each kind per run, at most
	MaxPause    time.Duration // longest pause
	MaxSpike    time.Duration // longest extra delay of one message
	MaxJump     time.Duration // largest clock step, forward or back
	MaxDriftPPM int64         // largest clock rate error, in parts per million

	// StallAfter is how long a run may go without progress (a section
	// ending or a client finishing) before it counts as a stall. Zero
	// derives a bound from the workload and the schedule that no run
	// without a liveness bug can reach (see stallBound).
	StallAfter time.Duration
	// MaxSteps bounds the steps of one run, so that a livelock that does
	// not advance virtual time still ends, as a stall. Zero means
	// DefaultMaxSteps.
	MaxSteps int
}

// DefaultMaxSteps is the step budget of one run: a thousand times what the
// default workload needs.
const DefaultMaxSteps = 1_000_000

// DefaultConfig is the default workload and fault bounds. The normal
// network (at most Latency+Jitter+Processing ≈ 3.1ms one way) is far below
// the margin and a whole critical section (about 30ms) far below the
// client's validity (800ms), so a run without faults satisfies every
// property in every design; the faults are what break the lock.
//
// The margin covers the rate drift bound ρ (MaxDriftPPM): the client's
// window, counted from the acquire's send, lasts at most (TTL − margin)/(1 − ρ)
// of real time and the lease at least TTL/(1 + ρ), so the belief ends
// first when margin ≥ TTL·2ρ/(1 + ρ) — 182ms for a 1s TTL at ρ = 0.1; the
// default 200ms leaves 20ms of real time. (100ms would not: a service clock
// 10% fast expires the lease at 0.909s while a client clock 10% slow
// believes until 1.0s.) What breaks the lock by default
// is what no margin covers: clock steps, pauses and delay spikes far
// beyond the TTL.
func DefaultConfig() Config {
	c := Config{
		Config: impl.Config{
			Design:   impl.DesignFenceAll,
			Clients:  3,
			Sections: 10,
			Retries:  100,
			TTL:      time.Second,
			Margin:   200 * time.Millisecond,
			Think:    20 * time.Millisecond,
		},
		Backoff:     20 * time.Millisecond,
		Latency:     time.Millisecond,
		Jitter:      2 * time.Millisecond,
		Processing:  100 * time.Microsecond,
		Faults:      AllFaults,
		MaxFaults:   3,
		MaxDriftPPM: 100_000,
	}
	return c.DefaultFaultBounds()
}

// Validate reports the first thing wrong with c as one line for a user:
// the shared bounds first (impl.Config.Validate), then the simulator's.
func (c Config) Validate() error {
	if err := c.Config.Validate(); err != nil {
		return err
	}
	for _, d := range []struct {
		flag   string
		value  time.Duration
		lo, hi time.Duration
	}{
		// Zero latency would let two steps share every instant and time
		// stand still between a send and its delivery; zero backoff would
		// let a rejected client retry in the same instant forever.
		{"backoff", c.Backoff, time.Nanosecond, impl.MaxDuration},
		{"latency", c.Latency, time.Nanosecond, impl.MaxDuration},
		{"jitter", c.Jitter, 0, impl.MaxDuration},
		{"processing", c.Processing, 0, impl.MaxDuration},
		// A fault bound may be MaxFaultLength, three times the longest
		// TTL: DefaultFaultBounds of that TTL.
		{"max-pause", c.MaxPause, 0, MaxFaultLength},
		{"max-spike", c.MaxSpike, 0, MaxFaultLength},
		{"max-jump", c.MaxJump, 0, MaxFaultLength},
		{"stall-after", c.StallAfter, 0, impl.MaxDuration},
	} {
		if err := impl.DurationBetween(d.flag, d.value, d.lo, d.hi); err != nil {
			return err
		}
	}
	switch {
	case c.Faults&^(AllFaults|CrashFaults) != 0:
		return fmt.Errorf("unknown fault kinds %d", c.Faults)
	case c.MaxFaults < 1 || c.MaxFaults > 1000:
		return fmt.Errorf("max-faults must be between 1 and 1000, got %d", c.MaxFaults)
	case c.MaxDriftPPM < 0 || c.MaxDriftPPM > maxPPM:
		return fmt.Errorf("max-drift must be between 0 and %g, got %g", float64(maxPPM)/1e6, float64(c.MaxDriftPPM)/1e6)
	case c.MaxSteps < 0:
		return fmt.Errorf("max-steps must not be negative, got %d", c.MaxSteps)
	}
	return nil
}

// Bounds returns c ready to run: a zero MaxSteps becomes DefaultMaxSteps.
// A zero fault bound means zero (no pause, no spike, no clock step), never
// a default: the defaults are DefaultFaultBounds, set by DefaultConfig and
// by a caller that changes the TTL.
func (c Config) Bounds() Config {
	if c.MaxSteps == 0 {
		c.MaxSteps = DefaultMaxSteps
	}
	return c
}

// DefaultFaultBounds sets c's fault bounds to the defaults for its TTL:
// pauses up to 3×TTL, spikes up to 3×TTL, clock steps up to 2×TTL — "far
// beyond the TTL", so that every kind can outlast a lease.
func (c Config) DefaultFaultBounds() Config {
	c.MaxPause = durMul(c.TTL, 3)
	c.MaxSpike = durMul(c.TTL, 3)
	c.MaxJump = durMul(c.TTL, 2)
	return c
}

// NumNodes is the number of nodes: the service (and a Redlock row's further
// lock nodes), the clients and the resource.
func (c Config) NumNodes() int { return c.Clients + 1 + c.LockNodes() }

// nodeAt is node i of the run, in the simulator's dense numbering: the
// service, the resource and the clients keep their NodeIDs (0 to
// Clients+1), so every row but Redlock draws its faults as before; a
// Redlock row's further lock nodes follow them.
func (c *Config) nodeAt(i int) impl.NodeID {
	if i < c.Clients+2 {
		return impl.NodeID(i)
	}
	return impl.LockNode(i - c.Clients - 1)
}

// horizon is how long the workload takes without faults, roughly: every
// section one after the other, each a think time and a few message
// delays. Faults are placed within it, where they can strike; it is at
// most MaxAt, the latest time a schedule may place a fault at (a workload
// of 246 clients × 255 sections of a day each would otherwise pass the
// int64 limit).
func (c Config) horizon() time.Duration {
	oneWay := durAdd(c.Latency, c.Jitter, c.Processing)
	return min(durMul(durAdd(c.Think, durMul(oneWay, 6)), int64(c.Clients)*int64(c.Sections)), MaxAt)
}

// stallBound is the longest a run of c under schedule s can go without
// progress unless something is wrong with liveness. A section needs at most
// Retries+1 acquire attempts, each a round trip and a backoff, then a
// read, a think and a write, and possibly a whole lease and lock-delay of
// waiting; every fault can add at most its own length on top (a pause, a
// spike, a backward clock step), and a slow clock stretches all of it. The
// bound doubles the sum, so only a run that is stuck reaches it.
func stallBound(c Config, s *Schedule) time.Duration {
	if c.StallAfter > 0 {
		return c.StallAfter
	}
	// The sums saturate: with every duration at its bound and a schedule
	// of MaxScheduleFaults long faults, the bound is "never", not a
	// negative number that makes every run a stall.
	oneWay := durAdd(c.Latency, c.Jitter, c.Processing)
	attempt := durAdd(durMul(oneWay, 2), durMul(c.Backoff, 3)/2)
	base := durAdd(durMul(attempt, int64(c.Retries)+1), c.TTL, c.ServiceLockDelay(), c.Think, durMul(oneWay, 6))
	var faults time.Duration
	var ppm int64
	for _, f := range s.Faults {
		switch f.Kind {
		case FaultPause, FaultSpike, FaultCrash:
			faults = durAdd(faults, f.Duration)
		case FaultJump:
			faults = durAdd(faults, abs(f.By))
		case FaultDrift:
			ppm = max(ppm, -f.PPM)
		}
	}
	total := durMul(durAdd(base, faults), 2)
	// A clock running at 1-ppm/1e6 takes 1e6/(1e6-ppm) as long for every
	// timer; maxPPM keeps the divisor at least half of 1e6.
	return time.Duration(mulDivSat(int64(total), 1e6, 1e6-ppm))
}

// abs is |d|, held at the int64 limit for the most negative duration.
func abs(d time.Duration) time.Duration {
	if d < 0 {
		return time.Duration(satSub(0, int64(d)))
	}
	return d
}
