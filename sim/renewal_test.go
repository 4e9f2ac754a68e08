package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/fencelab/fencelab/bounds"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
)

// longSections is a workload whose critical sections outlast the TTL: two
// clients, think twice the TTL, so that a client that does not renew has
// stopped believing by the time it would write; a backoff long enough that
// the waiting client keeps asking through the other's section and its
// lease's expiry.
func longSections(d impl.Design) Config {
	c := DefaultConfig()
	c.Design, c.Clients, c.Sections = d, 2, 2
	c.Think = 2 * c.TTL
	c.Backoff = 100 * time.Millisecond
	c.Faults = NoFaults
	return c
}

// TestRenewalKeepsLongSections: with no fault, sections twice the TTL
// commit only where the holder renews. Without renewal the belief ends
// before the write (validity TTL − margin) and every section is abandoned
// — and the lease expires under it; with renewal every section commits and
// nothing is violated: renewal is what keeps a long section, and safe,
// while no pause occurs.
func TestRenewalKeepsLongSections(t *testing.T) {
	for _, tc := range []struct {
		design    impl.Design
		committed int
	}{
		{impl.DesignNoFencing, 0},
		{impl.DesignFenceAll, 0},
		{impl.DesignRenewal, 4},
	} {
		t.Run(tc.design.String(), func(t *testing.T) {
			c := longSections(tc.design)
			r, err := NewRunner(c)
			require.NoError(t, err)
			res := r.Run(&Schedule{Version: ScheduleVersion, Seed: 1})
			require.Empty(t, res.Stall)
			assert.Equal(t, tc.committed, res.Committed, "sections committed")
			assert.Equal(t, 4-tc.committed, res.Aborted, "sections abandoned")
			for _, inv := range impl.Invariants() {
				assert.False(t, res.Violated(inv.Name), "%s violated with no fault", inv.Name)
			}
		})
	}
}

// thinkEnd is the virtual time at which the first holder's think timer
// fires in the fault-free run of c — the moment it checks its belief and
// sends its write — and that holder.
func thinkEnd(t *testing.T, c Config) (time.Duration, impl.NodeID) {
	t.Helper()
	r, err := NewRunner(c)
	require.NoError(t, err)
	_, tr, _ := r.Record(&Schedule{Version: ScheduleVersion, Seed: 1}, "long sections", "")
	for _, s := range tr.Steps {
		if s.Action == "think timer fired" {
			for i := range c.Clients {
				if s.Actor == impl.ClientNode(i).String() {
					return s.At, impl.ClientNode(i)
				}
			}
		}
	}
	require.FailNow(t, "no think timer fired")
	return 0, 0
}

// TestPauseBreaksRenewal: the same long sections, and one GC pause of the
// first holder. A pause longer than what is left of the lease stops the
// renewals with the work: the lease expires, the other client is granted
// the lock, and the paused one resumes still believing: two holders.
// Struck between its belief check and its write's leaving (Kleppmann's
// pause), the write lands after the new holder's read: an update is lost
// (nothing fences it off). Struck in the middle of the think instead, the
// resumed client's
// overdue validity timer fires before its think timer: it abandons the
// section — two holders for the pause's length, no update lost.
func TestPauseBreaksRenewal(t *testing.T) {
	at, holder := thinkEnd(t, longSections(impl.DesignRenewal))
	pause := func(at time.Duration) *Schedule {
		return &Schedule{Version: ScheduleVersion, Seed: 1, Faults: []Fault{{Kind: FaultPause, Node: holder, At: at, Duration: 3 * time.Second / 2}}}
	}
	for _, tc := range []struct {
		name    string
		at      time.Duration
		lostUpd bool
	}{
		{"paused at the write", at + 50*time.Microsecond, true},
		{"paused mid-section", at - time.Second, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := longSections(impl.DesignRenewal)
			c.Faults = PauseFaults
			r, err := NewRunner(c)
			require.NoError(t, err)
			res := r.Run(pause(tc.at))
			require.Empty(t, res.Stall)
			assert.True(t, res.Violated(impl.AtMostOneClientHoldLock), "the paused holder still believes while the other holds")
			assert.Equal(t, tc.lostUpd, res.Violated(impl.NoLostUpdate), "NoLostUpdate violated")
			assert.Positive(t, res.Committed, "the other client's sections commit")
		})
	}
}

