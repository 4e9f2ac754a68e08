package sim

// The fault model: every NPC fault the simulator can inject, how a seed
// draws them into a schedule, how a schedule is written and read as JSON,
// and how each fault acts on the run. It is all in this one file so that
// what "network delay", "process pause" and "clock drift" mean here can be
// read in one place.
//
//   N  network delay: every message takes Latency plus a uniform draw from
//      [0, Jitter] (Config, not a fault); a spike fault adds a long extra
//      delay to one message. Links are FIFO unless Config.Reorder, so a
//      spiked message also holds up the ones behind it, as on a TCP
//      connection.
//   P  process pause: a node stops for a while — any node, the service and
//      the resource included. While it is paused it handles nothing:
//      messages for it and its timers wait and are handled, in the order
//      they became due, when it resumes; what it sent in a step leaves
//      Config.Processing after that step, so a pause that begins in between
//      holds those messages until it resumes.
//   C  clock drift: each node's clock runs at rate 1+ppm/1e6 and may step
//      (an NTP jump) forward or back. Timers are set and fire in the node's
//      local time: the service expires a lease by its clock, a client stops
//      believing in its lease by its own.
//   R  service crash and restart: only in the rows whose service restarts
//      (impl.Design.Restart), whose whole point it is, and there under
//      every fault setting but none (--faults crash: crashes alone). The service is down from At for
//      Duration: like a pause, it handles nothing and what comes for it
//      waits (its clients' connections retry); then it restarts
//      (impl.InputRestart) and has lost what it held in memory — who
//      holds the lock, its timers and, unless the row persists it, its
//      lease counter.

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/internal/words"
)

// FaultKinds is a set of the three NPC fault classes, as --faults names them.
type FaultKinds uint8

// Fault classes.
const (
	DelayFaults FaultKinds = 1 << iota // N: latency spikes
	PauseFaults                        // P: process pauses
	DriftFaults                        // C: clock rates and clock steps
	// CrashFaults (R): crashes and restarts of the service. They come with
	// the rows whose service restarts (see WithCrashes) under any other
	// setting, so AllFaults, the NPC classes, leaves them out; --faults
	// crash alone draws crashes and nothing else.
	CrashFaults
	AllFaults = DelayFaults | PauseFaults | DriftFaults
	NoFaults  = FaultKinds(0)
)

type faultName struct {
	kinds FaultKinds
	name  string
}

// faultNames are the --faults words, in the order they print.
func faultNames() []faultName {
	return []faultName{{DelayFaults, "delay"}, {PauseFaults, "pause"}, {DriftFaults, "drift"}, {CrashFaults, "crash"}}
}

// ParseFaults reads --faults: "none" or a comma-separated subset of
// delay, pause, drift.
func ParseFaults(s string) (FaultKinds, error) {
	if strings.TrimSpace(s) == "none" {
		return NoFaults, nil
	}
	var k FaultKinds
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		found := false
		for _, n := range faultNames() {
			if n.name == part {
				k |= n.kinds
				found = true
			}
		}
		if !found {
			return 0, fmt.Errorf("unknown fault kind %s (want delay, pause, drift, crash, a comma-separated list of them, or none)", quote.Q(part))
		}
	}
	return k, nil
}

