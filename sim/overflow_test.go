package sim

import (
	"math"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/fencelab/fencelab/impl"
)

func TestSaturatingArithmetic(t *testing.T) {
	const maxI, minI = math.MaxInt64, math.MinInt64
	for _, tc := range []struct{ a, b, add, sub int64 }{
		{1, 2, 3, -1},
		{maxI, 1, maxI, maxI - 1},
		{maxI, maxI, maxI, 0},
		{minI, -1, minI, minI + 1},
		{minI, minI, minI, 0},
		{0, minI, minI, maxI},
		{-1, minI, minI, maxI},
		{-2, maxI, maxI - 2, minI},
	} {
		assert.Equal(t, tc.add, satAdd(tc.a, tc.b), "%d + %d", tc.a, tc.b)
		assert.Equal(t, tc.sub, satSub(tc.a, tc.b), "%d - %d", tc.a, tc.b)
	}
	assert.Equal(t, int64(maxI), satMul(maxI/2, 3))
	assert.Equal(t, int64(minI), satMul(minI/2, 3))
	assert.Equal(t, int64(6), satMul(2, 3))
	assert.Equal(t, time.Duration(maxI), abs(time.Duration(minI)))
	assert.Equal(t, int64(maxI), mulDivSat(maxI, 1e6, 5e5))
	assert.Equal(t, int64(maxI), mulDivCeil(maxI, 1e6, 5e5))
}

// TestSaturatingAddIsClampedSum: satAdd is the exact sum clamped to the
// int64 range, for every class of operands (either sign, near the limits,
// small), checked against big integers.
func TestSaturatingAddIsClampedSum(t *testing.T) {
	edge := rapid.OneOf(rapid.Int64(), rapid.Int64Range(math.MaxInt64-1000, math.MaxInt64),
		rapid.Int64Range(math.MinInt64, math.MinInt64+1000), rapid.Int64Range(-1000, 1000))
	rapid.Check(t, func(t *rapid.T) {
		a, b := edge.Draw(t, "a"), edge.Draw(t, "b")
		sum := new(big.Int).Add(big.NewInt(a), big.NewInt(b))
		want := sum
		if sum.Cmp(big.NewInt(math.MaxInt64)) > 0 {
			want = big.NewInt(math.MaxInt64)
		} else if sum.Cmp(big.NewInt(math.MinInt64)) < 0 {
			want = big.NewInt(math.MinInt64)
		}
		if got := satAdd(a, b); got != want.Int64() {
			t.Fatalf("satAdd(%d, %d) = %d, want %d", a, b, got, want.Int64())
		}
	})
}

// TestDriftFloorIsMulDivFloor: the 64-bit fast path of a drifting clock's
// reading is mulDivFloor's value on both sides of its bounds, for either
// sign of the elapsed time and of the rate.
func TestDriftFloorIsMulDivFloor(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := rapid.OneOf(rapid.Int64Range(-1<<43, 1<<43), rapid.Int64Range(-1e6, 1e6), rapid.Int64Range(-1<<50, 1<<50)).Draw(t, "d")
		ppm := rapid.OneOf(rapid.Int64Range(-maxPPM, maxPPM), rapid.Int64Range(-1<<21, 1<<21)).Draw(t, "ppm")
		floor := new(big.Int)
		floor.Div(new(big.Int).Mul(big.NewInt(d), big.NewInt(ppm)), big.NewInt(1e6)) // Euclidean: rounds down for a positive divisor
		if got := driftFloor(d, ppm); got != floor.Int64() || got != mulDivFloor(d, ppm, 1e6) {
			t.Fatalf("driftFloor(%d, %d) = %d, want %d", d, ppm, got, floor.Int64())
		}
	})
}

// TestClockSaturates: a clock at the far end of virtual time, or stepped
// by the most a schedule allows, never reads a time before an earlier one.
func TestClockSaturates(t *testing.T) {
	for _, ppm := range []int64{-maxPPM, 0, maxPPM} {
		c := clock{ppm: ppm}
		prev := int64(math.MinInt64)
		for _, t0 := range []int64{0, 1, int64(MaxAt), math.MaxInt64 / 2, math.MaxInt64 - 1, math.MaxInt64} {
			l := c.local(t0)
			assert.GreaterOrEqual(t, l, prev, "ppm %d: local time runs forward at %d", ppm, t0)
			prev = l
			assert.GreaterOrEqual(t, c.global(l), int64(0))
		}
		c.jump(5, int64(-MaxFaultLength))
		assert.GreaterOrEqual(t, c.global(math.MaxInt64), int64(5), "ppm %d", ppm)
		c.jump(math.MaxInt64, math.MaxInt64)
		assert.Equal(t, int64(math.MaxInt64), c.local(math.MaxInt64))
	}
}

