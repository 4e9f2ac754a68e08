package pipeline

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/fencelab/fencelab/internal/quote"
)

// LiveBinary is the live harness's binary: a module of its own (live/),
// so that the etcd server and the client libraries never weigh on this
// one; fencelab live runs it.
const LiveBinary = "fencelab-live"

// PassedExit is the exit code of a program fencelab ran in its place,
// which said what it had to say itself: fencelab prints nothing for it
// and exits with Code.
type PassedExit struct{ Code int }

func (p *PassedExit) Error() string { return fmt.Sprintf("exit code %d", p.Code) }

// Live runs fencelab-live, found beside this executable or on PATH, with
// args, and returns its exit code as a PassedExit.
func Live(e *Env, args []string) error {
	bin, err := findLive()
	if err != nil {
		return err
	}
	return runPassingThrough(e, bin, args)
}

// findLive finds fencelab-live beside this executable, then on PATH.
func findLive() (string, error) {
	if self, err := os.Executable(); err == nil {
		beside := filepath.Join(filepath.Dir(self), LiveBinary)
		if info, err := os.Stat(beside); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			return beside, nil
		}
	}
	if bin, err := exec.LookPath(LiveBinary); err == nil {
		return bin, nil
	}
	return "", BadInput("%s is not beside fencelab nor on PATH: make live builds it as bin/%s (and runs the live matrix), or build it alone: cd live && go build -o ../bin/%s ./cmd/%s", LiveBinary, LiveBinary, LiveBinary, LiveBinary)
}

// runPassingThrough runs bin with args, fencelab's own standard streams
// and exit code: SIGINT, SIGTERM and SIGHUP sent to fencelab are passed on
// to it (a terminal's Ctrl-C reaches both; the harness then stops what it
// started and exits 128+n), and fencelab waits for it to finish. If
// fencelab is killed outright, the child gets SIGTERM (endWithParent).
func runPassingThrough(e *Env, bin string, args []string) error {
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, e.Stdout, e.Stderr
	endWithParent(cmd)
	sigs := make(chan os.Signal, 3)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return BadInput("starting %s: %v", quote.S(bin), err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case s := <-sigs:
			_ = cmd.Process.Signal(s)
		case err := <-done:
			var exit *exec.ExitError
			switch {
			case err == nil:
				return nil
			case errors.As(err, &exit):
				if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					return &PassedExit{Code: 128 + int(ws.Signal())}
				}
				return &PassedExit{Code: exit.ExitCode()}
			}
			return fmt.Errorf("running %s: %w", quote.S(bin), err)
		}
	}
}
