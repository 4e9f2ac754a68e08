package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/lock"
	"github.com/fencelab/fencelab/live/server"
	"github.com/fencelab/fencelab/live/setup"
)

// The --design flag takes a setup's name (what list prints after
// --design), which is not always its design row: the help must say so.
func TestRunHelpNamesDesignAsTheSetupName(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.Equal(t, ExitOK, Run(setup.All(), []string{"run", "-h"}, strings.NewReader(""), &stdout, &stderr))
	help := stdout.String()
	i := strings.Index(help, "  -design")
	require.GreaterOrEqual(t, i, 0, help)
	rest := help[i+len("  -design"):]
	// The flag's description runs to the next flag.
	if j := strings.Index(rest, "\n  -"); j >= 0 {
		rest = rest[:j]
	}
	require.Contains(t, rest, "setup's name")
	require.NotContains(t, rest, "named by its design row")
	// The value the help describes is the one Find takes: a setup
	// whose name is not its row is found by its name.
	differs := false
	for _, s := range setup.All() {
		if s.Name != string(s.Design) {
			differs = true
			_, err := setup.Find(setup.All(), s.Service, s.Name)
			require.NoError(t, err, s.ID())
		}
	}
	require.True(t, differs, "some setup's name is not its row, so the wording matters")
}

// failingSetup is a setup whose server writes why it cannot start to its
// log and exits 1.
func failingSetup() setup.Setup {
	return setup.Setup{
		Name: "broken", Service: "fakeservice", Design: impl.DesignNoFencing, TTL: time.Second,
		Faults: []history.Fault{history.FaultClientPause},
		Start: func(ctx context.Context, env setup.StartEnv) (*setup.Deployment, error) {
			dir, err := os.MkdirTemp(env.Dir, "fake-")
			if err != nil {
				return nil, err
			}
			port, err := server.FreePort()
			if err != nil {
				return nil, err
			}
			_, err = server.StartProc(ctx, server.ProcSpec{
				Name: "fake", Dir: dir, Port: port, Path: "/bin/sh",
				Args: []string{"-c", "echo booting; echo 'fatal: the reason-marker it cannot start' >&2; exit 1"},
			})
			return nil, err
		},
		Locker: func(context.Context, lock.Config) (lock.Locker, error) {
			return nil, errors.New("never reached")
		},
	}
}

// A service that fails to start is a harness error whose one line ends
// with why, from the server's log.
func TestRunStartFailureSaysWhy(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := Run([]setup.Setup{failingSetup()}, []string{"run", "--service", "fakeservice", "--design", "broken", "--runs", "1", "--out", t.TempDir()},
		strings.NewReader(""), &stdout, &stderr)
	require.Equal(t, ExitBadInput, code, stderr.String())
	line := stderr.String()
	require.Equal(t, 1, strings.Count(line, "\n"), "one line: %q", line)
	require.Contains(t, line, "exit status 1")
	require.Contains(t, line, "its log ends: booting | fatal: the reason-marker it cannot start")
}

func TestOneLine(t *testing.T) {
	long := strings.Repeat("h", 400) + "é" + strings.Repeat("t", 400) + " the-end"
	for _, tc := range []struct {
		in, want string
	}{
		{"plain", "plain"},
		{"first\nsecond\r\n\n  third  ", "first | second | third"},
		{"", ""},
	} {
		require.Equal(t, tc.want, oneLine(tc.in))
	}
	got := oneLine(long)
	require.True(t, strings.HasPrefix(got, strings.Repeat("h", oneLineHead)+" … "), got)
	require.True(t, strings.HasSuffix(got, " the-end"), got)
	require.True(t, utf8.ValidString(oneLine(strings.Repeat("é", 1000))))
	require.LessOrEqual(t, len(got), oneLineHead+oneLineTail+len(" … ")+4)
}

// A hang-up (a closed terminal) stops a run as SIGTERM does: its clean-up
// runs, and the exit code is 128+1.
func TestHangUpStopsLikeTerm(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM} {
		ctx, stopped, done := onSignal()
		require.NoError(t, syscall.Kill(os.Getpid(), sig))
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
			t.Fatalf("%v did not end the context", sig)
		}
		var stderr bytes.Buffer
		code, ok := stopped(&stderr, "run")
		done()
		require.True(t, ok, "%v", sig)
		require.Equal(t, 128+int(sig), code)
		require.Contains(t, stderr.String(), "stopped by "+sig.String())
	}
}

// run and matrix first remove the data folders that killed runs left
// (their owner is dead), and say so; a live run's folder stays.
func TestRunSweepsFoldersOfDeadRuns(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dead := exec.Command("/bin/true")
	require.NoError(t, dead.Run())
	orphan := filepath.Join(tmp, "fencelab-live-killed")
	require.NoError(t, os.Mkdir(orphan, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(orphan, ".fencelab-owner"), []byte(fmt.Sprintf("%d 1\n", dead.Process.Pid)), 0o600))
	stranger := filepath.Join(tmp, "fencelab-live-not-ours")
	require.NoError(t, os.Mkdir(stranger, 0o700))

	var stdout, stderr bytes.Buffer
	code := Run([]setup.Setup{failingSetup()}, []string{"run", "--service", "fakeservice", "--design", "broken", "--runs", "1", "--out", t.TempDir()},
		strings.NewReader(""), &stdout, &stderr)
	require.Equal(t, ExitBadInput, code, stderr.String())
	require.Contains(t, stderr.String(), "removed 1 data folder that killed runs left")
	require.NoDirExists(t, orphan)
	require.DirExists(t, stranger)
	entries, err := os.ReadDir(tmp)
	require.NoError(t, err)
	require.Len(t, entries, 1, "the failed run removed its own folder")
}
