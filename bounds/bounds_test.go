package bounds

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
)

const ms = time.Millisecond

// TestCheck holds the condition to the worked numbers of docs/design/bounds.md.
func TestCheck(t *testing.T) {
	// The timed spec's constants (specs/DistLockTimed.tla): a perfect clock
	// runs Q = 4 units a tick, rates 3..5 units a tick (ρ = R/Q = 1/4);
	// TTL = 8, M = 3, J = 1 clock units; P = D = 1 tick. Here a clock unit
	// is 1ms, so a tick is 4ms of real time: P = D = 4ms.
	spec := func(l time.Duration) Bounds {
		return Bounds{Drift: 0.25, Jump: ms, Pause: 4 * ms, Delay: 4 * ms, TTL: 8 * ms, Margin: 3 * ms, LockDelay: l}
	}
	tests := []struct {
		name string
		b    Bounds
		// per property, in Properties order
		safe        [2]bool
		slack       [2]time.Duration
		marginAbove [2]time.Duration
		delayAbove  [2]time.Duration
	}{
		{
			// (8−3+1)/(3/4) + 4 = 12 < (8+9−1)/(5/4) = 12.8: one fifth of a tick.
			name: "timed spec, L = 9: AtMostOne inside, NoLostUpdate outside",
			b:    spec(9 * ms), safe: [2]bool{true, false},
			slack: [2]time.Duration{800 * time.Microsecond, -7200 * time.Microsecond},
			// M_min = (2·¼·8 + 2·1 − ¾·9)/(5/4) + ¾·4 = (−0.75)/1.25 + 3 = 2.4;
			// for the data X = 12: 2.4 − 3 + 9 = 8.4 ≥ TTL, no margin suffices.
			marginAbove: [2]time.Duration{2400 * time.Microsecond, 8400 * time.Microsecond},
			delayAbove:  [2]time.Duration{8 * ms, 18 * ms},
		},
		{
			name: "timed spec, L = 8: AtMostOne one tick outside (slack 0)",
			b:    spec(8 * ms), safe: [2]bool{false, false},
			slack:       [2]time.Duration{0, -8 * ms},
			marginAbove: [2]time.Duration{3 * ms, 9 * ms},
			delayAbove:  [2]time.Duration{8 * ms, 18 * ms},
		},
		{
			name: "timed spec, L = 19: NoLostUpdate inside",
			b:    spec(19 * ms), safe: [2]bool{true, true},
			slack:       [2]time.Duration{8800 * time.Microsecond, 800 * time.Microsecond},
			marginAbove: [2]time.Duration{-3600 * time.Microsecond, 2400 * time.Microsecond},
			delayAbove:  [2]time.Duration{8 * ms, 18 * ms},
		},
		{
			name: "timed spec, L = 18: NoLostUpdate outside (slack 0)",
			b:    spec(18 * ms), safe: [2]bool{true, false},
			slack:       [2]time.Duration{8 * ms, 0},
			marginAbove: [2]time.Duration{-3 * ms, 3 * ms},
			delayAbove:  [2]time.Duration{8 * ms, 18 * ms},
		},
		{
			// The simulator's default margin covers its default rate drift:
			// 800/0.9 = 888.9ms < 1000/1.1 = 909.1ms; M must exceed
			// 2·0.1·1s/1.1 = 181.8ms.
			name: "1s TTL, ±10% drift, margin 200ms, nothing else",
			b:    Bounds{Drift: 0.1, TTL: time.Second, Margin: 200 * ms},
			safe: [2]bool{true, true},
			// 10/11 s − 8/9 s = 2/99 s
			slack:       [2]time.Duration{20202020, 20202020},
			marginAbove: [2]time.Duration{181818181, 181818181},
			// 1.1·800/0.9 − 1000 = −22.2ms: no lock-delay needed
			delayAbove: [2]time.Duration{-22222223, -22222223},
		},
		{
			name: "a margin below the drift's share: 100ms",
			b:    Bounds{Drift: 0.1, TTL: time.Second, Margin: 100 * ms},
			safe: [2]bool{false, false},
			// 10/11 s − 9/10 s = 1/110 s … negative: 0.9/0.9 = 1s > 0.909s
			slack:       [2]time.Duration{-90909091, -90909091},
			marginAbove: [2]time.Duration{181818181, 181818181},
			delayAbove:  [2]time.Duration{100 * ms, 100 * ms},
		},
		{
			// ρ = J = L = 0: the margin must exceed the pause (and, for the
			// data, the pause plus the write's pause and delay).
			name:        "perfect clocks: margin against pause",
			b:           Bounds{TTL: time.Second, Margin: 300 * ms, Pause: 250 * ms, Delay: 20 * ms},
			safe:        [2]bool{true, false},
			slack:       [2]time.Duration{50 * ms, -220 * ms},
			marginAbove: [2]time.Duration{250 * ms, 520 * ms},
			delayAbove:  [2]time.Duration{-50 * ms, 220 * ms},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			vs, err := Check(tc.b)
			require.NoError(t, err)
			require.Len(t, vs, 2)
			for i, v := range vs {
				assert.Equal(t, Properties()[i].Name, v.Property)
				assert.Equal(t, tc.safe[i], v.Safe, "%s safe", v.Property)
				assert.Equal(t, tc.slack[i], v.Slack, "%s slack", v.Property)
				assert.Equal(t, tc.marginAbove[i], v.MarginAbove, "%s margin", v.Property)
				assert.Equal(t, tc.delayAbove[i], v.LockDelayAbove, "%s lock-delay", v.Property)
			}
			assert.Equal(t, impl.AtMostOneClientHoldLock, vs[0].Property)
			assert.Equal(t, tc.b.Pause, vs[0].X)
			assert.Equal(t, 2*tc.b.Pause+tc.b.Delay, vs[1].X)
		})
	}
}

