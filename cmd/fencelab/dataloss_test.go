package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/pipeline"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUpdateReadmeCheckedBeforeWork: demo --update-readme refuses a file
// that is not fencelab's README (no matrix picture), a pipe, a missing
// file, a README without the full table's page beside it or whose page
// has no verdict table, a live page (docs/live.md) whose live block the
// picture cannot read, and a
// docs/matrix or docs/img that is not a folder, before any work, and
// touches nothing beside it: the user's docs/matrix stays as it was.
func TestUpdateReadmeCheckedBeforeWork(t *testing.T) {
	root := t.TempDir()
	notOurs := filepath.Join(root, "NOTES.md")
	require.NoError(t, os.WriteFile(notOurs, []byte("# my notes\n"), 0o644))
	mine := filepath.Join(root, "docs", "matrix", "mine.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(mine), 0o755))
	require.NoError(t, os.WriteFile(mine, []byte("mine"), 0o644))

	block := func(name, content string) string {
		begin, end := pipeline.ReadmeMarkers(name)
		return begin + content + end + "\n"
	}
	live := block("live", "| Row | AtMostOneClientHoldLock: model · live |\n|---|---|\n| `off` | violated · [violated (3 of 3)](x) |\n")
	// readme makes a README folder: the README's text, the matrix page's
	// and the live page's beside it ("" for no page); what else breaks it.
	readme := func(text, page, livePage string, broken func(dir string)) string {
		dir := t.TempDir()
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "docs"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte(text), 0o644))
		if page != "" {
			require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(pipeline.MatrixPage)), []byte(page), 0o644))
		}
		if livePage != "" {
			require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(pipeline.LivePage)), []byte(livePage), 0o644))
		}
		if broken != nil {
			broken(dir)
		}
		return filepath.Join(dir, "README.md")
	}
	good := block("matrix", "") + block("live", "| Setup (row) | client-pause |\n")
	fileAt := func(rel string) func(string) {
		return func(dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(rel)), nil, 0o644))
		}
	}
	for _, tc := range []struct{ name, path, want string }{
		{"no matrix picture", notOurs, "no \"matrix\" block"},
		{"missing", filepath.Join(root, "nope.md"), "no such file"},
		{"a folder", root, "a folder, not a regular file"},
		{"docs/matrix is a file", readme(good, block("verdicts", ""), live, fileAt("docs/matrix")), "not a folder"},
		{"docs/img is a file", readme(good, block("verdicts", ""), live, fileAt("docs/img")), "not a folder"},
		{"no page beside it", readme(good, "", live, nil), "docs/matrix.md beside it: no such file"},
		{"a page without the verdict table", readme(good, "# mine\n", live, nil), `docs/matrix.md beside it: README has no "verdicts" block`},
		{"no live page beside it", readme(good, block("verdicts", ""), "", nil), `cannot read the live block of docs/live.md beside it: no such file`},
		{"no live block", readme(good, block("verdicts", ""), "# mine\n", nil), `cannot read the live block of docs/live.md beside it: README has no "live" block`},
		{"a live cell it cannot read", readme(good, block("verdicts", ""), strings.Replace(live, "violated · [violated", "violated · [maybe", 1), nil), `live cell "maybe (3 of 3)](x)" is no verdict`},
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
