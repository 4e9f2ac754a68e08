package impl

import "strconv"

// SpecModels is one TLA+ spec as a design row instantiates it, with the TLC
// models the row checks on it. cmd/specgen (go generate ./...) writes a
// .cfg into specs/ for each model and lists every model in
// specs/models.json; nothing else declares them.
type SpecModels struct {
	// Module is the spec, a .tla file's stem in specs/ ("DistLockFencing").
	Module string
	// Tag is the row's part of the model names, Module_Tag_2c_...; "" for
	// none (the off row's DistLock_2c_...).
	Tag string
	// Constants are the values the row gives the spec's constants, in
	// the cfg's order, besides Clients (each model's, written first); a
	// model changes some (Set, Sections). An empty Value must be set by
	// every model.
	Constants []Constant
	// Specification is the SPECIFICATION formula; "" is Spec.
	Specification string
	// Symmetry is the SYMMETRY set of the models that check safety only
	// ("" for none); a model with a temporal property has none, since
	// symmetry is unsound for liveness.
	Symmetry string
	// Timed marks the timed spec's models, whose verdicts follow from their
	// bounds, not from the verdict table (models.json's family "timed").
	Timed  bool
	Models []TLCModel
}

// Constant is one constant of a cfg, Name = Value, Value in TLA+.
type Constant struct{ Name, Value string }

// TLCModel is one TLC run of a row's spec: its name, Module_Tag_<n>c,
// then _<s>s when it sets Sections, then _Suffix.
type TLCModel struct {
	Clients int
	// Sections, when above 0, sets the constant Sections and names the
	// model _<Sections>s.
	Sections int
	Suffix   string
	// Invariants are checked besides TypeInvariant (always first), in order.
	Invariants []string
	// Property is the temporal property checked ("" for none).
	Property string
	// Specification and Symmetry replace the spec's when not "".
	Specification string
	Symmetry      string
	// Constraint narrows the search (only a witness's may: its trace need
	// only exist).
	Constraint string
	// Set changes constants of the spec for this model (Timeouts, L...):
	// each must be one of the spec's Constants.
	Set []Constant
	// Violates is the property TLC must report violated; "" when the
	// model must pass (and its distinct state count is pinned in the
	// row's golden file). Violating the model's Property is a liveness
	// result, any other an invariant.
	Violates string
	// Variant marks a model whose constants change the system (no
	// timeouts, patient clients, a mutant service): its verdict is not the
	// table's (models.json's family "variant").
	Variant bool
	// Slow leaves the model out of the default run (make tlc, make demo):
	// TLC takes more than about a minute on it, or it is such a model's
	// witness.
	Slow bool
	// Note says what the model shows (the cfg's comment, models.json's
	// note).
	Note string
}

// Name is the model's name (and its cfg's stem) on spec s.
func (m TLCModel) Name(s SpecModels) string {
	name := s.Module
	if s.Tag != "" {
		name += "_" + s.Tag
	}
	name += "_" + strconv.Itoa(m.Clients) + "c"
	if m.Sections > 0 {
		name += "_" + strconv.Itoa(m.Sections) + "s"
	}
	if m.Suffix != "" {
		name += "_" + m.Suffix
	}
	return name
}

// The shapes most models take.

// violates is a model checking property alone, expected violated.
func violates(clients int, property, note string) TLCModel {
	return TLCModel{Clients: clients, Suffix: property, Invariants: []string{property}, Violates: property, Note: note}
}

// holds is a model checking invariants, expected to pass.
func holds(clients int, note string, invariants ...string) TLCModel {
	return TLCModel{Clients: clients, Invariants: invariants, Note: note}
}

// witness is the witness of a model with the same constants: property, a
// "sometimes" written as its negation, expected violated, so that the
// model's "holds" is not vacuous.
func witness(clients int, property, note string) TLCModel {
	return TLCModel{Clients: clients, Suffix: "Witness", Invariants: []string{property}, Violates: property, Note: note}
}

// liveness is a model checking invariants and that every client finishes
// under weak fairness, expected to pass.
func liveness(clients int, note string, invariants ...string) TLCModel {
	return TLCModel{Clients: clients, Suffix: "Liveness", Invariants: invariants, Property: "AllClientsFinish", Note: note}
}

// slow is m left out of the default run.
func (m TLCModel) slow() TLCModel {
	m.Slow = true
	return m
}

// The constants of each spec, as a row gives them.

func boolTLA(b bool) string {
	if b {
		return "TRUE"
	}
	return "FALSE"
}

// untimedConstants are the constants DistLock and DistLockFencing share:
// one retry, one section, timeouts and clients that give up (the table's
// system), the arrival validity rule.
func untimedConstants() []Constant {
	return []Constant{
		{"Service", "service"}, {"Resource", "resource"}, {"Validity", `"arrival"`}, {"InvalidId", "none"},
		{"MaxRetries", "1"}, {"Sections", "1"}, {"Timeouts", "TRUE"}, {"GiveUp", "TRUE"},
	}
}

