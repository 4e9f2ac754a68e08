package trace

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPrintable(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Acquire", "Acquire"},
		{"", ""},
		{"é ✗ → ●", "é ✗ → ●"},
		{"\x1b[2J\x1b[31mred", `\x1b[2J\x1b[31mred`},
		{"a\nb\tc\rd", `a\nb\tc\rd`},
		{"bell\a nul\x00 del\x7f", `bell\x07 nul\x00 del\x7f`},
		{"c1 csi\u009b", `c1 csi\u009b`},
		{"rtl\u202eevil\u2066", `rtl\u202eevil\u2066`},
		{"zero\u200bwidth", `zero\u200bwidth`},
		{"bad\xffutf8", `bad\xffutf8`},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, Printable(tc.in), "%q", tc.in)
		assert.Equal(t, tc.want, Printable(Printable(tc.in)), "idempotent: %q", tc.in)
	}
}

// hostileTrace puts control characters in every text a trace has.
func hostileTrace() *Trace {
	bad := "\x1b[31m\a\x00\u009b\u202e\n\t\xff"
	return &Trace{
		Title: "title" + bad,
		Lanes: []string{"svc" + bad, "c1" + bad},
		Steps: []Step{
			{Number: 1, Action: "Init" + bad, Changes: []Change{{Path: "x" + bad, New: "0" + bad}}},
			{Number: 2, Actor: "c1" + bad, Action: "Go" + bad, Changes: []Change{{Path: "x" + bad, Old: "0" + bad, New: "1" + bad}}},
		},
		Arrows:    []Arrow{{From: "c1" + bad, To: "svc" + bad, Sent: 2, Label: "msg" + bad}},
		Notes:     []Note{{Lane: "svc" + bad, Step: 2, Kind: NoteKind("odd" + bad), Text: "note" + bad}},
		Violation: &Violation{Property: "P" + bad, Step: 2, Involved: []string{"c1" + bad}, Explanation: "why" + bad},
	}
}

// TestRenderersEscapeControlCharacters: no rendering passes a control
// character, a bidirectional override or a byte that is not UTF-8 from the
// trace through to the terminal, page or diagram; each shows escaped.
func TestRenderersEscapeControlCharacters(t *testing.T) {
	renderers := map[string]func(*bytes.Buffer, *Trace) error{
		"table":   func(b *bytes.Buffer, t *Trace) error { return WriteTable(b, t) },
		"lanes":   func(b *bytes.Buffer, t *Trace) error { return WriteLanes(b, t) },
		"text":    func(b *bytes.Buffer, t *Trace) error { return WriteText(b, t) },
		"mermaid": func(b *bytes.Buffer, t *Trace) error { return WriteMermaid(b, t) },
		"html":    func(b *bytes.Buffer, t *Trace) error { return WriteHTML(b, t) },
	}
	for name, render := range renderers {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			require.NoError(t, render(&b, hostileTrace()))
			out := b.String()
			for i, r := range out {
				if r == '\n' || (name == "html" && (r == '\t' || r == '\r')) {
					continue
				}
				require.False(t, unicode.IsControl(r) || isBidi(r) || r == unicode.ReplacementChar,
					"%s passes %U through at byte %d: %q", name, r, i, out[max(0, i-20):min(len(out), i+20)])
			}
			assert.Contains(t, out, `\x1b[31m`, "the escape shows")
		})
	}
}

// TestMermaidWithoutLanes: a trace that names no process still draws its
// steps.
func TestMermaidWithoutLanes(t *testing.T) {
	tr := &Trace{Steps: []Step{{Number: 1, Action: "Init"}, {Number: 2, Action: "Next"}}, Violation: &Violation{Property: "Inv", Step: 2}}
	var b bytes.Buffer
	require.NoError(t, WriteMermaid(&b, tr))
	assert.Contains(t, b.String(), "participant L0 as system")
	assert.Contains(t, b.String(), "Note over L0: 2. Next")
	assert.Contains(t, b.String(), "Inv violated at step 2")
}

