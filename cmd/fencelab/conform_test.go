package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/internal/faketlc"
	"github.com/fencelab/fencelab/internal/tlctest"
)

// TestConformBadInput: every bad flag is one line on stderr and exit 2,
// before any TLC run.
func TestConformBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--walks", "-1"}, "--walks must be between 0 and 100000, got -1"},
		{[]string{"--walks", "x"}, "invalid value"},
		{[]string{"--max-steps", "0"}, "--max-steps must be between 1 and 10000, got 0"},
		{[]string{"--sim-runs", "100001"}, "--sim-runs must be between 0 and 100000"},
		{[]string{"--sim-failing", "-2"}, "--sim-failing must be between 0 and 100"},
		{[]string{"--show", "101"}, "--show must be between 0 and 100"},
		{[]string{"--timeout", "0s"}, "--timeout must be positive"},
		{[]string{"--specs", "/nonexistent"}, "has no DistLock.tla"},
		{[]string{"stray"}, `unexpected argument "stray"`},
		{[]string{"--specs", "../../specs", "--replay-from", "/nonexistent"}, "--replay-from /nonexistent is not a folder"},
		{[]string{"--specs", "../../specs", "--replay=false", "--replay-from", "."}, "--replay-from needs --replay"},
		{[]string{"--replay=maybe"}, "invalid boolean value"},
		{[]string{"--specs", "../../specs", "--fixtures", "/nonexistent"}, "--fixtures /nonexistent is not a folder of committed TLC outputs"},
		{[]string{"--specs", "../../specs", "--fixtures", "conform.go"}, "--fixtures conform.go is not a folder of committed TLC outputs"},
		{[]string{"--specs", "../../specs", "--fixtures", "."}, "--fixtures .: "},
	} {
		code, stdout, stderr := runCLI(t, append([]string{"conform"}, tc.args...)...)
		assert.Equal(t, exitBadInput, code, "%v", tc.args)
		assert.Empty(t, stdout, "%v", tc.args)
		assert.Contains(t, stderr, tc.want, "%v", tc.args)
		assert.Equal(t, 1, countLines(stderr), "%v: one line", tc.args)
	}
}

