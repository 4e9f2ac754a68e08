package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fencelab/fencelab/pipeline"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUpdateReadmeCheckedBeforeWork: demo --update-readme refuses a file
// that is not fencelab's README (no verdict table), a pipe, a missing
// file and a docs/matrix that is not a folder, before any work, and
// touches nothing beside it: the user's docs/matrix stays as it was.
func TestUpdateReadmeCheckedBeforeWork(t *testing.T) {
	root := t.TempDir()
	notOurs := filepath.Join(root, "NOTES.md")
	require.NoError(t, os.WriteFile(notOurs, []byte("# my notes\n"), 0o644))
	mine := filepath.Join(root, "docs", "matrix", "mine.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(mine), 0o755))
	require.NoError(t, os.WriteFile(mine, []byte("mine"), 0o644))

	other := t.TempDir()
	readme := filepath.Join(other, "README.md")
	begin, end := pipeline.ReadmeMarkers("verdicts")
	require.NoError(t, os.WriteFile(readme, []byte(begin+end+"\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(other, "docs"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(other, "docs", "matrix"), nil, 0o644))

	for _, tc := range []struct{ name, path, want string }{
		{"no verdict table", notOurs, "no \"verdicts\" block"},
		{"missing", filepath.Join(root, "nope.md"), "no such file"},
		{"a folder", root, "a folder, not a regular file"},
		{"docs/matrix is a file", readme, "not a folder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			code, stdout, stderr := runCLI(t, "demo", "--out", out, "--specs", "../../specs", "--update-readme", tc.path)
			assertBadInput(t, code, stderr, tc.want)
			assert.Empty(t, stdout, "refused before any work")
			assert.NoDirExists(t, out, "nothing written")
			got, err := os.ReadFile(mine)
			require.NoError(t, err, "a user's file in docs/matrix stays")
			assert.Equal(t, "mine", string(got))
		})
	}
}
