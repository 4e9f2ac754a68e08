package bounds

import (
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
	for in, want := range map[float64]string{0: "0%", 0.1: "10%", 0.00005: "50ppm", 0.01: "1%", 0.0001: "100ppm", 0.25: "25%"} {
		assert.Equal(t, want, FormatDrift(in), "%g", in)
	}
}