// String is the --faults value for k.
func (k FaultKinds) String() string {
	var names []string
	for _, n := range faultNames() {
		if k&n.kinds != 0 {
			names = append(names, n.name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ",")
}

// Singles lists the classes one by one, for the NPC table.
func Singles() []FaultKinds { return []FaultKinds{DelayFaults, PauseFaults, DriftFaults} }

// FaultKind is one kind of injected fault in a schedule.
type FaultKind string

// Kinds of faults.
const (
	FaultSpike FaultKind = "spike" // N: the first message Node sends at or after At takes Duration longer
	FaultPause FaultKind = "pause" // P: Node is paused from At for Duration
	FaultJump  FaultKind = "jump"  // C: Node's clock steps by By at At
	FaultDrift FaultKind = "drift" // C: Node's clock runs at rate 1+PPM/1e6 for the whole run
	FaultCrash FaultKind = "crash" // R: the service is down from At for Duration, then restarts having lost its memory
)

// class is the --faults class a kind belongs to.
func (k FaultKind) class() FaultKinds {
	switch k {
	case FaultSpike:
		return DelayFaults
	case FaultPause:
		return PauseFaults
	case FaultCrash:
		return CrashFaults
	}
	return DriftFaults
}

// ScheduleVersion is the version of the schedule's JSON form.
const ScheduleVersion = 1

// Schedule is the faults of one run. A seed generates one (Generate), a
// file provides one (ReadSchedule), and the shrinker reduces one; Seed is
// the run's seed, which also draws the normal latencies and the backoffs,
// so a schedule and the flags replay a run exactly.
type Schedule struct {
	Version int     `json:"version"`
	Seed    uint64  `json:"seed"`
	Faults  []Fault `json:"faults"`
}

// Fault is one injected fault. Times are virtual, from the start of the run.
type Fault struct {
	Kind     FaultKind
	Node     impl.NodeID
	At       time.Duration // pause, spike, jump: when
	Duration time.Duration // pause: how long; spike: the extra delay
	By       time.Duration // jump: the clock step, negative is back
	PPM      int64         // drift: rate error in parts per million
}

// maxPPM keeps every clock running forward at at least half speed.
const maxPPM = 500_000

// Bounds of a schedule, so that no sum of its times comes near the int64
// limit of virtual time (see sat.go).
const (
	// MaxAt is the latest time a fault may strike at: about 11 years of
	// virtual time.
	MaxAt = 100_000 * time.Hour
	// MaxFaultLength bounds a pause, a spike and a clock step: three
	// times the longest TTL, the most Config.Bounds derives (3×ttl).
	MaxFaultLength = 3 * impl.MaxDuration
	// MaxScheduleFaults bounds the faults of one schedule; a generated
	// one has at most 3×1000 timed faults and one rate per node.
	MaxScheduleFaults = 10_000
)

// String describes f for trace notes and reports, e.g. "c1 paused for 1.2s".
func (f Fault) String() string {
	switch f.Kind {
	case FaultPause:
		return fmt.Sprintf("%s paused for %v", f.Node, f.Duration)
	case FaultSpike:
		return fmt.Sprintf("%s's next message delayed by %v", f.Node, f.Duration)
	case FaultJump:
		return fmt.Sprintf("%s's clock steps %s", f.Node, signed(f.By))
	case FaultDrift:
		return fmt.Sprintf("%s's clock runs at %s", f.Node, rate(f.PPM))
	case FaultCrash:
		return fmt.Sprintf("%s crashed, restarts after %v", f.Node, f.Duration)
	}
	return string(f.Kind)
}

func signed(d time.Duration) string {
	if d < 0 {
		return fmt.Sprintf("back %v", -d)
	}
	return fmt.Sprintf("forward %v", d)
}

func rate(ppm int64) string {
	return strconv.FormatFloat(1+float64(ppm)/1e6, 'f', -1, 64) + "×"
}

// wireFault is a fault as JSON spells it: durations as Go duration strings
// ("1.5s"), nodes by lane name ("service", "resource", "c1"...).
type wireFault struct {
	Kind     FaultKind `json:"kind"`
	Node     string    `json:"node"`
	At       string    `json:"at,omitempty"`
	Duration string    `json:"duration,omitempty"`
	By       string    `json:"by,omitempty"`
	PPM      int64     `json:"ppm,omitempty"`
}

// MarshalJSON writes f in its wire form.
func (f Fault) MarshalJSON() ([]byte, error) {
	w := wireFault{Kind: f.Kind, Node: f.Node.String(), PPM: f.PPM}
	switch f.Kind {
	case FaultPause, FaultSpike, FaultCrash:
		w.At, w.Duration = f.At.String(), f.Duration.String()
	case FaultJump:
		w.At, w.By = f.At.String(), f.By.String()
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads f from its wire form. A field that does not belong
// to the fault's kind (a pause's "by", a drift's "at") is an error, not
// ignored: the schedule would not run what its file says. Whether its
// node exists is checked against a configuration by Schedule.Validate.
func (f *Fault) UnmarshalJSON(b []byte) error {
	var w struct {
		Kind     FaultKind `json:"kind"`
		Node     string    `json:"node"`
		At       *string   `json:"at"`
		Duration *string   `json:"duration"`
		By       *string   `json:"by"`
		PPM      *int64    `json:"ppm"`
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return err
	}
	node, err := impl.ParseNodeID(w.Node)
	if err != nil {
		return err
	}
	*f = Fault{Kind: w.Kind, Node: node}
	if w.PPM != nil {
		f.PPM = *w.PPM
	}
	fields := []struct {
		text *string
		into *time.Duration
		name string
	}{{w.At, &f.At, "at"}, {w.Duration, &f.Duration, "duration"}, {w.By, &f.By, "by"}}
	given := map[string]bool{"ppm": w.PPM != nil}
	for _, d := range fields {
		given[d.name] = d.text != nil
	}
	if allowed, known := faultFields(w.Kind); known {
		for _, name := range []string{"at", "duration", "by", "ppm"} {
			if given[name] && !slices.Contains(allowed, name) {
				return fmt.Errorf("%s fault: %q does not belong to a %s (its fields: kind, node, %s)", w.Kind, name, w.Kind, strings.Join(allowed, ", "))
			}
		}
	}
	for _, d := range fields {
		if d.text == nil {
			continue
		}
		if *d.into, err = time.ParseDuration(*d.text); err != nil {
			return fmt.Errorf("%s fault: %s: %s is not a duration", quote.S(string(w.Kind)), d.name, quote.Q(*d.text))
		}
	}
	return nil
}

// faultFields are the fields of a kind of fault besides kind and node, as
// MarshalJSON writes them; known is false for an unknown kind.
func faultFields(kind FaultKind) (fields []string, known bool) {
	switch kind {
	case FaultPause, FaultSpike, FaultCrash:
		return []string{"at", "duration"}, true
	case FaultJump:
		return []string{"at", "by"}, true
	case FaultDrift:
		return []string{"ppm"}, true
	}
	return nil, false
}

// Validate reports the first thing in s that a run of c cannot use.
func (s *Schedule) Validate(c Config) error {
	if s.Version != ScheduleVersion {
		return fmt.Errorf("schedule version %d is not supported (want %d)", s.Version, ScheduleVersion)
	}
	if len(s.Faults) > MaxScheduleFaults {
		return fmt.Errorf("%d faults, at most %d", len(s.Faults), MaxScheduleFaults)
	}
	drift := map[impl.NodeID]bool{}
	for i, f := range s.Faults {
		where := fmt.Sprintf("fault %d (%s)", i+1, quote.S(string(f.Kind)))
		if f.Node.IsClient() && f.Node.ClientIndex() >= c.Clients {
			return fmt.Errorf("%s: node %s does not exist with %s", where, f.Node, words.Count(c.Clients, "client"))
		}
		if f.Node.IsLockNode() && f.Node.LockIndex() >= c.LockNodes() {
			return fmt.Errorf("%s: node %s does not exist with %d lock nodes", where, f.Node, c.LockNodes())
		}
		if f.Kind != FaultDrift {
			if err := impl.DurationBetween("at", f.At, 0, MaxAt); err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
		}
		switch f.Kind {
		case FaultCrash:
			if c.Design.Restart() == impl.NoRestart {
				return fmt.Errorf("%s: design %s assumes the service never crashes (the rows whose service restarts: %s)", where, c.Design, restartRows())
			}
			if !f.Node.IsLockNode() {
				return fmt.Errorf("%s: only the service (or a Redlock row's lock node) crashes, not %s", where, f.Node)
			}
			fallthrough
		case FaultPause, FaultSpike:
			if err := impl.DurationBetween("duration", f.Duration, time.Nanosecond, MaxFaultLength); err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
		case FaultJump:
			if f.By == 0 || f.By < -MaxFaultLength || f.By > MaxFaultLength {
				return fmt.Errorf("%s: by must be nonzero and within ±%v, got %v", where, MaxFaultLength, f.By)
			}
		case FaultDrift:
			if f.PPM == 0 || f.PPM < -maxPPM || f.PPM > maxPPM {
				return fmt.Errorf("%s: ppm must be nonzero and within ±%d", where, maxPPM)
			}
			if drift[f.Node] {
				return fmt.Errorf("%s: %s has two clock rates", where, f.Node)
			}
			drift[f.Node] = true
		default:
			return fmt.Errorf("fault %d: unknown kind %s (want pause, spike, jump, drift or crash)", i+1, quote.Q(string(f.Kind)))
		}
	}
	return nil
}

// ReadSchedule reads a schedule in its JSON form and checks it against c.
func ReadSchedule(r io.Reader, c Config) (*Schedule, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var s Schedule
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("malformed schedule: %w", err)
	}
	if dec.More() {
		return nil, errors.New("malformed schedule: data after the schedule")
	}
	if err := s.Validate(c); err != nil {
		return nil, fmt.Errorf("invalid schedule: %w", err)
	}
	return &s, nil
}

// WriteJSON writes s in its JSON form, indented for people.
func (s *Schedule) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// Clone returns an independent copy of s.
func (s *Schedule) Clone() *Schedule {
	c := *s
	c.Faults = slices.Clone(s.Faults)
	return &c
}

// Kinds is the set of fault classes s uses.
func (s *Schedule) Kinds() FaultKinds {
	var k FaultKinds
	for _, f := range s.Faults {
		k |= f.Kind.class()
	}
	return k
}

// Streams of a seed: the schedule is drawn from its own stream so that a
// schedule read from a file, or shrunk, runs with the very latency and
// backoff draws the generated one had (the run's draws).
const (
	streamSchedule = 0x5c4ed01e
	streamRun      = 0x52554e
	// streamCrash draws a restart row's crashes, apart from the NPC
	// faults, so that every row faces the very same NPC faults of a seed
	// and the rows whose service never crashes keep the schedules they
	// had before crashes existed.
	streamCrash = 0xc2a54
)

// mix spreads consecutive seeds over the PCG's state (SplitMix64's
// finaliser), so that runs 1, 2, 3... are unrelated.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Generate draws the schedule of seed, swarm style: the seed first picks
// which of the allowed classes are on in this run (a non-empty subset) and
// how strong they may be (a bound within c's), then the faults themselves,
// at times within the workload's horizon. Different runs thereby try very
// different mixes — many mild faults, a few violent ones — instead of the
// same average everywhere. In a row whose service restarts, the service's
// crashes come on top (WithCrashes), unless c has no faults at all.
func Generate(seed uint64, c Config) *Schedule {
	return WithCrashes(generateNPC(seed, c), c)
}

// WithCrashes returns s with the crashes of its seed added when c's design
// is a row whose service restarts and c has faults; else s itself. They
// are drawn from their own stream: the NPC faults stay those of the seed.
//
// A crash strikes at a time drawn from the whole horizon or, one time in
// two, from the first round of sections (a tenth of the horizon with the
// default 10 sections): a restart that forgets the counter endangers data
// only while a token it hands out again may still be in use, and a
// counter that restarts far below the resource's highest token only
// fences everyone off until it catches up. The service is down for 1ms up
// to a fifth of the TTL: a process restarting, not a pause.
func WithCrashes(s *Schedule, c Config) *Schedule {
	if c.Design.Restart() == impl.NoRestart || c.Faults == NoFaults {
		return s
	}
	c = c.Bounds()
	s = s.Clone()
	r := rand.New(rand.NewPCG(mix(s.Seed), streamCrash))
	horizon := int64(c.horizon())
	first := horizon / int64(c.Sections)
	down := max(time.Millisecond, c.TTL/5)
	for range 1 + r.IntN(c.MaxFaults) {
		span := horizon
		if r.IntN(2) == 0 {
			span = first
		}
		at := time.Duration(r.Int64N(span + 1))
		d := time.Millisecond + time.Duration(r.Int64N(int64(down-time.Millisecond)+1))
		node := impl.ServiceNode
		if c.Design.Redlock() {
			// Any of the independent nodes; drawn in these rows only,
			// so the restart rows' crashes stay those of before.
			node = impl.LockNode(r.IntN(c.LockNodes()))
		}
		s.Faults = append(s.Faults, Fault{Kind: FaultCrash, Node: node, At: at, Duration: d})
	}
	s.Sort()
	return s
}

// restartRows names the rows whose service restarts.
func restartRows() string {
	var names []string
	for _, d := range impl.Designs() {
		if d.Restart() != impl.NoRestart {
			names = append(names, d.String())
		}
	}
	return strings.Join(names, ", ")
}

// generateNPC draws the NPC faults of seed (see Generate).
func generateNPC(seed uint64, c Config) *Schedule {
	c = c.Bounds()
	s := &Schedule{Version: ScheduleVersion, Seed: seed, Faults: []Fault{}}
	var allowed []FaultKinds
	for _, k := range Singles() {
		if c.Faults&k != 0 {
			allowed = append(allowed, k)
		}
	}
	if len(allowed) == 0 {
		return s
	}
	r := rand.New(rand.NewPCG(mix(seed), streamSchedule))
	on := 1 + r.IntN(1<<len(allowed)-1) // a non-empty subset of allowed
	horizon := int64(c.horizon())
	node := func() impl.NodeID { return c.nodeAt(r.IntN(c.NumNodes())) }
	at := func() time.Duration { return time.Duration(r.Int64N(horizon + 1)) }
	count := func() int { return 1 + r.IntN(c.MaxFaults) }
	// upTo draws uniformly from [lo, hi], or returns hi when hi <= lo.
	upTo := func(lo, hi time.Duration) time.Duration {
		if hi <= lo {
			return hi
		}
		return lo + time.Duration(r.Int64N(int64(hi-lo)+1))
	}
	// long draws a fault length: short (up to a tenth of the TTL) most of
	// the time, and one time in longOdds long, from the TTL up to this
	// run's bound — the rare fault that outlasts a lease. Long lengths are
	// heavy-tailed (the cube of a uniform draw): most only just outlast the
	// lease, a few go far beyond it. The ones just past the lease are the
	// interesting ones, because they end while the next holder is still in
	// its critical section.
	long := func(longOdds int, bound time.Duration) time.Duration {
		if r.IntN(longOdds) == 0 {
			lo := min(c.TTL, bound)
			u := r.Float64()
			return lo + time.Duration(u*u*u*float64(bound-lo))
		}
		return upTo(time.Millisecond, min(c.TTL/10, bound))
	}
	for i, k := range allowed {
		if on&(1<<i) == 0 {
			continue
		}
		switch k {
		case DelayFaults:
			bound := upTo(min(c.TTL, c.MaxSpike), c.MaxSpike)
			for range count() {
				// A zero bound draws as before and keeps nothing, so
				// the other kinds' draws stay those of the seed.
				if f := (Fault{Kind: FaultSpike, Node: node(), At: at(), Duration: long(2, bound)}); f.Duration > 0 {
					s.Faults = append(s.Faults, f)
				}
			}
		case PauseFaults:
			bound := upTo(min(c.TTL, c.MaxPause), c.MaxPause)
			for range count() {
				if f := (Fault{Kind: FaultPause, Node: node(), At: at(), Duration: long(4, bound)}); f.Duration > 0 {
					s.Faults = append(s.Faults, f)
				}
			}
		case DriftFaults:
			if c.MaxDriftPPM > 0 {
				ppm := r.Int64N(c.MaxDriftPPM + 1)
				for n := range c.NumNodes() {
					if p := r.Int64N(2*ppm+1) - ppm; p != 0 {
						s.Faults = append(s.Faults, Fault{Kind: FaultDrift, Node: c.nodeAt(n), PPM: p})
					}
				}
			}
			bound := upTo(0, c.MaxJump)
			for range count() {
				if by := upTo(-bound, bound); by != 0 {
					s.Faults = append(s.Faults, Fault{Kind: FaultJump, Node: node(), At: at(), By: by})
				}
			}
		}
	}
	s.Sort()
	return s
}

// Sort puts the faults in a canonical order: clock rates first, then by
// time, kind and node.
func (s *Schedule) Sort() {
	slices.SortStableFunc(s.Faults, func(a, b Fault) int {
		if ad, bd := a.Kind == FaultDrift, b.Kind == FaultDrift; ad != bd {
			if ad {
				return -1
			}
			return 1
		}
		if a.At != b.At {
			return cmp.Compare(int64(a.At), int64(b.At))
		}
		if a.Kind != b.Kind {
			return strings.Compare(string(a.Kind), string(b.Kind))
		}
		return cmp.Compare(int64(a.Node), int64(b.Node))
	})
}

// --- how the faults act on a run ---

// clock is a node's local clock: local(t) = base + (t-since)·(1+ppm/1e6)
// for global virtual time t ≥ since. A step resets since and base.
type clock struct {
	since, base int64
	ppm         int64
	// recip is ⌊(2^64-1)/(1e6+recipPPM)⌋, made by toGlobal when first
	// needed for the clock's ppm.
	recip    uint64
	recipPPM int64
}

// local is the clock's reading at global time t.
func (c *clock) local(t int64) int64 {
	d := satSub(t, c.since)
	if c.ppm == 0 {
		return satAdd(c.base, d)
	}
	// Rounded down, so that local(t) = ⌊d·(1e6+ppm)/1e6⌋ exactly and
	// global is its exact inverse.
	return satAdd(satAdd(c.base, d), driftFloor(d, c.ppm))
}

// driftFloor is ⌊d·ppm/1e6⌋: mulDivFloor's value, in 64 bits when the
// product fits (a clock's every reading in a run within about 73 minutes
// of its last step, at any rate a schedule allows), where a division by
// the constant 1e6 is a multiplication; it is read at every timer set.
func driftFloor(d, ppm int64) int64 {
	const dMax, ppmMax = 1 << 42, 1 << 20 // |d·ppm| < 2^62
	if d <= -dMax || d >= dMax || ppm <= -ppmMax || ppm >= ppmMax {
		return mulDivFloor(d, ppm, 1e6)
	}
	p := d * ppm
	q := p / 1e6
	if q*1e6 > p { // truncated toward zero: a negative quotient rounds down
		q--
	}
	return q
}

// global is the earliest global time at which the clock reads at least l
// (never before since: a deadline already passed is due at once).
func (c *clock) global(l int64) int64 {
	d := satSub(l, c.base)
	if d <= 0 {
		return c.since
	}
	if c.ppm == 0 {
		return satAdd(c.since, d)
	}
	return satAdd(c.since, c.toGlobal(d))
}

// toGlobal is ⌈d·1e6/(1e6+ppm)⌉ for d > 0: mulDivCeil's value. Read at
// every timer set, it divides by the clock's one rate through a reciprocal
// kept with the clock (recip, for the ppm it was made for) — a
// multiplication and a correction instead of a 128-bit division — when
// the product fits 63 bits (d below 2^43 ns, about 2.4 hours); else
// mulDivCeil.
func (c *clock) toGlobal(d int64) int64 {
	const dMax = 1 << 43 // d·1e6 < 2^63
	den := 1e6 + c.ppm
	if d >= dMax || den <= 0 {
		return mulDivCeil(d, 1e6, den)
	}
	if c.recip == 0 || c.recipPPM != c.ppm {
		c.recip, c.recipPPM = math.MaxUint64/uint64(den), c.ppm
	}
	x, dd := uint64(d)*1e6, uint64(den)
	// recip = ⌊(2^64-1)/den⌋, so q ≤ ⌊x/den⌋ ≤ q+1 for x < 2^63.
	q, _ := bits.Mul64(x, c.recip)
	r := x - q*dd
	for r >= dd {
		q++
		r -= dd
	}
	if r != 0 {
		q++
	}
	return int64(q)
}

// timer is the local deadline of a timer set at global time now to run
// for d of local time, and the global time it is due: global(local(now)+d).
// A clock without drift keeps one time base — its readings are global time
// shifted by base-since, zero until it steps — so the deadline converts
// back by that shift alone, with no arithmetic on rates: the very sums
// local and global make when ppm is 0, without their calls.
func (c *clock) timer(now, d int64) (deadline, due int64) {
	if c.ppm != 0 {
		deadline = satAdd(c.local(now), d)
		return deadline, c.global(deadline)
	}
	deadline = satAdd(satAdd(c.base, satSub(now, c.since)), d)
	if off := satSub(deadline, c.base); off > 0 {
		return deadline, satAdd(c.since, off)
	}
	return deadline, c.since
}

// jump steps the clock by by at global time t.
func (c *clock) jump(t, by int64) {
	c.base, c.since = satAdd(c.local(t), by), t
}

// mulDiv is a·b/c truncated toward zero, exact for any int64 a and b whose
// quotient fits (the 128-bit product cannot overflow).
func mulDiv(a, b, c int64) int64 {
	neg := (a < 0) != (b < 0) != (c < 0)
	hi, lo := bits.Mul64(uabs(a), uabs(b))
	if hi >= uabs(c) {
		panic("sim: mulDiv overflow")
	}
	q, _ := bits.Div64(hi, lo, uabs(c))
	if neg {
		return -int64(q)
	}
	return int64(q)
}

// mulDivFloor is a·b/c rounded down, for c > 0.
func mulDivFloor(a, b, c int64) int64 {
	q := mulDiv(a, b, c)
	if (a < 0) != (b < 0) && a != 0 && b != 0 && q*c != a*b {
		q--
	}
	return q
}

// mulDivCeil is a·b/c rounded up, for positive a, b, c, held at the int64
// limit.
func mulDivCeil(a, b, c int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi >= uint64(c) {
		return math.MaxInt64
	}
	q, r := bits.Div64(hi, lo, uint64(c))
	if r != 0 {
		q++
	}
	return int64(min(q, math.MaxInt64))
}

// mulDivSat is a·b/c truncated, for a ≥ 0 and positive b, c, held at the
// int64 limit.
func mulDivSat(a, b, c int64) int64 {
	if a <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi >= uint64(c) {
		return math.MaxInt64
	}
	q, _ := bits.Div64(hi, lo, uint64(c))
	return int64(min(q, math.MaxInt64))
}

func uabs(x int64) uint64 {
	if x < 0 {
		return uint64(-x)
	}
	return uint64(x)
}

// window is a pause of one node: [start, end) in global time.
type window struct{ start, end int64 }

// faultState is what the schedule means for one node during a run.
type faultState struct {
	clock  clock
	pauses []window // sorted, disjoint and not touching (merged)
	pi     int      // pauses before pi have ended
	spikes []Fault  // this node's spikes, by At
	si     int      // spikes before si have been used
}

// reset prepares fs for a run of schedule s: its clock rate and its pauses
// and spikes in time order. Clock steps are not kept here: Runner.runOn
// queues each as an evFault event, and Runner.fault applies it.
func (fs *faultState) reset(n impl.NodeID, s *Schedule) {
	fs.clock = clock{}
	fs.pauses, fs.pi = fs.pauses[:0], 0
	fs.spikes, fs.si = fs.spikes[:0], 0
	for _, f := range s.Faults {
		if f.Node != n {
			continue
		}
		switch f.Kind {
		case FaultDrift:
			fs.clock.ppm = f.PPM
		case FaultPause, FaultCrash:
			// A crashed node is down: like a paused one, it handles
			// nothing until it is back (see Runner.resume).
			fs.pauses = append(fs.pauses, window{int64(f.At), satAdd(int64(f.At), int64(f.Duration))})
		case FaultSpike:
			fs.spikes = append(fs.spikes, f)
		}
	}
	slices.SortFunc(fs.pauses, func(a, b window) int { return cmp.Compare(a.start, b.start) })
	merged := fs.pauses[:0]
	for _, w := range fs.pauses {
		if k := len(merged) - 1; k >= 0 && w.start <= merged[k].end {
			merged[k].end = max(merged[k].end, w.end)
			continue
		}
		merged = append(merged, w)
	}
	fs.pauses = merged
	slices.SortStableFunc(fs.spikes, func(a, b Fault) int { return cmp.Compare(int64(a.At), int64(b.At)) })
}

// resumeAt is the time the node can act at, given it wants to act at t ≥
// now: t itself, or the end of the pause t falls in. now only moves
// forward, so pauses that ended by now are skipped for good.
func (fs *faultState) resumeAt(now, t int64) int64 {
	for fs.pi < len(fs.pauses) && fs.pauses[fs.pi].end <= now {
		fs.pi++
	}
	for i := fs.pi; i < len(fs.pauses) && fs.pauses[i].start <= t; i++ {
		if t < fs.pauses[i].end {
			return fs.pauses[i].end
		}
	}
	return t
}

// spike is the extra delay of a message that leaves the node at time dep:
// the first unused spike due by then, once. Departures of one node never go
// back in time, so a spike is used by the first message after its At.
func (fs *faultState) spike(dep int64) (time.Duration, bool) {
	if fs.si < len(fs.spikes) && int64(fs.spikes[fs.si].At) <= dep {
		d := fs.spikes[fs.si].Duration
		fs.si++
		return d, true
	}
	return 0, false
}

// calm answers, without looking at the node, the two questions the run
// asks of a node's faults on every event and every send: is it paused at
// this time, and is a spike due? Most of a run is calm — no pause under
// way, none about to begin, no spike due — and there the answer is no for
// every node, from a few figures over all of them; elsewhere the node's
// own faultState answers, as ever.
type calm struct {
	windows []window // every node's pauses, by start
	started int      // the windows before started have begun by now
	// horizon is the latest end of a window that has begun: no node is
	// paused at or after it until the next window begins.
	horizon int64
	// next is the start of the first window not begun (windows[started]),
	// MaxInt64 when every one has: one comparison tells advance and
	// unpaused whether any has begun since.
	next int64
	// spikeAt is the earliest At of a spike not yet used, of any node
	// (MaxInt64: none left).
	spikeAt int64
}

// reset gathers the pauses and spikes of every node's faultState, fresh
// for a run.
func (c *calm) reset(nodes []faultState) {
	c.windows, c.started, c.horizon = c.windows[:0], 0, math.MinInt64
	for i := range nodes {
		c.windows = append(c.windows, nodes[i].pauses...)
	}
	slices.SortFunc(c.windows, func(a, b window) int { return cmp.Compare(a.start, b.start) })
	c.setNext()
	c.spiked(nodes)
}

// setNext keeps next the start of windows[started].
func (c *calm) setNext() {
	c.next = math.MaxInt64
	if c.started < len(c.windows) {
		c.next = c.windows[c.started].start
	}
}

// advance moves the run's time on to now (never back).
func (c *calm) advance(now int64) {
	if now < c.next {
		return // no window begins by now: the common case, one comparison
	}
	for c.started < len(c.windows) && c.windows[c.started].start <= now {
		c.horizon = max(c.horizon, c.windows[c.started].end)
		c.started++
	}
	c.setNext()
}

// unpaused reports that no node is paused at any time in [now, t], now the
// time advance was last given: every pause that has begun has ended by
// now, and none begins by t. Then resumeAt(now, t) is t for every node.
func (c *calm) unpaused(now, t int64) bool {
	return now >= c.horizon && t < c.next
}

// spiked recomputes spikeAt after a spike was used.
func (c *calm) spiked(nodes []faultState) {
	c.spikeAt = math.MaxInt64
	for i := range nodes {
		if fs := &nodes[i]; fs.si < len(fs.spikes) {
			c.spikeAt = min(c.spikeAt, int64(fs.spikes[fs.si].At))
		}
	}
}

// draws is the run's one source of randomness: the normal latency of each
// message and each retry backoff. It is counter-based — SplitMix64's mixer
// over a key derived from the seed, a stream (a link, or a client's
// backoffs) and that stream's counter — rather than one sequence consumed in
// event order. The k-th message on a link thus always has the same latency
// and a client's k-th backoff the same length, whatever happened elsewhere:
// a small change to a schedule (a 1ms pause that reorders two deliveries)
// changes what it touches and not every draw after it, which is what lets
// a shrinker remove a fault without the rest of the run being redrawn.
//
// A value is two mixes, and the inner one, mix(stream<<40 ^ counter), does
// not depend on the seed: draws computes it in a batch, the first
// drawBatch counters of every stream at once, when the Runner's first run
// starts, and keeps the batch for every run after (a stream's draws past
// drawBatch mix it afresh). A run's draw is then one mix and a load, and
// it is still the value its stream and counter give, taken in the same
// order as ever.
type draws struct {
	key      uint64
	counters []uint64 // per stream: the draws taken
	// inner is mix(stream<<40 ^ k) for k in 1 ... drawBatch of every
	// stream, stream by stream; the same in every run.
	inner []uint64
}

// drawBatch is how many draws of each stream draws.inner holds: more than
// a run of the default workload takes on any link.
const drawBatch = 64

func (d *draws) reset(seed uint64, streams int) {
	d.key = mix(seed ^ streamRun)
	d.counters = resize(d.counters, streams, 0)
	if len(d.inner) != streams*drawBatch {
		d.inner = make([]uint64, streams*drawBatch)
		for s := range streams {
			for k := range drawBatch {
				d.inner[s*drawBatch+k] = mix(uint64(s)<<40 ^ uint64(k+1))
			}
		}
	}
}

// next is stream's next random value: the one keyed by its counter, from
// 1 on.
func (d *draws) next(stream int) uint64 {
	c := d.counters[stream] + 1
	d.counters[stream] = c
	if c > drawBatch {
		return d.past(stream, c)
	}
	return mix(d.key ^ d.inner[stream*drawBatch+int(c)-1])
}

// past is the value of stream's counter c beyond the batch: out of next,
// so that next is inlined where it is drawn.
//
//go:noinline
func (d *draws) past(stream int, c uint64) uint64 {
	return mix(d.key ^ mix(uint64(stream)<<40^c))
}

// uniform maps a random value to [0, n] (Lemire's multiply-shift; the bias
// is below 2^-40 for any duration here).
func uniform(x uint64, n int64) int64 {
	hi, _ := bits.Mul64(x, uint64(n)+1)
	return int64(hi)
}

// latency is a message's normal delay: Latency plus a uniform draw from
// [0, Jitter].
func latency(c *Config, x uint64) int64 {
	return int64(c.Latency) + uniform(x, int64(c.Jitter))
}

// backoff is a retry backoff, uniform in [Backoff/2, 3·Backoff/2].
func backoff(c *Config, x uint64) time.Duration {
	return c.Backoff/2 + time.Duration(uniform(x, int64(c.Backoff)))
}
