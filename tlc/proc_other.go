//go:build !unix

package tlc

import "os/exec"

// ownGroup does nothing where there are no process groups: the process
// alone is killed (killGroup), and exec.Cmd.WaitDelay still bounds the wait
// for pipes a child of it holds open.
func ownGroup(cmd *exec.Cmd) {}

func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
