package bounds

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestSpreadOf: least, median (the lower middle of an even count: a
// measured value, never an average) and greatest, whatever the order.
func TestSpreadOf(t *testing.T) {
	for _, tc := range []struct {
		in   []time.Duration
		want Spread
		ok   bool
	}{
		{nil, Spread{}, false},
		{[]time.Duration{5}, Spread{5, 5, 5}, true},
		{[]time.Duration{9, 1, 4}, Spread{1, 4, 9}, true},
		{[]time.Duration{8, -2, 3, 6}, Spread{-2, 3, 8}, true},
	} {
		got, ok := SpreadOf(tc.in)
		assert.Equal(t, tc.ok, ok)
		assert.Equal(t, tc.want, got, "%v", tc.in)
	}
	in := []time.Duration{3, 1, 2}
	SpreadOf(in)
	assert.Equal(t, []time.Duration{3, 1, 2}, in, "the caller's slice is left as it was")
}

// TestLiveBounds: the measured TTL, margin and pause replace the given
// ones; the others stay; no validity measured is a margin of 0.
func TestLiveBounds(t *testing.T) {
	g := &LiveFigures{TTL: Measured{Value: time.Second}, Validity: Measured{Value: 900 * time.Millisecond}, Pause: Measured{Value: 70 * time.Millisecond}}
	b := g.Bounds(Bounds{TTL: time.Hour, Margin: time.Minute, Pause: time.Hour, Delay: 3 * time.Millisecond, Drift: 0.01})
	assert.Equal(t, Bounds{TTL: time.Second, Margin: 100 * time.Millisecond, Pause: 70 * time.Millisecond, Delay: 3 * time.Millisecond, Drift: 0.01}, b)
	g.Validity = Measured{}
	assert.Zero(t, g.Bounds(Bounds{Margin: time.Minute}).Margin)
}

// TestLiveValidate: the figures FromLive relies on are checked.
func TestLiveValidate(t *testing.T) {
	neg := int64(-1)
	ok := Live{Format: LiveFormat, Setup: "s", TTL: 10}
	assert.NoError(t, ok.Validate())
	for name, l := range map[string]Live{
		"format":        {Format: "x", Setup: "s", TTL: 10},
		"setup":         {Format: LiveFormat, TTL: 10},
		"ttl":           {Format: LiveFormat, Setup: "s"},
		"bound":         {Format: LiveFormat, Setup: "s", TTL: 10, FreedBound: -1},
		"validity":      {Format: LiveFormat, Setup: "s", TTL: 10, Runs: []LiveRun{{Validity: 11}}},
		"kill to grant": {Format: LiveFormat, Setup: "s", TTL: 10, Runs: []LiveRun{{KillToGrant: &neg}}},
		"freed":         {Format: LiveFormat, Setup: "s", TTL: 10, Runs: []LiveRun{{Freed: "yes"}}},
	} {
		assert.Error(t, l.Validate(), name)
	}
}
