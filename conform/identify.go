package conform

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/fencelab/fencelab/distlockspec"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/tlc"
)

// ErrOtherOutput marks a TLC output that is not the output of the model
// it was given for: another spec's (a DieHard output), another property's,
// or a model of other constants (its initial state is not the model's).
// Such an output says nothing about the Go system: given by the user
// (conform --replay-from) it is bad input, never a departure.
var ErrOtherOutput = errors.New("not the model's TLC output")

// OtherOutputError says what a model's output was expected to show and
// what the output given shows instead.
type OtherOutputError struct {
	Model, Expected, Found string
}

func (e *OtherOutputError) Error() string {
	return fmt.Sprintf("not model %s's TLC output: expected %s, found %s", e.Model, e.Expected, e.Found)
}

func (e *OtherOutputError) Unwrap() error { return ErrOtherOutput }

// maxFound bounds what an OtherOutputError echoes of the output.
const maxFound = 120

// identify checks that out is model m's output, c its Go configuration:
// the spec TLC parsed is m's (when the output names it), the violation is
// the one m expects, its states have the variables of m's design, and its
// clients are m's. What the initial state holds is the Go system's to
// match: a difference there is a departure (Replay), not another model.
func identify(m tlc.Model, c impl.Config, out *tlc.Output) error {
	other := func(expected, found string) error {
		return &OtherOutputError{Model: m.Name, Expected: expected, Found: bounded(found)}
	}
	if spec := strings.TrimSuffix(m.Spec, ".tla"); out.Module != "" && out.Module != spec {
		return other("spec "+spec, "spec "+out.Module)
	}
	if want, got := expectedViolation(m), foundViolation(out); want != got {
		return other(want, got)
	}
	if len(out.States) == 0 {
		return other(expectedViolation(m)+" with its counterexample", "no counterexample")
	}
	want, got, err := distlockspec.CheckShape(out.States[0], c)
	if err != nil {
		return err
	}
	if want != got {
		return other(want, got)
	}
	return nil
}

// expectedViolation is the violation model m expects, in the words of
// foundViolation.
func expectedViolation(m tlc.Model) string {
	switch m.Expected {
	case tlc.ResultInvariant:
		return "invariant " + m.Property + " violated"
	case tlc.ResultLiveness:
		return "a temporal property violated"
	case tlc.ResultDeadlock:
		return "a deadlock"
	}
	return m.Expected
}

// foundViolation is the violation out reports.
func foundViolation(out *tlc.Output) string {
	switch {
	case out.Invariant != "":
		return "invariant " + out.Invariant + " violated"
	case out.Temporal:
		return "a temporal property violated"
	case out.Deadlock:
		return "a deadlock"
	case out.Failure != nil:
		return out.Failure.Kind + " failure"
	}
	return "no violation"
}

// bounded cuts s to maxFound bytes at a rune boundary, marking the cut.
func bounded(s string) string {
	if len(s) <= maxFound {
		return s
	}
	n := maxFound
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