// TestConformBadReplayFrom: a --replay-from that is not a complete
// fencelab tlc --out folder of the default run's outputs is one line on
// stderr and exit 2, found before anything runs or prints (no jar line,
// no cache line, no TLC run, no table), whatever else conform is asked.
// One class of bad input per row; the folder is otherwise whole (the
// committed outputs), with DistLock_2c_NoLostUpdate's output broken.
func TestConformBadReplayFrom(t *testing.T) {
	fake := faketlc.New(t, "exit 0", "exit 0")
	good, err := os.ReadFile("../../conform/testdata/replay/DistLock_2c_NoLostUpdate.out")
	require.NoError(t, err)
	other := func(name string) func(t *testing.T, path string) {
		return func(t *testing.T, path string) {
			data, err := os.ReadFile(name)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path, data, 0o644))
		}
	}
	write := func(data string) func(t *testing.T, path string) {
		return func(t *testing.T, path string) { require.NoError(t, os.WriteFile(path, []byte(data), 0o644)) }
	}
	const broken = "DistLock_2c_NoLostUpdate"
	for _, tc := range []struct {
		name    string
		from    func(t *testing.T) string         // the folder given, when not the fixtures' copy
		breakIt func(t *testing.T, tlcOut string) // what is done to the broken model's tlc.out
		want    string
	}{
		{name: "missing folder", from: func(t *testing.T) string { return filepath.Join(t.TempDir(), "none") }, want: "is not a folder of fencelab tlc's outputs"},
		{name: "a file, not a folder", from: func(t *testing.T) string {
			f := filepath.Join(t.TempDir(), "file")
			require.NoError(t, os.WriteFile(f, good, 0o644))
			return f
		}, want: "is not a folder of fencelab tlc's outputs"},
		{name: "empty folder", from: func(t *testing.T) string { return t.TempDir() }, want: "no TLC output of DistLock"},
		{name: "tlc.out missing", breakIt: func(t *testing.T, p string) { require.NoError(t, os.Remove(p)) }, want: "no TLC output of " + broken},
		{name: "tlc.out a folder", breakIt: func(t *testing.T, p string) {
			require.NoError(t, os.Remove(p))
			require.NoError(t, os.Mkdir(p, 0o755))
		}, want: "no TLC output of " + broken},
		{name: "empty", breakIt: write(""), want: "model " + broken + ": TLC's output"},
		{name: "garbage", breakIt: write("hello\n"), want: "model " + broken + ": TLC's output"},
		{name: "binary", breakIt: write("\x00\xff\xfe PK\x03\x04"), want: "model " + broken + ": TLC's output"},
		{name: "truncated", breakIt: write(string(good[:len(good)/2])), want: "model " + broken + ": TLC's output"},
		{name: "another spec's output", breakIt: other("../../conform/testdata/DieHard_NotSolved.tlc.out"), want: broken + "/tlc.out is not model " + broken + "'s TLC output: expected spec DistLock, found spec DieHard"},
		{name: "another property's output", breakIt: other("../../conform/testdata/replay/DistLock_2c_AtMostOneClientHoldLock.out"), want: "expected invariant NoLostUpdate violated, found invariant AtMostOneClientHoldLock violated"},
		{name: "another model's output", breakIt: other("../../conform/testdata/replay/DistLockFencing_writes_2c_NoLostUpdate.out"), want: "expected spec DistLock, found spec DistLockFencing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var from string
			if tc.from != nil {
				from = tc.from(t)
			} else {
				from = replayFixtures(t)
				tc.breakIt(t, filepath.Join(from, broken, "tlc.out"))
			}
			code, stdout, stderr := runCLI(t, "conform", "--pin", "../../tla2tools.version", "--specs", "../../specs", "--out", filepath.Join(t.TempDir(), "out"), "--replay-from", from)
			assert.Equal(t, exitBadInput, code, stderr)
			assert.Empty(t, stdout)
			assert.Equal(t, 1, countLines(stderr), "one line: %s", stderr)
			assert.True(t, strings.HasPrefix(stderr, "fencelab conform: --replay-from "), stderr)
			assert.Contains(t, stderr, tc.want)
			assert.Empty(t, fake.Runs(t), "TLC ran")
		})
	}
}

// replayFixtures lays the committed TLC outputs out as fencelab tlc --out
// writes them (<model>/tlc.out) in a new folder, and returns it.
func replayFixtures(t *testing.T) string {
	t.Helper()
	from := t.TempDir()
	fixtures, err := filepath.Glob("../../conform/testdata/replay/*.out")
	require.NoError(t, err)
	require.NotEmpty(t, fixtures)
	for _, f := range fixtures {
		dir := filepath.Join(from, strings.TrimSuffix(filepath.Base(f), ".out"))
		require.NoError(t, os.MkdirAll(dir, 0o755))
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "tlc.out"), data, 0o644))
	}
	return from
}

// copyFixtures copies the committed TLC outputs of the replay and their
// sums (conform/testdata/replay) into a folder of the test's.
func copyFixtures(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files, err := filepath.Glob("../../conform/testdata/replay/*")
	require.NoError(t, err)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644))
	}
	return dir
}

