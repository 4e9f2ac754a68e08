package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/trace"
)

const testdata = "../../tlc/testdata/"

// TestTraceCommandReadsTraceJSON: `fencelab trace` reads the trace.json
// fencelab writes (trace.WriteFiles) and renders it as it rendered the
// TLC output it came from.
func TestTraceCommandReadsTraceJSON(t *testing.T) {
	code, fromTLC, errOut := runCLI(t, "trace", "--format", "json", fixture)
	require.Equal(t, 0, code, errOut)
	var tr trace.Trace
	require.NoError(t, json.Unmarshal([]byte(fromTLC), &tr))
	dir := t.TempDir()
	_, err := trace.WriteFiles(dir, &tr)
	require.NoError(t, err)
	file := filepath.Join(dir, trace.JSONFile)
	for _, format := range []string{"", "table", "lanes", "mermaid", "html", "json"} {
		t.Run("format "+format, func(t *testing.T) {
			code, fromJSON, errOut := runCLI(t, "trace", "--format", format, file)
			require.Equal(t, 0, code, errOut)
			code, want, _ := runCLI(t, "trace", "--format", format, fixture)
			require.Equal(t, 0, code)
			assert.Equal(t, want, fromJSON)
		})
	}
	code, out, _ := runCLI(t, "trace", "--title", "mine", "--format", "table", file)
	require.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(out, "mine\n"))
}

// TestTraceCommandOtherOutputs: TLC outputs of specs that are not
// fencelab's, and of runs that stop on an error that is not a property,
// render with their error and their processes.
func TestTraceCommandOtherOutputs(t *testing.T) {
	tests := []struct {
		file   string
		args   []string
		want   []string
		format string
	}{
		{"tool_assert.out", nil, []string{"✗ Assert violated at step 3: TLC: The first argument of Assert evaluated to FALSE"}, ""},
		{"plain_eval_error.out", nil, []string{"✗ EvaluationError violated at step 2: TLC: Attempted to apply tuple <<20, 0>> to integer 3"}, ""},
		{"tool_interval.out", nil, []string{"r: 1..4 → 1..5", "✗ Inv violated at step 4"}, ""},
		{"tool_lasso.out", []string{"--property", "Reach5"}, []string{"back to the state of step 1", "✗ Reach5 violated at step 4"}, ""},
		{"tool_continue.out", nil, []string{"(counterexample 1 of 2)", "TLC printed 2 counterexamples", "✗ Inv violated at step 3"}, ""},
		{"plain_continue.out", []string{"--counterexample", "2"}, []string{"(counterexample 2 of 2)", "this is number 2", "✗ Inv violated at step 5"}, ""},
		{"tool_intprocs.out", nil, []string{"participant L0 as 1", "participant L1 as 2", "L1: 3. Enter"}, "mermaid"},
		{"tool_instance.out", nil, []string{"participant L1 as 2", "L0: 2. M!Next"}, "mermaid"},
		{"tool_plainspec.out", nil, []string{"participant L0 as PlainSpec", "L0: 4. IncB", "Inv violated at step 4"}, "mermaid"},
	}
	for _, tc := range tests {
		t.Run(tc.file+" "+tc.format, func(t *testing.T) {
			args := append([]string{"trace", "--format", tc.format}, tc.args...)
			code, out, errOut := runCLI(t, append(args, testdata+tc.file)...)
			require.Equal(t, 0, code, errOut)
			for _, w := range tc.want {
				assert.Contains(t, out, w)
			}
		})
	}
}

// TestTraceCommandEscapesControlCharacters: an action name with control
// characters in a TLC output reaches the terminal escaped, in every text
// format.
func TestTraceCommandEscapesControlCharacters(t *testing.T) {
	data, err := os.ReadFile(testdata + "tool_plainspec.out")
	require.NoError(t, err)
	hostile := strings.ReplaceAll(string(data), "<IncA line", "<Inc\x1b[2J\x1b]0;pwned\a\u202eA line")
	file := filepath.Join(t.TempDir(), "tlc.out")
	require.NoError(t, os.WriteFile(file, []byte(hostile), 0o644))
	for _, format := range []string{"", "table", "lanes", "mermaid", "html"} {
		t.Run("format "+format, func(t *testing.T) {
			code, out, errOut := runCLI(t, "trace", "--format", format, file)
			require.Equal(t, 0, code, errOut)
			assert.Contains(t, out, `Inc\x1b[2J\x1b]0`)
			assert.Contains(t, out, `pwned\x07\u202eA`)
			for _, r := range out {
				if r != '\n' && r != '\t' {
					require.False(t, unicode.IsControl(r) || r == '\u202e', "%U reaches the output", r)
				}
			}
		})
	}
}

// TestTraceCommandRefusesBadOutputs: incomplete outputs, impossible
// numbering, a counterexample that is not there and files that are
// neither TLC's output nor a trace.json get one line and exit 2.
func TestTraceCommandRefusesBadOutputs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	read := func(name string) string {
		data, err := os.ReadFile(testdata + name)
		require.NoError(t, err)
		return string(data)
	}
	tool := read("tool_DistLock_2c_AtMostOneClientHoldLock.out")
	plain := read("plain_DistLock_2c_AtMostOneClientHoldLock.out")
	atBoundary := tool[:strings.Index(tool, "@!@!@STARTMSG 2217:4 @!@!@\n5:")]
	plainCut := plain[:strings.Index(plain, "State 6:")]
	dup := strings.Replace(plain, "State 3:", "State 2:", 1)
	back := strings.Replace(read("plain_lasso.out"), "Back to state 1", "Back to state 9", 1)
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"tool output cut at a state boundary", []string{write("a.out", atBoundary)}, "incomplete"},
		{"plain output cut at a state boundary", []string{write("b.out", plainCut)}, "incomplete"},
		{"plain output without its last line", []string{write("c.out", strings.Split(plain, "Finished in")[0])}, "incomplete"},
		{"duplicated state number", []string{write("d.out", dup)}, "state 2 follows state 2"},
		{"loop back to no state", []string{write("e.out", back)}, "no state 9 to return to"},
		{"counterexample past the last", []string{"--counterexample", "3", testdata + "tool_continue.out"}, "--counterexample 3: there is no counterexample 3: the TLC output has 2"},
		{"counterexample 0", []string{"--counterexample", "0", testdata + "tool_continue.out"}, "there is no counterexample 0"},
		{"a JSON that is not a trace", []string{write("f.json", `{"models": []}`)}, "not a trace.json"},
		{"a cut trace.json", []string{write("g.json", `{"steps": [{"number": 1}`)}, "not a trace.json"},
		{"a trace.json with no steps", []string{write("h.json", `{"title": "t", "steps": []}`)}, "no steps"},
		{"a trace.json with impossible steps", []string{write("i.json", `{"steps": [{"number": 2}, {"number": 1}]}`)}, "numbered from 1 upward"},
		{"a too deep value", []string{write("j.out", strings.Replace(plain, "/\\ counter = 0", "/\\ counter = "+strings.Repeat("<<", 100000)+"1"+strings.Repeat(">>", 100000), 1))}, "nests deeper than"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, append([]string{"trace"}, tc.args...)...)
			assert.Empty(t, out)
			assertBadInput(t, code, errOut, tc.wantErr)
		})
	}
}
