package sim

// The simulator and the condition of docs/design/bounds.md ("When a lease
// lock is safe without fencing", package bounds): how a configuration's fault bounds
// map onto the derivation's, campaigns drawn inside them, and the
// derivation's worst case built as a schedule.

import (
	"fmt"
	"math"
	"time"

	"github.com/fencelab/fencelab/bounds"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/quote"
)

// OneWay is the normal network's longest one-way delay: Processing +
// Latency + Jitter, from the step that sends a message to its arrival.
func (c Config) OneWay() time.Duration { return c.Processing + c.Latency + c.Jitter }

// Assumptions are c's bounds in the derivation's terms, a zero fault bound
// and a fault class that is off counting as zero:
//
//	ρ = MaxDriftPPM/1e6, J = MaxJump           (drift faults)
//	P = MaxPause                                (pause faults)
//	D = Processing + Latency + Jitter + MaxSpike (MaxSpike with delay faults)
//
// D is the longest a message takes from the step that sends it to its
// arrival while its sender runs (a pause of the sender in between is P's).
// The bounds are per fault: a campaign that draws several faults of a
// kind (MaxFaults > 1) can exceed them — two overlapping pauses of one node
// merge into a longer one, two clock steps add up — which is why
// InsideBounds draws at most one of each.
func (c Config) Assumptions() bounds.Bounds {
	c = c.Bounds()
	b := bounds.Bounds{TTL: c.TTL, Margin: c.Margin, LockDelay: c.ServiceLockDelay(), Delay: c.OneWay()}
	if c.Faults&DriftFaults != 0 {
		b.Drift, b.Jump = float64(c.MaxDriftPPM)/1e6, c.MaxJump
	}
	if c.Faults&PauseFaults != 0 {
		b.Pause = c.MaxPause
	}
	if c.Faults&DelayFaults != 0 {
		b.Delay += c.MaxSpike
	}
	return b
}

// InsideBounds returns c set up so that every run of GenerateInside stays
// within b: the TTL, margin and lock-delay of b, the fault bounds of b
// (MaxSpike = D − OneWay), a fault class off where its bounds are zero, and
// at most one fault of each kind per run. It fails when b cannot be
// simulated with c's network: D below the normal network's one-way delay,
// or a drift that is not a whole number of parts per million.
func InsideBounds(c Config, b bounds.Bounds) (Config, error) {
	if err := b.Validate(); err != nil {
		return c, err
	}
	if b.Delay < c.OneWay() {
		return c, fmt.Errorf("max-delay (%v) must be at least the network's one-way delay, processing + latency + jitter (%v)", b.Delay, c.OneWay())
	}
	ppm := b.Drift * 1e6
	if ppm != math.Trunc(ppm) {
		return c, fmt.Errorf("max-drift must be a whole number of parts per million, got %g", b.Drift)
	}
	c.TTL, c.Margin, c.LockDelay = b.TTL, b.Margin, b.LockDelay
	c.MaxDriftPPM, c.MaxJump, c.MaxPause, c.MaxSpike = int64(ppm), b.Jump, b.Pause, b.Delay-c.OneWay()
	c.MaxFaults = 1
	c.Faults = NoFaults
	if b.Drift > 0 || b.Jump > 0 {
		c.Faults |= DriftFaults
	}
	if b.Pause > 0 {
		c.Faults |= PauseFaults
	}
	if c.MaxSpike > 0 {
		c.Faults |= DelayFaults
	}
	return c, c.Validate()
}

// GenerateInside is Generate(seed, c) for a configuration made by
// InsideBounds(c, b): its bounds are b's, and a zero bound of b (a zero
// MaxJump, say) draws no fault of that kind.
func GenerateInside(seed uint64, c Config, b bounds.Bounds) *Schedule {
	return Generate(seed, c)
}

