package doclinks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSlug(t *testing.T) {
	tests := []struct{ heading, want string }{
		{"Quickstart", "quickstart"},
		{"A counterexample, read as a story", "a-counterexample-read-as-a-story"},
		{"Live: your real lock under real faults", "live-your-real-lock-under-real-faults"},
		{"Spec ↔ Go mapping", "spec--go-mapping"},
		{"make demo", "make-demo"},
		{"`fencelab sim` and `--replay`", "fencelab-sim-and---replay"},
		{"TLC 2.19 (v1.7.4)", "tlc-219-v174"},
		{"snake_case stays", "snake_case-stays"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, Slug(tc.heading), tc.heading)
	}
}

func TestAnchors(t *testing.T) {
	page := "# Title\n\n## Usage\n\n```\n# not a heading\n```\n\n## Usage\n#nospace\n####### seven\n### Closed ###\n"
	got := Anchors(page)
	assert.Equal(t, map[string]bool{"title": true, "usage": true, "usage-1": true, "closed": true}, got)
}

// writePages writes files under a fresh folder and returns it.
func writePages(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	return root
}

func TestCheckFindsEveryKindOfBrokenLink(t *testing.T) {
	root := writePages(t, map[string]string{
		"README.md": strings.Join([]string{
			"# Front",
			"[ok](docs/a.md) [ok folder](docs/) [ok anchor](docs/a.md#second-part) [self](#front)",
			"![ok image](docs/img/x.png) [web](https://example.org/x) [mail](mailto:a@b.c)",
			"[missing page](docs/nope.md)",
			"[missing anchor](docs/a.md#no-such-part)",
			"[missing self anchor](#nowhere)",
			"![missing image](docs/img/y.png)",
			"[anchor into a folder](docs/#x)",
			"`[in code](docs/nope2.md)`",
			"```",
			"[in a fence](docs/nope3.md)",
			"```",
		}, "\n"),
		"docs/a.md":      "# A\n\n## Second part\n\n[up](../README.md#front) [broken up](../README.md#back)\n",
		"docs/img/x.png": "png",
	})
	readme := filepath.Join(root, "README.md")
	page := filepath.Join(root, "docs", "a.md")
	broken, err := Check([]string{readme, page})
	require.NoError(t, err)
	var got []string
	for _, b := range broken {
		rel, err := filepath.Rel(root, b.Page)
		require.NoError(t, err)
		got = append(got, filepath.ToSlash(rel)+" "+b.Target)
	}
	assert.Equal(t, []string{
		"README.md docs/nope.md",
		"README.md docs/a.md#no-such-part",
		"README.md #nowhere",
		"README.md docs/img/y.png",
		"README.md docs/#x",
		"docs/a.md ../README.md#back",
	}, got)
	assert.Equal(t, 4, broken[0].Line, "line numbers count the page's lines")
	assert.Contains(t, broken[0].String(), "README.md:4: docs/nope.md: no such file")
}

func TestCheckAcceptsAPageWithNoLinks(t *testing.T) {
	root := writePages(t, map[string]string{"a.md": "# A\n\nplain text, `[not](a link)`\n"})
	broken, err := Check([]string{filepath.Join(root, "a.md")})
	require.NoError(t, err)
	assert.Empty(t, broken)
}

func TestCheckFailsOnAMissingPage(t *testing.T) {
	_, err := Check([]string{filepath.Join(t.TempDir(), "missing.md")})
	assert.Error(t, err)
}
