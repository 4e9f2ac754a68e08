package nemesis

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/live/server"
)

// skipIfMissing skips, in one line naming the package, when err says a
// program is not installed.
func skipIfMissing(t *testing.T, err error) {
	t.Helper()
	var missing *server.MissingError
	if errors.As(err, &missing) {
		t.Skip(err.Error())
	}
}

func newTestClock(t *testing.T) *Clock {
	t.Helper()
	c, err := NewClock(context.Background(), t.TempDir(), t.TempDir())
	skipIfMissing(t, err)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	return c
}

func TestBuildClockShimCaches(t *testing.T) {
	cache := t.TempDir()
	lib, err := BuildClockShim(context.Background(), cache)
	skipIfMissing(t, err)
	require.NoError(t, err)
	first, err := os.Stat(lib)
	require.NoError(t, err)

	again, err := BuildClockShim(context.Background(), cache)
	require.NoError(t, err)
	require.Equal(t, lib, again)
	second, err := os.Stat(again)
	require.NoError(t, err)
	require.Equal(t, first.ModTime(), second.ModTime(), "not rebuilt")
	entries, err := os.ReadDir(cache)
	require.NoError(t, err)
	require.Len(t, entries, 2, "only the library and its sum: the build folder is gone")
}

func TestBuildClockShimWithoutCC(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := BuildClockShim(context.Background(), t.TempDir())
	var missing *server.MissingError
	require.ErrorAs(t, err, &missing)
	require.Equal(t, "gcc", missing.Package)
	require.ErrorContains(t, err, "Debian package gcc")
}

// shimmedNow runs `date +%s` under the clock's shim and returns what it
// printed.
func shimmedNow(t *testing.T, c *Clock) time.Time {
	t.Helper()
	cmd := exec.Command("date", "+%s")
	cmd.Env = append(os.Environ(), c.Env()...)
	out, err := cmd.Output()
	require.NoError(t, err)
	secs, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	require.NoError(t, err)
	return time.Unix(secs, 0)
}

// shimmedShell starts a shell with env that waits on its input, once it
// runs (it has printed a line), and returns its pid; it ends with t.
func shimmedShell(t *testing.T, env []string) int {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", "echo ready; read x")
	cmd.Env = append(os.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "ready\n", line)
	return cmd.Process.Pid
}

// dateReader reads the clock of a `date` run under env: a server's clock
// read through the shim, for tests without Redis.
func dateReader(env []string) func(context.Context) (time.Time, error) {
	return func(ctx context.Context) (time.Time, error) {
		cmd := exec.CommandContext(ctx, "date", "+%s.%N")
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.Output()
		if err != nil {
			return time.Time{}, err
		}
		secs, frac, _ := strings.Cut(strings.TrimSpace(string(out)), ".")
		s, err := strconv.ParseInt(secs, 10, 64)
		if err != nil {
			return time.Time{}, err
		}
		ns, err := strconv.ParseInt(frac, 10, 64)
		if err != nil {
			return time.Time{}, err
		}
		return time.Unix(s, ns), nil
	}
}

// attachShell attaches c to a shell running under its shim, read through
// date.
func attachShell(t *testing.T, c *Clock) {
	t.Helper()
	require.NoError(t, c.Attach(context.Background(), []int{shimmedShell(t, c.Env())}, dateReader(c.Env())))
}

func TestClockStepMovesOnlyTheShimmedProcess(t *testing.T) {
	c := newTestClock(t)
	attachShell(t, c)
	for _, tc := range []struct {
		step, want time.Duration
	}{
		{0, 0},
		{time.Hour, time.Hour},
		{-3 * time.Hour, -2 * time.Hour},
		{2*time.Hour + 90*time.Second, 90 * time.Second},
	} {
		require.NoError(t, c.Step(tc.step))
		require.Equal(t, tc.want, c.Offset())
		got := shimmedNow(t, c)
		want := time.Now().Add(tc.want)
		require.WithinDuration(t, want, got, 2*time.Second, "offset %v", tc.want)
	}
	// A process started without the shim reads the machine's clock.
	out, err := exec.Command("date", "+%s").Output()
	require.NoError(t, err)
	secs, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	require.NoError(t, err)
	require.WithinDuration(t, time.Now(), time.Unix(secs, 0), 2*time.Second)
}

func TestClockRejectsOverflow(t *testing.T) {
	c := newTestClock(t)
	attachShell(t, c)
	require.NoError(t, c.Step(time.Duration(1<<62)))
	require.ErrorContains(t, c.Step(time.Duration(1<<62)), "overflows")
	require.Equal(t, time.Duration(1<<62), c.Offset(), "unchanged by a refused step")
}
