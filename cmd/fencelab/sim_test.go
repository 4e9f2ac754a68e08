package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSimBadInput(t *testing.T) {
	dir := t.TempDir()
	malformed := filepath.Join(dir, "malformed.json")
	require.NoError(t, os.WriteFile(malformed, []byte(`{"version":1,"faults":[`), 0o644))
	wrongNode := filepath.Join(dir, "node.json")
	require.NoError(t, os.WriteFile(wrongNode, []byte(`{"version":1,"seed":1,"faults":[{"kind":"pause","node":"c7","at":"1s","duration":"1s"}]}`), 0o644))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"--fast"}, "flag provided but not defined: -fast"},
		{"unknown fault", []string{"--faults", "delay,gc"}, `unknown fault kind "gc"`},
		{"empty faults", []string{"--faults", ""}, `unknown fault kind ""`},
		{"unknown design", []string{"--fencing", "reads"}, `unknown fencing mode "reads"`},
		{"zero runs", []string{"--runs", "0"}, "runs must be positive, got 0"},
		{"negative runs", []string{"--runs", "-3"}, "runs must be positive, got -3"},
		{"zero clients", []string{"--clients", "0"}, "clients must be between 1 and 253, got 0"},
		{"zero sections", []string{"--sections", "0"}, "sections must be between 1 and 255, got 0"},
		{"zero workers", []string{"--workers", "0"}, "workers must be positive, got 0"},
		{"negative retries", []string{"--retries", "-1"}, "retries must be between 0 and 255"},
		{"ttl equals margin", []string{"--ttl", "100ms", "--margin", "100ms"}, "margin (100ms) must be less than ttl (100ms)"},
		{"ttl below margin", []string{"--ttl", "50ms"}, "margin (200ms) must be less than ttl (50ms)"},
		{"zero ttl", []string{"--ttl", "0s"}, "ttl must be positive"},
		{"zero latency", []string{"--latency", "0s"}, "latency must be positive"},
		{"negative think", []string{"--think", "-1s"}, "think must not be negative, got -1s"},
		{"unknown validity rule", []string{"--validity", "grant"}, `unknown validity rule "grant" (want send or arrival)`},
		{"drift too large", []string{"--max-drift", "0.9"}, "max-drift must be between 0 and 0.5"},
		{"zero max-faults", []string{"--max-faults", "0"}, "max-faults must be between 1 and 1000"},
		{"not a duration", []string{"--ttl", "soon"}, `invalid value "soon" for flag -ttl`},
		{"argument", []string{"extra"}, `unexpected argument "extra"`},
		{"replay not a seed", []string{"--fencing", "all", "--replay", "x"}, `replay: "x" is not a seed`},
		{"replay needs one design", []string{"--replay", "3"}, "name one design with --fencing"},
		{"replay and schedule", []string{"--fencing", "all", "--replay", "3", "--schedule", malformed}, "--replay and --schedule are exclusive"},
		{"npc and replay", []string{"--fencing", "all", "--replay", "3", "--npc"}, "--npc runs many runs"},
		{"npc and shrink", []string{"--npc", "--shrink"}, "--shrink cannot be combined with --npc"},
		{"missing schedule", []string{"--fencing", "all", "--schedule", filepath.Join(dir, "nope.json")}, "schedule: no such file or directory"},
		{"malformed schedule", []string{"--fencing", "all", "--schedule", malformed}, "malformed schedule"},
		{"schedule for more clients", []string{"--fencing", "all", "--schedule", wrongNode}, "node c7 does not exist with 3 clients"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, append([]string{"sim", "--out", dir}, tc.args...)...)
			assert.Empty(t, out)
			assert.True(t, strings.HasPrefix(errOut, "fencelab sim: "), errOut)
			assertBadInput(t, code, errOut, tc.want)
		})
	}
}

// TestSimStdoutIsDeterministic: same flags, same bytes on stdout, whatever
// the number of workers; the wall-clock figures are on stderr only.
func TestSimStdoutIsDeterministic(t *testing.T) {
	dir := t.TempDir()
	code, first, errOut := runCLI(t, "sim", "--runs", "150", "--seed", "3", "--out", dir, "--workers", "1")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, errOut, "runs/s")
	assert.NotContains(t, first, "runs/s")
	for _, workers := range []string{"1", "3"} {
		code, again, errOut := runCLI(t, "sim", "--runs", "150", "--seed", "3", "--out", dir, "--workers", workers)
		require.Equal(t, exitOK, code, errOut)
		assert.Equal(t, first, again, "workers %s", workers)
	}
	assert.Contains(t, first, "AtMostOneClientHoldLock")
	assert.Contains(t, first, "Every verdict is as DESIGN.md expects.")
	for _, d := range []string{"off", "none", "writes", "all"} {
		assert.Contains(t, first, "fencelab sim --fencing "+d+" --replay ")
	}
	for _, f := range []string{"trace.txt", "trace.json", "trace.html", "trace.mmd", "run.txt", "schedule.json", "porcupine.html"} {
		assert.FileExists(t, filepath.Join(dir, "none", f))
	}
	assert.Contains(t, first, "files:  "+filepath.Join(dir, "none")+"/{trace.txt,trace.json,trace.html,trace.mmd,run.txt,schedule.json,porcupine.html}")
	text, err := os.ReadFile(filepath.Join(dir, "none", "trace.txt"))
	require.NoError(t, err)
	assert.Contains(t, string(text), "violated")
	run, err := os.ReadFile(filepath.Join(dir, "none", "run.txt"))
	require.NoError(t, err)
	assert.Contains(t, string(run), "outcome: ", "run.txt says how the run ended")
}