// TestConformReplaysCommittedOutputs: with --fixtures, each model whose
// spec and cfg are unchanged since its committed TLC output was made is
// replayed from that output, TLC not run (the fake TLC, which prints
// nothing, is never called), and each is truly replayed: a changed
// counter in one output departs. A model whose cfg's sum differs runs
// TLC (here the fake, whose silence is bad input); so does every model
// under --no-cache.
func TestConformReplaysCommittedOutputs(t *testing.T) {
	fake := faketlc.New(t, "exit 0", "exit 0")
	replayOnly := []string{"conform", "--pin", "../../tla2tools.version", "--specs", "../../specs", "--walks", "0", "--sim-runs", "0", "--sim-failing", "0", "--explore=false"}
	tlcRuns := func() int {
		data, err := os.ReadFile(fake.Log)
		if os.IsNotExist(err) {
			return 0
		}
		require.NoError(t, err)
		return strings.Count(string(data), "tlc2.TLC")
	}

	fixtures := copyFixtures(t)
	code, stdout, stderr := runCLI(t, append(replayOnly, "--out", t.TempDir(), "--fixtures", fixtures)...)
	require.Equal(t, exitOK, code, "stdout: %s\nstderr: %s", stdout, stderr)
	assert.Regexp(t, `DistLock_2c_NoLostUpdate \(committed\) +15 +violated at step 15`, stdout)
	assert.Regexp(t, `\n(\d+) TLC counterexamples replayed in Go, \d+ of systems Go does not run; TLC 0s\n(\d+) of them TLC's committed outputs`, stdout)
	m := regexp.MustCompile(`(\d+) TLC counterexamples replayed in Go.*\n(\d+) of them`).FindStringSubmatch(stdout)
	require.NotNil(t, m)
	assert.Equal(t, m[1], m[2], "every model from its committed output")
	assert.Zero(t, tlcRuns(), "TLC never ran")

	// One output's counter changed: replayed, it departs.
	path := filepath.Join(fixtures, "DistLock_2c_NoLostUpdate.out")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	changed := regexp.MustCompile(`(?m)^/\\ counter = 0$`).ReplaceAllString(string(data), "/\\ counter = 5")
	require.NotEqual(t, string(data), changed)
	require.NoError(t, os.WriteFile(path, []byte(changed), 0o644))
	code, stdout, stderr = runCLI(t, append(replayOnly, "--out", t.TempDir(), "--fixtures", fixtures)...)
	assert.Equal(t, exitFailure, code, "stdout: %s\nstderr: %s", stdout, stderr)
	assert.Regexp(t, `DistLock_2c_NoLostUpdate +DEPARTS from TLC's counterexample at the initial state`, stdout)
	assert.Zero(t, tlcRuns(), "TLC never ran")

	// The cfg's recorded sum no longer its own: TLC runs for that model.
	sums := filepath.Join(fixtures, "specs.sha256")
	data, err = os.ReadFile(sums)
	require.NoError(t, err)
	stale := regexp.MustCompile(`(?m)^[0-9a-f]{64}(  DistLock_2c_NoLostUpdate\.cfg)$`).ReplaceAllString(string(data), strings.Repeat("0", 64)+"$1")
	require.NotEqual(t, string(data), stale)
	require.NoError(t, os.WriteFile(sums, []byte(stale), 0o644))
	code, _, stderr = runCLI(t, append(replayOnly, "--out", t.TempDir(), "--fixtures", fixtures)...)
	assert.Equal(t, exitBadInput, code, stderr)
	assert.Contains(t, stderr, "DistLock_2c_NoLostUpdate: java printed something that is not TLC's output")
	assert.Equal(t, 1, tlcRuns(), "TLC ran for the stale model alone")

	// --no-cache: TLC runs for the first model already.
	code, _, _ = runCLI(t, append(replayOnly, "--out", t.TempDir(), "--fixtures", copyFixtures(t), "--no-cache")...)
	assert.Equal(t, exitBadInput, code)
	assert.Equal(t, 2, tlcRuns(), "--no-cache reads no committed output")
}

func countLines(s string) int {
	n := 0
	for _, c := range s {
		if c == '\n' {
			n++
		}
	}
	return n
}

// TestConformWithoutJar: without a jar conformance is "not run", exit 2,
// never passed.
func TestConformWithoutJar(t *testing.T) {
	t.Setenv("TLA2TOOLS_JAR", filepath.Join(t.TempDir(), "missing.jar"))
	code, stdout, stderr := runCLI(t, "conform", "--pin", "../../tla2tools.version", "--specs", "../../specs", "--out", t.TempDir())
	assert.Equal(t, exitBadInput, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "conformance: not run (no tla2tools.jar:")
	assert.NotContains(t, stderr, "passed")
	assert.Equal(t, 1, countLines(stderr))
}

