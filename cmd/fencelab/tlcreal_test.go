package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/internal/faketlc"
	"github.com/fencelab/fencelab/internal/tlccount"
	"github.com/fencelab/fencelab/internal/tlctest"
	"github.com/fencelab/fencelab/pipeline"
)

// tlcChecks counts this package's TLC-backed tests that ran and those
// skipped, so a run without TLC says so loudly (TestMain).
var tlcChecks tlccount.Counter

// TestMain prints how many TLC-backed checks ran, and appends the line to
// the file FENCELAB_TEST_SUMMARY names (make test prints it after go
// test, which shows a passing package's output only with -v).
func TestMain(m *testing.M) {
	// TLC's results (fencelab's cache) go to a folder of this run, never
	// the user's cache.
	cache, err := os.MkdirTemp("", "fencelab-test-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Setenv("FENCELAB_CACHE", cache)
	code := m.Run()
	os.RemoveAll(cache)
	tlcChecks.Report("cmd/fencelab")
	browserChecks.Report("cmd/fencelab")
	os.Exit(code)
}

// copySpecs copies the committed specs into a scratch folder, replacing
// old with new in file when given.
func copySpecs(t *testing.T, file, old, new string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "specs")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	entries, err := os.ReadDir("../../specs")
	require.NoError(t, err)
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join("../../specs", e.Name()))
		require.NoError(t, err)
		if e.Name() == file {
			require.Contains(t, string(data), old)
			data = []byte(strings.Replace(string(data), old, new, 1))
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644))
	}
	return dir
}

// TestTLCCommandWithTLC runs the real TLC: a model that matches the
// manifest exits 0 and saves its counterexample; a spec with a syntax
// error (outside the PlusCal translation) exits 1 with SANY's line, column
// and message in the table row and the one-line error.
func TestTLCCommandWithTLC(t *testing.T) {
	tlctest.Require(t, &tlcChecks)
	pin := "../../tla2tools.version"
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "tlc", "--pin", pin, "--specs", "../../specs", "--out", out, "--model", "DistLock_2c_AtMostOneClientHoldLock")
	require.Equal(t, exitOK, code, "stdout: %s\nstderr: %s", stdout, stderr)
	assert.FileExists(t, filepath.Join(out, "DistLock_2c_AtMostOneClientHoldLock", "tlc.out"))

	broken := copySpecs(t, "DistLock.tla", "\n====", "\nBroken == (1 +\n====")
	code, stdout, stderr = runCLI(t, "tlc", "--pin", pin, "--specs", broken, "--out", t.TempDir(), "--model", "DistLock_2c_NoLostUpdate")
	assert.Equal(t, exitFailure, code)
	assert.Regexp(t, `TLC gave spec parse error \(exit 150\): DistLock\.tla line \d+, column \d+: `, stderr)
	assert.Regexp(t, `DistLock\.tla line \d+, column \d+: `, stdout, "in the table row")
	assert.NotContains(t, stderr, "stale")
}

