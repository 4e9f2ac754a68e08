package explore

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
)

// TestWitnessesReached: in every design's model its goals are reached —
// both of every design, and a section spanning a restart in the rows
// whose service restarts, a section committing on a renewed lease in the
// renewing rows — so the holds verdicts stand; except
// NotEveryClientCommits (every client commits every section) in a row that starves every client but the first by
// design, where a complete search must not reach it.
func TestWitnessesReached(t *testing.T) {
	testbuild.SkipUnderRace(t)
	for _, d := range rowDesigns() {
		res, _ := runShared(t, DefaultConfig(d, 2))
		want := []string{impl.NoSectionCommits, impl.NotEveryClientCommits}
		if d.Restart() != impl.NoRestart {
			want = append(want, impl.NoSectionCommitsAcrossRestart)
		}
		if d.Renews() {
			want = append(want, impl.NoSectionCommitsAfterRenewal)
		}
		var got []string
		for _, w := range res.Witnesses {
			got = append(got, w.Goal)
		}
		require.Equal(t, want, got)
		for _, w := range res.Witnesses {
			if w.Goal == impl.NotEveryClientCommits && d.Starves() != "" {
				// The row's finding: only the first holder ever commits.
				assert.True(t, !w.Reached && w.Complete && !w.Vacuous(), "%s %s", d, w.Goal)
				continue
			}
			assert.True(t, w.Reached, "%s %s", d, w.Goal)
			t.Logf("%s %s %s", d, w.Goal, w)
		}
		assert.Empty(t, res.Unreached())
	}
}
