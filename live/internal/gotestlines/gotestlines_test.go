// Package gotestlines tests scripts/gotest-lines.sh, the filter make
// test's passes pipe `go test -json` through so that each package's lines
// come when the package ends, not in the packages' order. It lives here,
// as a test of the live module, because the script is the live pass's
// first of all; it reads the script from the main module beside it.
package gotestlines

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// script is the filter, from this package's folder.
const script = "../../../scripts/gotest-lines.sh"

// awks are the awk implementations installed here, each as a folder to
// put first on PATH, holding it under the name awk: the script must work
// with Debian's default (mawk) as with gawk.
func awks(t *testing.T) map[string]string {
	t.Helper()
	found := map[string]string{}
	for _, name := range []string{"awk", "mawk", "gawk", "original-awk", "busybox"} {
		path, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		dir := t.TempDir()
		if name == "busybox" {
			// busybox runs the applet its name says.
			require.NoError(t, os.WriteFile(filepath.Join(dir, "awk"), []byte("#!/bin/sh\nexec "+path+" awk \"$@\"\n"), 0o755))
		} else {
			require.NoError(t, os.Symlink(path, filepath.Join(dir, "awk")))
		}
		found[name] = dir
	}
	if len(found) == 0 {
		t.Skip("no awk installed")
	}
	return found
}

// filter runs the script with the awk in dir first on PATH.
func filter(dir string) *exec.Cmd {
	cmd := exec.Command("sh", script)
	cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return cmd
}

// timings matches what changes from run to run: a package's and a test's
// time.
var timings = regexp.MustCompile(`\t[0-9.]+s$|\([0-9.]+s\)`)

// The fixture module (testdata/fixture) has a passing package, a failing
// one (a failed test with a failed and a passing subtest, a passing test,
// a test that prints on stdout) and one that does not build; the filter
// prints what go test prints without -v, failed tests' "--- FAIL" lines
// first, and nothing of the tests that passed.
func TestFixtureLines(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	run := exec.Command(goBin, "test", "-json", "-count=1", "./...")
	run.Dir = "testdata/fixture"
	run.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=", "GOTOOLCHAIN=local")
	events, err := run.Output()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "go test fails on the fixture's failures")
	require.Contains(t, string(events), `"Action":"pass"`)

	want := strings.Join([]string{
		"# fixture/broken [fixture/broken.test]",
		"broken/broken_test.go:5:33: undefined: undefinedName",
		"FAIL\tfixture/broken [build failed]",
		"--- FAIL: TestFails (TIME)",
		`    fail_test.go:11: the log of a failing test: <tab>` + "\t" + `here & "quoted"`,
		"--- FAIL: TestFails/sub_fails (TIME)",
		"    fail_test.go:13: the error of a failing subtest",
		"FAIL",
		"FAIL\tfixture/fail\tTIME",
		"ok  \tfixture/pass\tTIME",
	}, "\n") + "\n"
	for name, dir := range awks(t) {
		t.Run(name, func(t *testing.T) {
			cmd := filter(dir)
			cmd.Stdin = bytes.NewReader(events)
			out, err := cmd.Output()
			require.NoError(t, err)
			lines := strings.Split(string(out), "\n")
			for i, l := range lines {
				lines[i] = timings.ReplaceAllStringFunc(l, func(m string) string {
					if strings.HasPrefix(m, "(") {
						return "(TIME)"
					}
					return "\tTIME"
				})
			}
			// The packages end in any order, each printing as it ends.
			require.ElementsMatch(t, strings.Split(want, "\n"), lines)
			got := strings.Join(lines, "\n")
			require.Contains(t, got, strings.Join(strings.Split(want, "\n")[3:9], "\n"), "the failed package's lines, in order")
		})
	}
}

// A package's line comes as soon as its events do, while go test still
// runs: the filter (and mawk under it) must not wait for more input.
func TestLinesComeAsTheyHappen(t *testing.T) {
	events := `{"Action":"start","Package":"p"}` + "\n" +
		`{"Action":"run","Package":"p","Test":"TestA"}` + "\n" +
		`{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}` + "\n" +
		`{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:3: a passing test\u0027s log\n"}` + "\n" +
		`{"Action":"pass","Package":"p","Test":"TestA","Elapsed":0}` + "\n" +
		`{"Action":"output","Package":"p","Output":"PASS\n"}` + "\n" +
		`{"Action":"output","Package":"p","Output":"ok  \tp\t0.5s\n"}` + "\n" +
		`{"Action":"pass","Package":"p","Elapsed":0.5}` + "\n"
	for name, dir := range awks(t) {
		t.Run(name, func(t *testing.T) {
			cmd := filter(dir)
			stdin, err := cmd.StdinPipe()
			require.NoError(t, err)
			stdout, err := cmd.StdoutPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			t.Cleanup(func() {
				_ = stdin.Close()
				_ = cmd.Wait()
			})
			_, err = io.WriteString(stdin, events)
			require.NoError(t, err)
			line := make(chan string, 1)
			go func() {
				l, _ := bufio.NewReader(stdout).ReadString('\n')
				line <- l
			}()
			select {
			case l := <-line:
				require.Equal(t, "ok  \tp\t0.5s\n", l, "the passing test's log is not shown")
			case <-time.After(10 * time.Second):
				// stdin is still open: a filter that waits for more
				// input holds the line back.
				t.Fatalf("no line 10 s after the package's events (awk %s)", name)
			}
		})
	}
}
