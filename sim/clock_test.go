package sim

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestToGlobalIsMulDivCeil: the reciprocal division of clock.toGlobal is
// mulDivCeil's exact value, at the edges (multiples of the rate, one
// either side, the largest d it takes) and at random, for rates across
// the whole range a schedule allows and for a clock whose rate changes.
func TestToGlobalIsMulDivCeil(t *testing.T) {
	ppms := []int64{1, -1, 7, -7, 31_239, -56_813, maxPPM, -maxPPM, 999, 1_000_000 - 1}
	x := uint64(0x9e3779b97f4a7c15)
	var c clock
	for _, ppm := range ppms {
		c.ppm = ppm
		den := 1e6 + ppm
		ds := []int64{1, 2, 999_999, 1_000_000, 1_000_001, den - 1, den, den + 1, 3 * den, 1<<43 - 1, 1 << 43, 1<<43 + 1, 1 << 50}
		for range 2000 {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			ds = append(ds, int64(x%(1<<44))+1, int64(x%1e10)+1)
		}
		for _, d := range ds {
			require.Equal(t, mulDivCeil(d, 1e6, den), c.toGlobal(d), "d %d ppm %d", d, ppm)
		}
	}
}
