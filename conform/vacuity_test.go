package conform

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/tlc"
)

// TestBrokenSystemsFailMakeTLC (TLC): a resource that refuses everything,
// a service that never grants, or one that never says a sequencer is the
// holder's (check "sequencer"), makes make tlc fail — their witness
// models then hold (no client ever commits), which the manifest says
// they must not. Each broken spec is the committed one with one
// definition changed in the PlusCal and its translation alike; the same
// witness model on the unbroken copy is violated, as the manifest says.
func TestBrokenSystemsFailMakeTLC(t *testing.T) {
	k := checker(t)
	k.TLC.Workers = "auto"
	m, err := tlc.LoadManifest(filepath.Join(specsDir, "models.json"))
	require.NoError(t, err)
	model := func(name string) tlc.Model {
		sel, err := m.Select(name)
		require.NoError(t, err)
		return sel[0]
	}
	for _, tc := range []struct {
		name, spec, old, new string
		models               []string
	}{
		{"a resource that refuses everything", "DistLockFencing.tla",
			"Admits(m.type, m.token, max_token)", "FALSE",
			[]string{"DistLockFencing_all_2c_Witness"}},
		{"a service that never grants (it answers every grant with a rejection)", "DistLockFencing.tla",
			"GrantMsg(m.from, last_lease + 1, TokenOf(last_lease + 1, Revised(revision)))", "RejectMsg(m.from)",
			[]string{"DistLockFencing_all_2c_Witness", "DistLockFencing_sequencer_2c_Witness"}},
		{"a service that never says a sequencer is current (check sequencer)", "DistLockFencing.tla",
			`distLock.status = "Acquired" /\ distLock.token = m.token`, "FALSE",
			[]string{"DistLockFencing_sequencer_2c_Witness"}},
		{"a service that never grants, without fencing", "DistLock.tla",
			"GrantMsg(m.from, last_lease + 1)", "RejectMsg(m.from)",
			[]string{"DistLock_2c_Witness"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copySpecs(t)
			path := filepath.Join(dir, tc.spec)
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			require.GreaterOrEqual(t, strings.Count(string(data), tc.old), 2, "the PlusCal and its translation")
			require.NoError(t, os.WriteFile(path, []byte(strings.ReplaceAll(string(data), tc.old, tc.new)), 0o644))
			for _, name := range tc.models {
				mod := model(name)
				require.Equal(t, tlc.ResultInvariant, mod.Expected, name)
				good, err := k.TLC.Run(context.Background(), specsDir, mod)
				require.NoError(t, err)
				require.Empty(t, good.Mismatch, "%s unbroken", name)
				broken, err := k.TLC.Run(context.Background(), dir, mod)
				require.NoError(t, err)
				assert.Equal(t, tlc.ResultOK, broken.Got.Result, "%s broken: TLC completes and the witness holds (%s)", name, broken.Got.Detail)
				assert.NotEmpty(t, broken.Mismatch, "%s broken: make tlc fails", name)
			}
		})
	}
}

// copySpecs copies the specs folder's files into a temporary folder.
func copySpecs(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(specsDir)
	require.NoError(t, err)
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(specsDir, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644))
	}
	return dir
}
