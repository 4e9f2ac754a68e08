package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/bounds"
	"github.com/fencelab/fencelab/impl"
)

const ms = time.Millisecond

// TestWorstCaseMeetsTheDerivation: for bounds on both sides of the
// boundary, the worst-case run violates exactly when its own slack is
// negative, and that slack lies at most Shortfall below the derived one —
// so it violates whenever the derived slack is below −Shortfall, and never
// inside the boundary. Fencing all keeps NoLostUpdate in every one. The
// same for the renewing design, whose worst case comes after a granted
// renewal (and a renewal's window is no worse than an acquire's).
func TestWorstCaseMeetsTheDerivation(t *testing.T) {
	for _, d := range []impl.Design{impl.DesignNoFencing, impl.DesignRenewal} {
		t.Run(d.String(), func(t *testing.T) { worstCaseMeetsTheDerivation(t, d) })
	}
}

func worstCaseMeetsTheDerivation(t *testing.T, design impl.Design) {
	base := DefaultConfig()
	base.Design = design
	var cases []bounds.Bounds
	for _, drift := range []float64{0, 0.1} {
		for _, jump := range []time.Duration{0, 20 * ms} {
			for _, pause := range []time.Duration{0, 100 * ms, 300 * ms} {
				for _, l := range []time.Duration{0, 150 * ms, 400 * ms, 900 * ms} {
					cases = append(cases, bounds.Bounds{Drift: drift, Jump: jump, Pause: pause, Delay: base.OneWay() + 50*ms,
						TTL: time.Second, Margin: 200 * ms, LockDelay: l})
				}
			}
		}
	}
	seen := map[bool]int{}
	for _, b := range cases {
		c, err := InsideBounds(base, b)
		require.NoError(t, err)
		verdicts, err := bounds.Check(b)
		require.NoError(t, err)
		if b.Jump > 0 {
			require.Equal(t, b, c.Assumptions(), "InsideBounds and Assumptions agree")
		}
		for _, v := range verdicts {
			wc, err := NewWorstCase(base, b, v.Property)
			require.NoError(t, err)
			r, err := NewRunner(wc.Config)
			require.NoError(t, err)
			res := r.Run(wc.Schedule)
			require.Empty(t, res.Stall, "%+v %s", b, v.Property)
			violated := res.Violated(v.Property)
			t.Logf("%+v %s: derived slack %v, run's %v, violated %v", b, v.Property, v.Slack, wc.Slack, violated)
			assert.GreaterOrEqual(t, wc.Slack, v.Slack-16, "the run is no worse than the derivation allows")
			assert.LessOrEqual(t, wc.Slack, v.Slack+c.Shortfall(), "the run meets the derivation's worst case up to Shortfall")
			legs, err := bounds.Check(c.DerivedWithLegs(b))
			require.NoError(t, err)
			for _, lv := range legs {
				if lv.Property == v.Property {
					assert.InDelta(t, float64(lv.Slack), float64(wc.Slack), float64(WorstCaseTolerance), "%+v %s: the run is the derivation with its legs", b, v.Property)
				}
			}
			if wc.Slack != 0 {
				assert.Equal(t, wc.Slack < 0, violated, "%+v %s: slack %v", b, v.Property, wc.Slack)
			}
			if v.Safe {
				assert.False(t, violated, "inside the boundary")
			}
			if v.Slack < -c.Shortfall() {
				assert.True(t, violated, "outside the boundary by more than the shortfall")
			}
			seen[violated]++
			if design.Renews() {
				assert.Positive(t, res.Extended, "%+v %s: c1 renewed, and its renewal extended its belief", b, v.Property)
				continue
			}

			all := wc.Config
			all.Design = impl.DesignFenceAll
			ra, err := NewRunner(all)
			require.NoError(t, err)
			resAll := ra.Run(wc.Schedule)
			assert.False(t, resAll.Violated(impl.NoLostUpdate), "fencing all keeps NoLostUpdate")
		}
	}
	assert.Positive(t, seen[true])
	assert.Positive(t, seen[false])
}

// TestWorstCaseNeedsRoomForTheRenewal: a window shorter than the renewal
// period leaves a renewing client no renewal to build the worst case on
// (its belief ends first); the same bounds are fine without renewal.
func TestWorstCaseNeedsRoomForTheRenewal(t *testing.T) {
	base := DefaultConfig()
	b := bounds.Bounds{Drift: 0.1, Jump: 20 * ms, Pause: 100 * ms, Delay: base.OneWay() + 50*ms, TTL: time.Second, Margin: 700 * ms}
	for _, tc := range []struct {
		design impl.Design
		err    string
	}{
		{impl.DesignNoFencing, ""},
		{impl.DesignRenewal, "before a renewal"},
	} {
		base.Design = tc.design
		for _, p := range []string{impl.AtMostOneClientHoldLock, impl.NoLostUpdate} {
			_, err := NewWorstCase(base, b, p)
			if tc.err == "" {
				assert.NoError(t, err, "%s %s", tc.design, p)
			} else {
				assert.ErrorContains(t, err, tc.err, "%s %s", tc.design, p)
			}
		}
	}
}

