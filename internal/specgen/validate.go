package specgen

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/tlc"
)

// Validate checks every row before anything is generated or written: a
// row that would give a cfg TLC reads otherwise than meant (a value that
// runs onto the next line, a negative bound, a count that is ignored), a
// cfg whose name the manifest loader refuses, or two models of one name,
// is an error naming the row, the model and what is wrong. Generate calls
// it first, and cmd/specgen before it records or writes anything.
func Validate(rows []Row) error {
	seen := map[string]string{} // model name → its design
	for _, r := range rows {
		if strings.TrimSpace(r.Design) == "" {
			return errors.New("a row without a design name")
		}
		for _, s := range r.Specs {
			if err := validateSpec(s); err != nil {
				return fmt.Errorf("design %s: spec %s: %w", r.Design, quote.Q(s.Module), err)
			}
			for _, tm := range s.Models {
				name := tm.Name(s)
				if err := validateModel(s, tm); err != nil {
					return fmt.Errorf("design %s: model %s: %w", r.Design, quote.Q(name), err)
				}
				if other, ok := seen[name]; ok {
					return fmt.Errorf("design %s: model %s declared twice (first in design %s)", r.Design, name, other)
				}
				seen[name] = r.Design
			}
		}
	}
	return nil
}

// validateSpec checks what a row gives a spec, for all its models.
func validateSpec(s impl.SpecModels) error {
	if err := identifier("module", s.Module); err != nil {
		return err
	}
	if err := tlc.ValidFileName(s.Module+".tla", ".tla"); err != nil {
		return fmt.Errorf("module: %w", err)
	}
	if s.Tag != "" && !nameChars(s.Tag) {
		return fmt.Errorf("tag %s: want letters, digits, '_' or '-'", quote.Q(s.Tag))
	}
	for _, f := range []struct{ what, value string }{{"specification", s.Specification}, {"symmetry", s.Symmetry}} {
		if err := optionalIdentifier(f.what, f.value); err != nil {
			return err
		}
	}
	names := map[string]bool{}
	for _, c := range s.Constants {
		if err := identifier("constant", c.Name); err != nil {
			return err
		}
		if c.Name == "Clients" {
			return errors.New("constant Clients is each model's, not the spec's")
		}
		if names[c.Name] {
			return fmt.Errorf("constant %s given twice", c.Name)
		}
		names[c.Name] = true
		if c.Value != "" {
			if err := constantValue(c); err != nil {
				return err
			}
		}
	}
	return nil
}

// validateModel checks one model of spec s.
func validateModel(s impl.SpecModels, tm impl.TLCModel) error {
	switch {
	case tm.Clients < 1 || tm.Clients > 9:
		return fmt.Errorf("clients %d: want 1 to 9", tm.Clients)
	case tm.Sections < 0:
		return fmt.Errorf("sections %d: want 0 (the spec's) or more", tm.Sections)
	case tm.Suffix != "" && !nameChars(tm.Suffix):
		return fmt.Errorf("suffix %s: want letters, digits, '_' or '-'", quote.Q(tm.Suffix))
	case strings.ContainsAny(tm.Note, "\r\n"):
		return errors.New("a note is one line")
	case hasControl(tm.Note):
		return fmt.Errorf("note %s holds a control character", quote.Q(tm.Note))
	}
	if err := tlc.ValidModelName(tm.Name(s)); err != nil {
		return err
	}
	for _, f := range []struct{ what, value string }{
		{"property", tm.Property}, {"violates", tm.Violates}, {"specification", tm.Specification},
		{"symmetry", tm.Symmetry}, {"constraint", tm.Constraint},
	} {
		if err := optionalIdentifier(f.what, f.value); err != nil {
			return err
		}
	}
	for i, inv := range tm.Invariants {
		if err := identifier("invariant", inv); err != nil {
			return err
		}
		if inv == "TypeInvariant" || slices.Contains(tm.Invariants[:i], inv) {
			return fmt.Errorf("invariant %s checked twice", inv)
		}
	}
	set := map[string]bool{}
	for _, c := range tm.Set {
		if set[c.Name] {
			return fmt.Errorf("sets %s twice", c.Name)
		}
		set[c.Name] = true
	}
	consts, err := modelConstants(s, tm)
	if err != nil {
		return err
	}
	for i, c := range consts {
		if c.Value == "" {
			return fmt.Errorf("constant %s has no value: the model must set it", c.Name)
		}
		if err := constantValue(c); err != nil {
			return err
		}
		// A timed bound (an integer in the row, or left for each model to
		// set) is a natural number of clock units.
		if row := s.Constants[i].Value; s.Timed && (row == "" || isInteger(row)) && !isNatural(c.Value) {
			return fmt.Errorf("timed bound %s = %s: want a whole number of clock units, 0 or more", c.Name, quote.Q(c.Value))
		}
	}
	return nil
}

