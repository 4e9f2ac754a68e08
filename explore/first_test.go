package explore

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
	"github.com/fencelab/fencelab/verdict"
)

// TestFirstPerPropertyAgreesWithFullSearch: for every design and every
// property that applies to it, --first with that property alone
// (--invariant) reaches the full search's verdict: a property that holds
// is searched completely and Holds (the same states, the same witnesses
// reached, Deadlock settled too); a violated one is Violated with a
// shortest counterexample of the full search's length, the search
// stopped there and the deadlock check left Unknown — never Holds.
func TestFirstPerPropertyAgreesWithFullSearch(t *testing.T) {
	t.Parallel()
	testbuild.SkipUnderRace(t)
	for _, d := range rowDesigns() {
		full, _ := runShared(t, DefaultConfig(d, 2))
		for _, inv := range impl.Invariants() {
			if !inv.AppliesTo(d) {
				continue
			}
			t.Run(fmt.Sprintf("%s/%s", d, inv.Name), func(t *testing.T) {
				want, ok := full.Verdict(inv.Name)
				require.True(t, ok)
				cfg := DefaultConfig(d, 2)
				cfg.First, cfg.Invariants = true, []string{inv.Name}
				res, err := Run(cfg)
				require.NoError(t, err)
				got, ok := res.Verdict(inv.Name)
				require.True(t, ok)
				require.Equal(t, want.Status, got.Status, "the full search's verdict")
				switch want.Status {
				case verdict.Holds:
					assert.True(t, res.Complete, "a property that holds is searched completely")
					assert.Equal(t, full.Distinct, res.Distinct)
					assert.Equal(t, full.Deadlock.Status, res.Deadlock.Status)
					for k, w := range res.Witnesses {
						assert.Equal(t, full.Witnesses[k].Reached, w.Reached, w.Goal)
					}
				case verdict.Violated:
					assert.Equal(t, StoppedAtFirst, res.Stopped)
					assert.Equal(t, want.Steps(), got.Steps(), "a shortest counterexample")
					require.NotNil(t, got.Trace)
					if full.Deadlock.Status == verdict.Holds {
						assert.Equal(t, verdict.Unknown, res.Deadlock.Status, "what --first left unsettled is unknown")
						assert.Contains(t, res.Deadlock.Detail, "--first")
					}
				}
				for _, f := range res.Findings {
					if f.Property != inv.Name {
						assert.Contains(t, []verdict.Status{verdict.NotChecked, verdict.NotApplicable}, f.Status, f.Property)
					}
				}
			})
		}
	}
}