// TestBoundsAtTheirLimits: the configuration's derived durations with
// every bound at its largest do not wrap around to negative ones.
func TestBoundsAtTheirLimits(t *testing.T) {
	c := DefaultConfig()
	c.Clients, c.Sections, c.Retries = impl.MaxClients, 255, 255
	day := impl.MaxDuration
	c.TTL, c.Margin, c.Think, c.LockDelay = day, day-1, day, day
	c.Backoff, c.Latency, c.Jitter, c.Processing = day, day, day, day
	require.NoError(t, c.Validate())
	b := c.DefaultFaultBounds()
	require.NoError(t, b.Validate(), "the default fault bounds of the longest TTL are valid")
	assert.Equal(t, 3*day, b.MaxPause)
	assert.Equal(t, MaxAt, c.horizon(), "the horizon is held at MaxAt")
	s := &Schedule{Version: ScheduleVersion, Seed: 1}
	for i := range MaxScheduleFaults {
		kind := FaultPause
		if i%2 == 1 {
			kind = FaultJump
		}
		s.Faults = append(s.Faults, Fault{Kind: kind, Node: impl.ServiceNode, At: MaxAt, Duration: MaxFaultLength, By: -MaxFaultLength})
	}
	s.Faults = append(s.Faults[:MaxScheduleFaults-1], Fault{Kind: FaultDrift, Node: impl.ServiceNode, PPM: -maxPPM})
	require.NoError(t, s.Validate(c))
	assert.Positive(t, stallBound(c, s), "a saturated stall bound is never, not negative")
	g := Generate(3, c)
	require.NoError(t, g.Validate(c), "a generated schedule reads back")
	for _, f := range g.Faults {
		assert.GreaterOrEqual(t, f.At, time.Duration(0))
		assert.LessOrEqual(t, f.At, MaxAt)
	}
}

// TestRunAtTheLimits: a run with faults at their bounds, the latest
// pause ending after every client finished, never sees a resume before
// its pause, and does not stall.
func TestRunAtTheLimits(t *testing.T) {
	c := DefaultConfig()
	c.Sections = 2
	s := &Schedule{Version: ScheduleVersion, Seed: 1, Faults: []Fault{
		{Kind: FaultDrift, Node: impl.ServiceNode, PPM: maxPPM},
		{Kind: FaultDrift, Node: impl.ClientNode(0), PPM: -maxPPM},
		{Kind: FaultJump, Node: impl.ClientNode(1), At: time.Millisecond, By: -MaxFaultLength},
		{Kind: FaultJump, Node: impl.ServiceNode, At: 2 * time.Millisecond, By: MaxFaultLength},
		{Kind: FaultPause, Node: impl.ClientNode(2), At: MaxAt, Duration: MaxFaultLength},
		{Kind: FaultSpike, Node: impl.ResourceNode, At: MaxAt, Duration: MaxFaultLength},
	}}
	require.NoError(t, s.Validate(c))
	r, err := NewRunner(c)
	require.NoError(t, err)
	res := r.Run(s)
	assert.Empty(t, res.Stall)
	assert.Less(t, res.End, MaxAt, "the run ended before the far faults")
	assert.GreaterOrEqual(t, res.End, time.Duration(0))
}

// TestTotalsSaturate: runs of years of virtual time (durations at their
// bounds) add up past int64 nanoseconds; the totals saturate instead of
// wrapping around into a negative "simulated time × wall-clock time".
func TestTotalsSaturate(t *testing.T) {
	year := Result{End: 100_000 * time.Hour}
	var d DesignSummary
	for range 40 {
		d.Add(&year)
	}
	assert.Equal(t, time.Duration(math.MaxInt64), d.Virtual)
	var e DesignSummary
	e.Add(&year)
	e.merge(&d)
	assert.Equal(t, time.Duration(math.MaxInt64), e.Virtual)
	s := Summary{Designs: []DesignSummary{e, d}}
	runs, _, virtual := s.Totals()
	assert.Equal(t, 81, runs)
	assert.Equal(t, time.Duration(math.MaxInt64), virtual)
}
