package sim

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
	"github.com/fencelab/fencelab/trace"
)

func config(d impl.Design, faults FaultKinds) Config {
	c := DefaultConfig()
	c.Design, c.Faults = d, faults
	return c
}

func TestSameSeedSameRun(t *testing.T) {
	t.Parallel()
	testbuild.SkipUnderRace(t)
	for _, d := range impl.Designs() {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			c := config(d, AllFaults)
			r1, err := NewRunner(c)
			require.NoError(t, err)
			r2, err := NewRunner(c)
			require.NoError(t, err)
			for seed := uint64(1); seed <= uint64(runs(200, 40)); seed++ {
				s := Generate(seed, c)
				assert.Equal(t, s, Generate(seed, c), "a seed generates one schedule")
				a := r1.Run(s)
				r1.Check(&a, 0)
				// r2 ran other seeds before: nothing may leak from run to run.
				b := r2.Run(Generate(seed+1000, c))
				b = r2.Run(s)
				r2.Check(&b, 0)
				require.Equal(t, a, b, "seed %d", seed)
				require.Equal(t, r1.History(), r2.History(), "seed %d", seed)
			}
		})
	}
}

func TestBatchDoesNotDependOnWorkers(t *testing.T) {
	t.Parallel()
	c := DefaultConfig()
	n := runs(300, 60)
	one, err := Batch{Config: c, Designs: impl.Designs(), Seed: 7, Runs: n, Workers: 1}.Run()
	require.NoError(t, err)
	four, err := Batch{Config: c, Designs: impl.Designs(), Seed: 7, Runs: n, Workers: 4}.Run()
	require.NoError(t, err)
	assert.Equal(t, one, four)
	for i := range one.Designs {
		assert.Equal(t, one.Designs[i].Verdicts(), four.Designs[i].Verdicts())
	}
}

// TestFastChecksAreEquivalent compares Run, which checks each invariant only
// after the steps that can break it, with checking every invariant after
// every step (as Record does): the first violation of each property must be
// the same step, time and explanation.
func TestFastChecksAreEquivalent(t *testing.T) {
	t.Parallel()
	testbuild.SkipUnderRace(t)
	for _, d := range impl.Designs() {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			c := config(d, AllFaults)
			r, err := NewRunner(c)
			require.NoError(t, err)
			every, err := NewRunner(c)
			require.NoError(t, err)
			every.checkEvery = true
			violations := 0
			for seed := uint64(1); seed <= uint64(runs(400, 100)); seed++ {
				s := Generate(seed, c)
				fast := r.Run(s)
				full := every.Run(s)
				require.Equal(t, fast, full, "seed %d", seed)
				for p := range numProps {
					if fast.violations[p].Step > 0 {
						violations++
					}
				}
			}
			assert.Positive(t, violations, "the comparison must include violations")
		})
	}
}

func TestRecordedTraceIsDeterministic(t *testing.T) {
	c := config(impl.DesignFenceNone, AllFaults)
	s := Generate(14, c)
	render := func() string {
		rp, err := NewReplay(c, s, 0)
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, rp.WriteTimeline(&b))
		return b.String()
	}
	first := render()
	assert.Equal(t, first, render())
	assert.Contains(t, first, "NoLostUpdate violated")
	assert.Contains(t, first, "(spike)", "the fault is marked")
	assert.Contains(t, first, "expired lease", "lease expiries are marked")
}

func TestStallDetector(t *testing.T) {
	c := config(impl.DesignFenceAll, PauseFaults)
	c.StallAfter = 200 * time.Millisecond
	r, err := NewRunner(c)
	require.NoError(t, err)
	// The service pauses for 2s: nothing can progress for longer than the
	// (deliberately too short) stall bound.
	s := &Schedule{Version: ScheduleVersion, Seed: 1, Faults: []Fault{{Kind: FaultPause, Node: impl.ServiceNode, At: 50 * time.Millisecond, Duration: 2 * time.Second}}}
	res := r.Run(s)
	assert.Contains(t, res.Stall, "no progress for 200ms")

	var d DesignSummary
	d.Design = impl.DesignFenceAll
	d.Add(&res)
	assert.Equal(t, 1, d.Stalls)
	assert.True(t, d.FirstFailing.Ok)
	assert.NotEmpty(t, d.Unexpected(PauseFaults), "a stall is never expected")

	// With the derived bound the same schedule is no stall.
	c.StallAfter = 0
	r, err = NewRunner(c)
	require.NoError(t, err)
	res = r.Run(s)
	assert.Empty(t, res.Stall)
	assert.Equal(t, c.Clients*c.Sections, res.Committed+res.Aborted)
}

