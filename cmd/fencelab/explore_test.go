package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
	"github.com/fencelab/fencelab/trace"
	"github.com/fencelab/fencelab/verdict"
)

// runCLI runs fencelab with args and returns its exit code and output.
func TestExploreBadInput(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		errSub string
	}{
		{"unknown fencing mode", []string{"--design", "some"}, `unknown design "some"`},
		{"unknown invariant", []string{"--invariant", "Nope"}, `unknown invariant "Nope"`},
		{"one unknown among several", []string{"--invariant", "NoLostUpdate,Nope"}, `unknown invariant "Nope"`},
		{"tokens-only invariant without tokens", []string{"--design", "off", "--invariant", "TokenIsMonotonical"}, "needs tokens"},
		{"one client", []string{"--clients", "1"}, "clients must be between 2 and 4"},
		{"five clients", []string{"--clients", "5"}, "clients must be between 2 and 4"},
		{"one client", []string{"--clients", "1"}, "clients must be between 2 and 4 for the explorer, got 1"},
		{"unknown validity rule", []string{"--validity", "late"}, `unknown validity rule "late" (want send or arrival)`},
		{"zero sections", []string{"--sections", "0"}, "sections must be between 1 and 255"},
		{"negative sections", []string{"--sections", "-2"}, "sections must be between 1 and 255"},
		{"negative retries", []string{"--retries", "-1"}, "retries must be between 0 and 255"},
		{"negative max states", []string{"--max-states", "-5"}, "max-states must not be negative"},
		{"negative workers", []string{"--workers", "-1"}, "workers must not be negative, got -1"},
		{"memory not a size", []string{"--max-memory", "lots"}, `max-memory must be auto, 0 or a size such as 512MiB or 8GiB, got "lots"`},
		{"negative memory", []string{"--max-memory", "-5MiB"}, `max-memory must be auto, 0 or a size such as 512MiB or 8GiB, got "-5MiB"`},
		{"symmetry not a bool", []string{"--symmetry=maybe"}, "invalid boolean value"},
		{"not a number", []string{"--clients", "two"}, "invalid value"},
		{"unknown flag", []string{"--fast"}, "flag provided but not defined"},
		{"stray argument", []string{"--design", "all", "now"}, `unexpected argument "now"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			code, stdout, stderr := runCLI(t, append([]string{"explore", "--out", out}, tc.args...)...)
			assert.Empty(t, stdout)
			assertBadInput(t, code, stderr, tc.errSub)
			assert.True(t, strings.HasPrefix(stderr, "fencelab explore: "), stderr)
			entries, err := os.ReadDir(out)
			require.NoError(t, err)
			assert.Empty(t, entries, "nothing written on bad input")
		})
	}
}

func TestExploreOneDesign(t *testing.T) {
	out := filepath.Join(t.TempDir(), "traces")
	code, stdout, stderr := runCLI(t, "explore", "--clients", "2", "--design", "none", "--out", out)
	require.Equal(t, exitOK, code, stderr)
	assert.Empty(t, stderr)
	checkExploreFigures(t, stdout, "explore: tokens, mode none, 2 clients, 1 section each, 1 retry, no lock-delay, client symmetry, sleep sets", impl.DesignFenceNone, "explore.2c.sym.sleep")
	for _, line := range []string{
		"AtMostOneClientHoldLock     violated (8 steps)   violated  ✓",
		"TokenIsMonotonical          violated (10 steps)  violated  ✓",
		"NoLostUpdate                violated (16 steps)  violated  ✓",
		"Deadlock                    none                 none      ✓",
		"✗ NoLostUpdate violated at step 16: c2 wrote 1 over c1's 1: an update was lost",
	} {
		assert.Contains(t, stdout, line)
	}
	assert.Contains(t, stdout, "3 counterexample traces written to "+out+", one folder each (<design>-<clients>c-<property>/: trace.txt, trace.json, trace.html, trace.mmd)")
	page, err := os.ReadFile(filepath.Join(out, "none-2c-NoLostUpdate", "trace.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), "<svg", "the HTML page carries the sequence picture")

	b, err := os.ReadFile(filepath.Join(out, "none-2c-NoLostUpdate", "trace.json"))
	require.NoError(t, err)
	var tr trace.Trace
	require.NoError(t, json.Unmarshal(b, &tr))
	assert.Equal(t, trace.SourceExplorer, tr.Source)
	require.NotNil(t, tr.Violation)
	assert.Equal(t, "NoLostUpdate", tr.Violation.Property)
	assert.Len(t, tr.Steps, 16)
	assert.Equal(t, []string{"service", "c1", "c2", "resource"}, tr.Lanes)
}

func TestExploreSelectedInvariant(t *testing.T) {
	code, stdout, stderr := runCLI(t, "explore", "--design", "all", "--invariant", "NoLostUpdate", "--out", t.TempDir())
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "NoLostUpdate                holds        holds     ✓")
	assert.Contains(t, stdout, "AtMostOneClientHoldLock     not checked  violated")
	assert.NotContains(t, stdout, "step  process", "no counterexample to print")
}

// TestExploreMatrix: every row, the table, one counterexample folder per
// expected violation; each row's figures (client symmetry and sleep sets,
// the defaults) are those pinned in its golden file. At reduced size the
// Redlock rows take 2 lock nodes (a twelfth of the states: twenty seconds
// of CPU each under the race detector); at full size they have their 3.
func TestExploreMatrix(t *testing.T) {
	testbuild.SkipUnderRace(t)
	out := t.TempDir()
	args := []string{"explore", "--out", out}
	redlock := "explore.2c.sym.sleep"
	if testbuild.Reduced() {
		args = append(args, "--nodes", "2")
		redlock = "explore.2c.sym.2nodes.sleep"
	}
	code, stdout, stderr := runCLI(t, args...)
	require.Equal(t, exitOK, code, stderr)
	for _, d := range impl.Designs() {
		prefix := "explore.2c.sym.sleep"
		if d.Redlock() {
			prefix = redlock
		}
		checkExploreRow(t, stdout, d, prefix)
	}
	assert.Contains(t, stdout, "every verdict agrees with DESIGN.md's table")
	// One counterexample per violation DESIGN.md expects.
	violations := 0
	for _, d := range impl.Designs() {
		for _, inv := range impl.Invariants() {
			if impl.Expected(d, inv.Name) == verdict.Violated {
				violations++
			}
		}
	}
	assert.Contains(t, stdout, fmt.Sprintf("%d counterexample traces written", violations))
	assert.NotContains(t, stdout, "step  process", "the matrix prints no traces")
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	assert.Len(t, entries, violations, "one folder for each counterexample")
	for _, e := range entries {
		files, err := os.ReadDir(filepath.Join(out, e.Name()))
		require.NoError(t, err)
		var names []string
		for _, f := range files {
			names = append(names, f.Name())
		}
		assert.ElementsMatch(t, trace.FileNames(), names, "%s holds the trace's files and nothing else", e.Name())
	}
}

// TestExploreUnknownVerdictFails: a search stopped early cannot confirm that
// anything holds, and says so with exit code 1.
func TestExploreUnknownVerdictFails(t *testing.T) {
	code, stdout, stderr := runCLI(t, "explore", "--design", "all", "--max-states", "100", "--out", "")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stdout, "stopped early at --max-states")
	assert.Contains(t, stdout, "NoLostUpdate                unknown             holds     ✗ differs from DESIGN.md")
	assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
	// The table's four holds, the client-side NoActionPastValidity and
	// the deadlock check: six verdicts unknown.
	assert.Contains(t, stderr, "fencelab explore: DESIGN.md's table differs in 6 verdicts: TokenIsMonotonical with tokens, mode all: unknown, expected holds;")
}

func TestExploreOutputIsDeterministic(t *testing.T) {
	var first string
	for range 2 {
		code, stdout, _ := runCLI(t, "explore", "--design", "writes", "--out", "")
		require.Equal(t, exitOK, code)
		// The wall time and the rate are the only run-dependent figures.
		lines := strings.Split(stdout, "\n")
		lines[1] = lines[1][:strings.Index(lines[1], "depth")]
		got := strings.Join(lines, "\n")
		if first == "" {
			first = got
			continue
		}
		assert.Equal(t, first, got)
	}
}

func TestExploreHelp(t *testing.T) {
	code, stdout, _ := runCLI(t, "explore", "--help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "Usage: fencelab explore")
	assert.Contains(t, stdout, "-design")
	assert.NotContains(t, stdout, "-fencing")
	code, stdout, _ = runCLI(t, "--help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "explore")
}

func TestExploreSymmetry(t *testing.T) {
	code, stdout, stderr := runCLI(t, "explore", "--design", "none", "--symmetry", "--out", "")
	require.Equal(t, exitOK, code, stderr)
	checkExploreFigures(t, stdout, "explore: tokens, mode none, 2 clients, 1 section each, 1 retry, no lock-delay, client symmetry, sleep sets", impl.DesignFenceNone, "explore.2c.sym.sleep")
	assert.Contains(t, stdout, "NoLostUpdate                violated (16 steps)  violated  ✓")
}

// TestExploreSymmetryIsTheDefault: --symmetry is on unless turned off.
func TestExploreSymmetryIsTheDefault(t *testing.T) {
	_, def, _ := runCLI(t, "explore", "--design", "none", "--out", "")
	_, on, _ := runCLI(t, "explore", "--design", "none", "--symmetry", "--out", "")
	assert.Equal(t, stripTimes(on), stripTimes(def))
	code, off, stderr := runCLI(t, "explore", "--design", "none", "--symmetry=false", "--out", "")
	require.Equal(t, exitOK, code, stderr)
	checkExploreFigures(t, off, "explore: tokens, mode none, 2 clients, 1 section each, 1 retry, no lock-delay, sleep sets", impl.DesignFenceNone, "explore.2c.sleep")
}

// TestExploreSleepSetsAreTheDefault: --por is on unless turned off; off,
// the search takes every transition (more generated) and reaches the same
// states, depth and verdicts.
func TestExploreSleepSetsAreTheDefault(t *testing.T) {
	_, def, _ := runCLI(t, "explore", "--design", "none", "--out", "")
	_, on, _ := runCLI(t, "explore", "--design", "none", "--por", "--out", "")
	assert.Equal(t, stripTimes(on), stripTimes(def))
	code, off, stderr := runCLI(t, "explore", "--design", "none", "--por=false", "--out", "")
	require.Equal(t, exitOK, code, stderr)
	checkExploreFigures(t, off, "explore: tokens, mode none, 2 clients, 1 section each, 1 retry, no lock-delay, client symmetry", impl.DesignFenceNone, "explore.2c.sym")
	verdicts := func(out string) string { return out[strings.Index(out, "property "):strings.Index(out, "witnesses (")] }
	assert.Equal(t, verdicts(stripTimes(def)), verdicts(stripTimes(off)))
}

// stripTimes removes the run-dependent figures from explore's output: the
// wall times and the rates.
func stripTimes(out string) string {
	out = regexp.MustCompile(` \([0-9,]+ distinct states/s\)`).ReplaceAllString(out, "")
	return regexp.MustCompile(`[0-9.]+(µs|ms|s|m[0-9.]+s)\b`).ReplaceAllString(out, "T")
}

// TestExploreWorkersDoNotChangeTheOutput: the same stdout bytes, but for
// the wall time, with one worker and with three (2 clients: cheap under -race too).
func TestExploreWorkersDoNotChangeTheOutput(t *testing.T) {
	var outs []string
	args := []string{"explore", "--out", ""}
	if testbuild.Reduced() {
		// Every row's search is the same code; the Redlock rows' 860,742
		// states each take minutes under the race detector.
		args = append(args, "--design", "nonatomic")
	}
	for _, w := range []string{"1", "3"} {
		code, stdout, stderr := runCLI(t, append(args, "--workers", w)...)
		require.Equal(t, exitOK, code, stderr)
		outs = append(outs, stripTimes(stdout))
	}
	assert.Equal(t, outs[0], outs[1])
	assert.Contains(t, outs[0], "client symmetry")
}

// TestExploreFirst: --first stops at the first counterexample, still the
// shortest; what it leaves unknown is never a success: exit 1, with each
// unknown named and why.
func TestExploreFirst(t *testing.T) {
	code, stdout, stderr := runCLI(t, "explore", "--clients", "3", "--design", "off", "--first", "--out", "")
	require.Equal(t, exitFailure, code, stderr)
	assert.Contains(t, stdout, ", stopped at the first violation (--first)\n")
	assert.Regexp(t, `AtMostOneClientHoldLock +violated \(8 steps\) +violated +✓`, stdout)
	assert.Regexp(t, `NoLostUpdate +unknown +violated +✗ differs from DESIGN.md\n`, stdout)
	assert.Contains(t, stderr, "NoLostUpdate with no fencing (no tokens): unknown, expected violated")
}

// TestExploreFirstHolds: --first asked of one property that holds searches
// every state and finishes with Holds, exit 0; asked of one that fails, it
// stops at its shortest counterexample, and the deadlock check it left
// unsettled fails the run (exit 1) — never an exit 0 on an unknown.
func TestExploreFirstHolds(t *testing.T) {
	code, stdout, stderr := runCLI(t, "explore", "--design", "all", "--first", "--invariant", "NoLostUpdate", "--out", "")
	require.Equal(t, exitOK, code, stderr)
	assert.NotContains(t, stdout, "stopped")
	assert.Regexp(t, `NoLostUpdate +holds +holds +✓`, stdout)
	assert.Regexp(t, `Deadlock +none +none +✓`, stdout)

	code, stdout, stderr = runCLI(t, "explore", "--design", "all", "--first", "--invariant", "AtMostOneClientHoldLock", "--out", "")
	require.Equal(t, exitFailure, code, stderr)
	assert.Contains(t, stdout, ", stopped at the first violation (--first)\n")
	assert.Regexp(t, `AtMostOneClientHoldLock +violated \(8 steps\) +violated +✓`, stdout)
	assert.Contains(t, stderr, "Deadlock with tokens, mode all: unknown, expected holds")
}

// TestExploreMaxMemory: past --max-memory the search goes on on disk and
// prints what the unbounded search prints, but for the time it took.
func TestExploreMaxMemory(t *testing.T) {
	args := []string{"explore", "--design", "all", "--clients", "3", "--out", ""}
	code, bounded, stderr := runCLI(t, append(args, "--max-memory", "400KiB")...)
	require.Equal(t, exitOK, code, stderr)
	code, unbounded, stderr := runCLI(t, append(args, "--max-memory", "0")...)
	require.Equal(t, exitOK, code, stderr)
	withoutTime := func(s string) string {
		return regexp.MustCompile(`, [0-9.]+m?s \([0-9,]+ distinct states/s\)`).ReplaceAllString(s, "")
	}
	assert.Regexp(t, `NoLostUpdate +holds`, bounded)
	assert.Regexp(t, `\nfingerprint collision probability \(calculated as TLC's optimistic estimate\): [0-9.]+e-[0-9]+\n`, bounded)
	assert.Equal(t, withoutTime(unbounded), withoutTime(bounded))
}

// TestExploreSendRule: the untimed model under the send rule reaches the
// verdicts of DESIGN.md's table as the arrival rule does, with more states.
func TestExploreSendRule(t *testing.T) {
	testbuild.SkipUnderRace(t)
	code, stdout, stderr := runCLI(t, "explore", "--design", "all", "--validity", "send", "--symmetry=false", "--out", "")
	require.Equal(t, exitOK, code, stderr)
	checkExploreFigures(t, stdout, "explore: tokens, mode all, 2 clients, 1 section each, 1 retry, no lock-delay, validity from the send, sleep sets", impl.DesignFenceAll, "explore.2c.send.sleep")
	assert.Contains(t, stdout, "AtMostOneClientHoldLock     violated (8 steps)  violated  ✓")
}