// TestZeroBoundDrawsNoFault: a fault bound of zero is zero — no seed draws
// a pause, a spike, a clock step or a drift beyond it — and the other
// kinds are still drawn.
func TestZeroBoundDrawsNoFault(t *testing.T) {
	for _, tc := range []struct {
		name  string
		set   func(c *Config)
		never FaultKind
	}{
		{"pause", func(c *Config) { c.MaxPause = 0 }, FaultPause},
		{"spike", func(c *Config) { c.MaxSpike = 0 }, FaultSpike},
		{"jump", func(c *Config) { c.MaxJump = 0 }, FaultJump},
		{"drift", func(c *Config) { c.MaxDriftPPM = 0 }, FaultDrift},
	} {
		c := DefaultConfig()
		tc.set(&c)
		require.NoError(t, c.Validate())
		others := 0
		for seed := range uint64(300) {
			for _, f := range Generate(seed+1, c).Faults {
				assert.NotEqual(t, tc.never, f.Kind, "%s: seed %d drew %s", tc.name, seed+1, f)
				others++
			}
		}
		assert.Positive(t, others, "%s: the other kinds are still drawn", tc.name)
	}
}

// TestWorstCaseAgreesAtTheBoundary: the bounds' verdict, derived with the
// legs the simulator cannot make instantaneous (Config.DerivedWithLegs),
// and the worst case's run agree on both sides of the boundary, from a
// millisecond below the smallest safe lock-delay to a millisecond above,
// down to 10ns either side of it; the run's slack is the derived one to
// within WorstCaseTolerance at every point, zero slack included, and the
// run violates exactly when its own slack is negative. At zero slack
// itself (and 1ns either side) the nanoseconds decide: the run's events
// at one instant go in queue order (a timer before a message), which
// calls a tie safe where the strict inequality does not; the test logs
// those verdicts and holds only the slack to the tolerance.
func TestWorstCaseAgreesAtTheBoundary(t *testing.T) {
	base := DefaultConfig()
	seen := map[bool]int{}
	for _, drift := range []float64{0, 0.1} {
		for _, design := range []impl.Design{impl.DesignNoFencing, impl.DesignRenewal} {
			base.Design = design
			b := bounds.Bounds{Drift: drift, Jump: 20 * ms, Pause: 300 * ms, Delay: base.OneWay() + 50*ms, TTL: time.Second, Margin: 200 * ms}
			for k, p := range bounds.Properties() {
				probe, err := bounds.Check(base.DerivedWithLegs(b))
				require.NoError(t, err)
				above := probe[k].LockDelayAbove
				for _, delta := range []time.Duration{-ms, -time.Microsecond, -10, -1, 0, 1, 10, time.Microsecond, ms} {
					b.LockDelay = above + delta
					v, err := bounds.Check(base.DerivedWithLegs(b))
					require.NoError(t, err)
					require.Equal(t, delta > 0, v[k].Safe, "L above the smallest safe lock-delay iff safe")
					wc, err := NewWorstCase(base, b, p.Name)
					require.NoError(t, err)
					r, err := NewRunner(wc.Config)
					require.NoError(t, err)
					res := r.Run(wc.Schedule)
					require.Empty(t, res.Stall)
					violated := res.Violated(p.Name)
					t.Logf("%s ρ %g %s, L = smallest safe %+v: derived slack %v, run's %v, violated %v", design, drift, p.Name, delta, v[k].Slack, wc.Slack, violated)
					assert.InDelta(t, float64(v[k].Slack), float64(wc.Slack), float64(WorstCaseTolerance), "%s ρ %g %s δ %v", design, drift, p.Name, delta)
					if wc.Slack != 0 {
						assert.Equal(t, wc.Slack < 0, violated, "%s ρ %g %s δ %v: the run violates iff its slack is negative", design, drift, p.Name, delta)
					}
					if delta <= -10 || delta >= 10 {
						assert.Equal(t, !v[k].Safe, violated, "%s ρ %g %s δ %v: the bounds and the worst case agree", design, drift, p.Name, delta)
					}
					seen[violated]++
				}
			}
		}
	}
	assert.Positive(t, seen[true])
	assert.Positive(t, seen[false])
}
