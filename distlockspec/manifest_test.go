package distlockspec

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/tlc"
	"github.com/fencelab/fencelab/verdict"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckDesigns: a model whose design is no row of the matrix is
// refused, by name; the committed manifest's designs are all rows.
func TestCheckDesigns(t *testing.T) {
	good := `{"models": [{"name": "a", "spec": "S.tla", "cfg": "a.cfg", "design": "all", "expected": "deadlock"}]}`
	m, err := ParseManifest([]byte(good))
	require.NoError(t, err)
	assert.Equal(t, "all", m.Models[0].Design)
	bad := `{"models": [{"name": "a", "spec": "S.tla", "cfg": "a.cfg", "design": "all", "expected": "deadlock"}, {"name": "b", "spec": "S.tla", "cfg": "b.cfg", "design": "some", "expected": "deadlock"}]}`
	_, err = ParseManifest([]byte(bad))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "model 2 (\"b\"): design must be")
	_, err = tlc.ParseManifest([]byte(bad))
	assert.NoError(t, err, "package tlc leaves designs to the adapter")
}

// TestCommittedManifest checks specs/models.json against the specs: every
// cfg exists, every violation model checks exactly the invariant it
// expects (besides TypeInvariant), every invariant and the liveness
// property of each spec is expected violated by some model, and the
// verdicts are DESIGN.md's.
func TestCommittedManifest(t *testing.T) {
	specs := filepath.Join("..", "specs")
	m, err := LoadManifest(filepath.Join(specs, "models.json"))
	require.NoError(t, err)
	violated := map[string]bool{}
	expected := map[string]string{}
	for _, mod := range m.Models {
		cfg, err := os.ReadFile(filepath.Join(specs, mod.Cfg))
		require.NoError(t, err, mod.Name)
		_, err = os.Stat(filepath.Join(specs, mod.Spec))
		require.NoError(t, err, mod.Name)
		assert.Contains(t, string(cfg), "CHECK_DEADLOCK TRUE", "%s: every model checks deadlock", mod.Name)
		if mod.Expected == tlc.ResultInvariant {
			assert.Equal(t, []string{"TypeInvariant", mod.Property}, tlc.CfgInvariants(string(cfg)), "%s checks one invariant besides TypeInvariant", mod.Name)
		}
		if mod.Expected == tlc.ResultLiveness {
			assert.Equal(t, []string{mod.Property}, tlc.CfgProperties(string(cfg)), mod.Name)
		}
		if mod.Expected != tlc.ResultOK {
			violated[mod.Property] = true
		}
		if narrowsSearch(string(cfg)) {
			// A witness's trace need only exist, so it may be looked for
			// among some of the behaviours; a model that checks a
			// property must search them all (a counterexample, the
			// shortest).
			_, tableProp := tableProperty[mod.Property]
			assert.True(t, mod.Expected == tlc.ResultInvariant && !tableProp && mod.Property != "TypeInvariant",
				"%s narrows its search (CONSTRAINT): only a witness may", mod.Name)
		}
		expected[mod.Name] = mod.ExpectedText()
		design, err := impl.ParseDesign(mod.Design)
		require.NoError(t, err, mod.Name)
		if mod.Family == tlc.FamilyTimed {
			// The timed models' verdicts follow from their bounds, not
			// from DESIGN.md's table (checked below).
			assert.Equal(t, "DistLockTimed.tla", mod.Spec, mod.Name)
			continue
		}
		if mod.Family == tlc.FamilyVariant {
			// A changed system (no timeouts, patient clients, a mutant
			// service): not DESIGN.md's table (checked below).
			assert.False(t, tableSystem(string(cfg)), "%s changes a constant", mod.Name)
			continue
		}
		assert.True(t, tableSystem(string(cfg)), "%s: the table's models have timeouts, clients that give up and tokens from lease numbers", mod.Name)
		for _, inv := range tlc.CfgInvariants(string(cfg)) {
			if _, ok := tableProperty[inv]; !ok {
				// TypeInvariant, and the witnesses and companions that
				// keep the table's verdicts from holding vacuously.
				continue
			}
			want := verdict.Holds
			if mod.Expected == tlc.ResultInvariant {
				want = verdict.Violated
			}
			assert.Equal(t, want, impl.Expected(design, inv), "%s: %s in design %s is DESIGN.md's verdict", mod.Name, inv, design)
		}
	}
	// Every property of the one list (impl.Properties: the invariants, the
	// witnesses, the liveness properties), and the timed spec's witnesses,
	// which no Go runtime checks.
	for _, p := range append(propertyNames(), "NeverBothCommit", "NeverBothCommitPastWindow") {
		// (TypeInvariant is shown violated by a mutated spec in tlc_test.go.)
		assert.True(t, violated[p], "%s is shown violated by some model", p)
	}
	for _, mod := range m.Models {
		// An untimed model checks a property of the one list, by its name.
		if mod.Family != tlc.FamilyTimed && mod.Property != "" {
			assert.Contains(t, propertyNames(), mod.Property, mod.Name)
		}
	}
	// No vacuous holds (issue 10, item 4): every untimed model expected to
	// hold has a witness with the same constants in which every client
	// commits every section (NotEveryClientCommits violated) — or checks
	// EveryClientCommits itself, which giving up cannot satisfy.
	for _, mod := range m.Models {
		if mod.Expected != tlc.ResultOK || mod.Family == tlc.FamilyTimed {
			continue
		}
		cfg, err := os.ReadFile(filepath.Join(specs, mod.Cfg))
		require.NoError(t, err)
		if slices.Contains(tlc.CfgProperties(string(cfg)), "EveryClientCommits") {
			assert.Equal(t, tlc.FamilyVariant, mod.Family, mod.Name)
			continue
		}
		if mod.Family == tlc.FamilyVariant {
			// A mutant's demonstration (the _Pairs models), not a claim
			// about the system.
			continue
		}
		w := witness(mod.Name)
		design, err := impl.ParseDesign(mod.Design)
		require.NoError(t, err)
		// The witness model checks a witness of the row's (impl.Witnesses)
		// that the row reaches.
		reachable := map[string]bool{}
		for _, p := range impl.Witnesses(design) {
			reachable["invariant "+p.Name] = p.Unreachable(design) == ""
		}
		assert.True(t, reachable[expected[w]], "%s: its witness %s checks %q, no witness the row reaches", mod.Name, w, expected[w])
		switch {
		case design.Starves() != "":
			// A row where not every client can commit, by design
			// (version-equality): its ok model shows that
			// NotEveryClientCommits holds, and its witness that some
			// section commits all the same.
			assert.Contains(t, tlc.CfgInvariants(string(cfg)), impl.NotEveryClientCommits, "%s: %s", mod.Name, design.Starves())
			assert.Equal(t, "invariant "+impl.NoSectionCommits, expected[w], "%s has the witness %s", mod.Name, w)
		case design.Restart() != impl.NoRestart:
			// The restart rows' witness is stronger: a client that held
			// the lock at the restart, and every client, commits.
			assert.Equal(t, "invariant "+impl.NoSectionCommitsAcrossRestart, expected[w], "%s has the witness %s", mod.Name, w)
		default:
			assert.Equal(t, "invariant "+impl.NotEveryClientCommits, expected[w], "%s has the witness %s", mod.Name, w)
		}
		if expected[w] != "" {
			assert.Equal(t, cfgConstants(t, filepath.Join(specs, mod.Cfg)), cfgConstants(t, filepath.Join(specs, w+".cfg")), "a witness speaks for %s only with its constants", mod.Name)
		}
	}
	// EveryClientCommits holds without timeouts and with clients that never
	// give up, and fails when either is allowed.
	for _, pre := range []string{"DistLock_2c_2s", "DistLockFencing_all_2c_2s"} {
		assert.Equal(t, "ok", expected[pre+"_EveryClientCommits"])
		assert.Equal(t, "liveness EveryClientCommits", expected[pre+"_EveryClientCommits_GiveUp"])
		assert.Equal(t, "liveness EveryClientCommits", expected[pre+"_EveryClientCommits_Timeouts"])
	}
	// Two grants with one token: TokensAreUnique catches the mutant
	// service, TokenIsMonotonical does not.
	assert.Equal(t, "invariant TokensAreUnique", expected["DistLockFencing_all_2c_TokensAreUnique_Pairs"])
	assert.Equal(t, "ok", expected["DistLockFencing_all_2c_TokensAreUnique_Pairs_TokenIsMonotonical"])
	// Tokens that go down: TokensIncreaseInGrantOrder catches the mutant
	// service; the resource's >= keeps the other properties.
	assert.Equal(t, "invariant TokensIncreaseInGrantOrder", expected["DistLockFencing_all_2c_TokensIncreaseInGrantOrder_Down"])
	assert.Equal(t, "ok", expected["DistLockFencing_all_2c_TokensIncreaseInGrantOrder_Down_Others"])
	// A volatile counter fails both service-side columns.
	assert.Equal(t, "invariant TokensAreUnique", expected["DistLockFencing_restart-volatile_2c_TokensAreUnique"])
	assert.Equal(t, "invariant TokensIncreaseInGrantOrder", expected["DistLockFencing_restart-volatile_2c_TokensIncreaseInGrantOrder"])
	// The timed spec: without fencing each property holds one tick inside
	// its bound (DESIGN.md, "When a lease lock is safe without fencing"),
	// not vacuously (both sections commit: the witness is violated), and
	// is violated one tick outside; fencing all keeps NoLostUpdate on both
	// sides.
	for _, p := range []string{"AtMostOneClientHoldLock", "NoLostUpdate"} {
		assert.Equal(t, "ok", expected["DistLockTimed_off_2c_"+p+"_inside"])
		assert.Equal(t, "invariant NeverBothCommit", expected["DistLockTimed_off_2c_"+p+"_inside_Witness"])
		assert.Equal(t, "invariant "+p, expected["DistLockTimed_off_2c_"+p+"_outside"])
	}
	for _, p := range []string{"AtMostOneClientHoldLock", "NoLostUpdate"} {
		// A witness speaks for its model only with the same constants.
		inside := "DistLockTimed_off_2c_" + p + "_inside"
		assert.Equal(t, cfgConstants(t, filepath.Join(specs, inside+".cfg")), cfgConstants(t, filepath.Join(specs, inside+"_Witness.cfg")), inside)
	}
	assert.Equal(t, "ok", expected["DistLockTimed_all_2c_NoLostUpdate_inside"])
	assert.Equal(t, "ok", expected["DistLockTimed_all_2c_NoLostUpdate_outside"])
	// With renewal the bound is the same (DESIGN.md, "With renewal"): one
	// tick inside it holds, one tick outside it is violated, and inside a
	// section commits a write sent past its original window (only a
	// granted renewal allows that) before the lock is handed on.
	renewal := "DistLockTimed_renewal_2c_AtMostOneClientHoldLock_"
	assert.Equal(t, "ok", expected[renewal+"inside"])
	assert.Equal(t, "invariant AtMostOneClientHoldLock", expected[renewal+"outside"])
	assert.Equal(t, "invariant NeverBothCommitPastWindow", expected[renewal+"inside_Witness"])
	assert.Equal(t, cfgConstants(t, filepath.Join(specs, renewal+"inside.cfg")), cfgConstants(t, filepath.Join(specs, renewal+"inside_Witness.cfg")), renewal+"inside")
	// Every timed model says whether its clients renew, and only the
	// renewal row's do.
	for _, mod := range m.Models {
		if mod.Family != tlc.FamilyTimed {
			continue
		}
		want := "Renewals = 0\n"
		if mod.Design == impl.DesignRenewal.String() {
			want = "Renewals = 1\n"
		}
		assert.Contains(t, cfgConstants(t, filepath.Join(specs, mod.Cfg)), want, mod.Name)
	}
	for _, n := range []string{"2c", "3c"} {
		assert.Equal(t, "invariant AtMostOneClientHoldLock", expected["DistLock_"+n+"_AtMostOneClientHoldLock"])
		assert.Equal(t, "invariant NoLostUpdate", expected["DistLock_"+n+"_NoLostUpdate"])
		assert.Equal(t, "ok", expected["DistLockFencing_all_"+n])
		assert.Equal(t, "invariant AtMostOneClientHoldLock", expected["DistLockFencing_all_"+n+"_AtMostOneClientHoldLock"])
		for _, check := range []string{"writes", "none"} {
			assert.Equal(t, "invariant NoLostUpdate", expected["DistLockFencing_"+check+"_"+n+"_NoLostUpdate"])
			assert.Equal(t, "invariant TokenIsMonotonical", expected["DistLockFencing_"+check+"_"+n+"_TokenIsMonotonical"])
		}
	}
}

