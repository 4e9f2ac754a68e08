package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/bounds"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
)

// marginCoversDrift reports whether c's margin, with its design's
// lock-delay, covers its rate drift bound alone — no step, delay or pause
// — by DESIGN.md's condition (package bounds): AtMostOneClientHoldLock
// holds.
func marginCoversDrift(t *testing.T, c Config) bool {
	t.Helper()
	vs, err := bounds.Check(bounds.Bounds{Drift: float64(c.MaxDriftPPM) / 1e6, TTL: c.TTL, Margin: c.Margin, LockDelay: c.ServiceLockDelay()})
	require.NoError(t, err)
	return vs[0].Safe
}

// rateDriftOnly runs every design under clock rate drift alone — no step,
// delay or pause — with a think time that keeps each client in its section
// until just before its window ends by its own clock, so that a client
// still believes as late as its margin lets it. It returns the runs that
// violated each property, over the worst-case schedule (the service's
// clock fast by the bound, every client's slow by it) and the rates drawn
// by seeds 1..seeds.
func rateDriftOnly(t *testing.T, c Config, seeds int) map[impl.Design][numProps]int {
	t.Helper()
	c.Think = c.TTL - c.Margin - 10*time.Millisecond
	c.Faults = DriftFaults
	worst := &Schedule{Version: ScheduleVersion, Seed: 1}
	worst.Faults = append(worst.Faults, Fault{Kind: FaultDrift, Node: impl.ServiceNode, PPM: c.MaxDriftPPM})
	for i := range c.Clients {
		worst.Faults = append(worst.Faults, Fault{Kind: FaultDrift, Node: impl.ClientNode(i), PPM: -c.MaxDriftPPM})
	}
	schedules := []*Schedule{worst}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		s := Generate(seed, c)
		rates := s.Faults[:0]
		for _, f := range s.Faults {
			if f.Kind == FaultDrift {
				rates = append(rates, f)
			}
		}
		s.Faults = rates
		schedules = append(schedules, s)
	}
	out := map[impl.Design][numProps]int{}
	for _, d := range impl.Designs() {
		c.Design = d
		r, err := NewRunner(c)
		require.NoError(t, err)
		var v [numProps]int
		for _, s := range schedules {
			s.Sort()
			res := r.Run(s)
			require.Empty(t, res.Stall, "%s, seed %d: stalled", d, s.Seed)
			for k := range numProps {
				if res.violations[k].Step > 0 {
					v[k]++
				}
			}
		}
		t.Logf("margin %v, drift ±%g, think %v, %s: %d schedules, violations %v", c.Margin, float64(c.MaxDriftPPM)/1e6, c.Think, d, len(schedules), v)
		out[d] = v
	}
	return out
}

// TestDefaultMarginCoversDefaultDrift: the simulator's default margin
// covers its default rate drift (100ms on a 1s TTL at ±10% would not — a
// service clock 10% fast expires the lease at 0.909s while a
// client clock 10% slow believes until 1.0s). With rate drift alone no
// run breaks any property in any design; with a 100ms margin, the
// worst case has two holders and loses updates — but in the row whose
// service has a lock-delay (a fifth of the TTL), which covers what the
// margin does not, as the condition says.
func TestDefaultMarginCoversDefaultDrift(t *testing.T) {
	t.Parallel()
	testbuild.SkipUnderRace(t)
	c := DefaultConfig()
	require.True(t, marginCoversDrift(t, c), "margin %v does not cover ±%d ppm on ttl %v", c.Margin, c.MaxDriftPPM, c.TTL)
	for d, v := range rateDriftOnly(t, c, runs(200, 40)) {
		assert.Equal(t, [numProps]int{}, v, "%s: rate drift within the bound must break nothing", d)
	}

	before := DefaultConfig()
	before.Margin = 100 * time.Millisecond
	require.False(t, marginCoversDrift(t, before))
	for d, v := range rateDriftOnly(t, before, 0) {
		if d.Renews() {
			// The holder renews every TTL/3, long before the end of
			// its window: the service's lease is extended each time,
			// so no section here runs to the window's end where the
			// drift bites (the same condition holds per renewal
			// window; TestPauseBreaksRenewal breaks a renewing lease).
			assert.Equal(t, [numProps]int{}, v, "%s", d)
			continue
		}
		if d.Redlock() {
			// The worst case drifts the service's clock, one node of
			// Redlock's five: a majority still keeps the lock.
			assert.Equal(t, [numProps]int{}, v, "%s: one fast node of five must break nothing", d)
			continue
		}
		own := before
		own.Design = d
		if d.LockDelay() {
			require.True(t, marginCoversDrift(t, own), "%s: the lock-delay covers the margin's shortfall", d)
			assert.Equal(t, [numProps]int{}, v, "%s: the lock-delay covers the margin's shortfall", d)
			continue
		}
		require.False(t, marginCoversDrift(t, own), "%s", d)
		assert.Positive(t, v[propAtMostOne], "%s: the worst case of the margin of before should have two holders", d)
		if m := d.Mode(); m == impl.FenceNone || m == impl.FenceWrites {
			// The designs whose resource lets a stale write through
			// here; the others' rules refuse it (without crashes, the
			// restart rows are fencing all; nonatomic's apply follows
			// its check too closely for this schedule).
			assert.Positive(t, v[propLostUpdate], "%s: and lose an update", d)
		}
	}
}
