package tlc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/verdict"
)

// The results a model can be expected to give, named after TLC's exit codes.
const (
	ResultOK        = "ok"         // exit 0
	ResultAssume    = "assumption" // exit 10
	ResultDeadlock  = "deadlock"   // exit 11
	ResultInvariant = "invariant"  // exit 12
	ResultLiveness  = "liveness"   // exit 13
	ResultAssert    = "assert"     // exit 14
)

// ResultForExit names the result a TLC exit code stands for
// (tlc2/output/EC.java, ExitStatus).
func ResultForExit(code int) string {
	switch code {
	case 0:
		return ResultOK
	case 10:
		return ResultAssume
	case 11:
		return ResultDeadlock
	case 12:
		return ResultInvariant
	case 13:
		return ResultLiveness
	case 14:
		return ResultAssert
	case 75, 76, 77:
		return "evaluation error"
	case 150:
		return "spec parse error"
	case 151:
		return "config parse error"
	case 152:
		return "state space too large"
	case 153:
		return "system error"
	default:
		return fmt.Sprintf("error (exit %d)", code)
	}
}

// Manifest lists every model and the result TLC must give for it.
type Manifest struct {
	Comment string  `json:"comment,omitempty"`
	Models  []Model `json:"models"`
}

// Model is one TLC run: a spec, a cfg and the expected result.
type Model struct {
	Name string `json:"name"`
	Spec string `json:"spec"` // file name in the specs folder
	Cfg  string `json:"cfg"`  // file name in the specs folder
	// Design is the row of DESIGN.md's verdict table the model checks:
	// off (no tokens), or the fencing mode none, writes or all.
	Design string `json:"design"`
	// Family is "" for the untimed models, whose verdicts are DESIGN.md's
	// verdict table, or FamilyTimed for DistLockTimed.tla's, whose
	// verdicts follow from the bounds ("When a lease lock is safe without
	// fencing") and so may differ from the table's row for their design.
	Family string `json:"family,omitempty"`
	// Expected is ok, or the kind of failure: invariant, deadlock,
	// liveness, assert or assumption.
	Expected string `json:"expected"`
	// Property is the violated invariant or temporal property.
	Property string `json:"property,omitempty"`
	// DistinctStates is the distinct state count TLC reports for an ok
	// model, so that a changed state space is noticed.
	DistinctStates int64  `json:"distinct_states,omitempty"`
	Note           string `json:"note,omitempty"`
}

// FamilyTimed marks the models of the timed spec (Model.Family).
const FamilyTimed = "timed"

func knownDesign(name string) bool {
	_, err := impl.ParseDesign(name)
	return err == nil
}

// LoadManifest reads and validates a models manifest.
func LoadManifest(path string) (*Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the models manifest: %w", err)
	}
	return ParseManifest(data)
}

// ParseManifest parses and validates a manifest: unknown fields, duplicate
// names, an unknown expected result, an ok model without a state count or
// a violation without its property are errors.
func ParseManifest(data []byte) (*Manifest, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("models manifest: %w", err)
	}
	if len(m.Models) == 0 {
		return nil, fmt.Errorf("models manifest: no models")
	}
	seen := map[string]bool{}
	for i, mod := range m.Models {
		where := fmt.Sprintf("models manifest: model %d (%q)", i+1, mod.Name)
		switch {
		case mod.Name == "" || mod.Spec == "" || mod.Cfg == "":
			return nil, fmt.Errorf("%s: name, spec and cfg are required", where)
		case !knownDesign(mod.Design):
			return nil, fmt.Errorf("%s: design must be off, none, writes or all, got %q", where, mod.Design)
		case mod.Family != "" && mod.Family != FamilyTimed:
			return nil, fmt.Errorf("%s: family must be empty or %q, got %q", where, FamilyTimed, mod.Family)
		case seen[mod.Name]:
			return nil, fmt.Errorf("%s: duplicate name", where)
		case mod.Expected == ResultOK && mod.DistinctStates <= 0:
			return nil, fmt.Errorf("%s: an ok model needs distinct_states", where)
		case mod.Expected == ResultOK && mod.Property != "":
			return nil, fmt.Errorf("%s: an ok model violates no property", where)
		case (mod.Expected == ResultInvariant || mod.Expected == ResultLiveness) && mod.Property == "":
			return nil, fmt.Errorf("%s: a %s violation needs its property", where, mod.Expected)
		}
		switch mod.Expected {
		case ResultOK, ResultAssume, ResultDeadlock, ResultInvariant, ResultLiveness, ResultAssert:
		default:
			return nil, fmt.Errorf("%s: unknown expected result %q", where, mod.Expected)
		}
		seen[mod.Name] = true
	}
	return &m, nil
}

// Select returns the model called name, or every model when name is "".
func (m *Manifest) Select(name string) ([]Model, error) {
	if name == "" {
		return m.Models, nil
	}
	var names []string
	for _, mod := range m.Models {
		if mod.Name == name {
			return []Model{mod}, nil
		}
		names = append(names, mod.Name)
	}
	return nil, fmt.Errorf("no model %q in the manifest (models: %s)", name, strings.Join(names, ", "))
}

// ExpectedText is the expected result as the summary table prints it.
func (m Model) ExpectedText() string {
	return resultText(m.Expected, m.Property)
}

func resultText(result, property string) string {
	if property == "" {
		return result
	}
	return result + " " + property
}

