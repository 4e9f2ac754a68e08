package trace

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/internal/golden"
)

var update = flag.Bool("update", false, golden.UpdateUsage)

func loadTrace(t *testing.T, name string) *Trace {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	var tr Trace
	require.NoError(t, json.Unmarshal(data, &tr))
	return &tr
}

func TestRenderersGolden(t *testing.T) {
	renderers := []struct {
		ext    string
		render func(*bytes.Buffer, *Trace) error
	}{
		{"lanes.txt", func(b *bytes.Buffer, tr *Trace) error { return WriteLanes(b, tr) }},
		{"mmd", func(b *bytes.Buffer, tr *Trace) error { return WriteMermaid(b, tr) }},
		{"html", func(b *bytes.Buffer, tr *Trace) error { return WriteHTML(b, tr) }},
		{"table.txt", func(b *bytes.Buffer, tr *Trace) error { return WriteTable(b, tr) }},
	}
	for _, fixture := range []string{"tlc_distlock_2c_atmostone", "tlc_fencing_writes_2c_nolostupdate", "timed"} {
		for _, r := range renderers {
			t.Run(fixture+"."+r.ext, func(t *testing.T) {
				tr := loadTrace(t, fixture+".json")
				var first, second bytes.Buffer
				require.NoError(t, r.render(&first, tr))
				require.NoError(t, r.render(&second, tr))
				assert.Equal(t, first.String(), second.String(), "same trace, same bytes")
				golden.File(t, *update, filepath.Join("testdata", fixture+".golden."+r.ext), first.Bytes())
			})
		}
	}
}

func TestWriteLanesPicture(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteLanes(&b, loadTrace(t, "tlc_distlock_2c_atmostone.json")))
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	// Title, blank line, header, then one row per step.
	require.Len(t, lines, 3+8)
	assert.Equal(t, "step  service     validity    c1          c2          resource", lines[2])
	// Every row's grid is equally wide, so the descriptions line up.
	for _, row := range lines[3:] {
		prefix := []rune(row)[:6+5*12]
		assert.Equal(t, 6+5*12, utf8.RuneCountInString(string(prefix)))
		assert.NotEqual(t, ' ', []rune(row)[6+5*12+2], "the description starts in the same column: %q", row)
	}
	assert.Contains(t, lines[4], "◀──", "c1's acquire goes left to the service")
	assert.Contains(t, lines[4], "c1 → service: acquire (lease 0) (received at step 3)")
	assert.Contains(t, lines[6], "◷", "the expiry is marked on the service's lane")
	assert.Contains(t, lines[10], "✗", "the violation is marked")
	assert.Contains(t, lines[10], "AtMostOneClientHoldLock violated at step 8")
}

func TestWriteHTMLEscapesAndMarks(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteHTML(&b, loadTrace(t, "timed.json")))
	page := b.String()
	assert.NotContains(t, page, "<script>alert(1)</script>")
	assert.Contains(t, page, "&lt;script&gt;alert(1)&lt;/script&gt;")
	assert.Contains(t, page, "timed &lt;demo&gt; &amp; &#34;quotes&#34;")
	assert.Contains(t, page, "<svg ")
	assert.Contains(t, page, "2.750s", "a timed trace shows step times")
	assert.Contains(t, page, `stroke-dasharray="5 4"`, "a message still in flight is dashed")
	assert.Contains(t, page, `class="violated"`)
	assert.Equal(t, 1, strings.Count(page, "<html"), "one self-contained page")
	assert.NotContains(t, page, "<script", "no scripts")
	assert.NotContains(t, page, "src=", "no external resources")
	assert.NotContains(t, page, "<link", "no external resources")
}

func TestWriteMermaidEscapes(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteMermaid(&b, loadTrace(t, "timed.json")))
	out := b.String()
	assert.True(t, strings.HasPrefix(out, "sequenceDiagram\n"))
	assert.Contains(t, out, "participant L0 as service")
	assert.Contains(t, out, "Acquire #lt;x#gt;#59; #35;1", "Mermaid syntax characters are escaped")
	assert.Contains(t, out, "L0-)L1: 3. [0.250s] Grant: granted #lt;token 1#gt; (in flight at the end)")
	assert.Contains(t, out, "Note over L1,L2: ✗ AtMostOneClientHoldLock violated at step 5")
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		assert.True(t, strings.HasPrefix(line, "    "), "every statement is indented: %q", line)
	}
}

func TestRenderersTolerateEmptyTrace(t *testing.T) {
	traces := map[string]*Trace{
		"no steps":  {},
		"init only": {Steps: []Step{{Number: 1, Action: "Init"}}},
		"odd arrows": {
			Steps: []Step{{Number: 1, Action: "Init"}, {Number: 2, Actor: "a", Action: "x"}},
			Arrows: []Arrow{
				{From: "a", To: "a", Sent: 2, Received: 2, Label: "to itself"},
				{From: "a", To: "b", Sent: 2, Received: 9, Label: "received at a step the trace lacks"},
				{From: "b", To: "a", Sent: 7, Label: "sent at a step the trace lacks"},
			},
			Notes:     []Note{{Lane: "c", Step: 8, Kind: NoteInfo, Text: "at a step the trace lacks"}},
			Violation: &Violation{Property: "P", Step: 5, Involved: []string{"d"}},
		},
	}
	for name, tr := range traces {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			require.NoError(t, WriteLanes(&b, tr))
			require.NoError(t, WriteMermaid(&b, tr))
			require.NoError(t, WriteHTML(&b, tr))
		})
	}
}
