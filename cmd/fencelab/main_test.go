package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBadInputEveryCommand is the CLI's promise in one table: every bad
// command, flag, value or file gives exactly one line on stderr that names
// the problem, and exit code 2. The commands' own tests cover more cases.
func TestBadInputEveryCommand(t *testing.T) {
	dir := t.TempDir()
	badSchedule := filepath.Join(dir, "schedule.json")
	require.NoError(t, os.WriteFile(badSchedule, []byte(`{"version": 1, "faults": [{"kind": "pause", "node": "c9"`), 0o644))
	badTrace := filepath.Join(dir, "tlc.out")
	require.NoError(t, os.WriteFile(badTrace, []byte("this is not what TLC prints\n"), 0o644))
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"no command", nil, "no command given"},
		{"unknown command", []string{"verify"}, `unknown command "verify"`},
		{"unknown flag, explore", []string{"explore", "--fast"}, "flag provided but not defined: -fast"},
		{"unknown flag, sim", []string{"sim", "--fast"}, "flag provided but not defined: -fast"},
		{"unknown flag, tlc", []string{"tlc", "--fast"}, "flag provided but not defined: -fast"},
		{"unknown flag, trace", []string{"trace", "--fast"}, "flag provided but not defined: -fast"},
		{"unknown flag, demo", []string{"demo", "--fast"}, "flag provided but not defined: -fast"},
		{"one client, explore", []string{"explore", "--clients", "1"}, "clients must be between 2 and 4 for the explorer, got 1"},
		{"negative sections, explore", []string{"explore", "--sections", "-1"}, "sections must be between 1 and 255"},
		{"zero runs, sim", []string{"sim", "--runs", "0"}, "runs must be positive"},
		{"negative clients, sim", []string{"sim", "--clients", "-2"}, "clients must be between 1 and 246, got -2"},
		{"not a number, sim", []string{"sim", "--runs", "many"}, `invalid value "many" for flag -runs`},
		{"nodes of one service, explore", []string{"explore", "--design", "all", "--nodes", "3"}, "nodes must be 1 for design all (one lock service; the Redlock rows take up to 9), got 3"},
		{"too many nodes, explore", []string{"explore", "--design", "redlock", "--nodes", "10"}, "nodes must be between 0 and 9, got 10"},
		{"too many nodes, every design, explore", []string{"explore", "--nodes", "12"}, "nodes must be between 0 and 9, got 12"},
		{"negative nodes, sim", []string{"sim", "--design", "redlock-unique", "--nodes", "-1"}, "nodes must be at least 1 (a lock node or more), got -1"},
		{"nodes of one service, sim", []string{"sim", "--design", "unique-cas", "--nodes", "5"}, "nodes must be 1 for design unique-cas"},
		{"too many nodes, every design, sim", []string{"sim", "--nodes", "99"}, "nodes must be between 0 and 9, got 99"},
		{"a lock node the row does not have, sim", []string{"sim", "--design", "redlock", "--nodes", "3", "--schedule", "../../docs/schedules/redlock-restart.json"}, "node service5 does not exist with 3 lock nodes"},
		{"unknown fencing mode, explore", []string{"explore", "--design", "tokens"}, `unknown design "tokens"`},
		{"unknown fencing mode, sim", []string{"sim", "--design", "tokens"}, `unknown design "tokens"`},
		{"unknown fault, sim", []string{"sim", "--faults", "delay,flood"}, `unknown fault kind "flood"`},
		{"ttl not above margin, sim", []string{"sim", "--ttl", "100ms", "--margin", "100ms"}, "margin (100ms) must be less than ttl (100ms)"},
		{"missing schedule, sim", []string{"sim", "--design", "all", "--schedule", "/nonexistent.json"}, "schedule"},
		{"missing trace file", []string{"trace", "/nonexistent.out"}, "/nonexistent.out"},
		{"malformed trace file", []string{"trace", badTrace}, "tlc.out"},
		{"malformed schedule, sim", []string{"sim", "--design", "off", "--schedule", badSchedule}, "schedule"},
		{"unknown invariant, explore", []string{"explore", "--invariant", "Safety"}, `unknown invariant "Safety"`},
		{"zero runs, demo", []string{"demo", "--runs", "0"}, "runs must be positive"},
		{"unknown flag, bounds", []string{"bounds", "--fast"}, "flag provided but not defined: -fast"},
		{"negative pause, bounds", []string{"bounds", "--max-pause", "-1s"}, "max-pause must not be negative, got -1s"},
		{"NaN drift, bounds", []string{"bounds", "--max-drift", "NaN"}, `drift "NaN" is not a number`},
		{"drift 0.5, bounds", []string{"bounds", "--max-drift", "0.5"}, `drift "0.5" must be at least 0 and below 0.5`},
		{"no ttl, bounds", []string{"bounds", "--max-pause", "1s"}, "give the lease's --ttl"},
		{"margin not below ttl, bounds", []string{"bounds", "--ttl", "1s", "--margin", "1s"}, "margin (1s) must be less than ttl (1s)"},
		{"pause beyond a day, bounds", []string{"bounds", "--max-pause", "25h"}, "max-pause must be at most 24h0m0s, got 25h0m0s"},
		{"duration that overflows, bounds", []string{"bounds", "--ttl", "9999999999h"}, "invalid value"},
		{"negative delay, sweep", []string{"sweep", "--max-delay", "-1ms"}, "max-delay must not be negative"},
		{"bad grid, sweep", []string{"sweep", "--grid", "pause:0..1s/10"}, "grid must be two axes"},
		{"margin beyond ttl in the grid, sweep", []string{"sweep", "--grid", "pause:0..1s/3,margin:0..2s/3"}, "margin (2s) must be less than ttl (1s)"},
		{"delay below the network, sweep", []string{"sweep", "--max-delay", "1ms"}, "max-delay (1ms) must be at least"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if len(args) > 0 && args[0] != "check" && args[0] != "bounds" {
				// Outputs, if any, go to a scratch folder: nothing lands in the tree.
				out := t.TempDir()
				if args[0] == "trace" {
					out = filepath.Join(out, "trace.txt") // trace's --out is a file
				}
				args = append([]string{args[0], "--out", out}, args[1:]...)
			}
			code, _, stderr := runCLI(t, args...)
			assertBadInput(t, code, stderr, tc.wantErr)
		})
	}
}