func TestStepBudgetEndsARunAsAStall(t *testing.T) {
	c := config(impl.DesignFenceAll, NoFaults)
	c.MaxSteps = 50
	r, err := NewRunner(c)
	require.NoError(t, err)
	res := r.Run(Generate(1, c))
	assert.Equal(t, "50 steps without every client finishing", res.Stall)
}

// kleppmannShape asserts that schedule s is Kleppmann's GC pause: one pause
// of one client, which began after that client's grant and before its
// write, and during which the service expired the client's lease.
func kleppmannShape(t *testing.T, c Config, s *Schedule) {
	t.Helper()
	require.Len(t, s.Faults, 1, "one fault: %+v", s.Faults)
	p := s.Faults[0]
	require.Equal(t, FaultPause, p.Kind)
	require.True(t, p.Node.IsClient(), "a client pauses, not %s", p.Node)
	rp, err := NewReplay(c, s, 0)
	require.NoError(t, err)
	require.True(t, rp.Result.Violated(impl.NoLostUpdate))
	client := p.Node.ClientIndex()
	start, end := int64(p.At), int64(p.At+p.Duration)
	// The section the pause struck: granted before the pause, ended after
	// it, and its write decided no later than the resume (the pause may
	// strike right after the lease check, holding the write on the client)
	// and taking effect after it.
	var struck, wrote bool
	for _, sec := range rp.Runner.History().Sections {
		if sec.Client != client || sec.Call > start || sec.Return < end {
			continue
		}
		struck = true
		for _, op := range rp.Runner.History().Ops {
			if op.Client == client && op.Kind == impl.OpWrite && op.Call >= sec.Call && op.Call <= end && op.Return >= end {
				wrote = true
			}
		}
	}
	var expired bool
	for _, a := range rp.annotations {
		if a.Tag == "expiry" && a.Client == client && strings.HasPrefix(a.Text, "the service expired") && a.Start > start && a.Start < end {
			expired = true
		}
	}
	assert.True(t, struck, "the pause falls between the client's grant and the end of its section")
	assert.True(t, wrote, "the client's write lands after the pause")
	assert.True(t, expired, "its lease expired at the service during the pause")
	t.Logf("shrunk: %s at %v (ttl %v)", p, p.At, c.TTL)
}

func TestShrinkFirstPauseFailureToKleppmann(t *testing.T) {
	testbuild.SkipUnderRace(t)
	c := config(impl.DesignNoFencing, PauseFaults)
	r, err := NewRunner(c)
	require.NoError(t, err)
	// The first failing seed, and the first whose schedule has at least
	// three pauses (so that the shrinker has something to remove).
	for _, minFaults := range []int{1, 3} {
		t.Run(fmt.Sprintf("at least %d faults", minFaults), func(t *testing.T) {
			var seed uint64
			var s *Schedule
			for seed = 1; ; seed++ {
				require.Less(t, seed, uint64(2000), "no pause-only failure in 2000 seeds")
				s = Generate(seed, c)
				if res := r.Run(s); len(s.Faults) >= minFaults && res.Violated(impl.NoLostUpdate) {
					break
				}
			}
			small, runs := r.Shrink(s, Violates(impl.NoLostUpdate))
			t.Logf("seed %d: %d faults shrunk to %d in %d runs", seed, len(s.Faults), len(small.Faults), runs)
			kleppmannShape(t, c, small)
		})
	}
}

