package bounds

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseDrift(t *testing.T) {
	good := []struct {
		in   string
		want float64
	}{
		{"0", 0}, {"0ppm", 0}, {"50ppm", 0.00005}, {"0.00005", 0.00005}, {" 50 ppm ", 0.00005},
		{"100000ppm", 0.1}, {"0.1", 0.1}, {"10%", 0.1}, {"0.005%", 0.00005}, {"499999ppm", 0.499999},
	}
	for _, tc := range good {
		got, err := ParseDrift(tc.in)
		require.NoError(t, err, tc.in)
		assert.InDelta(t, tc.want, got, 1e-15, tc.in)
		back, err := ParseDrift(FormatDrift(got))
		require.NoError(t, err, "FormatDrift(%g) = %q reads back", got, FormatDrift(got))
		assert.InDelta(t, got, back, 1e-12, "round trip of %s", tc.in)
	}
	bad := []struct{ in, msg string }{
		{"", "is not a number"}, {"ppm", "is not a number"}, {"fast", "is not a number"}, {"NaN", "is not a number"},
		{"Inf", "is not a number"}, {"-1ppm", "at least 0"}, {"0.5", "below 0.5"}, {"500000ppm", "below 0.5"},
		{"50%", "below 0.5"}, {"1e400", "below 0.5"}, {strings.Repeat("9", 1000), "below 0.5"},
	}
	for _, tc := range bad {
		_, err := ParseDrift(tc.in)
		require.Error(t, err, tc.in)
		assert.Contains(t, err.Error(), tc.msg, tc.in)
		assert.Less(t, len(err.Error()), 200, "a bad value is echoed with a bounded prefix")
	}
}

func TestFormatDrift(t *testing.T) {
	for in, want := range map[float64]string{0: "0%", 0.1: "10%", 0.00005: "50ppm", 0.01: "1%", 0.0001: "100ppm", 0.25: "25%",
		0.07: "7%", 0.29: "29%", 0.001: "0.1%", 0.000999: "999ppm", 0.123456: "12.3456%"} {
		assert.Equal(t, want, FormatDrift(in), "%g", in)
	}
}

// TestFormatDriftNeverReadsAsAnotherValue: every value prints as a string
// that ParseDrift reads back as that value exactly, so a value just under
// a limit (the largest drift below MaxDrift, the largest below the switch
// to ppm) never reads as the limit, and -0 prints as 0 whichever way it
// was written.
func TestFormatDriftNeverReadsAsAnotherValue(t *testing.T) {
	below := math.Nextafter(MaxDrift, 0) // 0.4999999999999999
	for _, tc := range []struct {
		in      float64
		notWant string
	}{
		{below, "50%"},
		{math.Nextafter(0.25, 0), "25%"},
		{math.Nextafter(0.1, 1), "10%"},
		{math.Nextafter(0.001, 0), "1000ppm"},
		{math.Nextafter(0.00005, 0), "50ppm"},
		{1.0 / 3, "33.333333%"},
		{5e-324, "0ppm"},
		{math.Copysign(0, -1), "-0%"},
	} {
		t.Run(strconv.FormatFloat(tc.in, 'g', -1, 64), func(t *testing.T) {
			got := FormatDrift(tc.in)
			assert.NotEqual(t, tc.notWant, got)
			assert.NotContains(t, got, "-")
			back, err := ParseDrift(got)
			require.NoError(t, err, "prints as %q", got)
			assert.Equal(t, tc.in, back, "prints as %q, which reads back as %v", got, back)
		})
	}
	for _, in := range []string{"-0", "-0%", "-0ppm", "-0.0", " -0 ppm", "-1e-400"} {
		t.Run(in, func(t *testing.T) {
			f, err := ParseDrift(in)
			require.NoError(t, err)
			assert.False(t, math.Signbit(f), "reads as +0")
			assert.Equal(t, "0%", FormatDrift(f))
		})
	}
}
