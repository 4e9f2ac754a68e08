package conform

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

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
	first := out.States[0]
	for _, name := range Vars(c.Design) {
		if _, ok := variable(first, name); !ok {
			return other(fmt.Sprintf("the variables of design %s", c.Design), "no variable "+name)
		}
	}
	// The clients are the model's constants a counterexample shows from
	// its first state on (another model of the spec has 3 where this one
	// has 2); what they start as is the Go system's to match (Replay).
	w, err := impl.NewWorld(c)
	if err != nil {
		return err
	}
	abs, err := Abstract(w, c.Design)
	if err != nil {
		return err
	}
	goCommitted, err := tlc.ParseValue(abs[clientsVar])
	if err != nil {
		return fmt.Errorf("%s: the abstraction wrote %q: %w", clientsVar, abs[clientsVar], err)
	}
	printed, _ := variable(first, clientsVar)
	if want, got := domain(goCommitted), domain(printed); want != got {
		return other("clients "+want, "clients "+got)
	}
	return nil
}

// clientsVar is a variable of every design that maps each client to a
// number: its domain is the model's set of clients.
const clientsVar = "committed"

// variable is the value of variable name in st.
func variable(st tlc.State, name string) (tlc.Value, bool) {
	for _, a := range st.Vars {
		if a.Name == name {
			return a.Value, true
		}
	}
	return tlc.Value{}, false
}

// domain writes the domain of a function (or record) value, sorted, in
// canonical form: "{c1, c2}".
func domain(v tlc.Value) string {
	keys := make([]string, len(v.Fields))
	for i, f := range v.Fields {
		keys[i] = canonical(f.Key)
	}
	slices.Sort(keys)
	return "{" + strings.Join(keys, ", ") + "}"
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
