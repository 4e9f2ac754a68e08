package explore

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
)

// TestWitnessesReached: in every design's model its goals are reached —
// both of every design, and a section spanning a restart in the rows
// whose service restarts — so the holds verdicts stand.
func TestWitnessesReached(t *testing.T) {
	for _, d := range impl.Designs() {
		res, err := Run(DefaultConfig(d, 2))
		require.NoError(t, err)
		want := []string{SomeSectionCommits, EveryClientCommits}
		if d.Restart() != impl.NoRestart {
			want = append(want, SectionSpansRestart)
		}
		var got []string
		for _, w := range res.Witnesses {
			got = append(got, w.Goal)
		}
		require.Equal(t, want, got)
		for _, w := range res.Witnesses {
			assert.True(t, w.Reached, "%s %s", d, w.Goal)
			t.Logf("%s %s %s", d, w.Goal, w)
		}
		assert.Empty(t, res.Unreached())
	}
}
