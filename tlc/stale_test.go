package tlc

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTranslationDiff: only the translation decides staleness. A comment
// the JVM wrote in another encoding ("—" as "???", LC_ALL=C) is not a
// stale translation; a changed translated line is, with its line number;
// a file without translation markers is compared whole.
func TestTranslationDiff(t *testing.T) {
	const head = "---- MODULE M ----\n(* a comment — with a dash *)\n(* --algorithm M { skip } *)\n"
	const tr = "\\* BEGIN TRANSLATION\nVARIABLE pc\nInit == pc = \"Done\"\n\\* END TRANSLATION\n"
	mangled := strings.ReplaceAll(head, "—", "???")
	tests := []struct {
		name, orig, fresh string
		want              string // "" current, else a part of the difference
	}{
		{"same", head + tr + "====\n", head + tr + "====\n", ""},
		{"a comment in another encoding", head + tr + "====\n", mangled + tr + "====\n", ""},
		{"a comment after the translation", head + tr + "(* — *)\n====\n", head + tr + "(* ??? *)\n====\n", ""},
		{"CRLF", strings.ReplaceAll(head+tr, "\n", "\r\n"), head + tr, ""},
		{"a translated line changed", head + tr, head + strings.Replace(tr, `"Done"`, `"Lbl"`, 1), `M.tla line 6 differs from a fresh translation (committed "Init == pc = \"Done\"", fresh "Init == pc = \"Lbl\"")`},
		{"a translated line added", head + tr, head + strings.Replace(tr, "VARIABLE pc\n", "VARIABLE pc\nVARIABLE x\n", 1), "line 6 differs"},
		{"the translation longer", head + tr, head + strings.Replace(tr, "\\* END", "x == 1\n\\* END", 1), "line 7 differs"},
		{"no markers: the whole file", head + "x\n", mangled + "x\n", "line 2 differs"},
		{"no markers, shorter", head + "x\n", head, "line 4 differs"},
		{"the translation cut", head + tr, head + strings.Replace(tr, "\\* END TRANSLATION\n", "", 1), "line 4 differs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := translationDiff("M.tla", []byte(tc.orig), []byte(tc.fresh))
			if tc.want == "" {
				assert.Empty(t, got)
				return
			}
			assert.Contains(t, got, tc.want)
		})
	}
}

// TestTranslationCurrentInAnyLocale (TLC): the committed specs, one with
// non-ASCII comments (DistLockRedlock.tla), are current whatever the
// locale java inherits: LC_ALL=C, LANG=C, none. (Before, LC_ALL=C made
// the translator write "—" as "???" and the spec was called stale.)
func TestTranslationCurrentInAnyLocale(t *testing.T) {
	r := tlcRunner(t)
	path := filepath.Join(specsDir, "DistLockRedlock.tla")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(data), "—", "the spec keeps a non-ASCII comment")
	for _, env := range []map[string]string{{"LC_ALL": "C"}, {"LC_ALL": "", "LANG": "C"}, {"LC_ALL": "", "LANG": "", "LC_CTYPE": ""}} {
		t.Run(strings.TrimSpace(strings.ReplaceAll(envText(env), "=", "=")), func(t *testing.T) {
			for k, v := range env {
				t.Setenv(k, v)
			}
			why, err := r.StaleTranslation(context.Background(), path)
			require.NoError(t, err)
			assert.Empty(t, why)
			// The good path: a real change of the translation is seen.
			dir := t.TempDir()
			stale := strings.Replace(string(data), "\\* END TRANSLATION", "Extra == 1\n\\* END TRANSLATION", 1)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "DistLockRedlock.tla"), []byte(stale), 0o644))
			why, err = r.StaleTranslation(context.Background(), filepath.Join(dir, "DistLockRedlock.tla"))
			require.NoError(t, err)
			assert.Contains(t, why, "differs from a fresh translation")
		})
	}
}

func envText(env map[string]string) string {
	var parts []string
	for _, k := range []string{"LC_ALL", "LANG", "LC_CTYPE"} {
		if v, ok := env[k]; ok {
			parts = append(parts, k+"="+v)
		}
	}
	return strings.Join(parts, " ")
}