// WorstCase is the run in which DESIGN.md's derivation meets its bound for
// one property, built for a set of bounds, as
// the derivation's "Sufficient, and when necessary" describes it:
//
//   - two clients, one section each; c1 sends its acquire at 0 and is
//     granted as soon as the request lands;
//   - the service's clock runs fast (+ρ) and steps forward J right after
//     the grant, so the lease and the lock-delay end as early as allowed;
//   - c1's clock runs slow (−ρ) and steps back J right after its read
//     returns (within its window), so its window ends as late as allowed;
//   - c2's start is held (a pause before its first step: a client that has
//     not started holds nothing, so this is its arrival, not a pause of a
//     running process, and P does not bound it) so that its acquire lands
//     one nanosecond after the service frees the lock;
//   - AtMostOneClientHoldLock: c1 is paused for P from the moment its
//     validity timer falls due, so it believes P longer; its think time
//     ends after its window (the section then aborts);
//   - NoLostUpdate: c1's think time ends one nanosecond (of its clock)
//     before its window, it is paused for P from then, checks its belief
//     as it resumes (before it handles the validity timer), a second pause
//     of P holds the write it sends, and the write is delayed by MaxSpike
//     on top of the normal latency; c2 reads at once, and commits.
//
// Config is the one knob of the workload the worst case sets: 2 clients,
// 1 section, and the think time that places c1's check; its network has no
// jitter (every leg at the shortest, MinDelay) and a spike that makes up
// the rest of D for c1's write.
//
// In a renewing design (impl.Design.Renews) the worst case comes after a
// renewal: each client renews once a section (Config.Renewals = 1), c1
// RenewEvery after its grant arrives, and the steps above count from that
// renewal — the service restarts the lease as it lands and steps forward
// then, c1's window starts at its send, c1's clock steps back after the
// answer, and the think time is RenewEvery longer. To the derivation a
// granted renewal is an acquire sent at the renewal's send (docs/design/bounds.md,
// "With renewal"), so the bound is the same. The network's
// normal latencies are the run's own draws (seed 1), computed here exactly.
type WorstCase struct {
	Property string
	Config   Config
	Schedule *Schedule
	// Slack is the run's own margin as built, in real time: for
	// AtMostOneClientHoldLock, when c2 starts believing minus when c1 stops;
	// for NoLostUpdate, when c2's read lands minus when c1's write lands.
	// The run violates the property when it is negative (at zero the two
	// coincide and the event queue's order decides). Every leg takes the
	// network's shortest delay (no jitter), so Slack is the slack derived
	// with those legs — bounds.Check(Config.DerivedWithLegs(b)): c1's
	// request, c2's grant (and c2's read), each MinDelay, which the
	// derivation without them takes as instantaneous — to within
	// WorstCaseTolerance.
	Slack time.Duration
}

// MinDelay is the normal network's shortest one-way delay, Processing +
// Latency: the least time of every leg of the worst case, which the
// derivation with bounds.Bounds.MinDelay set to it includes.
func (c Config) MinDelay() time.Duration { return c.Processing + c.Latency }

// DerivedWithLegs are b as the worst case on c's network realises them:
// b with MinDelay, the legs it cannot make instantaneous.
func (c Config) DerivedWithLegs(b bounds.Bounds) bounds.Bounds {
	b.MinDelay = c.MinDelay()
	return b
}

// Shortfall bounds how far a worst case's Slack lies above the slack
// derived without legs (bounds.Check(b)): the three legs of the normal
// network's shortest delay (NoLostUpdate's), plus nanoseconds of clock
// rounding and tie-breaks. Derived with them
// (bounds.Check(c.DerivedWithLegs(b))), the slack is the run's to within
// WorstCaseTolerance.
func (c Config) Shortfall() time.Duration { return 3*c.MinDelay() + 16 }

// WorstCaseTolerance is how far a worst case's Slack may lie from the
// slack derived with its legs: the nanosecond by which c2's acquire
// follows the timer that frees the lock when the two cannot coincide, the
// nanoseconds by which c1 checks before its window ends and its held
// write leaves (the run's events at one moment go in queue order, so
// these must not coincide), and the clocks' rounding to the nanosecond.
const WorstCaseTolerance = 4 * time.Nanosecond

