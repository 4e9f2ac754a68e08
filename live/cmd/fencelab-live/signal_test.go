package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fencelab/fencelab/live/cli"
	"github.com/fencelab/fencelab/live/internal/livetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// buildBinary builds fencelab-live into a test folder.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "fencelab-live")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
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
	livetest.NeedRedis(t)
	bin := buildBinary(t)
	t.Run("scripted run", func(t *testing.T) { testRunRedisScripted(t, bin) })
	t.Run("signals", func(t *testing.T) { testSignalsStopCleanly(t, bin) })
	t.Run("killed client", func(t *testing.T) { testKilledClient(t, bin) })
	t.Run("missing server", func(t *testing.T) { testMissingServer(t, bin) })
}

// clientPids lists the live client processes of bin.
func clientPids(t *testing.T, bin string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	var pids []int
	for _, e := range entries {
		exe, _ := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if exe == bin && strings.HasSuffix(string(cmdline), "\x00client\x00") && !strings.Contains(string(stat), ") Z ") {
			pid, err := strconv.Atoi(e.Name())
			require.NoError(t, err)
			pids = append(pids, pid)
		}
	}
	return pids
}

// testKilledClient: a client process killed from outside mid-run is a
// harness error: one line naming it, exit 2, nothing left behind.
func testKilledClient(t *testing.T, bin string) {
	tmp, out := t.TempDir(), t.TempDir()
	cmd := exec.Command(bin, "run", "--service", "redis", "--design", "all", "--fault", "client-pause", "--runs", "20", "--sections", "20", "--out", out)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	var pids []int
	require.Eventually(t, func() bool { pids = clientPids(t, bin); return len(pids) == 2 }, 20*time.Second, 5*time.Millisecond)
	require.NoError(t, syscall.Kill(pids[1], syscall.SIGKILL))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("fencelab-live did not stop within 30 s of a killed client")
	}
	assert.Equal(t, cli.ExitBadInput, cmd.ProcessState.ExitCode(), "stderr: %s", stderr.String())
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	assert.Contains(t, lines[len(lines)-1], "signal: killed")
	assert.Empty(t, leftovers(t, bin, tmp))
	entries, err := os.ReadDir(tmp)
	require.NoError(t, err)
	assert.Empty(t, entries, "data folders left behind")
}

// testMissingServer: without redis-server on the PATH, one line naming
// the Debian package, exit 2, before anything starts.
func testMissingServer(t *testing.T, bin string) {
	cmd := exec.Command(bin, "run", "--service", "redis", "--design", "all", "--runs", "1", "--out", t.TempDir())
	cmd.Env = append(os.Environ(), "PATH="+t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, cli.ExitBadInput, ee.ExitCode())
	assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "one line: %s", stderr.String())
	assert.Contains(t, stderr.String(), "redis-server")
	assert.Empty(t, stdout.String())
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

// testRunRedisScripted: the binary's own run of the fenced row, with the
// client that does not check its lease (the pause then makes two holders,
// as in the models' story), exits 0 (its violations of
// AtMostOneClientHoldLock and NoActionPastValidity are expected) and
// prints the live column.
func testRunRedisScripted(t *testing.T, bin string) {
	tmp, out := t.TempDir(), t.TempDir()
	cmd := exec.Command(bin, "run", "--service", "redis", "--design", "all", "--fault", "client-pause", "--runs", "2", "--sections", "2", "--client", "unchecked", "--out", out)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "stderr: %s", stderr.String())
	assert.Contains(t, stdout.String(), "AtMostOneClientHoldLock")
	assert.Contains(t, stdout.String(), "violated (2 of 2)")
	assert.Contains(t, stdout.String(), "held while the fault took effect in 2 of 2")
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	assert.Equal(t, "live: redis/all+unchecked under scripted client-pause, 2 runs: 2 properties violated as the models say, 0 unexpected, 0 expected but not shown; the fault took effect in 2 of 2",
		lines[len(lines)-1], "the closing verdict line, last on stdout")
	assert.Equal(t, 2, strings.Count(stderr.String(), "\n"), "a progress line per run: %s", stderr.String())
	assert.Empty(t, leftovers(t, bin, tmp))
}