// TestMakeKeepsFencelabsExitCode: GNU make exits 2 whenever a recipe
// fails, so what a user can rely on is the line a failing target prints
// last: fencelab's own exit code and its meaning — 2 for bad input (a file
// as --out, an unknown model), 1 for an unexpected verdict (a fake TLC
// whose result differs from the manifest). bin/fencelab run directly
// gives the code itself. The binary is built into a scratch folder (BIN),
// so nothing is written into the tree.
func TestMakeKeepsFencelabsExitCode(t *testing.T) {
	if testing.Short() {
		t.Skip("runs make and builds the binary: skipped in -short mode")
	}
	makePath, err := exec.LookPath("make")
	if err != nil {
		t.Skip("no make on PATH")
	}
	bin := filepath.Join(t.TempDir(), "fencelab")
	aFile := filepath.Join(t.TempDir(), "a-file")
	require.NoError(t, os.WriteFile(aFile, nil, 0o644))
	faketlc.New(t, "cat "+mustAbs(t, okOutput), "exit 0") // every model "ok, 1409 states"
	tests := []struct {
		name     string
		vars     []string
		wantCode int
		wantWhy  string
	}{
		{"--out is a file", []string{"OUT=" + aFile}, exitBadInput, "bad input or a missing tool"},
		{"unknown model", []string{"MODEL=NoSuchModel", "OUT=" + t.TempDir()}, exitBadInput, "bad input or a missing tool"},
		{"unexpected verdict", []string{"MODEL=DistLock_2c_AtMostOneClientHoldLock", "OUT=" + t.TempDir()}, exitFailure, "an unexpected verdict or a failed check"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"-s", "-C", "../..", "tlc", "BIN=" + bin}, tc.vars...)
			cmd := exec.Command(makePath, args...)
			cmd.Env = cleanEnv(t)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "make fails")
			assert.Equal(t, 2, exit.ExitCode(), "GNU make reports every failed recipe as 2")
			want := fmt.Sprintf("make: fencelab tlc exited with code %d (%s)", tc.wantCode, tc.wantWhy)
			assert.Contains(t, stderr.String(), want, "fencelab's own code is printed")

			// The binary make built, run directly, gives the code itself.
			direct := []string{"tlc"}
			for _, v := range tc.vars {
				k, val, _ := strings.Cut(v, "=")
				switch k {
				case "OUT":
					direct = append(direct, "--out", filepath.Join(val, "tlc"))
				case "MODEL":
					direct = append(direct, "--model", val)
				}
			}
			run := exec.Command(bin, direct...)
			run.Dir = "../.."
			run.Env = cleanEnv(t)
			err = run.Run()
			require.ErrorAs(t, err, &exit)
			assert.Equal(t, tc.wantCode, exit.ExitCode())
		})
	}
}

// TestMakeCleanRemovesTLCMetadirs: make clean, run in a scratch copy of
// the Makefile, removes the output folder, bin/ and the states/ folders
// TLC leaves when run by hand (scripts/tlc.sh, or TLC inside specs/), and
// nothing else.
func TestMakeCleanRemovesTLCMetadirs(t *testing.T) {
	makePath, err := exec.LookPath("make")
	if err != nil {
		t.Skip("no make on PATH")
	}
	dir := t.TempDir()
	mk, err := os.ReadFile("../../Makefile")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Makefile"), mk, 0o644))
	for _, d := range []string{"out/tlc/m", "bin", "states/26-11-22-10-00-00", "specs/states/26-11-22-10-00-01"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "specs", "S.tla"), nil, 0o644))
	// OUT on make's command line and a clean environment: the caller's
	// OUT (an environment variable make would take) is never removed.
	callers := t.TempDir()
	t.Setenv("OUT", callers)
	clean := exec.Command(makePath, "-s", "-C", dir, "clean", "OUT=out")
	clean.Env = cleanEnv(t)
	out, err := clean.CombinedOutput()
	require.NoError(t, err, string(out))
	assert.DirExists(t, callers, "the caller's OUT stays")
	for _, d := range []string{"out", "bin", "states", "specs/states"} {
		assert.NoDirExists(t, filepath.Join(dir, d))
	}
	assert.FileExists(t, filepath.Join(dir, "specs", "S.tla"), "the specs stay")
}

// TestTLCWalkthroughIsReproducible: a fresh TLC run of the showcase model
// gives the counterexample the README's walkthrough is drawn from, step for
// step (one worker for a model expected to be violated), twice in a row.
func TestTLCWalkthroughIsReproducible(t *testing.T) {
	tlctest.Require(t, &tlcChecks)
	want := walkthrough(t, "table")
	for range 2 {
		out := t.TempDir()
		code, stdout, stderr := runCLI(t, "tlc", "--model", pipeline.ShowcaseModel, "--specs", "../../specs", "--pin", "../../tla2tools.version", "--out", out)
		require.Equal(t, exitOK, code, "%s\n%s", stdout, stderr)
		code, table, stderr := runCLI(t, "trace", "--format", "table", "--title", pipeline.ShowcaseModel, filepath.Join(out, pipeline.ShowcaseModel, "tlc.out"))
		require.Equal(t, exitOK, code, stderr)
		assert.Equal(t, want, "```text\n"+table+"```\n", "TLC's counterexample differs from the walkthrough's: run make readme")
	}
}