// assertBadInput checks the CLI's promise for one bad input: exit code 2 and
// exactly one line on stderr, which says who speaks and names the problem.
func assertBadInput(t *testing.T, code int, stderr, wantErr string) {
	t.Helper()
	assert.Equal(t, exitBadInput, code, "stderr: %s", stderr)
	assert.Contains(t, stderr, wantErr)
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "exactly one line: %q", stderr)
	assert.True(t, strings.HasPrefix(stderr, "fencelab"), "the line says who speaks: %q", stderr)
}

// TestSameBadValueSameWords: a value every command validates through the
// one configuration (impl.Config.Validate, then the runtime's own bounds)
// is reported in the same words whichever command is given it. Each row
// names the commands that take the flag; the message must be identical
// from every one of them.
func TestSameBadValueSameWords(t *testing.T) {
	tests := []struct {
		args     []string
		commands []string
		want     string
	}{
		{[]string{"--clients", "0"}, []string{"sim", "explore", "demo"}, "clients must be between 1 and 246, got 0"},
		{[]string{"--clients", "300"}, []string{"sim", "explore", "demo"}, "clients must be between 1 and 246, got 300"},
		{[]string{"--sections", "0"}, []string{"sim", "explore"}, "sections must be between 1 and 255, got 0"},
		{[]string{"--sections", "256"}, []string{"sim", "explore"}, "sections must be between 1 and 255, got 256"},
		{[]string{"--retries", "-1"}, []string{"sim", "explore"}, "retries must be between 0 and 255, got -1"},
		{[]string{"--lock-delay", "-1s"}, []string{"sim", "explore"}, "lock-delay must not be negative, got -1s"},
		{[]string{"--lock-delay", "25h"}, []string{"sim", "explore"}, "lock-delay must be at most 24h0m0s, got 25h0m0s"},
		{[]string{"--runs", "0"}, []string{"sim", "demo"}, "runs must be positive, got 0"},
		{[]string{"--ttl", "0s"}, []string{"sim"}, "ttl must be positive, got 0s"},
		{[]string{"--think", "-1ms"}, []string{"sim"}, "think must not be negative, got -1ms"},
	}
	for _, tc := range tests {
		for _, command := range tc.commands {
			t.Run(command+" "+strings.Join(tc.args, " "), func(t *testing.T) {
				args := append([]string{command, "--out", t.TempDir()}, tc.args...)
				code, _, stderr := runCLI(t, args...)
				assertBadInput(t, code, stderr, tc.want)
				assert.Equal(t, "fencelab "+command+": "+tc.want+"\n", stderr, "the same words from every command")
			})
		}
	}
}

func TestHelpAndVersion(t *testing.T) {
	code, stdout, stderr := runCLI(t, "--version")
	assert.Equal(t, exitOK, code)
	assert.Equal(t, "fencelab "+version+"\n", stdout)
	assert.Empty(t, stderr)

	code, stdout, _ = runCLI(t, "--help")
	assert.Equal(t, exitOK, code)
	for _, c := range commands() {
		assert.Contains(t, stdout, "  "+c.name+" ", "help lists %s", c.name)
		code, out, errOut := runCLI(t, c.name, "--help")
		assert.Equal(t, exitOK, code, "%s --help: %s", c.name, errOut)
		assert.Contains(t, out, "Usage: fencelab "+c.name)
	}
}