// Got is what a TLC run gave.
type Got struct {
	ExitCode int
	// Result is named after the exit code (ResultForExit).
	Result string
	// Property is the violated invariant TLC named, or for a liveness
	// violation the cfg's single PROPERTY (TLC does not name it).
	Property string
	// Distinct and Depth are TLC's figures; -1 when not reported.
	Distinct int64
	Depth    int
	// Stale lists why the committed PlusCal translation is out of date.
	Stale []string
}

// Text is the result as the summary table prints it.
func (g Got) Text() string {
	return resultText(g.Result, g.Property)
}

// Judge compares a run with the manifest: the exit code's result, the
// violated property's name, and for ok models the distinct state count
// must all match; a stale translation always fails. It returns "" when
// the run matches, else why it does not.
func Judge(m Model, g Got) string {
	switch {
	case len(g.Stale) > 0:
		return "stale PlusCal translation: " + strings.Join(g.Stale, "; ")
	case g.Result != m.Expected:
		return fmt.Sprintf("expected %s, TLC gave %s (exit %d)", m.ExpectedText(), g.Text(), g.ExitCode)
	case m.Expected == ResultOK && g.Distinct != m.DistinctStates:
		return fmt.Sprintf("TLC found %d distinct states, the manifest says %d", g.Distinct, m.DistinctStates)
	case m.Property != "" && g.Property != m.Property:
		got := g.Property
		if got == "" {
			got = "an unnamed property"
		}
		return fmt.Sprintf("expected %s to be violated, TLC reported %s", m.Property, got)
	}
	return ""
}

// Deadlock is the property TLC's deadlock check violates (exit 11), named
// as the explorer names its deadlock check.
const Deadlock = "Deadlock"

// Verdicts is what a run that gave g says about the properties the model
// checks (invariants: its cfg's INVARIANTs), in package verdict's terms:
// an ok run — every invariant Holds over its distinct states; an invariant
// or liveness violation — that property is Violated, by a counterexample
// of steps actions (TLC stops there: the other properties are left
// unjudged); a deadlock — Deadlock is Violated; a stale translation or any
// other result (a parse or system error) — every invariant is Unknown, the
// Detail saying why.
func Verdicts(g Got, invariants []string, steps int) verdict.Set {
	var s verdict.Set
	every := func(v verdict.Verdict) {
		for _, inv := range invariants {
			v.Property = inv
			s = append(s, v)
		}
	}
	switch {
	case len(g.Stale) > 0:
		every(verdict.Verdict{Status: verdict.Unknown, Detail: "stale PlusCal translation: " + strings.Join(g.Stale, "; ")})
	case g.Result == ResultOK:
		every(verdict.Verdict{Status: verdict.Holds, Covered: verdict.Thousands(int(g.Distinct)) + " states"})
	case (g.Result == ResultInvariant || g.Result == ResultLiveness) && g.Property != "":
		s = append(s, verdict.Verdict{Property: g.Property, Status: verdict.Violated, Shortest: steps})
	case g.Result == ResultDeadlock:
		s = append(s, verdict.Verdict{Property: Deadlock, Status: verdict.Violated, Shortest: steps})
	default:
		every(verdict.Verdict{Status: verdict.Unknown, Detail: fmt.Sprintf("TLC gave %s (exit %d)", g.Text(), g.ExitCode)})
	}
	return s
}

// NotRun is the verdicts of a model TLC could not run: every invariant
// Unknown, for the reason given.
func NotRun(why string, invariants []string) verdict.Set {
	var s verdict.Set
	for _, inv := range invariants {
		s = append(s, verdict.Verdict{Property: inv, Status: verdict.Unknown, Detail: "TLC not run: " + why})
	}
	return s
}

// Outcome is one model's run, judged: what TLC gave, whether that matches
// the manifest, and the verdicts it reached.
type Outcome struct {
	Model Model
	// Got is TLC's result as text (Got.Text), or "not run".
	Got string
	// Distinct and Depth are TLC's figures; -1 when not reported.
	Distinct int64
	Depth    int
	Wall     time.Duration
	// Mismatch says why the run differs from the manifest (Judge); empty
	// when it matches.
	Mismatch string
	Verdicts verdict.Set
}

// CfgProperties lists the PROPERTY/PROPERTIES names of a TLC config.
func CfgProperties(cfg string) []string {
	return cfgSection(cfg, "PROPERTY", "PROPERTIES")
}

// CfgInvariants lists the INVARIANT/INVARIANTS names of a TLC config.
func CfgInvariants(cfg string) []string {
	return cfgSection(cfg, "INVARIANT", "INVARIANTS")
}

// cfgSection lists the names that follow either keyword in a TLC config,
// up to the next keyword, skipping \* comments.
func cfgSection(cfg, singular, plural string) []string {
	var names []string
	in := false
	for _, line := range strings.Split(cfg, "\n") {
		if i := strings.Index(line, `\*`); i >= 0 {
			line = line[:i]
		}
		for _, f := range strings.Fields(line) {
			switch f {
			case singular, plural:
				in = true
			case "PROPERTY", "PROPERTIES", "INVARIANT", "INVARIANTS", "CONSTANT", "CONSTANTS", "SPECIFICATION", "INIT", "NEXT",
				"SYMMETRY", "VIEW", "CONSTRAINT", "CONSTRAINTS", "ACTION_CONSTRAINT", "ACTION_CONSTRAINTS",
				"CHECK_DEADLOCK", "POSTCONDITION", "ALIAS":
				in = false
			default:
				if in {
					names = append(names, f)
				}
			}
		}
	}
	return names
}
