// Package pipeline is what fencelab's commands do once their flags are
// read: the demo's three checkers and its conformance, conform's plan,
// TLC's manifest scheduling, the simulator's batches and replays, the
// sweep, the explorer's runs, and where all of them save their files. It
// prints to the Env it is given and never reads flags, so every command's
// work runs, and is tested, without building the binary; cmd/fencelab
// keeps the flags, the usage texts and the exit codes' one line.
//
// Its errors carry the exit code they stand for (ExitError): bad input or
// a missing tool (BadInput, CouldNotSave, NothingChecked) exit 2, an
// unexpected verdict or a failed check (Failed) exits 1, a signal
// (Stopped) 128+n.
package pipeline

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/fencelab/fencelab/internal/atomicfile"
)

// Exit codes, documented in the README and in 'fencelab --help'.
const (
	ExitOK       = 0
	ExitFailure  = 1 // an unexpected verdict or a failed check
	ExitBadInput = 2 // bad flags, values or files, or a missing tool
)

// Env is what a command may touch of the outside world.
type Env struct {
	Stdout, Stderr io.Writer
	// Terminal is true when Stderr is a terminal, so progress bars make sense.
	Terminal bool
	// Disk is where saved files go: nil, the real one; a test's full disk.
	Disk *atomicfile.Disk
}

// ExitError carries the exit code a failure stands for.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// BadInput reports bad flags, values or files, or a missing tool: exit 2.
func BadInput(format string, args ...any) error {
	return &ExitError{Code: ExitBadInput, Err: fmt.Errorf(format, args...)}
}

// Failed reports an unexpected verdict or a failed check: exit 1.
func Failed(format string, args ...any) error {
	return &ExitError{Code: ExitFailure, Err: fmt.Errorf(format, args...)}
}

// IsBadInput reports whether err stands for exit code 2.
func IsBadInput(err error) bool {
	var ee *ExitError
	return errors.As(err, &ee) && ee.Code == ExitBadInput
}

// NothingChecked is the error of a command that would check nothing: no
// model, no trace, no run. Nothing checked is never success (exit 0) nor
// a failed check (exit 1): it is bad input, exit 2, saying why.
func NothingChecked(why string, args ...any) error {
	return BadInput("nothing to check: "+why, args...)
}

// OneLine joins a multi-line message so bad input is always one line.
func OneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}
