package conform

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/explore"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
	"github.com/fencelab/fencelab/tlc"
)

// TestManifestStatesAreTheExplorers: the specs step like impl.World, so
// for every model of the manifest expected to hold whose system Go runs,
// the distinct states TLC must report (the manifest's distinct_states,
// which make tlc compares with TLC's count) are the explorer's on the
// same design, clients, sections, retries and rule, with symmetry where
// the cfg has it. Without TLC this ties TLC's state space to Go's in CI,
// row by row. The models left out are the timed spec's, the variants (a
// changed system: no timeouts, clients that never give up, a mutant
// service), the slow ones (minutes of exploring) and the Redlock spec's
// (DistLockRedlock.tla: its own figures); each is named.
func TestManifestStatesAreTheExplorers(t *testing.T) {
	testbuild.SkipUnderRace(t)
	m, err := tlc.LoadManifest(filepath.Join(specsDir, "models.json"))
	require.NoError(t, err)
	compared := map[impl.Design]int{}
	var left []string
	for _, mod := range m.Models {
		if mod.Expected != tlc.ResultOK {
			continue
		}
		if mod.Family != "" || mod.Slow || mod.Spec != "DistLock.tla" && mod.Spec != "DistLockFencing.tla" {
			left = append(left, mod.Name)
			continue
		}
		cfg, err := os.ReadFile(filepath.Join(specsDir, mod.Cfg))
		require.NoError(t, err)
		c, err := ModelConfig(mod.Spec, string(cfg))
		require.NoError(t, err, mod.Name)
		ec := explore.DefaultConfig(c.Design, c.Clients)
		ec.Config = c
		ec.Symmetry = strings.Contains(string(cfg), "\nSYMMETRY ")
		// Sleep sets reach the same states with fewer successors computed
		// (explore.TestSleepSetsKeepEveryStateAndVerdict).
		ec.SleepSets = true
		res, err := explore.Run(ec)
		require.NoError(t, err, mod.Name)
		assert.Equal(t, mod.DistinctStates, int64(res.Distinct), "%s: TLC's distinct states are the explorer's", mod.Name)
		compared[c.Design]++
	}
	t.Logf("left out (timed, variant or slow): %v", left)
	for _, d := range impl.Designs() {
		if d == impl.DesignFenceNone || d == impl.DesignFenceWrites || d.Redlock() {
			continue // every property violated (no model of theirs holds), or a spec of their own
		}
		assert.Positive(t, compared[d], "no model of %s expected to hold was compared", d)
	}
}
