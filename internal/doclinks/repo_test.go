package doclinks

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// root is the module root, where the README is.
const root = "../.."

// maxReadmeLines is the README's budget: a front door (what fencelab is,
// the matrix, the quickstart, one story, the live block, links), the rest
// on the pages under docs/.
const maxReadmeLines = 300

// repoPages are the project's Markdown pages: the README, DESIGN.md,
// specs/README.md and every page under docs/ (the generated ones too).
func repoPages(t *testing.T) []string {
	t.Helper()
	pages := []string{
		filepath.Join(root, "README.md"),
		filepath.Join(root, "DESIGN.md"),
		filepath.Join(root, "specs", "README.md"),
	}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			pages = append(pages, path)
		}
		return nil
	})
	require.NoError(t, err)
	return pages
}

// TestEveryLinkResolves: every relative link of the README and of the
// pages under docs/ reaches a file or folder, and every anchor a heading.
func TestEveryLinkResolves(t *testing.T) {
	pages := repoPages(t)
	require.Greater(t, len(pages), 10, "the README, DESIGN.md and the pages under docs/")
	broken, err := Check(pages)
	require.NoError(t, err)
	for _, b := range broken {
		t.Error(b)
	}
}

// TestDesignIndexLinksEveryDesignPage: DESIGN.md is the index of
// docs/design/, so a page added there is listed, and the README links
// DESIGN.md and the user's pages.
func TestDesignIndexLinksEveryDesignPage(t *testing.T) {
	index, err := os.ReadFile(filepath.Join(root, "DESIGN.md"))
	require.NoError(t, err)
	pages, err := filepath.Glob(filepath.Join(root, "docs", "design", "*.md"))
	require.NoError(t, err)
	require.NotEmpty(t, pages)
	for _, p := range pages {
		assert.Contains(t, string(index), "](docs/design/"+filepath.Base(p)+")", "DESIGN.md does not list %s", p)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	user, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	require.NotEmpty(t, user)
	for _, p := range append(user, "DESIGN.md") {
		target := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		assert.Contains(t, string(readme), "]("+target+")", "the README does not link %s", target)
	}
}

// TestREADMEIsAFrontDoor: the README stays within its budget of lines.
func TestREADMEIsAFrontDoor(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	lines := strings.Count(string(data), "\n")
	assert.LessOrEqual(t, lines, maxReadmeLines, "the README has %d lines: move the detail to a page under docs/", lines)
	assert.Greater(t, lines, 50, "the README is not empty")
	// The first screen answers what it is, shows the whole matrix and
	// gives the two commands.
	first := strings.Join(strings.SplitN(string(data), "\n", firstScreen+1)[:firstScreen], "\n")
	for _, want := range []string{"](docs/img/matrix.svg)](docs/matrix.md)", "\nmake demo ", "\nmake test "} {
		assert.Contains(t, first, want, "the README's first %d lines", firstScreen)
	}
}

// firstScreen is the README's first screen, in lines.
const firstScreen = 50
