package testbuild

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gotestsumFlags is GOTESTSUM_FLAGS, read from the Makefile: the flags
// each pass of make test gives gotestsum.
func gotestsumFlags(t *testing.T) []string {
	t.Helper()
	makefile, err := os.ReadFile(filepath.Join(moduleRoot, "Makefile"))
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^GOTESTSUM_FLAGS\s*:=(.*)$`).FindSubmatch(makefile)
	require.NotNil(t, m, "the Makefile sets no GOTESTSUM_FLAGS: renamed? update this test")
	flags := strings.Fields(string(m[1]))
	require.Contains(t, flags, "--raw-command", "the passes run $(GO) test -json themselves")
	return flags
}

// failLines matches the lines make test reads the failed packages from
// (its closing awk: ^FAIL[ \t]+ then the package).
var failLines = regexp.MustCompile(`(?m)^FAIL[ \t]+([^ \t\n]+)`)

// TestPassLines runs a pass of make test the Makefile's way, gotestsum
// with GOTESTSUM_FLAGS around go test -json, on the fixture module
// (testdata/gotest: a passing package, a failing one, one that panics,
// one that does not build). What it prints: each package's ok or FAIL
// line, the FAIL lines make test names the failed packages from, the
// build error, a failed test's log and a panic; nothing of a test that
// passed or skipped. It exits with go test's own code.
func TestPassLines(t *testing.T) {
	SkipUnderRace(t)
	flags := gotestsumFlags(t)
	gotestsum := filepath.Join(t.TempDir(), "gotestsum")
	build := exec.Command("go", "build", "-o", gotestsum, "gotest.tools/gotestsum")
	build.Dir = moduleRoot
	out, err := build.CombinedOutput()
	require.NoError(t, err, "building gotestsum, the main module's tool: %s", out)

	quiet := []string{
		"the log of a passing test", "the log of a passing subtest",
		"a line the test printed itself", "the reason of a skip", "=== RUN",
	}
	for _, tc := range []struct {
		name, pkgs string
		code       int
		failed     []string // the packages of the FAIL lines
		want       []string // substrings of the output
	}{
		{"every test passes", "./pass", 0, nil, []string{"ok  \tfixture/pass\t"}},
		{"failures", "./...", 1,
			[]string{"fixture/broken", "fixture/fail", "fixture/panics"},
			[]string{
				"ok  \tfixture/pass\t",
				"broken/broken_test.go:5:33: undefined: undefinedName\n",
				"FAIL\tfixture/broken [build failed]\n",
				"FAIL\tfixture/fail\t",
				"    fail_test.go:11: the log of a failing test: <tab>\there & \"quoted\"\n",
				"    fail_test.go:13: the error of a failing subtest\n",
				"FAIL\tfixture/panics\t",
				"panic: a panicking test",
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append(append([]string{}, flags...), "--", "go", "test", "-json", "-count=1"), tc.pkgs)
			run := exec.Command(gotestsum, args...)
			run.Dir = filepath.Join("testdata", "gotest")
			run.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=", "GOTOOLCHAIN=local")
			out, err := run.CombinedOutput()
			code := 0
			if exit := (*exec.ExitError)(nil); errors.As(err, &exit) {
				code = exit.ExitCode()
			} else {
				require.NoError(t, err)
			}
			got := string(out)
			assert.Equal(t, tc.code, code, "go test's exit code: %s", got)
			var failed []string
			for _, m := range failLines.FindAllStringSubmatch(got, -1) {
				failed = append(failed, m[1])
			}
			assert.ElementsMatch(t, tc.failed, slices.Compact(slices.Sorted(slices.Values(failed))), "the packages of the FAIL lines")
			for _, w := range tc.want {
				assert.Contains(t, got, w)
			}
			for _, q := range quiet {
				assert.NotContains(t, got, q, "a test that passed or skipped prints nothing")
			}
		})
	}
}
