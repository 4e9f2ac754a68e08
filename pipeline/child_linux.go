package pipeline

import (
	"os/exec"
	"syscall"
)

// endWithParent asks the kernel to send cmd SIGTERM when fencelab dies
// without passing a signal on (SIGKILL, a crash): the child then stops
// what it started and cleans up as it does on SIGTERM, instead of running
// on with nobody waiting for it. The kernel sends it when the OS thread
// that started the child ends; Go ends a thread only when a goroutine
// locked to it exits locked, which fencelab's commands never do.
func endWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