// NewWorstCase builds the worst case of property (impl.AtMostOneClientHoldLock
// or impl.NoLostUpdate) for bounds b, on c's network, design and retries
// (the rest of c's workload is the worst case's own). It fails when c's
// network cannot keep b (see InsideBounds) or b leaves the simulator no
// room for the worst case: a window (ttl − margin) that ends before a grant
// can arrive or, in a renewing design, before a renewal sent a third of
// the ttl after the grant can be answered.
func NewWorstCase(c Config, b bounds.Bounds, property string) (*WorstCase, error) {
	if property != impl.AtMostOneClientHoldLock && property != impl.NoLostUpdate {
		return nil, fmt.Errorf("no worst case for %s (want %s or %s)", quote.Q(property), impl.AtMostOneClientHoldLock, impl.NoLostUpdate)
	}
	c, err := InsideBounds(c, b)
	if err != nil {
		return nil, err
	}
	c = c.Bounds()
	ppm := int64(math.Round(b.Drift * 1e6))
	wc := c
	wc.Clients, wc.Sections = 2, 1
	// Every leg at its shortest, MinDelay: no jitter. The write's spike
	// makes up the rest of D, so that it still lands D after it leaves.
	wc.Jitter = 0
	spike := b.Delay - wc.OneWay()
	wc.MaxSpike = spike
	if spike > 0 {
		wc.Faults |= DelayFaults
	}
	s := &Schedule{Version: ScheduleVersion, Seed: 1, Faults: []Fault{}}
	c1, c2 := impl.ClientNode(0), impl.ClientNode(1)
	if ppm != 0 {
		s.Faults = append(s.Faults,
			Fault{Kind: FaultDrift, Node: impl.ServiceNode, PPM: ppm},
			Fault{Kind: FaultDrift, Node: c1, PPM: -ppm},
			Fault{Kind: FaultDrift, Node: c2, PPM: -ppm})
	}

	// The run's latency draws, link by link, as Runner.send makes them.
	var d draws
	nodes := wc.NumNodes()
	d.reset(s.Seed, nodes*nodes+wc.Clients)
	proc := int64(wc.Processing)
	leg := func(from, to impl.NodeID) int64 {
		return proc + latency(&wc, d.next(int(from)*nodes+int(to)))
	}

	// c1 sends at 0; the service grants as the request lands; c1 handles
	// the grant, reads, and the reply comes.
	g := leg(c1, impl.ServiceNode)
	svc := clock{ppm: ppm}
	a1 := g + leg(impl.ServiceNode, c1)
	r1 := a1 + leg(c1, impl.ResourceNode)
	rr1 := r1 + leg(impl.ResourceNode, c1)
	cl1 := clock{ppm: -ppm}
	window := int64(wc.TTL - wc.Margin)
	if cl1.global(window) <= a1 {
		return nil, fmt.Errorf("the window (ttl − margin = %v) ends before a grant can arrive in the simulator", wc.TTL-wc.Margin)
	}
	// The last window of c1's belief starts at its local reading from
	// (the acquire's send) and the service's lease at lease (the grant);
	// c1's clock steps back once both its think timer and that window are
	// set, after settled.
	var from int64
	lease, settled := g, rr1
	renewEvery := int64(0)
	if wc.Design.Renews() {
		// A renewing design: c1 renews once, RenewEvery of its clock after
		// the grant arrives, and the service restarts the lease as the
		// renewal lands. To the derivation that renewal is an acquire
		// (docs/design/bounds.md, "With renewal"): the worst case above, from the
		// renewal's send. One renewal, so that none follows it: the
		// belief then ends with that renewal's window.
		wc.Renewals = 1
		renewEvery = int64(impl.RenewEvery(wc.TTL))
		send := cl1.global(cl1.local(a1) + renewEvery)
		handled := send + leg(c1, impl.ServiceNode)
		answered := handled + leg(impl.ServiceNode, c1)
		if svc.local(handled) >= svc.local(g)+int64(wc.TTL) || answered >= cl1.global(window) {
			return nil, fmt.Errorf("the window (ttl − margin = %v) ends before a renewal, a third of the ttl after the grant, can be answered in the simulator", wc.TTL-wc.Margin)
		}
		from, lease, settled = cl1.local(send), handled, max(rr1, answered)
	}

	// The service's clock steps forward right after the lease (re)starts.
	free := svc.local(lease) + int64(wc.TTL) // the lease timer's deadline
	at := lease
	if b.Jump > 0 {
		at = lease + 1
		svc.jump(at, int64(b.Jump))
		s.Faults = append(s.Faults, Fault{Kind: FaultJump, Node: impl.ServiceNode, At: time.Duration(at), By: b.Jump})
	}
	expiry := max(svc.global(free), at)
	free = expiry // the lock is granted again from here: the expiry, or the lock-delay's end
	if d := wc.ServiceLockDelay(); d > 0 {
		free = max(svc.global(svc.local(expiry)+int64(d)), expiry)
	}

	// c1's clock steps back once its timers are set.
	d1 := cl1.local(rr1) // local time from the send (at 0) to the reply
	jumped := settled
	if b.Jump > 0 {
		jumped = settled + 1
		cl1.jump(jumped, -int64(b.Jump))
		s.Faults = append(s.Faults, Fault{Kind: FaultJump, Node: c1, At: time.Duration(jumped), By: -b.Jump})
	}
	due := max(cl1.global(from+window), jumped) // c1's validity timer (its renewal's, if renewed)

	// c2: its acquire lands as the lock is free — at the very moment when
	// the timer that frees it was set before c2 sent (the run's events
	// at one moment go in the order they were queued), else one
	// nanosecond after.
	freed := lease // the lease timer, set with the grant (or renewal)
	if wc.ServiceLockDelay() > 0 {
		freed = expiry // the lock-delay timer, set at the expiry
	}
	send := leg(c2, impl.ServiceNode)
	g2 := free
	if g2-send <= freed {
		g2 = free + 1
	}
	start := max(g2-send, 0)
	g2 = start + send
	if start > 0 {
		s.Faults = append(s.Faults, Fault{Kind: FaultPause, Node: c2, At: 0, Duration: time.Duration(start)})
	}
	a2 := g2 + leg(impl.ServiceNode, c2)
	r2 := a2 + leg(c2, impl.ResourceNode)
	rr2 := r2 + leg(impl.ResourceNode, c2)
	cl2 := clock{ppm: -ppm}
	d2 := cl2.local(rr2) - cl2.local(start)
	// c2's window, from its start by its clock: a renewing c2 renews
	// RenewEvery after its grant, and its long think needs that renewal.
	end2 := window
	if renewEvery > 0 {
		end2 = cl2.local(cl2.global(cl2.local(a2)+renewEvery)) - cl2.local(start) + window
	}

	pause := int64(b.Pause)
	w := &WorstCase{Property: property, Config: wc, Schedule: s}
	if property == impl.AtMostOneClientHoldLock {
		// The check comes after the window: c1 only believes, as long as
		// the pause lets it.
		wc.Think = wc.TTL - wc.Margin + time.Duration(renewEvery)
		if pause > 0 {
			s.Faults = append(s.Faults, Fault{Kind: FaultPause, Node: c1, At: time.Duration(due), Duration: b.Pause})
		}
		w.Slack = time.Duration(a2 - (due + pause))
	} else {
		// c1's think ends 1ns of its clock before its window (later if c2's
		// legs took longer than c1's: c2 must still pass its own check).
		// Its clock rounds the deadline: a few nanoseconds.
		think := min(from+window-d1, end2-d2) - 1
		wc.Think = time.Duration(max(think, 0))
		check := max(cl1.global(d1+int64(wc.Think)), jumped)
		resume := check
		if pause > 0 {
			resume = check + pause
			s.Faults = append(s.Faults, Fault{Kind: FaultPause, Node: c1, At: time.Duration(check), Duration: b.Pause})
		}
		dep := resume + proc
		if pause > 0 && proc >= 2 {
			// The second pause begins after the check's step and before
			// its write leaves, without touching the first.
			at := resume + proc - 1
			s.Faults = append(s.Faults, Fault{Kind: FaultPause, Node: c1, At: time.Duration(at), Duration: b.Pause})
			dep = at + pause
		}
		if spike > 0 {
			s.Faults = append(s.Faults, Fault{Kind: FaultSpike, Node: c1, At: time.Duration(resume), Duration: spike})
		}
		landed := dep + latency(&wc, d.next(int(c1)*nodes+int(impl.ResourceNode))) + int64(spike)
		w.Slack = time.Duration(r2 - landed)
	}
	w.Config = wc
	s.Sort()
	if err := s.Validate(wc); err != nil {
		return nil, err
	}
	return w, nil
}
