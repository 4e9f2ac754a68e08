package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/live/server"
)

// buildBinary builds fencelab-live into a test folder.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "fencelab-live")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

func needRedis(t *testing.T) {
	t.Helper()
	_, _, err := server.RedisVersion(context.Background())
	var missing *server.MissingError
	if errors.As(err, &missing) {
		t.Skipf("redis-server not installed (Debian package %s)", server.RedisPackage)
	}
	require.NoError(t, err)
}

// leftovers lists the live processes that run bin or whose working
// folder is under dir: what a run started and should have ended.
func leftovers(t *testing.T, bin, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	var left []string
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil || strings.Contains(string(stat), ") Z ") {
			continue
		}
		exe, _ := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		cwd, _ := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if exe == bin || strings.HasPrefix(cwd, dir) {
			left = append(left, e.Name()+" "+exe+" in "+cwd)
		}
	}
	return left
}

// TestBinaryWithRedis runs the built binary against real Redis: a
// scripted campaign, then signals in the middle of one.
func TestBinaryWithRedis(t *testing.T) {
	needRedis(t)
	bin := buildBinary(t)
	t.Run("scripted run", func(t *testing.T) { testRunRedisScripted(t, bin) })
	t.Run("signals", func(t *testing.T) { testSignalsStopCleanly(t, bin) })
}

// testSignalsStopCleanly: SIGINT or SIGTERM in the middle of a run (while
// c1 is paused) stops it: exit 130 or 143, one line, no process and no
// data folder left behind.
func testSignalsStopCleanly(t *testing.T, bin string) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp, out := t.TempDir(), t.TempDir()
			cmd := exec.Command(bin, "run", "--service", "redis", "--design", "all", "--fault", "client-pause", "--runs", "20", "--out", out)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			require.NoError(t, cmd.Start())
			// Wait until a run is under way: its data folder exists.
			require.Eventually(t, func() bool {
				entries, _ := os.ReadDir(tmp)
				return len(entries) > 0
			}, 20*time.Second, 5*time.Millisecond)
			time.Sleep(400 * time.Millisecond)
			require.NoError(t, cmd.Process.Signal(sig))
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				cmd.Process.Kill()
				t.Fatal("fencelab-live did not stop within 15 s of the signal")
			}
			assert.Equal(t, 128+int(sig), cmd.ProcessState.ExitCode(), "stderr: %s", stderr.String())
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			assert.Contains(t, lines[len(lines)-1], "stopped by")
			assert.Empty(t, leftovers(t, bin, tmp))
			entries, err := os.ReadDir(tmp)
			require.NoError(t, err)
			assert.Empty(t, entries, "data folders left behind")
		})
	}
}

// testRunRedisScripted: the binary's own run of the fenced row exits 0
// (its violation of AtMostOneClientHoldLock is expected) and prints the
// live column.
func testRunRedisScripted(t *testing.T, bin string) {
	tmp, out := t.TempDir(), t.TempDir()
	cmd := exec.Command(bin, "run", "--service", "redis", "--design", "all", "--fault", "client-pause", "--runs", "2", "--sections", "2", "--out", out)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "stderr: %s", stderr.String())
	assert.Contains(t, stdout.String(), "AtMostOneClientHoldLock")
	assert.Contains(t, stdout.String(), "violated (2 of 2)")
	assert.Contains(t, stdout.String(), "not observed (0 of 2; the fault took effect in 2)")
	assert.Equal(t, 2, strings.Count(stderr.String(), "\n"), "a progress line per run: %s", stderr.String())
	assert.Empty(t, leftovers(t, bin, tmp))
}
