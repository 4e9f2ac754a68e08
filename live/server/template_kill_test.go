package server

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// templateChildEnv makes TestMariaDBTemplateChild prepare a template in
// the folder it names: the child process the test below kills.
const templateChildEnv = "FENCELAB_TEMPLATE_CHILD_DIR"

// TestMariaDBTemplateChild is not a test of its own: run by
// TestKilledTemplateStepLeavesNoProcess in a child process, it prepares
// a template and is killed while doing so.
func TestMariaDBTemplateChild(t *testing.T) {
	dir := os.Getenv(templateChildEnv)
	if dir == "" {
		t.Skip("only as the child of TestKilledTemplateStepLeavesNoProcess")
	}
	_, _ = PrepareMariaDBTemplate(context.Background(), dir)
}

// processesMentioning lists the live processes whose command line
// holds s.
func processesMentioning(s string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !bytes.Contains(b, []byte(s)) {
			continue
		}
		if _, state, ok := procGroup(pid); ok && state != "Z" {
			pids = append(pids, pid)
		}
	}
	return pids
}

// A harness killed (SIGKILL: no clean-up runs) while mariadb-install-db
// prepares its template leaves neither the script nor the bootstrap
// mariadbd it started running.
func TestKilledTemplateStepLeavesNoProcess(t *testing.T) {
	if err := MariaDBInstalled(); err != nil {
		t.Skip(err.Error())
	}
	dir := filepath.Join(t.TempDir(), "template")
	self, err := os.Executable()
	require.NoError(t, err)
	child := exec.Command(self, "-test.run=^TestMariaDBTemplateChild$", "-test.count=1")
	child.Env = append(os.Environ(), templateChildEnv+"="+dir)
	require.NoError(t, child.Start())
	t.Cleanup(func() {
		// Whatever the test saw, nothing of the step outlives it.
		for _, pid := range processesMentioning(dir) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	// Wait, bounded, for the bootstrap server: the step is under way.
	datadir := "--datadir=" + filepath.Join(dir, "data")
	deadline := time.Now().Add(60 * time.Second)
	for {
		if bootstrapRunning(datadir) {
			break
		}
		if time.Now().After(deadline) {
			_ = child.Process.Kill()
			_ = child.Wait()
			t.Fatal("the template step's bootstrap mariadbd never showed up")
		}
		time.Sleep(time.Millisecond)
	}
	require.NoError(t, child.Process.Signal(syscall.SIGKILL))
	_ = child.Wait()
	// The kernel ends them on the child's death; give it a bound that
	// the bootstrap's own end (about 10 s, when its input closes) is far
	// beyond.
	gone := time.Now().Add(3 * time.Second)
	for len(processesMentioning(datadir)) > 0 && time.Now().Before(gone) {
		time.Sleep(5 * time.Millisecond)
	}
	require.Empty(t, processesMentioning(datadir), "processes of the killed template step still running")
}

// bootstrapRunning says whether a mariadbd --bootstrap of datadir runs.
func bootstrapRunning(datadir string) bool {
	for _, pid := range processesMentioning(datadir) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if err == nil && bytes.Contains(b, []byte("--bootstrap")) {
			return true
		}
	}
	return false
}
