package nemesis

import (
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
	require.Len(t, entries, 1, "only the library: the build folder is gone")
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

func TestClockStepMovesOnlyTheShimmedProcess(t *testing.T) {
	c := newTestClock(t)
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
	require.NoError(t, c.Step(time.Duration(1<<62)))
	require.ErrorContains(t, c.Step(time.Duration(1<<62)), "overflows")
	require.Equal(t, time.Duration(1<<62), c.Offset(), "unchanged by a refused step")
}
