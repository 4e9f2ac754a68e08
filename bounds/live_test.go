package bounds

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// TestReadLiveDepth: a campaign's liveness.json is read from a run's
// --out (three folders down), from the campaign's folder itself and from
// any folder between; one deeper is not looked for.
func TestReadLiveDepth(t *testing.T) {
	body := []byte(`{"format":"fencelab-liveness/1","setup":"a/b","fault":"client-pause","ttl_ns":5,"freed_bound_ns":0,"freed_bound_why":"","runs":[]}`)
	out := t.TempDir()
	campaign := filepath.Join(out, "a", "b", "client-pause")
	require.NoError(t, os.MkdirAll(campaign, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(campaign, LiveFile), body, 0o644))
	for _, dir := range []string{out, filepath.Join(out, "a"), campaign} {
		g, err := ReadLive(dir)
		require.NoError(t, err, dir)
		assert.Equal(t, "a/b", g.Setup)
	}
	deeper := t.TempDir()
	require.NoError(t, os.Rename(filepath.Join(out, "a"), filepath.Join(deeper, "a")))
	require.NoError(t, os.MkdirAll(filepath.Join(out, "x"), 0o755))
	require.NoError(t, os.Rename(deeper, filepath.Join(out, "x", "y")))
	_, err := ReadLive(out)
	assert.ErrorContains(t, err, "holds no measurements")
}