// TestReadJSONRoundTrip: every trace.json fencelab writes reads back as
// the same trace.
func TestReadJSONRoundTrip(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			var want Trace
			require.NoError(t, json.Unmarshal(data, &want))
			var buf bytes.Buffer
			require.NoError(t, WriteJSON(&buf, &want))
			got, err := ReadJSON(&buf)
			require.NoError(t, err)
			assert.Equal(t, &want, got)
		})
	}
	loop := &Trace{Steps: []Step{{Number: 1}, {Number: 2}, {Number: 3}}, Loop: 1}
	var buf bytes.Buffer
	require.NoError(t, WriteJSON(&buf, loop))
	got, err := ReadJSON(&buf)
	require.NoError(t, err)
	assert.Equal(t, 1, got.Loop)
}

func TestReadJSONRejects(t *testing.T) {
	tests := []struct{ name, json, wantErr string }{
		{"not JSON", "{", "not a trace.json"},
		{"another JSON", `{"models": []}`, "unknown field"},
		{"two values", `{"steps": [{"number": 1}]} {}`, "more than one"},
		{"no steps", `{"title": "x"}`, "no steps"},
		{"step 0", `{"steps": [{"number": 0}]}`, "numbered from 1"},
		{"steps out of order", `{"steps": [{"number": 1}, {"number": 3}, {"number": 2}]}`, "numbered from 1 upward"},
		{"duplicated step", `{"steps": [{"number": 1}, {"number": 1}]}`, "numbered from 1 upward"},
		{"arrow to nowhere", `{"steps": [{"number": 1}], "arrows": [{"from": "a", "to": "b", "sent": 5, "label": "m"}]}`, "not steps of the trace"},
		{"arrow received before sent", `{"steps": [{"number": 1}, {"number": 2}], "arrows": [{"from": "a", "to": "b", "sent": 2, "received": 1, "label": "m"}]}`, "not steps of the trace in order"},
		{"note at no step", `{"steps": [{"number": 1}], "notes": [{"lane": "a", "step": 9, "kind": "info", "text": "x"}]}`, "note is at step 9"},
		{"loop to the last step", `{"steps": [{"number": 1}, {"number": 2}], "loop": 2}`, "loops back to step 2"},
		{"loop to no step", `{"steps": [{"number": 1}, {"number": 2}], "loop": 7}`, "loops back to step 7"},
		{"violation at no step", `{"steps": [{"number": 1}], "violation": {"property": "P", "step": 4}}`, "violation is at step 4"},
		{"wrong type", `{"steps": "many"}`, "not a trace.json"},
		{"a lane twice", `{"lanes": ["c1", "service", "c1"], "steps": [{"number": 1}]}`, `the lane "c1" is listed twice`},
		{"a lane without a name", `{"lanes": ["c1", ""], "steps": [{"number": 1}]}`, "a lane has no name"},
		{"an actor of no lane", `{"lanes": ["c1"], "steps": [{"number": 1}, {"number": 2, "actor": "c2", "action": "a"}]}`, `step 2 names the lane "c2"`},
		{"an arrow from no lane", `{"lanes": ["c1"], "steps": [{"number": 1}], "arrows": [{"from": "c9", "to": "c1", "sent": 1, "label": "m"}]}`, `names the lane "c9"`},
		{"a note of no kind", `{"lanes": ["c1"], "steps": [{"number": 1}], "notes": [{"lane": "c1", "step": 1, "kind": "weird", "text": "t"}]}`, `of kind "weird"`},
		{"a violation involving no lane", `{"lanes": ["c1"], "steps": [{"number": 1}], "violation": {"property": "P", "step": 1, "involved": ["zz"]}}`, `the violation names the lane "zz"`},
		{"another source", `{"source": "paxos", "steps": [{"number": 1}]}`, `its source is "paxos"`},
		{"time before the start", `{"timed": true, "steps": [{"number": 1, "at": -5}]}`, "before the run's start"},
		{"time running backwards", `{"timed": true, "steps": [{"number": 1, "at": 10}, {"number": 2, "at": 5}]}`, "time runs forward"},
		{"time in an untimed trace", `{"steps": [{"number": 1, "at": 10}]}`, "the trace is not timed"},
		{"a note on no lane", `{"lanes": ["c1"], "steps": [{"number": 1}], "notes": [{"lane": "x", "step": 1, "kind": "info", "text": "t"}]}`, `a note at step 1 names the lane "x"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadJSON(strings.NewReader(tc.json))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
}
