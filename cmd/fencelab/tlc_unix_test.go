//go:build unix

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fencelab/fencelab/internal/faketlc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// buildFencelab builds the command once per test into a scratch folder.
func buildFencelab(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary: skipped in -short mode")
	}
	bin := filepath.Join(t.TempDir(), "fencelab")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, string(out))
	return bin
}

// processAlive: a zombie has exited, it only waits to be reaped.
func processAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// TestTLCSignalStopsTLCAndCleansUp: SIGINT or SIGTERM to fencelab tlc
// while TLC runs — here a fake java whose child holds the output open and
// sleeps — kills TLC's whole process group, removes every temporary folder
// fencelab made, leaves no temporary folder in --out, and exits with
// 128+signal after one line on stderr.
func TestTLCSignalStopsTLCAndCleansUp(t *testing.T) {
	bin := buildFencelab(t)
	for _, tc := range []struct {
		sig  syscall.Signal
		name string
	}{{syscall.SIGINT, "SIGINT"}, {syscall.SIGTERM, "SIGTERM"}} {
		t.Run(tc.name, func(t *testing.T) {
			pids := filepath.Join(t.TempDir(), "pids")
			fake := faketlc.New(t, `echo $$ >> "$PIDS"; sleep 1000 & echo $! >> "$PIDS"; sleep 1000`, "exit 0")
			specs := faketlc.Specs(t)
			tmp := t.TempDir()
			out := filepath.Join(t.TempDir(), "out")
			cmd := exec.Command(bin, "tlc", "--pin", mustAbs(t, "../../tla2tools.version"), "--specs", specs, "--out", out)
			cmd.Env = cleanEnv(t, "TMPDIR="+tmp, "PIDS="+pids)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			require.NoError(t, cmd.Start())
			waited := make(chan error, 1)
			go func() { waited <- cmd.Wait() }()

			// Wait until TLC (the fake) and its child are running.
			deadline := time.Now().Add(30 * time.Second)
			for {
				data, _ := os.ReadFile(pids)
				if strings.Count(string(data), "\n") >= 2 {
					break
				}
				if time.Now().After(deadline) {
					_ = cmd.Process.Kill()
					<-waited // stderr is safe to read once fencelab has exited
					t.Fatalf("the fake TLC never started; stderr: %s", stderr.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
			require.NoError(t, cmd.Process.Signal(tc.sig))
			var err error
			select {
			case err = <-waited:
			case <-time.After(60 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("fencelab did not stop after %s", tc.name)
			}
			var exit *exec.ExitError
			require.True(t, errors.As(err, &exit), "exit: %v", err)
			assert.Equal(t, 128+int(tc.sig), exit.ExitCode())
			assert.Equal(t, "fencelab tlc: interrupted by "+tc.name+": TLC stopped, its temporary folders removed\n", lastLine(stderr.String()))
			assert.Equal(t, []string{"pcal.trans", "tlc2.TLC"}, fake.Runs(t))

			data, err := os.ReadFile(pids)
			require.NoError(t, err)
			for _, f := range strings.Fields(string(data)) {
				pid, err := strconv.Atoi(f)
				require.NoError(t, err)
				for end := time.Now().Add(10 * time.Second); processAlive(pid) && time.Now().Before(end); {
					time.Sleep(20 * time.Millisecond)
				}
				assert.False(t, processAlive(pid), "process %d of TLC's group is left running", pid)
			}
			left, err := os.ReadDir(tmp)
			require.NoError(t, err)
			assert.Empty(t, left, "temporary folders left behind")
			if entries, err := os.ReadDir(out); err == nil {
				for _, e := range entries {
					assert.False(t, strings.HasPrefix(e.Name(), "."), "temporary %s left in --out", e.Name())
				}
			}
		})
	}
}

func lastLine(s string) string {
	lines := strings.SplitAfter(strings.TrimSuffix(s, "\n"), "\n")
	return lines[len(lines)-1] + "\n"
}
