package tlc

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
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
