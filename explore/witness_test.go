package explore

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
)

// TestWitnessesReached: in every design's model both goals are reached,
// so the holds verdicts stand.
func TestWitnessesReached(t *testing.T) {
	for _, d := range impl.Designs() {
		res, err := Run(DefaultConfig(d, 2))
		require.NoError(t, err)
		require.Len(t, res.Witnesses, 2)
		for _, w := range res.Witnesses {
			assert.True(t, w.Reached, "%s %s", d, w.Goal)
			t.Logf("%s %s %s", d, w.Goal, w)
		}
		assert.Empty(t, res.Unreached())
	}
}
