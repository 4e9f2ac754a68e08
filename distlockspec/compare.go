package distlockspec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/tlc"
)

// CheckShape compares the first state of a counterexample TLC printed with
// the Go configuration c it is meant to be a model of: it has the
// variables of c's design, and c's clients (the model's constants a
// counterexample shows from its first state on: another model of the
// spec has 3 where this one has 2). It returns what c expects and what
// first shows, equal when they match; what the clients start as is the Go
// system's to match (SameState), not checked here. The error is the
// abstraction's, for a configuration no spec models.
func CheckShape(first tlc.State, c impl.Config) (expected, found string, err error) {
	for _, name := range Vars(c.Design) {
		if _, ok := first.Var(name); !ok {
			return fmt.Sprintf("the variables of design %s", c.Design), "no variable " + name, nil
		}
	}
	w, err := impl.NewWorld(c)
	if err != nil {
		return "", "", err
	}
	abs, err := Abstract(w, c.Design)
	if err != nil {
		return "", "", err
	}
	goCommitted, err := tlc.ParseValue(abs[clientsVar])
	if err != nil {
		return "", "", fmt.Errorf("%s: the abstraction wrote %q: %w", clientsVar, abs[clientsVar], err)
	}
	printed, _ := first.Var(clientsVar)
	return "clients " + domain(goCommitted), "clients " + domain(printed), nil
}

// clientsVar is a variable of every design that maps each client to a
// number: its domain is the model's set of clients.
const clientsVar = "committed"

// domain writes the domain of a function (or record) value, sorted, in
// canonical form: "{c1, c2}".
func domain(v tlc.Value) string {
	keys := make([]string, len(v.Fields))
	for i, f := range v.Fields {
		keys[i] = Canonical(f.Key)
	}
	slices.Sort(keys)
	return "{" + strings.Join(keys, ", ") + "}"
}

// SameState compares w's abstraction with the state TLC printed, variable
// by variable, after both are put in one canonical form (TLC prints model
// values, functions and records in its own order; Abstract writes
// strings and records). Every variable TLC printed is compared: one the
// abstraction does not map (a variable added to the spec and not to Vars)
// is a difference, never skipped.
func SameState(w *impl.World, d impl.Design, st tlc.State) error {
	s, err := Abstract(w, d)
	if err != nil {
		return err
	}
	vars := Vars(d)
	for _, a := range st.Vars {
		if !slices.Contains(vars, a.Name) {
			return fmt.Errorf("%s is a variable of TLC's state the abstraction does not map: the replay would be blind to it", quote.Q(a.Name))
		}
	}
	for _, name := range vars {
		printed, ok := st.Var(name)
		if !ok {
			return fmt.Errorf("TLC's state has no variable %s", name)
		}
		goVal, err := tlc.ParseValue(s[name])
		if err != nil {
			return fmt.Errorf("%s: the abstraction wrote %s: %w", name, quote.Q(s[name]), err)
		}
		if g, t := Canonical(goVal), Canonical(printed); g != t {
			return fmt.Errorf("%s is %s in Go, %s in TLC's state", name, g, t)
		}
	}
	return nil
}

// Canonical writes v so that two values TLA+ calls equal write the same:
// model values as strings (the trace modules bind clients to strings),
// records and functions as one sorted map, sets sorted.
func Canonical(v tlc.Value) string {
	switch v.Kind {
	case tlc.KindModel, tlc.KindString:
		return fmt.Sprintf("%q", v.Str)
	case tlc.KindRecord, tlc.KindFunction:
		pairs := make([]string, len(v.Fields))
		for i, f := range v.Fields {
			pairs[i] = Canonical(f.Key) + " |-> " + Canonical(f.Val)
		}
		slices.Sort(pairs)
		return "[" + strings.Join(pairs, ", ") + "]"
	case tlc.KindSet:
		elems := make([]string, len(v.Elems))
		for i, e := range v.Elems {
			elems[i] = Canonical(e)
		}
		slices.Sort(elems)
		return "{" + strings.Join(elems, ", ") + "}"
	case tlc.KindSeq:
		elems := make([]string, len(v.Elems))
		for i, e := range v.Elems {
			elems[i] = Canonical(e)
		}
		return "<<" + strings.Join(elems, ", ") + ">>"
	}
	return v.String()
}
