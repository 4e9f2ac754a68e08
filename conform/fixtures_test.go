package conform

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCommittedOutput: a committed TLC output is taken only while the
// spec and the cfg it was made from are unchanged (their SHA-256 in
// specs.sha256); a changed cfg or spec, a model with no output, a folder
// with no sums: TLC must run (ok false). A sums file that is not
// sha256sum's is an error.
func TestCommittedOutput(t *testing.T) {
	rc := replayableModels(t)[0]
	want, err := os.ReadFile(filepath.Join(replayDir, rc.model.Name+".out"))
	require.NoError(t, err)

	out, ok, err := CommittedOutput(replayDir, specsDir, rc.model)
	require.NoError(t, err)
	require.True(t, ok, "the committed output of %s is current (TestReplayOutputsAreCurrent)", rc.model.Name)
	assert.Equal(t, want, out)

	// The specs copied, one file changed at a time.
	copySpecs := func(t *testing.T) string {
		dir := t.TempDir()
		for _, f := range []string{rc.model.Spec, rc.model.Cfg} {
			data, err := os.ReadFile(filepath.Join(specsDir, f))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, f), data, 0o644))
		}
		return dir
	}
	for _, f := range []string{rc.model.Spec, rc.model.Cfg} {
		t.Run("changed "+f, func(t *testing.T) {
			specs := copySpecs(t)
			path := filepath.Join(specs, f)
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path, append(data, "\n\\* changed\n"...), 0o644))
			out, ok, err := CommittedOutput(replayDir, specs, rc.model)
			require.NoError(t, err)
			assert.False(t, ok)
			assert.Nil(t, out)
		})
	}
	t.Run("unchanged copy", func(t *testing.T) {
		_, ok, err := CommittedOutput(replayDir, copySpecs(t), rc.model)
		require.NoError(t, err)
		assert.True(t, ok, "the sums, not the folder, decide")
	})

	other := rc.model
	other.Name = "NoSuchModel"
	_, ok, err = CommittedOutput(replayDir, specsDir, other)
	require.NoError(t, err)
	assert.False(t, ok, "no output of the model")

	_, ok, err = CommittedOutput(t.TempDir(), specsDir, rc.model)
	require.NoError(t, err)
	assert.False(t, ok, "no sums")

	bad := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bad, FixtureSums), []byte("not a sum line\n"), 0o644))
	_, ok, err = CommittedOutput(bad, specsDir, rc.model)
	assert.Error(t, err)
	assert.False(t, ok)
}