// TestThresholdsAreTheBoundary: one nanosecond above the smallest safe
// margin (lock-delay) is safe, the threshold itself is not — the
// inequality is strict and the thresholds are exact.
func TestThresholdsAreTheBoundary(t *testing.T) {
	for _, b := range []Bounds{
		{Drift: 0.1, TTL: time.Second, Margin: 200 * ms, Pause: 30 * ms, Delay: 7 * ms, Jump: 3 * ms, LockDelay: 400 * ms},
		{Drift: 0.013, TTL: 3 * time.Second, Margin: 10 * ms, Pause: 500 * ms, Delay: 200 * ms, Jump: 50 * ms, LockDelay: 2 * time.Second},
		{Drift: 0.25, Jump: ms, Pause: 4 * ms, Delay: 4 * ms, TTL: 8 * ms, Margin: 3 * ms},
	} {
		vs, err := Check(b)
		require.NoError(t, err)
		for i, v := range vs {
			at := func(margin, delay time.Duration) bool {
				c := b
				c.Margin, c.LockDelay = margin, delay
				w, err := Check(c)
				require.NoError(t, err)
				return w[i].Safe
			}
			if v.MarginAbove >= 0 && v.MarginAbove+1 < b.TTL {
				assert.False(t, at(v.MarginAbove, b.LockDelay), "%s: margin %v", v.Property, v.MarginAbove)
				assert.True(t, at(v.MarginAbove+1, b.LockDelay), "%s: margin %v", v.Property, v.MarginAbove+1)
			}
			if v.LockDelayAbove >= 0 {
				assert.False(t, at(b.Margin, v.LockDelayAbove), "%s: lock-delay %v", v.Property, v.LockDelayAbove)
				assert.True(t, at(b.Margin, v.LockDelayAbove+1), "%s: lock-delay %v", v.Property, v.LockDelayAbove+1)
			}
		}
	}
}