// TestRenewalUnderDefaultFaults: 1,000 seeds of the default workload
// (sections of 20 ms, far below the TTL) and faults, with and without
// renewal. Renewal changes little here — a renewal is due only after TTL/3,
// which only a section stretched by a fault reaches — and it removes no
// violation kind: two holders and lost updates remain (fewer lost
// updates: a section a delay stretched past TTL/3 has its lease renewed).
func TestRenewalUnderDefaultFaults(t *testing.T) {
	testbuild.SkipUnderRace(t)
	c := DefaultConfig()
	sum, err := Batch{Config: c, Designs: []impl.Design{impl.DesignNoFencing, impl.DesignRenewal}, Seed: 1, Runs: 1000}.Run()
	require.NoError(t, err)
	want := map[impl.Design][numProps]int{
		impl.DesignNoFencing: {55, 0, 86},
		impl.DesignRenewal:   {51, 0, 36},
	}
	for _, d := range sum.Designs {
		var got [numProps]int
		for k := range numProps {
			got[k] = d.violations[k]
		}
		assert.Equal(t, want[d.Design], got, "%s: runs violating each property", d.Design)
		assert.Positive(t, d.Committed, d.Design.String())
	}
}

// TestRenewalKeepsTheTimedBound is "With renewal" of docs/design/bounds.md
// in the simulator: renewal changes nothing in the condition under which an
// unfenced lease lock is safe. Over bounds drawn by rapid, on sections
// twice the TTL (so that a section commits only on a renewed lease), for
// each property: where bounds.Check calls it safe, random runs drawn
// inside the bounds (InsideBounds, GenerateInside) never violate it; where
// the derived slack is below −Shortfall (outside by more than the message
// legs the simulator cannot make instantaneous), the worst case built
// after a renewal (NewWorstCase) violates it. Not vacuous: the random runs
// inside renew (beliefs extended) and commit sections, and every worst
// case that violates renewed first.
func TestRenewalKeepsTheTimedBound(t *testing.T) {
	const runs = 8
	base := longSections(impl.DesignRenewal)
	require.Equal(t, impl.ValiditySend, base.Validity, "the send rule, Go's (the arrival rule is the flaw)")
	var safeRuns, extended, committed, outside int
	rapid.Check(t, func(rt *rapid.T) {
		b := bounds.Bounds{
			Drift:     float64(rapid.IntRange(0, 100).Draw(rt, "drift‰")) / 1000,
			Jump:      time.Duration(rapid.IntRange(0, 50).Draw(rt, "jumpMs")) * ms,
			Pause:     time.Duration(rapid.IntRange(0, 400).Draw(rt, "pauseMs")) * ms,
			Delay:     base.OneWay() + time.Duration(rapid.IntRange(0, 50).Draw(rt, "spikeMs"))*ms,
			TTL:       time.Second,
			Margin:    time.Duration(rapid.IntRange(0, 400).Draw(rt, "marginMs")) * ms,
			LockDelay: time.Duration(rapid.IntRange(0, 1000).Draw(rt, "lockDelayMs")) * ms,
		}
		verdicts, err := bounds.Check(b)
		require.NoError(rt, err)
		c, err := InsideBounds(base, b)
		require.NoError(rt, err)
		r, err := NewRunner(c)
		require.NoError(rt, err)
		for _, v := range verdicts {
			switch {
			case v.Safe:
				for seed := range uint64(runs) {
					res := r.Run(GenerateInside(seed+1, c, b))
					require.False(rt, res.Violated(v.Property), "%v: %s violated inside the bounds (slack %v), seed %d", b, v.Property, v.Slack, seed+1)
					safeRuns++
					extended += res.Extended
					committed += res.Committed
				}
			case v.Slack < -c.Shortfall():
				wc, err := NewWorstCase(base, b, v.Property)
				if err != nil {
					rt.Logf("%v: no worst case: %v", b, err)
					continue
				}
				wr, err := NewRunner(wc.Config)
				require.NoError(rt, err)
				res := wr.Run(wc.Schedule)
				require.True(rt, res.Violated(v.Property), "%v: the worst case keeps %s outside the bounds (slack %v, run's %v)", b, v.Property, v.Slack, wc.Slack)
				require.Positive(rt, res.Extended, "%v: the worst case renewed before it broke %s", b, v.Property)
				outside++
			}
		}
	})
	t.Logf("inside: %d runs, %d beliefs extended by a renewal, %d sections committed; outside: %d worst cases violated", safeRuns, extended, committed, outside)
	assert.Positive(t, safeRuns, "some bounds drawn were inside")
	assert.Positive(t, extended, "the runs inside renewed")
	assert.Positive(t, committed, "the runs inside committed sections (each on a renewed lease: a section is twice the TTL)")
	assert.Positive(t, outside, "some bounds drawn were outside, and violated")
}