// tableProperty is the set of properties of DESIGN.md's verdict table.
var tableProperty = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, inv := range impl.Invariants() {
		m[inv.Name] = struct{}{}
	}
	return m
}()

// propertyNames lists the names of the one list of properties.
func propertyNames() []string {
	var names []string
	for _, p := range impl.Properties() {
		names = append(names, p.Name)
	}
	return names
}

// tableSystem reports whether a cfg's constants are the system of
// DESIGN.md's table: leases expire and beliefs end (Timeouts), clients give
// a section up (GiveUp), and a grant's token is its lease number.
func tableSystem(cfg string) bool {
	return strings.Contains(cfg, "Timeouts = TRUE\n") && strings.Contains(cfg, "GiveUp = TRUE\n") &&
		!strings.Contains(cfg, "TokenRule = \"pairs\"") && !strings.Contains(cfg, "TokenRule = \"down\"") &&
		// Redlock's test-only mutant clients.
		!strings.Contains(cfg, "LateMajority = TRUE") && !strings.Contains(cfg, "Quorum = \"half\"")
}

// witness is the name of the witness model of an ok model: its name with
// the suffix _Liveness dropped (a liveness model shares the witness of its
// safety model) and _Witness added.
func witness(name string) string {
	return strings.TrimSuffix(name, "_Liveness") + "_Witness"
}

// cfgConstants is the CONSTANTS block of a TLC config, up to the first
// INVARIANT.
func cfgConstants(t *testing.T, path string) string {
	t.Helper()
	cfg, err := os.ReadFile(path)
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(cfg), "CONSTANTS")
	require.True(t, ok, path)
	block, _, ok := strings.Cut(rest, "INVARIANT")
	require.True(t, ok, path)
	return block
}

// narrowsSearch reports whether a cfg limits the states TLC explores
// (CONSTRAINT or ACTION_CONSTRAINT).
func narrowsSearch(cfg string) bool {
	for _, line := range strings.Split(cfg, "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && (f[0] == "CONSTRAINT" || f[0] == "CONSTRAINTS" || f[0] == "ACTION_CONSTRAINT" || f[0] == "ACTION_CONSTRAINTS") {
			return true
		}
	}
	return false
}
