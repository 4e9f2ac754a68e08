package testbuild

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestReducedUnderRaceAndShort: the race build and -short both reduce;
// the race build skips what SkipUnderRace marks, and only it; SkipReduced
// skips whenever the size is reduced.
func TestReducedUnderRaceAndShort(t *testing.T) {
	assert.Equal(t, Race || testing.Short(), Reduced())
	skipped := func(skip func(testing.TB)) (was bool) {
		t.Run("", func(t *testing.T) {
			defer func() { was = t.Skipped() }()
			skip(t)
		})
		return was
	}
	assert.Equal(t, Race, skipped(SkipUnderRace), "a marked test skips exactly under the race detector")
	assert.Equal(t, Reduced(), skipped(func(t testing.TB) { SkipReduced(t, "work") }), "a full-size test skips exactly when the size is reduced")
}