// TestConformRuns (TLC): a small run validates walks, counterexamples and
// simulator runs, all accepted, replays every counterexample of a tlc
// folder (the committed outputs, laid out as fencelab tlc --out writes
// them), and prints its tables and summary; a counterexample changed by
// one state departs from the Go system: exit 1, and the row says where.
func TestConformRuns(t *testing.T) {
	tlctest.Require(t, &tlcChecks)
	from := replayFixtures(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "conform", "--pin", "../../tla2tools.version", "--specs", "../../specs", "--out", out,
		"--walks", "3", "--sim-runs", "2", "--sim-failing", "1", "--explore=false", "--replay-from", from)
	require.Equal(t, exitOK, code, "stdout: %s\nstderr: %s", stdout, stderr)
	assert.Contains(t, stdout, "source  design")
	assert.Regexp(t, `walk +all +3 +2 +arrival +3 +3 +0`, stdout)
	assert.Regexp(t, `sim +off +2 +2 +send +3 +3 +0`, stdout)
	assert.Regexp(t, `DistLock_2c_AtMostOneClientHoldLock +7 +violated at step 7`, stdout)
	assert.Regexp(t, `DistLockTimed_off_2c_NoLostUpdate_outside +— +skipped: timed spec`, stdout)
	assert.Regexp(t, `conformance: all 208 traces accepted by the specs; all \d+ counterexamples replayed in Go`, stdout)
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing rejected, nothing rendered")

	// The counter of state 3 of one counterexample changed.
	path := filepath.Join(from, "DistLock_2c_NoLostUpdate", "tlc.out")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	changed := regexp.MustCompile(`(?m)^/\\ counter = 0$`).ReplaceAllString(string(data), "/\\ counter = 5")
	require.NotEqual(t, string(data), changed)
	require.NoError(t, os.WriteFile(path, []byte(changed), 0o644))
	code, stdout, stderr = runCLI(t, "conform", "--pin", "../../tla2tools.version", "--specs", "../../specs", "--out", out,
		"--walks", "0", "--sim-runs", "0", "--sim-failing", "0", "--explore=false", "--replay-from", from)
	assert.Equal(t, exitFailure, code, "stdout: %s\nstderr: %s", stdout, stderr)
	assert.Regexp(t, `DistLock_2c_NoLostUpdate +DEPARTS from TLC's counterexample at the initial state: counter is 0 in Go, 5 in TLC's state`, stdout)
	assert.Contains(t, stderr, "1 TLC counterexamples depart from the Go system")

	// An output that is not TLC's (cut short, or not TLC's at all) is bad
	// input: one line, exit 2.
	for _, bad := range []string{changed[:len(changed)/2], "hello\n", ""} {
		require.NoError(t, os.WriteFile(path, []byte(bad), 0o644))
		code, _, stderr = runCLI(t, "conform", "--pin", "../../tla2tools.version", "--specs", "../../specs", "--out", out,
			"--walks", "0", "--sim-runs", "0", "--sim-failing", "0", "--explore=false", "--replay-from", from)
		assert.Equal(t, exitBadInput, code, stderr)
		assert.Contains(t, stderr, "--replay-from "+from+": model DistLock_2c_NoLostUpdate: TLC's output")
		assert.Equal(t, 1, countLines(stderr), "one line, before the jar's and the cache's: %s", stderr)
	}

	// TLC's output of another spec, property or model is bad input too,
	// never a departure: one line naming what was expected and found.
	for _, tc := range []struct{ file, found string }{
		{"../../conform/testdata/DieHard_NotSolved.tlc.out", "expected spec DistLock, found spec DieHard"},
		{"../../conform/testdata/replay/DistLock_2c_AtMostOneClientHoldLock.out", "expected invariant NoLostUpdate violated, found invariant AtMostOneClientHoldLock violated"},
		{"../../conform/testdata/replay/DistLockFencing_writes_2c_NoLostUpdate.out", "expected spec DistLock, found spec DistLockFencing"},
	} {
		data, err := os.ReadFile(tc.file)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, data, 0o644))
		code, stdout, stderr = runCLI(t, "conform", "--pin", "../../tla2tools.version", "--specs", "../../specs", "--out", out,
			"--walks", "0", "--sim-runs", "0", "--sim-failing", "0", "--explore=false", "--replay-from", from)
		assert.Equal(t, exitBadInput, code, "stdout: %s\nstderr: %s", stdout, stderr)
		assert.Contains(t, stderr, "--replay-from "+from+": DistLock_2c_NoLostUpdate/tlc.out is not model DistLock_2c_NoLostUpdate's TLC output: "+tc.found)
		assert.NotContains(t, stdout, "DEPARTS")
		assert.Equal(t, 1, countLines(stderr), "one line, before the jar's and the cache's: %s", stderr)
	}
}