// distLockConstants are DistLock.tla's (no tokens): renewals is how many
// times a holder renews its lease in a section.
func distLockConstants(renewals int) []Constant {
	return append(untimedConstants(), Constant{"Renewals", strconv.Itoa(renewals)})
}

// fencingConstants are DistLockFencing.tla's: the resource's check, where
// tokens come from, what a service restart keeps, and whether a write is
// checked and applied in one step.
func fencingConstants(check, tokenRule, restart string, nonAtomic bool) []Constant {
	return append(untimedConstants(),
		Constant{"Check", strconv.Quote(check)}, Constant{"TokenRule", strconv.Quote(tokenRule)},
		Constant{"ServiceRestart", strconv.Quote(restart)}, Constant{"NonAtomic", boolTLA(nonAtomic)})
}

// timedConstants are DistLockTimed.tla's nominal bounds (DESIGN.md, "When
// a lease lock is safe without fencing"); L and MaxStart are left empty,
// each model sets them (timedBounds), and a model that does not is an error
// of go generate.
func timedConstants(fencing string, renewals int) []Constant {
	return []Constant{
		{"Service", "service"}, {"Q", "4"}, {"R", "1"}, {"J", "1"}, {"P", "1"}, {"D", "1"}, {"TTL", "8"}, {"M", "3"},
		{"L", ""}, {"MaxStart", ""}, {"Fencing", strconv.Quote(fencing)}, {"Renewals", strconv.Itoa(renewals)},
	}
}

// timedBounds sets a timed model's L and MaxStart.
func timedBounds(l, maxStart int) []Constant {
	return []Constant{{"L", strconv.Itoa(l)}, {"MaxStart", strconv.Itoa(maxStart)}}
}

// redlockConstants are DistLockRedlock.tla's: three lock nodes, the send
// rule (explore.DefaultValidityOf: the client decides on its last answer
// whether its window is still open), no retries (explore.DefaultRetries),
// at most one node restart; fencing "none" or
// "unique" (the unique values checked by check-and-set).
func redlockConstants(fencing string) []Constant {
	return []Constant{
		{"LockNodes", "{n1, n2, n3}"}, {"Resource", "resource"}, {"InvalidId", "none"}, {"NoValue", "novalue"},
		{"Validity", `"send"`}, {"MaxRetries", "0"}, {"Sections", "1"}, {"Timeouts", "TRUE"}, {"GiveUp", "TRUE"},
		{"MaxRestarts", "1"}, {"Fencing", strconv.Quote(fencing)},
		// The test-only mutant clients' switches, off (the rows' variant
		// models turn them on).
		{"Quorum", `"majority"`}, {"LateMajority", "FALSE"},
	}
}

// noTimeouts is the variant in which no timer fires.
func noTimeouts() []Constant { return []Constant{{"Timeouts", "FALSE"}} }

// everyClientCommitsVariants are the three liveness variants of a row's
// two-section model: EveryClientCommits holds without timeouts and with
// clients that never give up, and fails when either is allowed. invariants
// are the safety properties the first also checks.
func everyClientCommitsVariants(invariants ...string) []TLCModel {
	return []TLCModel{
		{
			Clients:       2,
			Sections:      2,
			Suffix:        "EveryClientCommits",
			Invariants:    invariants,
			Property:      "EveryClientCommits",
			Specification: "FairSpec",
			Set:           []Constant{{"Timeouts", "FALSE"}, {"GiveUp", "FALSE"}},
			Variant:       true,
			Note:          "without timeouts and with clients that never give up, every client commits every section: giving up cannot satisfy EveryClientCommits",
		},
		{
			Clients:       2,
			Sections:      2,
			Suffix:        "EveryClientCommits_GiveUp",
			Property:      "EveryClientCommits",
			Specification: "FairSpec",
			Set:           noTimeouts(),
			Violates:      "EveryClientCommits",
			Variant:       true,
			Note:          "a client that gives a section up does not commit it: EveryClientCommits is not satisfied by giving up",
		},
		{
			Clients:       2,
			Sections:      2,
			Suffix:        "EveryClientCommits_Timeouts",
			Property:      "EveryClientCommits",
			Specification: "FairSpec",
			Set:           []Constant{{"GiveUp", "FALSE"}},
			Violates:      "EveryClientCommits",
			Variant:       true,
			Slow:          true,
			Note:          "a client whose belief ends abandons its section: EveryClientCommits is not satisfied by abandoning; slow: under FairSpec TLC searches about 300,000 states for the lasso (minutes)",
		},
	}
}
