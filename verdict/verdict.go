// Package verdict is fencelab's one vocabulary for what a checker found
// about a property.
//
// Every runtime speaks it: TLC on the specs (package tlc), the explorer on
// the Go code (package explore), the simulator under faults (package sim)
// and Porcupine on the simulator's histories (package linearizability). A
// Verdict is keyed by the property's name — impl's invariant names, the
// explorer's Deadlock, the Porcupine checks' names — never by a position,
// so that the verdicts of several checkers join on (design, property,
// checker) instead of being translated into one another. DESIGN.md's
// expected table (impl.Expected) is written in the same Status.
//
// The package imports nothing from the project, so that impl (and
// everything above it) can import it; the tables that show verdicts live
// in package report, on top of the runtimes.
package verdict

import "fmt"

// Status is a property's outcome.
type Status uint8

// Statuses. The zero Status is NotChecked: a verdict nobody reached says so.
const (
	// NotChecked: the property was left out of the run.
	NotChecked Status = iota
	// NotApplicable: the property is meaningless in the design
	// (TokenIsMonotonical without tokens): DESIGN.md's "—".
	NotApplicable
	// Holds: no counterexample, over everything the checker covered.
	Holds
	// Violated: the checker found a counterexample.
	Violated
	// Unknown: the checker could not decide — the search stopped early,
	// Porcupine timed out, TLC did not run or gave an unrelated error. The
	// verdict's Detail says which. Unknown never counts as Holds.
	Unknown
)

func (s Status) String() string {
	switch s {
	case NotChecked:
		return "not checked"
	case NotApplicable:
		return "—"
	case Holds:
		return "holds"
	case Violated:
		return "violated"
	case Unknown:
		return "unknown"
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

// Verdict is one property's outcome, as one checker reached it.
type Verdict struct {
	Property string
	Status   Status
	// Covered says what a verdict covered, for people: "3,744 states",
	// "1000 runs, 14,939 sections committed".
	Covered string
	// Shortest is the number of actions of the shortest counterexample
	// found, when Violated (0: the checker does not measure it, or the
	// initial state violates the property). People read it as Steps.
	Shortest int
	// Runs and Violating count the runs that judged the property and
	// those that violated it (the simulator; 0 for exhaustive checkers).
	Runs, Violating int
	// Detail is anything else worth saying: why a verdict is Unknown, for
	// instance.
	Detail string
}

// Agrees reports whether v is the expected status. Only a reached verdict —
// Holds, Violated or NotApplicable — can agree: an Unknown or NotChecked
// verdict agrees with nothing.
func (v Verdict) Agrees(want Status) bool {
	switch v.Status {
	case Holds, Violated, NotApplicable:
		return v.Status == want
	}
	return false
}

// Steps is the length of the shortest counterexample as every table
// and trace of fencelab counts it (docs/design/architecture.md, "Steps"): steps are numbered
// as TLC numbers the states of a trace — step 1 is the initial state, each
// action one more — so a counterexample of Shortest actions is Shortest+1
// steps long, and a table's "8 steps" is its trace's "violated at step 8".
// 0 when v is not a violation.
func (v Verdict) Steps() int {
	if v.Status != Violated {
		return 0
	}
	return v.Shortest + 1
}

// Agreement is how a verdict compares with the expected status.
type Agreement uint8

// Agreements.
const (
	// Agree: the verdict is the expected one.
	Agree Agreement = iota
	// Disagree: the verdict contradicts the expected one.
	Disagree
	// NotFound: a violation is expected and a sampling checker (the
	// simulator: Runs > 0) found none. Its runs did not contradict the
	// expectation — a violation may need more runs, or other faults — but
	// they did not confirm it either: it is not agreement.
	NotFound
	// Undecided: the verdict was not reached (Unknown, NotChecked).
	Undecided
)

// Against compares v with the expected status want. Only a sampling
// checker can leave an expected violation NotFound: an exhaustive one
// (Runs == 0) that says Holds has covered every behaviour and disagrees.
func (v Verdict) Against(want Status) Agreement {
	switch {
	case v.Status == NotChecked || v.Status == Unknown:
		return Undecided
	case v.Status == want:
		return Agree
	case v.Status == Holds && want == Violated && v.Runs > 0:
		return NotFound
	}
	return Disagree
}

// Versus says in words how v compares with the expected status want:
// "as expected", "expected violated, none found in 10 runs", "expected
// holds, violated in 3 of 10 runs", "unknown (…)".
func (v Verdict) Versus(want Status) string {
	switch v.Against(want) {
	case Agree:
		return "as expected"
	case NotFound:
		return fmt.Sprintf("expected %s, none found in %s", want, runs(v.Runs))
	case Undecided:
		return v.Status.String()
	}
	got := v.Status.String()
	if v.Status == Violated && v.Runs > 0 {
		got = fmt.Sprintf("violated in %d of %s", v.Violating, runs(v.Runs))
	}
	return fmt.Sprintf("expected %s, %s", want, got)
}

func runs(n int) string {
	if n == 1 {
		return "1 run"
	}
	return Thousands(n) + " runs"
}

func (v Verdict) String() string {
	s := v.Property + " " + v.Status.String()
	if v.Detail != "" {
		s += " (" + v.Detail + ")"
	}
	return s
}

// Set is the verdicts of one run, one per property, in the order the
// checker lists its properties.
type Set []Verdict

// Lookup returns the verdict on property.
func (s Set) Lookup(property string) (Verdict, bool) {
	for _, v := range s {
		if v.Property == property {
			return v, true
		}
	}
	return Verdict{}, false
}

// Get returns the verdict on property, NotChecked if s has none.
func (s Set) Get(property string) Verdict {
	if v, ok := s.Lookup(property); ok {
		return v
	}
	return Verdict{Property: property}
}

// Put sets the verdict on v.Property, replacing the one s has.
func (s *Set) Put(v Verdict) {
	for i := range *s {
		if (*s)[i].Property == v.Property {
			(*s)[i] = v
			return
		}
	}
	*s = append(*s, v)
}

// Thousands writes n with a comma every three digits, as Covered does:
// 1,147,658.
func Thousands(n int) string {
	if n < 0 {
		return "-" + Thousands(-n)
	}
	s := fmt.Sprint(n)
	var b []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, s[i])
	}
	return string(b)
}