// modelConstants are the spec's constants as model tm gives them: the
// row's, with the model's Set and Sections.
func modelConstants(s impl.SpecModels, tm impl.TLCModel) ([]impl.Constant, error) {
	consts := slices.Clone(s.Constants)
	set := func(c impl.Constant) error {
		for i := range consts {
			if consts[i].Name == c.Name {
				consts[i].Value = c.Value
				return nil
			}
		}
		return fmt.Errorf("sets %s, not a constant of %s's row", c.Name, s.Module)
	}
	for _, c := range tm.Set {
		if err := set(c); err != nil {
			return nil, err
		}
	}
	if tm.Sections > 0 {
		if err := set(impl.Constant{Name: "Sections", Value: strconv.Itoa(tm.Sections)}); err != nil {
			return nil, err
		}
	}
	return consts, nil
}

// constantValue checks a constant's value as the cfg writes it, after
// "Name = " on one line: no control character (a newline would put what
// follows on a line of its own, "INVARIANT TRUE"), no comment that would
// swallow the rest, and no negative count or bound (every integer constant
// of fencelab's specs is one).
func constantValue(c impl.Constant) error {
	switch v := c.Value; {
	case hasControl(v):
		return fmt.Errorf("constant %s = %s holds a control character (a value is one line)", c.Name, quote.Q(v))
	case strings.Contains(v, `\*`) || strings.Contains(v, "(*"):
		return fmt.Errorf("constant %s = %s holds a comment", c.Name, quote.Q(v))
	case negative.MatchString(v):
		return fmt.Errorf("constant %s = %s: counts and bounds are 0 or more", c.Name, quote.Q(v))
	}
	return nil
}

// negative is an integer below 0, as TLA+ writes it.
var negative = regexp.MustCompile(`^\s*-\s*[0-9]+\s*$`)

func isInteger(v string) bool {
	_, err := strconv.Atoi(strings.TrimSpace(v))
	return err == nil
}

func isNatural(v string) bool {
	if v == "" {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	return true
}

func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
}

// nameChars: one or more ASCII letters, digits, '_' or '-' (a part of a
// model's name).
func nameChars(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	})
}

// optionalIdentifier is identifier for a name that may be left out.
func optionalIdentifier(what, name string) error {
	if name == "" {
		return nil
	}
	return identifier(what, name)
}

// identifier checks a name the cfg gives TLC: a TLA+ identifier (ASCII
// letters, digits and '_', with a letter) that is no reserved word of
// TLA+ or of a cfg ("INVARIANT TRUE" checks nothing).
func identifier(what, name string) error {
	letter := false
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			letter = true
		case r >= '0' && r <= '9' || r == '_':
		default:
			return fmt.Errorf("%s %s: a TLA+ identifier is ASCII letters, digits and '_'", what, quote.Q(name))
		}
	}
	switch {
	case name == "":
		return fmt.Errorf("%s: the name is empty", what)
	case !letter:
		return fmt.Errorf("%s %s: a TLA+ identifier holds a letter", what, quote.Q(name))
	case reserved(name):
		return fmt.Errorf("%s %s is a reserved word", what, quote.Q(name))
	}
	return nil
}

// reserved reports the reserved words of TLA+ and the keywords of TLC's
// cfg files.
func reserved(name string) bool {
	switch name {
	case "ASSUME", "ASSUMPTION", "AXIOM", "BOOLEAN", "CASE", "CHOOSE", "CONSTANT", "CONSTANTS", "DOMAIN",
		"ELSE", "ENABLED", "EXCEPT", "EXTENDS", "FALSE", "IF", "IN", "INSTANCE", "LET", "LOCAL", "MODULE",
		"OTHER", "STRING", "SUBSET", "THEN", "THEOREM", "TRUE", "UNCHANGED", "UNION", "VARIABLE",
		"VARIABLES", "WITH", "LAMBDA", "RECURSIVE",
		"SPECIFICATION", "INIT", "NEXT", "INVARIANT", "INVARIANTS", "PROPERTY", "PROPERTIES",
		"CONSTRAINT", "CONSTRAINTS", "ACTION_CONSTRAINT", "ACTION_CONSTRAINTS", "SYMMETRY", "VIEW",
		"CHECK_DEADLOCK", "POSTCONDITION", "ALIAS":
		return true
	}
	return false
}
