package conform

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/distlockspec"
	"github.com/fencelab/fencelab/tlc"
)

// TestRedlockMutantsFlipTLC: TLC's verdict flips between Redlock's client
// and the test-only mutant clients of DistLockRedlock.tla (the row's
// variant models, Quorum and LateMajority): NoActionPastValidity holds
// with Redlock's client and is violated by one that holds on a majority
// that came after its window closed; without the faults
// AtMostOneClientHoldLock holds with Redlock's majority and is violated
// with a quorum of N div 2. The mutants' counterexamples are no Go
// system's: the replay leaves them out, saying why.
func TestRedlockMutantsFlipTLC(t *testing.T) {
	k := checker(t)
	m, err := tlc.LoadManifest(filepath.Join(specsDir, "models.json"))
	require.NoError(t, err)
	for _, tc := range []struct {
		model, result, property string
	}{
		{"DistLockRedlock_redlock_2c", tlc.ResultOK, ""},
		{"DistLockRedlock_redlock_2c_NoActionPastValidity_LateMajority", tlc.ResultInvariant, "NoActionPastValidity"},
		{"DistLockRedlock_redlock_2c_AtMostOneClientHoldLock_NoFaults", tlc.ResultOK, ""},
		{"DistLockRedlock_redlock_2c_AtMostOneClientHoldLock_NoFaults_HalfQuorum", tlc.ResultInvariant, "AtMostOneClientHoldLock"},
	} {
		models, err := m.Select(tc.model)
		require.NoError(t, err)
		require.Len(t, models, 1)
		mod := models[0]
		res, err := k.TLC.Run(t.Context(), specsDir, mod)
		require.NoError(t, err, tc.model)
		assert.Empty(t, res.Mismatch, tc.model)
		assert.Equal(t, tc.result, res.Got.Result, tc.model)
		assert.Equal(t, tc.property, res.Got.Property, tc.model)
		t.Logf("%s: %s %s, %d distinct states, depth %d, %s", tc.model, res.Got.Result, res.Got.Property, res.Got.Distinct, res.Got.Depth, res.Wall)
		if tc.result != tlc.ResultOK {
			_, err := ModelReplayable(specsDir, mod)
			assert.ErrorIs(t, err, distlockspec.ErrNotGoSystem, tc.model)
		}
	}
}
