package tlc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/verdict"
)

// cutAt returns out up to (not including) the first line holding marker:
// a real output cut short where TLC was stopped.
func cutAt(t *testing.T, out, marker string) string {
	t.Helper()
	i := strings.Index(out, marker)
	require.GreaterOrEqual(t, i, 0, "the fixture has no %q", marker)
	i = strings.LastIndex(out[:i], "\n") + 1
	return out[:i]
}

// withoutLine drops every line holding marker.
func withoutLine(out, marker string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if !strings.Contains(l, marker) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// TestOnlyTLCsWordsGiveAVerdict: a run's exit code is a verdict only when
// TLC's output backs it. A model holds only with TLC's "Model checking
// completed. No error has been found." and its closing "Finished in …";
// an output cut short, another program's, or one that contradicts the
// exit code is no verdict (the judge fails it, every invariant Unknown),
// whatever the code. Real outputs of TLC 2.19 (testdata), and cut or
// doctored copies of them.
func TestOnlyTLCsWordsGiveAVerdict(t *testing.T) {
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		require.NoError(t, err)
		return string(data)
	}
	okTool, okPlain := read("tool_DistLockFencing_all_2c.out"), read("plain_DistLockFencing_all_2c.out")
	violated := read("tool_DistLockFencing_writes_2c_NoLostUpdate.out")
	okModel := Model{Name: "m", Expected: ResultOK, DistinctStates: 1409}
	invModel := Model{Name: "m", Expected: ResultInvariant, Property: "NoLostUpdate", CounterexampleLength: 16}
	tests := []struct {
		name   string
		out    string
		code   int
		model  Model
		result string // Got.Result
	}{
		{"ok, -tool", okTool, 0, okModel, ResultOK},
		{"ok, plain", okPlain, 0, okModel, ResultOK},
		{"invariant violated", violated, 12, invModel, ResultInvariant},
		{"ok cut before Finished, -tool", cutAt(t, okTool, "Finished in"), 0, okModel, ResultNoVerdict},
		{"ok cut before Finished, plain", cutAt(t, okPlain, "Finished in"), 0, okModel, ResultNoVerdict},
		{"ok cut before its result", cutAt(t, okTool, "Model checking completed"), 0, okModel, ResultNoVerdict},
		{"ok without its result line, plain", withoutLine(okPlain, "Model checking completed"), 0, okModel, ResultNoVerdict},
		{"only the version line", "TLC2 Version 2.19 of 08 August 2024\n", 0, okModel, ResultNoVerdict},
		{"empty", "", 0, okModel, ResultNoVerdict},
		{"another program's output", "hello, world\nall good\n", 0, okModel, ResultNoVerdict},
		{"a counterexample with exit 0", violated, 0, okModel, ResultNoVerdict},
		{"no error found, exit 12", okTool, 12, invModel, ResultNoVerdict},
		{"a violation cut before its trace ends", cutAt(t, violated, "Finished in"), 12, invModel, ResultNoVerdict},
		{"no error found, exit 13", okTool, 13, Model{Name: "m", Expected: ResultLiveness, Property: "P"}, ResultNoVerdict},
		{"no error found, exit 11", okTool, 11, Model{Name: "m", Expected: ResultDeadlock}, ResultNoVerdict},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, _, _ := Interpret([]byte(tc.out), tc.code, "INVARIANT NoLostUpdate\n")
			assert.Equal(t, tc.result, g.Result)
			vs := Verdicts(g, []string{"NoLostUpdate"}, 1)
			mismatch := Judge(tc.model, g)
			if tc.result != ResultNoVerdict {
				assert.Empty(t, mismatch)
				require.NotEmpty(t, vs)
				assert.NotEqual(t, verdict.Unknown, vs[0].Status)
				return
			}
			assert.Contains(t, mismatch, "no verdict")
			assert.NotEmpty(t, g.Detail, "says why")
			require.Len(t, vs, 1)
			assert.Equal(t, verdict.Unknown, vs[0].Status, "never holds, never violated")
		})
	}
}
