package impl

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTimedHoldsHaveWitnesses: every timed model expected to hold has a
// witness with the same constants (its Suffix and "_Witness", the same
// Set) expected to violate NeverBothCommit, or NeverBothCommitPastWindow in
// a renewing spec — both clients' sections commit there, so the holds is
// not vacuous (a resource refusing everything, a lock never handed on,
// would keep every property). The timed all models included.
func TestTimedHoldsHaveWitnesses(t *testing.T) {
	holds := 0
	for _, d := range Designs() {
		for _, s := range d.Specs() {
			if !s.Timed {
				continue
			}
			for _, m := range s.Models {
				if m.Violates != "" {
					continue
				}
				holds++
				k := slices.IndexFunc(s.Models, func(w TLCModel) bool { return w.Suffix == m.Suffix+"_Witness" })
				if !assert.GreaterOrEqual(t, k, 0, "%s has no witness", m.Name(s)) {
					continue
				}
				w := s.Models[k]
				assert.Equal(t, m.Set, w.Set, "%s: the witness has the model's constants", m.Name(s))
				assert.True(t, strings.HasPrefix(w.Violates, "NeverBothCommit"), "%s: %s", w.Name(s), w.Violates)
				assert.Equal(t, []string{w.Violates}, w.Invariants)
			}
		}
	}
	assert.Equal(t, 5, holds, "the timed models that hold: off's two, all's two, renewal's one")
}
