package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
)

// withoutTLC points the jar lookup where nothing can be found: no
// TLA2TOOLS_JAR, an empty cache, and a pin whose download URL is
// unreachable, so the demo must mark TLC as not run.
func withoutTLC(t *testing.T) string {
	t.Helper()
	t.Setenv("TLA2TOOLS_JAR", "")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	pin := filepath.Join(t.TempDir(), "tla2tools.version")
	require.NoError(t, os.WriteFile(pin, []byte("version=v1.7.4\nurl=http://127.0.0.1:1/tla2tools.jar\nsha256=936a262061c914694dfd669a543be24573c45d5aa0ff20a8b96b23d01e050e88\n"), 0o644))
	return pin
}

// TestDemoWithoutTLC: without a jar the demo runs the explorer and the
// simulator, marks TLC "not run" and exits 2. At full size it runs the
// explorer's Redlock rows with their 3 lock nodes (860,742 states each)
// and the simulator from seed 1, whose first failing runs take about
// 40,000 runs to shrink; at reduced size (internal/testbuild; the race
// build skips it: nothing here is concurrent that the explorer's and the
// simulator's own tests do not race) the Redlock rows have 2 nodes (47,665 states)
// and the runs start at seed 3 (under 7,000 runs to shrink): the same
// verdicts, the same table.
func TestDemoWithoutTLC(t *testing.T) {
	testbuild.SkipUnderRace(t)
	pin := withoutTLC(t)
	out := t.TempDir()
	args := []string{"demo", "--out", out, "--runs", "60", "--clients", "2", "--specs", "../../specs", "--pin", pin}
	// The explorer's figures are those TestExploreMatrix pins.
	redlockStates := pinned(t, impl.DesignRedlockUnique, "explore.2c.sym.sleep.states")
	if testbuild.Reduced() {
		args = append(args, "--nodes", "2", "--seed", "3")
		redlockStates = pinned(t, impl.DesignRedlockUnique, "explore.2c.sym.2nodes.sleep.states")
	}
	redlockHolds := "| Redlock, unique values as tokens, check-and-set | NoLostUpdate | holds | not run | holds (" + redlockStates + " states; 2 clients) |"
	code, stdout, stderr := runCLI(t, args...)

	assert.Equal(t, exitBadInput, code, "a missing tool is never a pass")
	// Besides the simulator's progress lines (stderr is not a terminal here).
	stderr = progressLine.ReplaceAllString(stderr, "")
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line on stderr: %q", stderr)
	assert.Contains(t, stderr, "TLC was not run")
	assert.Contains(t, stdout, "TLC not run: ", "the TLC section says what is missing")
	assert.Contains(t, stdout, "TLA2TOOLS_JAR=/path/to/tla2tools.jar", "and how to provide it")

	md, err := os.ReadFile(filepath.Join(out, "demo", "verdicts.md"))
	require.NoError(t, err)
	table := string(md)
	assert.Contains(t, table, "| tokens, mode all | NoLostUpdate | holds | not run | holds ("+pinned(t, impl.DesignFenceAll, "explore.2c.sym.sleep.states")+" states; 2 clients) |")
	assert.Contains(t, table, "| no fencing (no tokens) | NoLostUpdate | violated | not run | violated (16 steps; 2 clients) |")
	assert.Contains(t, table, redlockHolds, "--nodes reaches the explorer's Redlock rows")
	assert.NotContains(t, table, "✗", "every method that ran agrees with DESIGN.md")
	for _, f := range []string{"explore/all-2c-AtMostOneClientHoldLock/trace.html", "sim/off/trace.txt", "sim/off/run.txt", "sim/none/porcupine.html"} {
		assert.FileExists(t, filepath.Join(out, f))
	}

	// The matrix links each counterexample's page, which is there.
	matrix, err := os.ReadFile(filepath.Join(out, "demo", "matrix.md"))
	require.NoError(t, err)
	links := regexp.MustCompile(`\]\(([^)]+)\)`).FindAllStringSubmatch(string(matrix), -1)
	require.NotEmpty(t, links)
	for _, l := range links {
		assert.True(t, strings.HasSuffix(l[1], "/trace.html"), "a page, not a raw picture: %s", l[1])
		assert.FileExists(t, filepath.Join(out, "demo", filepath.FromSlash(l[1])))
	}

	// It ends with a line per part, saved for make demo to repeat after
	// the live part.
	summary, err := os.ReadFile(filepath.Join(out, "demo", "summary.txt"))
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(stdout, string(summary)), "the demo's last lines are its summary")
	for _, part := range []string{"explorer", "simulator", "TLC", "conformance"} {
		assert.Regexp(t, `(?m)^  `+part+` +\S`, string(summary))
	}
	assert.Contains(t, string(summary), "  TLC          not run (never passed): ")
	assert.Contains(t, string(summary), "every verdict as DESIGN.md's table expects")
}

func TestDemoBadInput(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"zero runs", []string{"--runs", "0"}, "runs must be positive"},
		{"too many clients", []string{"--clients", "2,5"}, "clients must be between 2 and 4 for the explorer, got 5"},
		{"not a number of clients", []string{"--clients", "2,x"}, `clients: "x" is not a number`},
		{"too many nodes", []string{"--nodes", "10"}, "nodes must be between 0 and 9, got 10"},
		{"negative seed", []string{"--seed", "-1"}, `invalid value "-1" for flag -seed`},
		{"no manifest", []string{"--specs", "/nonexistent"}, "reading the models manifest"},
		{"stray argument", []string{"now"}, "unexpected argument"},
		{"unknown flag", []string{"--fast"}, "flag provided but not defined: -fast"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, append([]string{"demo", "--out", t.TempDir()}, tc.args...)...)
			assertBadInput(t, code, stderr, tc.wantErr)
		})
	}
}

// progressLine matches a plain progress line (pipeline/progress.go).
var progressLine = regexp.MustCompile(`(?m)^((sim|npc): [0-9,]+ of [0-9,]+ runs \([0-9]+%\)(, [0-9,]+ runs/s)?|(tlc|conform|conform replay|conformance|explore): .*; last: .*)\n`)
