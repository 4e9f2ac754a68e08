package tlc

import (
	"bufio"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/internal/testbuild"
)

// fixtureOutputs lists every TLC output in testdata.
func fixtureOutputs(t *testing.T) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join("testdata", "*.out"))
	require.NoError(t, err)
	require.NotEmpty(t, names)
	for i, n := range names {
		names[i] = filepath.Base(n)
	}
	return names
}

// TestParseOutputTruncated cuts every fixture at every line boundary and
// at random byte offsets. A cut output is refused, or it is a prefix that
// claims nothing (no counterexample, no error), or — cut after TLC's
// closing message — it parses to exactly what the whole output does: never
// a counterexample or a violation the whole output does not have. Each cut
// is parsed from the start, so the cost grows with the square of a
// fixture's length: at reduced size (-short; the race build skips it,
// the parser being single-threaded) the fixtures are cut at every fourth
// line boundary but in their last 40 lines (TLC's closing messages), at
// every one there; go test ./... cuts at every boundary.
func TestParseOutputTruncated(t *testing.T) {
	t.Parallel()
	testbuild.SkipUnderRace(t)
	for _, name := range fixtureOutputs(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// A generator per fixture: the cuts do not depend on the
			// order the parallel subtests run in.
			rng := rand.New(rand.NewPCG(13, 13))
			data := readFixture(t, name)
			full, fullErr := ParseOutput(strings.NewReader(string(data)))
			var cuts []int
			lines, tail := strings.Count(string(data), "\n"), 40
			for i, line := 0, 0; i < len(data); i++ {
				if data[i] != '\n' {
					continue
				}
				if !testbuild.Reduced() || line%4 == 0 || line >= lines-tail {
					cuts = append(cuts, i, i+1)
				}
				line++
			}
			for range 200 {
				cuts = append(cuts, rng.IntN(len(data)))
			}
			for _, cut := range cuts {
				prefix := string(data[:cut])
				got, err := ParseOutput(strings.NewReader(prefix))
				if err != nil {
					continue
				}
				if len(got.Counterexamples) == 0 && len(got.Errors) == 0 {
					continue
				}
				require.NoError(t, fullErr, "cut at %d parses though the whole output does not", cut)
				require.True(t, got.Complete, "cut at %d: an incomplete output with a claim was accepted", cut)
				require.True(t, reflect.DeepEqual(full.Counterexamples, got.Counterexamples),
					"cut at %d: the counterexamples differ from the whole output's", cut)
				assert.Equal(t, full.Errors, got.Errors, "cut at %d", cut)
			}
		})
	}
}

