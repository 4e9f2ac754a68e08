package trace

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

// TestMermaidNotesAreBounded: every note of a Mermaid picture — a step's
// action, a fault's or an expiry's note, the violation — is wrapped into
// lines of at most mermaidWidth runes (before escaping), at most
// mermaidLines of them, whatever the text: long words, many words, a
// 100,000-rune note.
func TestMermaidNotesAreBounded(t *testing.T) {
	long := strings.Repeat("word ", 20_000)
	huge := strings.Repeat("x", 100_000)
	tr := &Trace{
		Title: "notes", Lanes: []string{"c1", "c2"},
		Steps: []Step{
			{Number: 1, Actor: "c1", Action: long},
			{Number: 2, Actor: "c2", Action: huge},
			{Number: 3, Actor: "c1", Action: "short"},
		},
		Notes:     []Note{{Step: 3, Lane: "c2", Kind: NoteFault, Text: long + huge}},
		Violation: &Violation{Step: 3, Property: "P", Explanation: long, Involved: []string{"c1", "c2"}},
	}
	var b strings.Builder
	assert.NoError(t, WriteMermaid(&b, tr))
	notes := 0
	for _, line := range strings.Split(b.String(), "\n") {
		_, text, ok := strings.Cut(line, "Note over ")
		if !ok {
			continue
		}
		notes++
		_, text, _ = strings.Cut(text, ": ")
		parts := strings.Split(text, "<br/>")
		assert.LessOrEqual(t, len(parts), mermaidLines, "%.80s", text)
		for _, p := range parts {
			// Escapes (#lt; and the like) aside, a line is at most the width.
			plain := strings.NewReplacer("#35;", "#", "#59;", ";", "#lt;", "<", "#gt;", ">").Replace(p)
			assert.LessOrEqual(t, utf8.RuneCountInString(plain), mermaidWidth, "%q", plain)
		}
	}
	assert.Equal(t, 5, notes, "the three steps (none sends), the fault and the violation")
	assert.Contains(t, b.String(), "short")
	assert.Contains(t, b.String(), "…", "what is left out is marked")
}