func TestValidate(t *testing.T) {
	ok := Bounds{Drift: 0.1, TTL: time.Second, Margin: 200 * ms}
	require.NoError(t, ok.Validate())
	tests := []struct {
		name string
		edit func(*Bounds)
		want string
	}{
		{"negative drift", func(b *Bounds) { b.Drift = -0.01 }, "max-drift must be a fraction at least 0 and below 0.5, got -0.01"},
		{"drift 0.5", func(b *Bounds) { b.Drift = 0.5 }, "max-drift must be a fraction at least 0 and below 0.5, got 0.5"},
		{"NaN drift", func(b *Bounds) { b.Drift = math.NaN() }, "max-drift must be a fraction at least 0 and below 0.5, got NaN"},
		{"infinite drift", func(b *Bounds) { b.Drift = math.Inf(1) }, "got +Inf"},
		{"zero ttl", func(b *Bounds) { b.TTL = 0 }, "ttl must be positive, got 0s"},
		{"negative margin", func(b *Bounds) { b.Margin = -ms }, "margin must not be negative, got -1ms"},
		{"margin = ttl", func(b *Bounds) { b.Margin = b.TTL }, "margin (1s) must be less than ttl (1s)"},
		{"negative lock-delay", func(b *Bounds) { b.LockDelay = -ms }, "lock-delay must not be negative, got -1ms"},
		{"negative jump", func(b *Bounds) { b.Jump = -ms }, "max-jump must not be negative, got -1ms"},
		{"negative delay", func(b *Bounds) { b.Delay = -ms }, "max-delay must not be negative, got -1ms"},
		{"negative pause", func(b *Bounds) { b.Pause = -ms }, "max-pause must not be negative, got -1ms"},
		{"ttl beyond a day", func(b *Bounds) { b.TTL = 25 * time.Hour }, "ttl must be at most 24h0m0s, got 25h0m0s"},
		{"pause beyond a day", func(b *Bounds) { b.Pause = math.MaxInt64 }, "max-pause must be at most 24h0m0s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := ok
			tc.edit(&b)
			err := b.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			_, err = Check(b)
			assert.Error(t, err, "Check validates")
		})
	}
}

// TestLargestBoundsDoNotOverflow: every bound at its largest still gives
// finite thresholds.
func TestLargestBoundsDoNotOverflow(t *testing.T) {
	day := impl.MaxDuration
	vs, err := Check(Bounds{Drift: 0.4999999, Jump: day, Delay: day, Pause: day, TTL: day, Margin: day - 1, LockDelay: day})
	require.NoError(t, err)
	for _, v := range vs {
		assert.False(t, v.Safe)
		assert.Less(t, v.Slack, time.Duration(0))
		assert.Less(t, v.LockDelayAbove, time.Duration(math.MaxInt64))
		assert.Greater(t, v.MarginAbove, day)
	}
}

// TestMinDelayAddsTheLegs: a shortest delay d adds Legs·d to the slack
// (two legs for AtMostOneClientHoldLock, three for NoLostUpdate), and
// lowers the smallest safe margin by (1−ρ)·Legs·d and lock-delay by
// (1+ρ)·Legs·d; it must lie within [0, D].
func TestMinDelayAddsTheLegs(t *testing.T) {
	b := Bounds{Drift: 0.25, Jump: ms, Pause: 40 * ms, Delay: 40 * ms, TTL: 800 * ms, Margin: 300 * ms, LockDelay: 100 * ms}
	without, err := Check(b)
	require.NoError(t, err)
	b.MinDelay = 4 * ms
	with, err := Check(b)
	require.NoError(t, err)
	for k, p := range Properties() {
		legs := time.Duration(p.Legs) * b.MinDelay
		assert.Equal(t, without[k].Slack+legs, with[k].Slack, p.Name)
		assert.InDelta(t, float64(without[k].MarginAbove-legs*3/4), float64(with[k].MarginAbove), 1, p.Name)
		assert.InDelta(t, float64(without[k].LockDelayAbove-legs*5/4), float64(with[k].LockDelayAbove), 1, p.Name)
	}
	assert.Equal(t, []int64{2, 3}, []int64{Properties()[0].Legs, Properties()[1].Legs})
	b.MinDelay = b.Delay + 1
	assert.ErrorContains(t, b.Validate(), "shortest delay")
	b.MinDelay = -1
	assert.ErrorContains(t, b.Validate(), "shortest delay")
}
