//go:build unix

package tlc

import (
	"errors"
	"os/exec"
	"syscall"
)

// ownGroup makes cmd the leader of a new process group, so that the java
// launcher and every process it starts can be killed together (killGroup):
// a launcher that forks leaves children holding TLC's output pipe, and
// killing the launcher alone would leave them running.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills cmd's process group with SIGKILL. A group that is gone
// already is not an error.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}
