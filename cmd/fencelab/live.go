package main

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

// liveBinary is the live harness's binary: a module of its own (live/),
// so that the etcd server and the client libraries never weigh on this
// one; fencelab live runs it.
const liveBinary = "fencelab-live"

func liveCommand() command {
	return command{name: "live", summary: "real lock services under real faults, judged against the models (runs fencelab-live)", run: runLive}
}

const liveUsage = `Usage: fencelab live <command> [flags]

Runs fencelab-live (found beside fencelab, else on PATH) with the same arguments, and exits
with its code: real etcd, Redis, Redlock (5 Redis nodes), ZooKeeper and MariaDB, started on
127.0.0.1 for each run, each client its own process (a pause is a real SIGSTOP), real faults,
and every verdict beside the models' verdict of the design row the setup instantiates.

Commands of fencelab-live:
  run      runs of one setup under one fault (--service, --design, --fault, --runs, --nemesis, --out)
  matrix   every setup under each of its classic faults, as make live (--service, --runs, --out,
           --update-readme FILE)
  readme   the README's live block from a matrix's --out folder (--out DIR FILE)
  list     the setups, the rows they instantiate, their faults and the versions

Example:
  fencelab live run --service redis --design none --fault client-pause

Run 'fencelab live <command> -h' for a command's flags.
Exit codes (fencelab-live's): 0 success (expected violations count as success), 1 a violation
where the models say the property holds, 2 bad input, a missing service or a harness error,
128+n stopped by signal n. make live builds fencelab-live (bin/, beside fencelab).
`

// passedExit is the exit code of a program fencelab ran in its place,
// which said what it had to say itself: exitCode prints nothing for it.
type passedExit struct{ code int }

func (p *passedExit) Error() string { return fmt.Sprintf("exit code %d", p.code) }

func runLive(e *env, args []string) error {
	if len(args) == 0 {
		return badInput("no live command given (want run, matrix, readme or list; fencelab live --help)")
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		if len(args) == 1 {
			fmt.Fprint(e.Stdout, liveUsage)
			return nil
		}
	}
	bin, err := findLive()
	if err != nil {
		return err
	}
	return runPassingThrough(e, bin, args)
}

// findLive finds fencelab-live beside this executable, then on PATH.
func findLive() (string, error) {
	if self, err := os.Executable(); err == nil {
		beside := filepath.Join(filepath.Dir(self), liveBinary)
		if info, err := os.Stat(beside); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			return beside, nil
		}
	}
	if bin, err := exec.LookPath(liveBinary); err == nil {
		return bin, nil
	}
	return "", badInput("%s is not beside fencelab nor on PATH: make live builds it as bin/%s (and runs the live matrix), or build it alone: cd live && go build -o ../bin/%s ./cmd/%s", liveBinary, liveBinary, liveBinary, liveBinary)
}

// runPassingThrough runs bin with args, fencelab's own standard streams
// and exit code: SIGINT and SIGTERM sent to fencelab are passed on to it
// (a terminal's Ctrl-C reaches both; the harness then stops what it
// started and exits 128+n), and fencelab waits for it to finish.
func runPassingThrough(e *env, bin string, args []string) error {
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, e.Stdout, e.Stderr
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return badInput("starting %s: %v", quote.S(bin), err)
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
					return &passedExit{code: 128 + int(ws.Signal())}
				}
				return &passedExit{code: exit.ExitCode()}
			}
			return fmt.Errorf("running %s: %w", quote.S(bin), err)
		}
	}
}
