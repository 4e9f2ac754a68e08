package explore

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
	"github.com/fencelab/fencelab/verdict"
)

func TestPermutations(t *testing.T) {
	assert.Equal(t, [][]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}, permutations(3))
	assert.Len(t, permutations(4), 24)
}

// TestCanonicalIsInvariantUnderRenaming: in states reached by random walks,
// every renaming of the clients has the same canonical encoding, and the
// canonical encoding decodes to a renaming of the state.
func TestCanonicalIsInvariantUnderRenaming(t *testing.T) {
	testbuild.SkipUnderRace(t)
	rapid.Check(t, func(t *rapid.T) {
		cfg := drawConfig(t)
		cfg.Symmetry = true
		m := cfg.model()
		s, renamed, dec := m.New(), m.New(), m.New()
		perms := permutations(cfg.Clients)
		for range rapid.IntRange(0, 40).Draw(t, "steps") {
			canon := m.Encode(nil, s)
			for _, perm := range perms {
				m.Copy(renamed, s)
				renamed.PermuteClients(perm)
				require.Equal(t, canon, m.Encode(nil, renamed), "renaming %v changes the canonical encoding", perm)
			}
			require.NoError(t, m.Decode(dec, canon))
			inClass := false
			for _, perm := range perms {
				m.Copy(renamed, s)
				renamed.PermuteClients(perm)
				if string(renamed.Encode(nil)) == string(dec.Encode(nil)) {
					inClass = true
				}
			}
			require.True(t, inClass, "the representative is not a renaming of the state")
			n := m.Actions(s)
			if n == 0 {
				return
			}
			m.Apply(s, rapid.IntRange(0, n-1).Draw(t, "action"))
		}
	})
}

// TestSymmetryKeepsVerdictsAndShortestTraces: with symmetry, every verdict
// and every counterexample's length are those of the full search, the
// traces still end in violating states, and the distinct states are exactly
// the classes of the full search's states.
func TestSymmetryKeepsVerdictsAndShortestTraces(t *testing.T) {
	testbuild.SkipUnderRace(t)
	var rows []Config
	for _, d := range naiveDesigns() {
		rows = append(rows, DefaultConfig(d, 2))
	}
	if !testbuild.Reduced() {
		// 451,000 states without symmetry: a second normally, twelve
		// under -race; the reduced size keeps the 2-client rows.
		rows = append(rows, DefaultConfig(impl.DesignFenceAll, 3))
	}
	for _, cfg := range rows {
		t.Run(fmt.Sprintf("%s/%dc", cfg.Design, cfg.Clients), func(t *testing.T) {
			t.Parallel()
			full, _ := runShared(t, cfg)
			sym := cfg
			sym.Symmetry = true
			reduced, _ := runShared(t, sym)
			assert.Less(t, reduced.Distinct, full.Distinct)
			assert.Equal(t, full.Depth, reduced.Depth)
			for _, v := range full.All() {
				r, ok := reduced.Verdict(v.Property)
				require.True(t, ok)
				assert.Equal(t, v.Status, r.Status, v.Property)
				assert.Equal(t, v.Steps(), r.Steps(), "%s: counterexample length", v.Property)
				if r.Status == verdict.Violated {
					checkTrace(t, cfg, r)
				}
			}
			if cfg.Clients > 2 {
				return
			}
			// The classes of the full search's states, counted naively.
			m := cfg.model()
			canon := sym.model()
			classes := map[string]bool{}
			var walk func(s *impl.World)
			seen := map[string]bool{}
			walk = func(s *impl.World) {
				key := string(m.Encode(nil, s))
				if seen[key] {
					return
				}
				seen[key] = true
				classes[string(canon.Encode(nil, s))] = true
				for i := range m.Actions(s) {
					n := m.New()
					m.Copy(n, s)
					m.Apply(n, i)
					walk(n)
				}
			}
			walk(m.New())
			assert.Equal(t, full.Distinct, len(seen))
			assert.Equal(t, len(classes), reduced.Distinct, "one stored state per class")
		})
	}
}