// TestParseOutputIncomplete: an output that stops before TLC's closing
// message, with a counterexample or an error in it, is refused in words
// that say so — cut at a state boundary, inside a state, or before the end.
func TestParseOutputIncomplete(t *testing.T) {
	tool := string(readFixture(t, "tool_DistLock_2c_AtMostOneClientHoldLock.out"))
	plain := string(readFixture(t, "plain_DistLock_2c_AtMostOneClientHoldLock.out"))
	cutAfter := func(s, marker string, n int) string {
		i := 0
		for range n {
			j := strings.Index(s[i:], marker)
			require.GreaterOrEqual(t, j, 0, marker)
			i += j + len(marker)
		}
		return s[:i]
	}
	tests := []struct{ name, text, wantErr string }{
		{"tool, at a state boundary", cutAfter(tool, "@!@!@ENDMSG 2217 @!@!@\n", 3), "incomplete"},
		{"tool, after the last state", cutAfter(tool, "@!@!@ENDMSG 2217 @!@!@\n", 8), "incomplete"},
		{"tool, inside a state", cutAfter(tool, "/\\ counter = 0\n", 2), "no ENDMSG"},
		{"tool, before the closing message", cutAfter(tool, "@!@!@ENDMSG 2199 @!@!@\n", 1), "incomplete"},
		{"plain, at a state boundary", cutAfter(plain, "\n\n", 4), "incomplete"},
		{"plain, inside a state", cutAfter(plain, "/\\ counter = 0\n", 3), ""},
		{"plain, inside a value", cutAfter(plain, "/\\ lock_held = (c1 :> ", 2), "state 2"},
		{"plain, before the closing message", strings.Split(plain, "Finished in")[0], "incomplete"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseOutput(strings.NewReader(tc.text))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
}

// TestParseOutputLongLines: no line is too long to read; a long line is
// parsed, never dropped (a bufio.Scanner stops at its buffer's size).
func TestParseOutputLongLines(t *testing.T) {
	long := strings.Repeat("x", 4*bufio.MaxScanTokenSize)
	text := "TLC2 Version 2.19\nError: Invariant Inv is violated.\nError: The behavior up to this point is:\n" +
		"State 1: <Initial predicate>\n/\\ s = \"" + long + "\"\n/\\ n = 1\n\n" +
		"State 2: <Next line 1, col 1 to line 1, col 2 of module M>\n/\\ s = \"" + long + "y\"\n/\\ n = 2\n\n" +
		"2 states generated, 2 distinct states found, 0 states left on queue.\n" +
		"Finished in 00s at (2026-11-22 02:15:03)\n"
	out, err := ParseOutput(strings.NewReader(text))
	require.NoError(t, err)
	require.Len(t, out.States, 2)
	assert.Equal(t, long+"y", out.States[1].Vars[0].Value.Str)
	assert.True(t, out.Complete, "the lines after the long ones were read")

	// A long line where the counterexample would end does not hide its end.
	cut := strings.Replace(text, "Finished in", "!! WARNING "+long+"\n", 1)
	_, err = ParseOutput(strings.NewReader(cut))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "incomplete")
}

// hostile is a plain TLC output around the given states.
func hostile(errors, states string) string {
	return "TLC2 Version 2.19\n" + errors + states +
		"9 states generated, 9 distinct states found, 0 states left on queue.\n" +
		"Finished in 00s at (2026-11-22 02:15:03)\n"
}

func st(n int, header string, vars ...string) string {
	s := "State " + itoa(n) + ": " + header + "\n"
	for _, v := range vars {
		s += "/\\ " + v + "\n"
	}
	return s + "\n"
}

func itoa(n int) string { return strconv.Itoa(n) }

const (
	inv  = "Error: Invariant Inv is violated.\nError: The behavior up to this point is:\n"
	temp = "Error: Temporal properties were violated.\n\nError: The following behavior constitutes a counter-example:\n\n"
	ini  = "<Initial predicate>"
	nxt  = "<Next line 1, col 1 to line 1, col 2 of module M>"
)

// TestParseOutputStateNumbering: states numbered other than 1, 2, 3, …,
// loops back to states that are not there, states after a behaviour's end,
// and states that lack or add variables are refused, each in words that
// name the problem.
func TestParseOutputStateNumbering(t *testing.T) {
	s1, s2, s3 := st(1, ini, "x = 0", "y = 0"), st(2, nxt, "x = 1", "y = 0"), st(3, nxt, "x = 2", "y = 0")
	tests := []struct{ name, text, wantErr string }{
		{"duplicated state", hostile(inv, s1+s2+s2), "state 2 follows state 2"},
		{"skipped state", hostile(inv, s1+s3), "state 3 follows state 1"},
		{"backwards", hostile(inv, s1+s2+s3+st(2, nxt, "x = 3", "y = 0")), "state 2 follows state 3"},
		{"state 0", hostile(inv, st(0, ini, "x = 0", "y = 0")), "state 0"},
		{"no state 1", hostile(inv, s2+s3), "before any state 1"},
		{"huge number", hostile(inv, s1+st(99999999999, nxt, "x = 1", "y = 0")), "out of range"},
		{"back to a later state", hostile(temp, s1+s2+"Back to state 3: "+nxt+"\n\n"), "no state 3 to return to"},
		{"back to state 0", hostile(temp, s1+s2+"Back to state 0: "+nxt+"\n\n"), "no state 0"},
		{"back before any state", hostile(temp, "Back to state 1: "+nxt+"\n\n"), "before any state"},
		{"back to state -1", hostile(temp, s1+s2+"Back to state -1: "+nxt+"\n\n"), `"Back to state -1: <Next`},
		{"back to state +1", hostile(temp, s1+s2+"Back to state +1: "+nxt+"\n\n"), "not a state line TLC prints"},
		{"back to no number", hostile(temp, s1+s2+"Back to state x\n\n"), "not a state line TLC prints"},
		{"state -1", hostile(inv, s1+"State -1: "+nxt+"\n/\\ x = 1\n/\\ y = 0\n\n"), "not a state line TLC prints"},
		{"back to a huge state", hostile(temp, s1+s2+"Back to state 99999999999999999999: "+nxt+"\n\n"), "out of range"},
		{"a state after the loop", hostile(temp, s1+s2+"Back to state 1: "+nxt+"\n\n"+s3), "follows the end of the behaviour"},
		{"a state after stuttering", hostile(temp, s1+s2+"State 3: Stuttering\n\n"+st(4, nxt, "x = 3", "y = 0")), "follows the end of the behaviour"},
		{"stuttering numbered wrong", hostile(temp, s1+s2+"State 7: Stuttering\n\n"), "state 7 follows state 2"},
		{"a missing variable", hostile(inv, s1+st(2, nxt, "x = 1")), "lacks variable y"},
		{"an extra variable", hostile(inv, s1+st(2, nxt, "x = 1", "y = 0", "z = 0")), "variable z that state 1 does not have"},
		{"a variable twice", hostile(inv, s1+st(2, nxt, "x = 1", "x = 0")), "twice"},
		{"states without an error", hostile("", s1+s2), "without an error before it"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseOutput(strings.NewReader(tc.text))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
	// The same shapes with TLC's -tool framing.
	msg := func(code, sev int, body string) string {
		return "@!@!@STARTMSG " + itoa(code) + ":" + itoa(sev) + " @!@!@\n" + body + "\n@!@!@ENDMSG " + itoa(code) + " @!@!@\n"
	}
	state := func(n int, x int) string { return msg(2217, 4, itoa(n)+": "+nxt+"\n/\\ x = "+itoa(x)) }
	tool := func(body string) string {
		return msg(2262, 0, "TLC2 Version 2.19") + msg(2116, 1, "Temporal properties were violated.") + body + msg(2186, 0, "Finished in 1s at (2026-11-22 02:15:03)")
	}
	toolTests := []struct{ name, text, wantErr string }{
		{"tool: duplicated state", tool(state(1, 0) + state(1, 0) + state(1, 0)), "without an error before it"},
		{"tool: skipped state", tool(state(1, 0) + state(3, 1)), "state 3 follows state 1"},
		{"tool: back to a later state", tool(state(1, 0) + state(2, 1) + msg(2122, 4, "5: Back to state: "+nxt)), "no state 5 to return to"},
		{"tool: back to state -1", tool(state(1, 0) + state(2, 1) + msg(2122, 4, "-1: Back to state: "+nxt)), "back-to-state message without a state number"},
		{"tool: back to state 0", tool(state(1, 0) + state(2, 1) + msg(2122, 4, "0: Back to state: "+nxt)), "no state 0"},
		{"tool: state after the loop", tool(state(1, 0) + state(2, 1) + msg(2122, 4, "1: Back to state: "+nxt) + state(3, 2)), "follows the end"},
		{"tool: stuttering first", tool(msg(2218, 4, "1: Stuttering")), "before any state 1"},
		{"tool: a message inside a message", tool(state(1, 0) + "@!@!@STARTMSG 2217:4 @!@!@\n2: " + nxt + "\n" + state(3, 1)), "no ENDMSG before the next message"},
	}
	for _, tc := range toolTests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseOutput(strings.NewReader(tc.text))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
}

// TestParseOutputLasso: a loop back is the behaviour's last step, with the
// state it returns to, in both output modes.
func TestParseOutputLasso(t *testing.T) {
	for _, name := range []string{"tool_lasso.out", "plain_lasso.out"} {
		t.Run(name, func(t *testing.T) {
			out := parseFixture(t, name)
			require.Len(t, out.States, 4)
			last := out.States[3]
			assert.Equal(t, 4, last.Number)
			assert.Equal(t, 1, last.LoopTo)
			assert.Equal(t, "Next", last.Action)
			assert.Equal(t, out.States[0].Vars, last.Vars, "the step back reaches state 1 again")
			assert.True(t, out.Temporal)
		})
	}
}

// TestParseOutputContinue: TLC's -continue prints one counterexample per
// violation; each is kept apart, the first is the selected one, and
// Select chooses another.
func TestParseOutputContinue(t *testing.T) {
	for _, name := range []string{"tool_continue.out", "plain_continue.out"} {
		t.Run(name, func(t *testing.T) {
			out := parseFixture(t, name)
			require.Len(t, out.Counterexamples, 2)
			assert.Len(t, out.Counterexamples[0].States, 3)
			assert.Len(t, out.Counterexamples[1].States, 5)
			assert.Len(t, out.States, 3, "the first is selected")
			assert.Equal(t, "Inv", out.Invariant)
			second, err := out.Select(2)
			require.NoError(t, err)
			assert.Len(t, second.States, 5)
			assert.Equal(t, 1, second.Selected)
			assert.Equal(t, "Inv", second.Invariant)
			assert.Len(t, out.States, 3, "Select leaves the output as it was")
			for _, bad := range []int{0, 3, -1} {
				_, err := out.Select(bad)
				require.Error(t, err)
				assert.Contains(t, err.Error(), "has 2")
			}
		})
	}
}

// TestParseOutputFailures: an Assert that failed and an expression TLC
// could not evaluate are the counterexample's error, in TLC's words, with
// the place TLC gives.
func TestParseOutputFailures(t *testing.T) {
	tests := []struct {
		file, kind, text string
		states           int
	}{
		{"tool_assert.out", "Assert", `The first argument of Assert evaluated to FALSE; the second argument was: "x must stay below 2" (at line 6, column 12 to line 6, column 47 in AssertFail)`, 3},
		{"plain_assert.out", "Assert", `The first argument of Assert evaluated to FALSE; the second argument was: "x must stay below 2" (at line 6, column 12 to line 6, column 47 in AssertFail)`, 3},
		{"tool_eval_error.out", "error", "Attempted to apply tuple <<20, 0>> to integer 3 which is out of domain. (at line 6, column 19 to line 6, column 26 in EvalError)", 2},
		{"plain_eval_error.out", "error", "Attempted to apply tuple <<20, 0>> to integer 3 which is out of domain. (at line 6, column 19 to line 6, column 26 in EvalError)", 2},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			out := parseFixture(t, tc.file)
			require.NotNil(t, out.Failure)
			assert.Equal(t, tc.kind, out.Failure.Kind)
			assert.Equal(t, tc.text, out.Failure.Text)
			assert.Len(t, out.States, tc.states)
			assert.Empty(t, out.Invariant)
		})
	}
}

// TestParseOutputOtherValues: a trace whose values are intervals, negative
// numbers, strings with escapes, records and sets reads whole.
func TestParseOutputOtherValues(t *testing.T) {
	for _, name := range []string{"tool_interval.out", "plain_interval.out"} {
		t.Run(name, func(t *testing.T) {
			out := parseFixture(t, name)
			require.Len(t, out.States, 4)
			val := func(name string) Value {
				v, ok := out.States[3].Var(name)
				require.True(t, ok, "state 4 has a variable %s", name)
				return v
			}
			assert.Equal(t, "1..5", val("r").String())
			assert.Equal(t, Value{Kind: KindInterval, Int: 1, Hi: 5}, val("r"))
			assert.Equal(t, `a"b\c`, val("str").Str)
			assert.Equal(t, `[a |-> {}, b |-> <<-1, "q">>]`, val("rec").String())
			assert.Equal(t, "1", val("n").String())
			_, ok := out.States[3].Var("nosuch")
			assert.False(t, ok, "a variable the state lacks")
		})
	}
}

// TestFixtureSpecsAreCommitted: every fixture made from a spec of this
// repository's testdata/specs names a spec that is there.
func TestFixtureSpecsAreCommitted(t *testing.T) {
	for _, spec := range []string{"AssertFail", "EvalError", "Interval", "Lasso", "PlainSpec", "IntProcs", "Wrapper", "TwoViolations"} {
		for _, ext := range []string{".tla", ".cfg"} {
			_, err := os.Stat(filepath.Join("testdata", "specs", spec+ext))
			assert.NoError(t, err)
		}
	}
}

// TestParseOutputViolationKinds: each kind of error TLC stops on is read
// as what it is, and the behaviour after it carries it.
func TestParseOutputViolationKinds(t *testing.T) {
	s1, s2 := st(1, ini, "x = 0"), st(2, nxt, "x = 1")
	tests := []struct {
		name, errors       string
		invariant          string
		deadlock, temporal bool
		failure            string
	}{
		{"invariant", "Error: Invariant Safe is violated.\n", "Safe", false, false, ""},
		{"invariant, initial state", "Error: Invariant Safe is violated by the initial state:\n", "Safe", false, false, ""},
		{"action property", "Error: Action property Steps is violated.\n", "Steps", false, false, ""},
		{"deadlock", "Error: Deadlock reached.\n", "", true, false, ""},
		{"temporal", "Error: Temporal properties were violated.\n\n", "", false, true, ""},
		{"assert", "Error: The first argument of Assert evaluated to FALSE; the second argument was:\n\"boom\"\n", "", false, false, "Assert"},
		{"exception", "Error: TLC threw an unexpected exception.\nThe exception was a java.lang.RuntimeException\n: Attempted to divide by zero.\n", "", false, false, "error"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := ParseOutput(strings.NewReader(hostile(tc.errors+"Error: The behavior up to this point is:\n", s1+s2)))
			require.NoError(t, err)
			require.Len(t, out.Counterexamples, 1)
			assert.Equal(t, tc.invariant, out.Invariant)
			assert.Equal(t, tc.deadlock, out.Deadlock)
			assert.Equal(t, tc.temporal, out.Temporal)
			if tc.failure == "" {
				assert.Nil(t, out.Failure)
				return
			}
			require.NotNil(t, out.Failure)
			assert.Equal(t, tc.failure, out.Failure.Kind)
			assert.NotContains(t, out.Failure.Text, "\n")
		})
	}
}