func TestSimReplayAndSchedule(t *testing.T) {
	dir := t.TempDir()
	// Seed 1 loses an update without fencing (see TestSimStdoutIsDeterministic's table).
	code, replay, errOut := runCLI(t, "sim", "--fencing", "none", "--replay", "1", "--out", dir)
	require.Equal(t, exitOK, code, errOut)
	_, again, _ := runCLI(t, "sim", "--fencing", "none", "--replay", "1", "--out", dir)
	assert.Equal(t, replay, again, "a replay prints the same bytes every time")
	assert.Contains(t, replay, "✗ NoLostUpdate violated")
	assert.Contains(t, replay, "The timeline up to the first violation of NoLostUpdate")
	assert.Contains(t, replay, "Every verdict is as DESIGN.md expects.")

	// The batch writes the schedule of seed 1; running it from the file is
	// the same run.
	code, _, errOut = runCLI(t, "sim", "--fencing", "none", "--runs", "1", "--out", dir)
	require.Equal(t, exitOK, code, errOut)
	code, fromFile, errOut := runCLI(t, "sim", "--fencing", "none", "--schedule", filepath.Join(dir, "none", "schedule.json"))
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, replay, fromFile)
}

func TestSimShrink(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI(t, "sim", "--fencing", "off", "--faults", "pause", "--replay", "44", "--shrink", "--out", dir)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "shrunk: 3 faults → 1")
	path := filepath.Join(dir, "off", "shrunk-schedule.json")
	assert.Contains(t, out, "fencelab sim --fencing off --schedule "+path+" --faults pause")
	code, small, errOut := runCLI(t, "sim", "--fencing", "off", "--schedule", path)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, small, "faults (1):")
	assert.Contains(t, small, "✗ NoLostUpdate violated")
}

func TestSimExitCodes(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no faults", []string{"--faults", "none", "--runs", "100"}, exitOK, "Every verdict is as DESIGN.md expects."},
		{"npc", []string{"--npc", "--runs", "100"}, exitOK, "pause only"},
		// Jitter beyond the margin breaks the lock without any fault under
		// the arrival rule: a slow grant makes its client believe in its
		// lease after the service expired it and a fast grant reached the
		// next client. Under the send rule (the default) the slow grant
		// lands after its window and is given back.
		{"jitter beyond the margin, arrival rule", []string{"--faults", "none", "--runs", "100", "--jitter", "300ms", "--think", "850ms", "--validity", "arrival"}, exitFailure, "✗ off violated AtMostOneClientHoldLock"},
		{"jitter beyond the margin, send rule", []string{"--faults", "none", "--runs", "100", "--jitter", "300ms", "--think", "850ms"}, exitOK, "Every verdict is as DESIGN.md expects."},
		{"fenced design still safe", []string{"--fencing", "all", "--runs", "100"}, exitOK, "Every verdict"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, append([]string{"sim", "--out", dir}, tc.args...)...)
			assert.Equal(t, tc.code, code, errOut)
			assert.Contains(t, out, tc.want)
		})
	}
}

// TestSimProgressBarOnlyOnStderr: on a terminal a progress bar is drawn on
// stderr, and stdout stays the same bytes.
func TestSimProgressBarOnlyOnStderr(t *testing.T) {
	dir := t.TempDir()
	args := []string{"sim", "--runs", "100", "--out", dir}
	_, plain, _ := runCLI(t, args...)
	var out, errb bytes.Buffer
	code := run(args, &env{stdout: &out, stderr: &errb, terminal: true})
	require.Equal(t, exitOK, code, errb.String())
	assert.Equal(t, plain, out.String())
	assert.Contains(t, errb.String(), "runs/s")
}

// TestPrintedHintsRunAsWritten: every command fencelab sim prints for a
// person to run (the replay hints) runs as written and shows the failure
// it promises.
func TestPrintedHintsRunAsWritten(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI(t, "sim", "--runs", "30", "--sections", "5", "--out", dir)
	require.Equal(t, exitOK, code, errOut)
	var hints []string
	for _, line := range strings.Split(out, "\n") {
		if i := strings.Index(line, "fencelab sim --"); i >= 0 {
			hints = append(hints, strings.TrimSpace(line[i:]))
		}
	}
	require.NotEmpty(t, hints, "the batch prints replay hints:\n%s", out)
	for _, hint := range hints {
		args := strings.Fields(hint)
		require.Equal(t, "fencelab", args[0])
		code, replay, errOut := runCLI(t, args[1:]...)
		assert.Equal(t, exitOK, code, "%s: %s", hint, errOut)
		assert.Contains(t, replay, "violated", "%s shows the failure", hint)
	}
	assert.Len(t, hints, 4, "one hint per design with a failing run")
}
