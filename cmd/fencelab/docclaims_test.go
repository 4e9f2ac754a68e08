package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/conform"
	"github.com/fencelab/fencelab/impl"
)

// TestDesignsPageQuotesTheLocksWithoutRow: docs/designs.md says of the
// locks no row stands for (MySQL GET_LOCK) what fencelab designs says,
// word for word, so the page and the command cannot disagree.
func TestDesignsPageQuotesTheLocksWithoutRow(t *testing.T) {
	code, stdout, stderr := runCLI(t, "designs")
	require.Equal(t, exitOK, code, stderr)
	page, err := os.ReadFile("../../docs/designs.md")
	require.NoError(t, err)
	var lines []string
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(line, "No row: ") {
			lines = append(lines, line)
		}
	}
	require.Len(t, lines, len(impl.WithoutRow()), "a line per lock without a row:\n%s", stdout)
	for _, line := range lines {
		assert.Contains(t, string(page), "\n"+line+"\n", "docs/designs.md does not quote fencelab designs")
	}
}

// TestLimitsPageOnConformance: docs/limits.md's conformance limit agrees
// with conform.Coverage: it names no row as uncovered that conformance
// covers, and says so when it covers every row.
func TestLimitsPageOnConformance(t *testing.T) {
	page, err := os.ReadFile("../../docs/limits.md")
	require.NoError(t, err)
	_, bullet, ok := strings.Cut(string(page), "- **Conformance**")
	require.True(t, ok, "docs/limits.md has a conformance limit")
	bullet, _, _ = strings.Cut(bullet, "\n- ")
	bullet = strings.Join(strings.Fields(bullet), " ")
	cells, err := conform.Coverage("../../specs")
	require.NoError(t, err)
	covered := map[impl.Design]bool{}
	for _, c := range cells {
		covered[c.Design] = covered[c.Design] || c.Traced || len(c.Replayed) > 0
	}
	all := true
	for _, d := range impl.Designs() {
		if !covered[d] {
			all = false
			continue
		}
		if d.Redlock() {
			assert.NotContains(t, bullet, "does not cover the Redlock rows", "conformance covers %s", d)
		}
		assert.NotContains(t, bullet, "does not cover `"+d.String()+"`", "conformance covers %s", d)
	}
	if all {
		assert.Contains(t, bullet, "covers every row of the matrix")
	}
}

// TestDocCommandsWriteToScratch: a fencelab command the README or a page
// under docs/ quotes writes its --out into a scratch folder, never over
// what the repository commits (a picture, a page): run as written, it
// must not change the checkout.
func TestDocCommandsWriteToScratch(t *testing.T) {
	pages := []string{"../../README.md"}
	docs, err := filepath.Glob("../../docs/*.md")
	require.NoError(t, err)
	pages = append(pages, docs...)
	quoted := regexp.MustCompile("(?:^|[`$] ?)fencelab(?:-live)? [^`\n]*--out[ =]([^ `\n]+)")
	seen := 0
	for _, page := range pages {
		data, err := os.ReadFile(page)
		require.NoError(t, err)
		for _, m := range quoted.FindAllStringSubmatch(string(data), -1) {
			seen++
			out := m[1]
			if strings.HasPrefix(out, "/") || strings.HasPrefix(out, "$") || strings.HasPrefix(out, "<") {
				continue // a scratch path of the reader's, or a placeholder
			}
			assert.False(t, strings.HasPrefix(filepath.ToSlash(filepath.Clean(out)), "docs/"), "%s: %q writes into docs/", page, m[0])
			_, err := os.Stat(filepath.Join("../..", out))
			assert.True(t, os.IsNotExist(err), "%s: %q writes over %s, which the repository has", page, m[0], out)
		}
	}
	assert.Positive(t, seen, "the pages quote commands with --out")
}
