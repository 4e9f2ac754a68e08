package main

import (
	"github.com/fencelab/fencelab/internal/testexec"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fencelab/fencelab/pipeline"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// waitForFile waits, bounded, until path exists and returns its content.
func waitForFile(t *testing.T, path string, within time.Duration) string {
	t.Helper()
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			return string(b)
		}
	}
	t.Fatalf("%s did not appear within %v", path, within)
	return ""
}

// TestLiveEndsWithFencelab: fencelab-live must not outlive the front door.
// A signal fencelab can catch (SIGINT, SIGTERM, SIGHUP) is passed on as it
// is; SIGKILL of fencelab reaches the harness as SIGTERM (the parent-death
// signal), so it stops its campaign and cleans up instead of running on.
func TestLiveEndsWithFencelab(t *testing.T) {
	bin := buildFencelab(t)
	for _, tc := range []struct {
		send, want syscall.Signal
	}{
		{syscall.SIGKILL, syscall.SIGTERM},
		{syscall.SIGTERM, syscall.SIGTERM},
		{syscall.SIGHUP, syscall.SIGHUP},
		{syscall.SIGINT, syscall.SIGINT},
	} {
		t.Run(tc.send.String(), func(t *testing.T) {
			dir := t.TempDir()
			// Beside fencelab, as make live puts it: a harness that says
			// which signal ended it, and otherwise ends by itself in 60 s.
			front := filepath.Join(dir, "fencelab")
			require.NoError(t, os.Link(bin, front))
			script := "#!/bin/sh\n" +
				"for s in TERM HUP INT; do trap \"echo $s > '" + dir + "/got'; exit 0\" $s; done\n" +
				"echo $$ > '" + dir + "/pid'\n" +
				"i=0; while [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done\n"
			testexec.Write(t, filepath.Join(dir, pipeline.LiveBinary), []byte(script))
			cmd := exec.Command(front, "live", "run")
			require.NoError(t, cmd.Start())
			pid, err := strconv.Atoi(strings.TrimSpace(waitForFile(t, filepath.Join(dir, "pid"), 30*time.Second)))
			require.NoError(t, err)
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
			require.NoError(t, cmd.Process.Signal(tc.send))
			_ = cmd.Wait()
			got := strings.TrimSpace(waitForFile(t, filepath.Join(dir, "got"), 30*time.Second))
			assert.Equal(t, tc.want.String(), trapSignal(got))
		})
	}
}

// trapSignal turns the shell's trap name into Go's signal text.
func trapSignal(trap string) string {
	return map[string]string{"TERM": syscall.SIGTERM.String(), "HUP": syscall.SIGHUP.String(), "INT": syscall.SIGINT.String()}[trap]
}
