package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/atomicfile"
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
	begin, end := readmeMarkers("verdicts")
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

// TestUpdateReadmeAcceptsTheREADME: the project's README passes the
// check (the witness that the check lets the good path through).
func TestUpdateReadmeAcceptsTheREADME(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	readme := filepath.Join(t.TempDir(), "README.md") // its folder is probed
	require.NoError(t, os.WriteFile(readme, data, 0o644))
	assert.NoError(t, checkReadme(readme))
}

// TestMatrixPagesReplaceOnlyTheirOwn: saving the matrix's pages writes the
// new ones, removes a page an older run wrote and this one did not, and
// leaves everything else in docs/matrix: a user's file, a folder.
func TestMatrixPagesReplaceOnlyTheirOwn(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "docs", "matrix")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	stale := filepath.Join(dir, "off-NoLostUpdate-tlc.md")
	require.NoError(t, os.WriteFile(stale, []byte("# old\n\n"+matrixPageMark+"\n"), 0o644))
	user := filepath.Join(dir, "notes.md")
	require.NoError(t, os.WriteFile(user, []byte("my notes"), 0o644))
	picture := filepath.Join(t.TempDir(), "trace.mmd")
	require.NoError(t, os.WriteFile(picture, []byte("sequenceDiagram\n"), 0o644))

	pages := newMatrixPages(root)
	link := pages.link(impl.DesignFenceNone.Describe(), "NoLostUpdate", "Explorer", picture)
	assert.Equal(t, "docs/matrix/none-NoLostUpdate-explorer.md", link)
	require.NoError(t, pages.save(nil))
	page, err := os.ReadFile(filepath.Join(dir, "none-NoLostUpdate-explorer.md"))
	require.NoError(t, err)
	assert.Contains(t, string(page), "sequenceDiagram")
	assert.NoFileExists(t, stale, "an older run's page goes")
	assert.FileExists(t, user, "a user's file stays")
	assert.DirExists(t, filepath.Join(dir, "sub"))

	// A full disk: the page is not half written, the older pages stay.
	require.NoError(t, os.WriteFile(stale, []byte("# old\n\n"+matrixPageMark+"\n"), 0o644))
	pages = newMatrixPages(root)
	pages.link(impl.DesignFenceNone.Describe(), "AtMostOneClientHoldLock", "TLC", picture)
	err = pages.save(atomicfile.FullAfter(10))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "could not save")
	assert.NoFileExists(t, filepath.Join(dir, "none-AtMostOneClientHoldLock-tlc.md"))
	assert.FileExists(t, stale)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.False(t, strings.HasSuffix(e.Name(), ".tmp"), "temporary file %s left", e.Name())
	}
}