func TestShrinkLeavesAPassingSchedule(t *testing.T) {
	c := config(impl.DesignFenceNone, PauseFaults)
	r, err := NewRunner(c)
	require.NoError(t, err)
	none := &Schedule{Version: ScheduleVersion, Seed: 3, Faults: []Fault{}}
	got, runs := r.Shrink(none, Violates(impl.NoLostUpdate))
	assert.Same(t, none, got)
	assert.Equal(t, 1, runs)
}

func TestScheduleJSONRoundTrip(t *testing.T) {
	c := DefaultConfig()
	for seed := uint64(1); seed <= 50; seed++ {
		s := Generate(seed, c)
		var b bytes.Buffer
		require.NoError(t, s.WriteJSON(&b))
		back, err := ReadSchedule(&b, c)
		require.NoError(t, err, "seed %d", seed)
		assert.Equal(t, s, back)
	}
}

func TestReadScheduleRejectsBadInput(t *testing.T) {
	c := DefaultConfig()
	tests := []struct{ name, json, want string }{
		{"not json", `{`, "malformed schedule"},
		{"unknown field", `{"version":1,"seed":1,"faults":[],"extra":1}`, "unknown field"},
		{"wrong version", `{"version":2,"seed":1,"faults":[]}`, "version 2 is not supported"},
		{"unknown kind", `{"version":1,"seed":1,"faults":[{"kind":"flood","node":"c1"}]}`, "unknown kind"},
		{"unknown node", `{"version":1,"seed":1,"faults":[{"kind":"pause","node":"c0","at":"1s","duration":"1s"}]}`, "unknown node"},
		{"missing client", `{"version":1,"seed":1,"faults":[{"kind":"pause","node":"c9","at":"1s","duration":"1s"}]}`, "does not exist with 3 clients"},
		{"bad duration", `{"version":1,"seed":1,"faults":[{"kind":"pause","node":"c1","at":"soon","duration":"1s"}]}`, `at: "soon" is not a duration`},
		{"zero pause", `{"version":1,"seed":1,"faults":[{"kind":"pause","node":"c1","at":"1s"}]}`, "duration must be positive"},
		{"zero jump", `{"version":1,"seed":1,"faults":[{"kind":"jump","node":"c1","at":"1s"}]}`, "by must be nonzero"},
		{"drift too large", `{"version":1,"seed":1,"faults":[{"kind":"drift","node":"c1","ppm":900000}]}`, "ppm must be"},
		{"two rates", `{"version":1,"seed":1,"faults":[{"kind":"drift","node":"c1","ppm":5},{"kind":"drift","node":"c1","ppm":6}]}`, "two clock rates"},
		{"trailing data", `{"version":1,"seed":1,"faults":[]} {}`, "data after the schedule"},
		// A field of another kind of fault is refused, not ignored.
		{"pause with by", `{"version":1,"seed":1,"faults":[{"kind":"pause","node":"c1","at":"1s","duration":"1s","by":"1s"}]}`, `"by" does not belong to a pause`},
		{"pause with ppm", `{"version":1,"seed":1,"faults":[{"kind":"pause","node":"c1","at":"1s","duration":"1s","ppm":0}]}`, `"ppm" does not belong to a pause`},
		{"spike with by", `{"version":1,"seed":1,"faults":[{"kind":"spike","node":"c1","at":"1s","duration":"1s","by":"-1s"}]}`, `"by" does not belong to a spike`},
		{"jump with duration", `{"version":1,"seed":1,"faults":[{"kind":"jump","node":"c1","at":"1s","by":"1s","duration":"1s"}]}`, `"duration" does not belong to a jump`},
		{"drift with at", `{"version":1,"seed":1,"faults":[{"kind":"drift","node":"c1","ppm":5,"at":"1s"}]}`, `"at" does not belong to a drift`},
		{"crash with ppm", `{"version":1,"seed":1,"faults":[{"kind":"crash","node":"service","at":"1s","duration":"1s","ppm":3}]}`, `"ppm" does not belong to a crash`},
		// One parser of node names: only the names traces print.
		{"node c01", `{"version":1,"seed":1,"faults":[{"kind":"pause","node":"c01","at":"1s","duration":"1s"}]}`, `unknown node "c01"`},
		{"node c+1", `{"version":1,"seed":1,"faults":[{"kind":"pause","node":"c+1","at":"1s","duration":"1s"}]}`, `unknown node "c+1"`},
		{"node with a space", `{"version":1,"seed":1,"faults":[{"kind":"pause","node":" c1","at":"1s","duration":"1s"}]}`, `unknown node " c1"`},
		{"node C1", `{"version":1,"seed":1,"faults":[{"kind":"pause","node":"C1","at":"1s","duration":"1s"}]}`, `unknown node "C1"`},
		{"node service1", `{"version":1,"seed":1,"faults":[{"kind":"crash","node":"service1","at":"1s","duration":"1s"}]}`, `unknown node "service1"`},
		{"node service02", `{"version":1,"seed":1,"faults":[{"kind":"crash","node":"service02","at":"1s","duration":"1s"}]}`, `unknown node "service02"`},
		{"long node", `{"version":1,"seed":1,"faults":[{"kind":"pause","node":"` + strings.Repeat("c", 100_000) + `","at":"1s","duration":"1s"}]}`, `…(100000 bytes)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadSchedule(strings.NewReader(tc.json), c)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestParseFaults(t *testing.T) {
	tests := []struct {
		in   string
		want FaultKinds
		err  bool
	}{
		{"none", NoFaults, false},
		{"delay", DelayFaults, false},
		{"pause,drift", PauseFaults | DriftFaults, false},
		{"drift, delay ,pause", AllFaults, false},
		{"crash", CrashFaults, false},
		{"delay,crash", DelayFaults | CrashFaults, false},
		{"delay,gc", 0, true},
		{"", 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseFaults(tc.in)
			if tc.err {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			again, err := ParseFaults(got.String())
			require.NoError(t, err)
			assert.Equal(t, got, again)
		})
	}
}

func TestGenerateStaysWithinBounds(t *testing.T) {
	c := DefaultConfig()
	c.MaxPause, c.MaxSpike, c.MaxJump, c.MaxDriftPPM, c.MaxFaults = 1500*time.Millisecond, 2*time.Second, 700*time.Millisecond, 20_000, 2
	kinds := FaultKinds(0)
	long := 0
	for seed := uint64(1); seed <= 500; seed++ {
		s := Generate(seed, c)
		require.NoError(t, s.Validate(c))
		count := map[FaultKind]int{}
		for _, f := range s.Faults {
			count[f.Kind]++
			switch f.Kind {
			case FaultPause:
				assert.LessOrEqual(t, f.Duration, c.MaxPause)
				if f.Duration >= c.TTL {
					long++
				}
			case FaultSpike:
				assert.LessOrEqual(t, f.Duration, c.MaxSpike)
			case FaultJump:
				assert.LessOrEqual(t, abs(f.By), c.MaxJump)
			case FaultDrift:
				assert.LessOrEqual(t, max(f.PPM, -f.PPM), c.MaxDriftPPM)
			}
		}
		assert.LessOrEqual(t, count[FaultPause], c.MaxFaults)
		assert.LessOrEqual(t, count[FaultSpike], c.MaxFaults)
		assert.LessOrEqual(t, count[FaultJump], c.MaxFaults)
		kinds |= s.Kinds()
	}
	assert.Equal(t, AllFaults, kinds, "every kind is drawn")
	assert.Positive(t, long, "some pauses outlast the lease")
	assert.Empty(t, Generate(1, config(impl.DesignFenceAll, NoFaults)).Faults)
}

func TestClock(t *testing.T) {
	tests := []struct {
		name       string
		ppm        int64
		jumpAt, by int64
		t, local   int64
	}{
		{"exact", 0, 0, 0, 1000, 1000},
		{"fast", 100_000, 0, 0, 1000, 1100},
		{"slow", -500_000, 0, 0, 1000, 500},
		{"stepped back", 0, 400, -300, 1000, 700},
		{"stepped forward fast", 100_000, 1000, 50, 2000, 1100 + 50 + 1100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := clock{ppm: tc.ppm}
			if tc.by != 0 {
				c.jump(tc.jumpAt, tc.by)
			}
			assert.Equal(t, tc.local, c.local(tc.t))
			g := c.global(tc.local)
			assert.GreaterOrEqual(t, c.local(g), tc.local, "the clock reads the deadline by global(deadline)")
			assert.Less(t, c.local(g-1), tc.local, "and not before")
		})
	}
	c := clock{}
	c.jump(100, 1_000)
	assert.Equal(t, int64(100), c.global(500), "a deadline the clock has passed is due at once")
}

func TestMulDiv(t *testing.T) {
	assert.Equal(t, int64(-7), mulDiv(-15, 1, 2))
	assert.Equal(t, int64(3_000_000_000_000_000), mulDiv(3_000_000_000_000, 1_000_000_000, 1_000_000))
	assert.Equal(t, int64(4), mulDivCeil(7, 1, 2))
	assert.Panics(t, func() { mulDiv(1<<62, 1<<62, 1) })
}

func TestQueueOrder(t *testing.T) {
	var q queue
	times := []int64{5, 3, 9, 3, 0, 5, 5, 1, 9, 2}
	for i, at := range times {
		q.push(event{at: at, fault: int32(i)})
	}
	var got [][2]int64
	for q.len() > 0 {
		e, _ := q.pop()
		got = append(got, [2]int64{e.at, int64(e.fault)})
	}
	assert.Equal(t, [][2]int64{{0, 4}, {1, 7}, {2, 9}, {3, 1}, {3, 3}, {5, 0}, {5, 5}, {5, 6}, {9, 2}, {9, 8}}, got,
		"by time, then by insertion order")
}

func TestPauseHoldsSendsAndInputs(t *testing.T) {
	// A pause that begins within Processing of a step holds that step's
	// messages until the node resumes.
	var fs faultState
	s := &Schedule{Faults: []Fault{
		{Kind: FaultPause, Node: 2, At: 100, Duration: 50},
		{Kind: FaultPause, Node: 2, At: 140, Duration: 100}, // overlaps: merged
		{Kind: FaultPause, Node: 2, At: 1000, Duration: 10},
	}}
	fs.reset(2, s)
	assert.Equal(t, []window{{100, 240}, {1000, 1010}}, fs.pauses)
	assert.Equal(t, int64(99), fs.resumeAt(0, 99))
	assert.Equal(t, int64(240), fs.resumeAt(0, 100))
	assert.Equal(t, int64(240), fs.resumeAt(90, 239))
	assert.Equal(t, int64(240), fs.resumeAt(240, 240))
	assert.Equal(t, int64(1010), fs.resumeAt(500, 1005))
}

func TestRecordMarksFaults(t *testing.T) {
	c := config(impl.DesignFenceAll, AllFaults)
	s := &Schedule{Version: ScheduleVersion, Seed: 5, Faults: []Fault{
		{Kind: FaultDrift, Node: impl.ServiceNode, PPM: 20_000},
		{Kind: FaultPause, Node: impl.ClientNode(0), At: 10 * time.Millisecond, Duration: 30 * time.Millisecond},
		{Kind: FaultJump, Node: impl.ClientNode(1), At: 20 * time.Millisecond, By: -5 * time.Millisecond},
		{Kind: FaultSpike, Node: impl.ClientNode(2), At: 0, Duration: 40 * time.Millisecond},
	}}
	require.NoError(t, s.Validate(c))
	r, err := NewRunner(c)
	require.NoError(t, err)
	_, tr, anns := r.Record(s, "marks", "")
	var notes []string
	for _, n := range tr.Notes {
		if n.Kind == trace.NoteFault {
			notes = append(notes, n.Lane+": "+n.Text)
		}
	}
	assert.Equal(t, []string{
		"service: clock 1.02×",
		"c3: Acquire to service delayed by 40ms (spike)",
		"c1: c1 paused for 30ms",
		"c2: c2's clock steps back 5ms",
		"c1: c1's pause of 30ms ends",
	}, notes)
	tags := map[string]int{}
	for _, a := range anns {
		tags[a.Tag]++
	}
	assert.Equal(t, 1, tags["pause"])
	assert.Equal(t, 1, tags["spike"])
	assert.Equal(t, 1, tags["clock"])
}
