package conform

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/distlockspec"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
	"github.com/fencelab/fencelab/tlc"
)

// replayDir holds TLC's outputs of every model of the manifest expected
// to be violated, as `make tlc` wrote them (tlc.out, one worker), so that
// CI, which has no TLC, replays them.
const replayDir = "testdata/replay"

// replayCase is one manifest model expected to be violated, with its
// counterexample read from the fixtures.
type replayCase struct {
	model tlc.Model
	cfg   string
}

// violatedModels lists the models of make tlc's default run expected to
// be violated, but for the timed spec's: its steps are ticks of clocks,
// not steps of impl.World (the simulator's worst-case schedules are their
// Go counterpart, sim.NewWorstCase).
func violatedModels(t *testing.T) []replayCase {
	t.Helper()
	m, err := tlc.LoadManifest(filepath.Join(specsDir, "models.json"))
	require.NoError(t, err)
	var cases []replayCase
	for _, mod := range m.Models {
		if mod.Expected == "ok" || mod.Family == tlc.FamilyTimed || mod.Slow {
			continue
		}
		cfg, err := os.ReadFile(filepath.Join(specsDir, mod.Cfg))
		require.NoError(t, err)
		cases = append(cases, replayCase{mod, string(cfg)})
	}
	return cases
}

func readCounterexample(t *testing.T, name string) *tlc.Output {
	t.Helper()
	f, err := os.Open(filepath.Join(replayDir, name+".out"))
	require.NoError(t, err, "no committed TLC output for %s: run make tlc and copy out/tlc/%s/tlc.out to %s", name, name, replayDir)
	defer f.Close()
	out, err := tlc.ParseOutput(f)
	require.NoError(t, err)
	require.NotEmpty(t, out.States, "%s: the committed output holds no counterexample", name)
	return out
}

// TestReplayEveryCounterexample: every counterexample of an untimed model
// whose system Go runs replays in Go, step for step, to the same violated
// property at the step TLC stops at. The models left out are named, each
// with its reason, so that none is left out silently.
func TestReplayEveryCounterexample(t *testing.T) {
	testbuild.SkipUnderRace(t)
	replayed, notGo := 0, map[string]string{}
	for _, rc := range violatedModels(t) {
		mod := rc.model
		if _, err := ModelReplayable(specsDir, mod); err != nil {
			require.ErrorIs(t, err, distlockspec.ErrNotGoSystem, mod.Name)
			// Only a changed system may be left out: a variant of the
			// two specs of the Go protocol, or another spec.
			if mod.Spec == "DistLock.tla" || mod.Spec == "DistLockFencing.tla" {
				require.Equal(t, tlc.FamilyVariant, mod.Family, "%s is not replayed: %v", mod.Name, err)
			}
			notGo[mod.Name] = err.Error()
			continue
		}
		data, err := os.ReadFile(filepath.Join(replayDir, mod.Name+".out"))
		require.NoError(t, err, "no committed TLC output for %s; %s", mod.Name, refreshHint)
		r, err := ReplayModel(specsDir, mod, data)
		require.NoError(t, err, mod.Name)
		assert.Equal(t, mod.Property, r.Property, mod.Name)
		assert.Equal(t, r.Steps, r.At, "%s: Go violates %s first where TLC stops", mod.Name, mod.Property)
		assert.Len(t, r.Path, r.Steps, mod.Name)
		replayed++
	}
	t.Logf("replayed %d counterexamples; not replayed: %v", replayed, notGo)
	assert.GreaterOrEqual(t, replayed, 30, "the untimed models of the Go protocol expected to be violated")
}

// replayableModels are the violated models whose counterexamples replay
// in Go: those the committed TLC outputs are kept for.
func replayableModels(t *testing.T) []replayCase {
	t.Helper()
	var cases []replayCase
	for _, rc := range violatedModels(t) {
		if _, err := ModelReplayable(specsDir, rc.model); err == nil {
			cases = append(cases, rc)
		}
	}
	return cases
}

// TestReplayCatchesMutants: a counterexample replayed through a broken Go
// actor (trace validation's mutants, TestMutantsRejected) stops matching
// exactly when the broken actor acts on the counterexample's path, and
// then with a ReplayError naming the step at or before the one it broke.
// The resource that refuses everything acts on most counterexamples (every
// one with an operation accepted); the other mutants act on none: no
// committed counterexample has an acquire rejected after an expiry, an
// operation refused or a think timer firing after the belief ended — for
// them only trace validation applies (TestMutantsRejected).
func TestReplayCatchesMutants(t *testing.T) {
	testbuild.SkipUnderRace(t)
	cases := replayableModels(t)
	// The stale-token mutant acted on DistLockFencing_all_2c_Liveness_Unfair's
	// lasso while TLC's happened to have an operation refused; since the
	// durable service's persist step (a branch of Serve) TLC picks another
	// lasso, and no committed counterexample has a refusal: for it only
	// trace validation applies, as for the others.
	wantActs := map[string]bool{"a resource that refuses everything": true}
	for _, mu := range mutants() {
		broken, acted, replayed := 0, 0, 0
		for _, rc := range cases {
			c, err := ModelConfig(rc.model.Spec, rc.cfg)
			if err != nil || !Replayable(rc.model.Property) {
				continue
			}
			out := readCounterexample(t, rc.model.Name)
			good, err := Replay(c, out, rc.model.Property)
			require.NoError(t, err, rc.model.Name)
			replayed++
			acts := mutantActs(t, c, good.Path, mu.breaker(c))
			_, err = replay(c, out, rc.model.Property, mutantStepper(t, c, mu))
			if acts >= 0 {
				acted++
				var re *ReplayError
				require.ErrorAs(t, err, &re, "%s, %s: the mutant acts at step %d", mu.name, rc.model.Name, acts)
				assert.LessOrEqual(t, re.Step, acts, "%s, %s: the replay stops matching after the mutant acted", mu.name, rc.model.Name)
				broken++
			} else {
				assert.NoError(t, err, "%s, %s: the mutant never acts on the path", mu.name, rc.model.Name)
			}
		}
		t.Logf("%s: acts on %d of %d counterexamples, %d replays stop matching", mu.name, acted, replayed, broken)
		assert.Equal(t, wantActs[mu.name], acted > 0, mu.name)
	}
}

// mutantStepper takes a step with mu's actor broken, its breaker brought
// to where path leaves it (the replay also tries steps it does not take,
// which must not change the breaker's state).
func mutantStepper(t *testing.T, c impl.Config, mu mutant) stepper {
	return func(w *impl.World, path []int, i int) (impl.Action, *impl.Effects) {
		brk := mu.breaker(c)
		at, err := impl.NewWorld(c)
		require.NoError(t, err)
		for _, k := range path {
			before := at.Clone()
			a, _ := at.Apply(k)
			brk(before, at, a)
		}
		before := w.Clone()
		a, eff := w.Apply(i)
		brk(before, w, a)
		return a, eff
	}
}

// mutantActs walks path with brk breaking each step and returns the first
// step (from 1) at which it changed something, or -1.
func mutantActs(t *testing.T, c impl.Config, path []int, brk func(before, w *impl.World, a impl.Action) bool) int {
	t.Helper()
	w, err := impl.NewWorld(c)
	require.NoError(t, err)
	for k, i := range path {
		before := w.Clone()
		a, _ := w.Apply(i)
		if brk(before, w, a) {
			return k + 1
		}
	}
	return -1
}

// specsSums is the SHA-256 of every spec and cfg the committed outputs
// come from, so that CI, which cannot run TLC, notices outputs that a
// change of the specs made stale.
const specsSums = replayDir + "/" + FixtureSums

// fixtureSums maps the spec and cfg of every model expected to be
// violated to its SHA-256.
func fixtureSums(t *testing.T) map[string]string {
	t.Helper()
	sums := map[string]string{}
	for _, rc := range replayableModels(t) {
		for _, f := range []string{rc.model.Spec, rc.model.Cfg} {
			sum, err := FileSum(filepath.Join(specsDir, f))
			require.NoError(t, err)
			sums[f] = sum
		}
	}
	return sums
}

// sumsText writes sums as sha256sum does, sorted by file.
func sumsText(sums map[string]string) string {
	var lines []string
	for f, sum := range sums {
		lines = append(lines, sum+"  "+f)
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n") + "\n"
}

const refreshHint = "refresh them: TLA2TOOLS_JAR=/path/to/tla2tools.jar make fixtures"

// TestReplayOutputsAreCurrent: the committed TLC outputs were made from the
// specs and cfgs as they are (their checksums are recorded beside them),
// and there is one for each model expected to be violated, and no other.
func TestReplayOutputsAreCurrent(t *testing.T) {
	if *update {
		t.Skip("-update: TestUpdateReplayOutputs rewrites the outputs and their checksums")
	}
	recorded, err := ReadFixtureSums(specsSums)
	require.NoError(t, err)
	var stale []string
	now := fixtureSums(t)
	for f, sum := range now {
		if recorded[f] != sum {
			stale = append(stale, f)
		}
	}
	for f := range recorded {
		if _, ok := now[f]; !ok {
			stale = append(stale, f+" (no longer used)")
		}
	}
	slices.Sort(stale)
	assert.Empty(t, stale, "changed since the TLC outputs in %s were made; %s", replayDir, refreshHint)

	want := map[string]bool{}
	for _, rc := range replayableModels(t) {
		want[rc.model.Name+".out"] = true
	}
	entries, err := os.ReadDir(replayDir)
	require.NoError(t, err)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".out") {
			assert.True(t, want[e.Name()], "%s/%s: no model of the default run expected to be violated has this name", replayDir, e.Name())
		}
	}
}

// TestUpdateReplayOutputs rewrites the committed TLC outputs and their
// checksums from fresh TLC runs (one worker: the same counterexample on
// every run) with -update (make fixtures; make golden leaves it out: it
// runs TLC on every model expected to be violated). It is maintenance,
// not a check: TestReplayOutputsAreCurrent is the check.
func TestUpdateReplayOutputs(t *testing.T) {
	if !*update {
		t.Skip("maintenance: -update rewrites the committed TLC outputs (make fixtures)")
	}
	k := checker(t)
	k.TLC.Workers = "auto"
	old, err := filepath.Glob(filepath.Join(replayDir, "*.out"))
	require.NoError(t, err)
	for _, f := range old {
		require.NoError(t, os.Remove(f))
	}
	for _, rc := range replayableModels(t) {
		res, err := k.TLC.Run(context.Background(), specsDir, rc.model)
		require.NoError(t, err, rc.model.Name)
		require.Empty(t, res.Mismatch, rc.model.Name)
		require.NotNil(t, res.Parsed, rc.model.Name)
		require.NoError(t, os.WriteFile(filepath.Join(replayDir, rc.model.Name+".out"), res.Output, 0o644))
	}
	require.NoError(t, os.WriteFile(specsSums, []byte(sumsText(fixtureSums(t))), 0o644))
}

// TestReplayNoticesEveryChangedState: a counterexample whose state at any
// one step is changed (a counter TLC never printed) stops matching at
// exactly that step, so the replay compares every state, not only the
// last.
func TestReplayNoticesEveryChangedState(t *testing.T) {
	for _, name := range []string{"DistLock_2c_NoLostUpdate", "DistLockFencing_writes_2c_NoLostUpdate"} {
		rc := findCase(t, name)
		c, err := ModelConfig(rc.model.Spec, rc.cfg)
		require.NoError(t, err)
		out := readCounterexample(t, name)
		for k := range out.States {
			changed := *out
			changed.States = slices.Clone(out.States)
			st := changed.States[k]
			st.Vars = slices.Clone(st.Vars)
			for i := range st.Vars {
				if st.Vars[i].Name == "counter" {
					st.Vars[i].Value = tlc.Value{Kind: tlc.KindInt, Int: 99}
				}
			}
			changed.States[k] = st
			_, err := Replay(c, &changed, rc.model.Property)
			var re *ReplayError
			require.ErrorAs(t, err, &re, "%s, state %d changed", name, k+1)
			assert.Equal(t, k, re.Step, "%s: the replay stops at the changed state", name)
		}
	}
}

// TestReplayNoticesAWrongProperty: a counterexample replayed against
// another property than the one TLC violated fails: the Go check decides.
func TestReplayNoticesAWrongProperty(t *testing.T) {
	rc := findCase(t, "DistLock_2c_AtMostOneClientHoldLock")
	c, err := ModelConfig(rc.model.Spec, rc.cfg)
	require.NoError(t, err)
	out := readCounterexample(t, rc.model.Name)
	_, err = Replay(c, out, "NoLostUpdate")
	var re *ReplayError
	require.ErrorAs(t, err, &re)
	assert.Contains(t, re.Error(), "never")
	// A counterexample cut short: TLC's last state is not the violation.
	short := *out
	short.States = out.States[:len(out.States)-1]
	_, err = Replay(c, &short, rc.model.Property)
	require.ErrorAs(t, err, &re)
}

func findCase(t *testing.T, name string) replayCase {
	t.Helper()
	for _, rc := range replayableModels(t) {
		if rc.model.Name == name {
			return rc
		}
	}
	t.Fatalf("no model %s in the manifest", name)
	return replayCase{}
}

// TestModelConfig: the cfg's constants make the Go configuration; a cfg
// of a system Go does not run, or a malformed one, is refused.
func TestModelConfig(t *testing.T) {
	const base = "SPECIFICATION Spec\nCONSTANTS\n    Clients = {c1, c2, c3}\n    Service = service\n    MaxRetries = 2\n    Sections = 2\n    Timeouts = TRUE\n    GiveUp = TRUE\n"
	row := func(check, rule, restart, nonAtomic string) string {
		return fmt.Sprintf("    Check = %q\n    TokenRule = %q\n    ServiceRestart = %q\n    NonAtomic = %s\n", check, rule, restart, nonAtomic)
	}
	c, err := ModelConfig("DistLockFencing.tla", base+row("writes", "lease", "never", "FALSE")+"INVARIANT NoLostUpdate\n")
	require.NoError(t, err)
	assert.Equal(t, impl.DesignFenceWrites, c.Design)
	for _, d := range impl.Designs() {
		if !d.Tokens() || d.Redlock() {
			continue // DistLockRedlock.tla: below
		}
		k := distlockspec.SpecConstants(d)
		c, err := ModelConfig("DistLockFencing.tla", base+row(k.Check, k.TokenRule, k.ServiceRestart, strings.ToUpper(strconv.FormatBool(k.NonAtomic))))
		require.NoError(t, err, d.String())
		assert.Equal(t, d, c.Design)
	}
	assert.Equal(t, []int{3, 2, 2}, []int{c.Clients, c.Sections, c.Retries})
	assert.Equal(t, impl.ValidityArrival, c.Validity)
	// The Redlock rows: the design from Fencing, Go's nodes from LockNodes
	// (n1 … nN), the untimed world's one restart.
	redlock := "SPECIFICATION Spec\nCONSTANTS\n    Clients = {c1, c2}\n    LockNodes = {n1, n2, n3}\n    Validity = \"send\"\n    MaxRetries = 0\n    Sections = 1\n    Timeouts = TRUE\n    GiveUp = TRUE\n    MaxRestarts = 1\n"
	for _, d := range []impl.Design{impl.DesignRedlock, impl.DesignRedlockUnique} {
		rc, err := ModelConfig("DistLockRedlock.tla", redlock+fmt.Sprintf("    Fencing = %q\n", distlockspec.RedlockFencing(d)))
		require.NoError(t, err, d.String())
		assert.Equal(t, d, rc.Design)
		assert.Equal(t, []int{2, 1, 0, 3}, []int{rc.Clients, rc.Sections, rc.Retries, rc.LockNodes()})
		assert.Equal(t, impl.ValiditySend, rc.Validity)
	}
	_, err = ModelConfig("DistLockRedlock.tla", strings.Replace(redlock, "{n1, n2, n3}", "{n1, n2, n4}", 1)+"    Fencing = \"none\"\n")
	assert.ErrorContains(t, err, "n1 … n3")
	_, err = ModelConfig("DistLockRedlock.tla", redlock+"    Fencing = \"none\"\n    LateMajority = TRUE\n")
	assert.ErrorIs(t, err, distlockspec.ErrNotGoSystem)

	c, err = ModelConfig("DistLock.tla", base+"    Validity = \"send\"\n")
	require.NoError(t, err)
	assert.Equal(t, impl.DesignNoFencing, c.Design)
	assert.Equal(t, impl.ValiditySend, c.Validity)

	for _, tc := range []struct {
		name, spec, cfg string
		notGo           bool
	}{
		{"mutant token rule", "DistLockFencing.tla", base + row("all", "pairs", "never", "FALSE"), true},
		{"no design's constants", "DistLockFencing.tla", base + row("cas", "lease", "never", "FALSE"), false},
		{"no ServiceRestart", "DistLockFencing.tla", base + "    Check = \"all\"\n    TokenRule = \"lease\"\n    NonAtomic = FALSE\n", false},
		{"NonAtomic not a boolean", "DistLockFencing.tla", base + row("all", "lease", "never", "1"), false},
		{"clients that never give up", "DistLock.tla", strings.Replace(base, "GiveUp = TRUE", "GiveUp = FALSE", 1), true},
		{"the timed spec", "DistLockTimed.tla", base, true},
		{"no Check", "DistLockFencing.tla", base, false},
		{"Check off is no fencing mode", "DistLockFencing.tla", base + row("off", "lease", "never", "FALSE"), false},
		{"unknown Check", "DistLockFencing.tla", base + row("most", "lease", "never", "FALSE"), false},
		{"no Clients", "DistLock.tla", strings.Replace(base, "Clients = {c1, c2, c3}", "", 1), false},
		{"Clients not a set", "DistLock.tla", strings.Replace(base, "{c1, c2, c3}", "3", 1), false},
		{"too many clients", "DistLock.tla", strings.Replace(base, "{c1, c2, c3}", "{"+manyClients(301)+"}", 1), false},
		{"clients not named c1 … cN", "DistLock.tla", strings.Replace(base, "{c1, c2, c3}", "{a, b}", 1), false},
		{"a client numbered past the count", "DistLock.tla", strings.Replace(base, "{c1, c2, c3}", "{c1, c3}", 1), false},
		{"clients as strings", "DistLock.tla", strings.Replace(base, "{c1, c2, c3}", `{"c1", "c2"}`, 1), false},
		{"a constant given twice", "DistLock.tla", base + "    Sections = 3\n", false},
		{"a substitution", "DistLock.tla", strings.Replace(base, "Sections = 2", "Sections <- Two", 1), false},
		{"a name without a value", "DistLock.tla", strings.Replace(base, "Sections = 2", "Sections", 1), false},
		{"no Sections", "DistLock.tla", strings.Replace(base, "Sections = 2", "", 1), false},
		{"Sections not a number", "DistLock.tla", strings.Replace(base, "Sections = 2", "Sections = \"two\"", 1), false},
		{"no sections", "DistLock.tla", strings.Replace(base, "Sections = 2", "Sections = 0", 1), false},
		{"an unparsable value", "DistLock.tla", strings.Replace(base, "MaxRetries = 2", "MaxRetries = [", 1), false},
		{"unknown validity", "DistLock.tla", base + "    Validity = \"whenever\"\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ModelConfig(tc.spec, tc.cfg)
			require.Error(t, err)
			assert.Equal(t, tc.notGo, errors.Is(err, distlockspec.ErrNotGoSystem), err.Error())
		})
	}
}

func manyClients(n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("c%d", i+1)
	}
	return strings.Join(names, ", ")
}

// TestModelConfigReadsTheCfgAsTLCDoes: the Go configuration of a cfg is
// the one TLC checks, however the cfg is written: a set's repeated element
// is one client (TLC's initial state of {c1, c2, c1} has c1 and c2 only:
// testdata/replay/dup_clients.out), the clients in any order, the
// assignments spread over lines or put on one, comments of either kind
// anywhere.
func TestModelConfigReadsTheCfgAsTLCDoes(t *testing.T) {
	const tail = "    Service = service\n    MaxRetries = 1\n    Sections = 2\n    GiveUp = TRUE\n"
	for _, tc := range []struct {
		name, cfg string
		clients   int
	}{
		{"plain", "CONSTANTS\n    Clients = {c1, c2}\n" + tail, 2},
		{"a repeated client", "CONSTANTS\n    Clients = {c1, c2, c1}\n" + tail, 2},
		{"every client twice", "CONSTANTS\n    Clients = {c2, c1, c3, c1, c2, c3}\n" + tail, 3},
		{"in another order", "CONSTANTS\n    Clients = {c3, c1, c2}\n" + tail, 3},
		{"no spaces", "CONSTANTS\nClients={c1,c2,c1}\nService=service\nMaxRetries=1\nSections=2\n", 2},
		{"tabs and CRLF", "CONSTANTS\r\n\tClients\t=\t{ c1 ,\tc2 }\r\n\tService = service\r\n\tMaxRetries = 1\r\n\tSections = 2\r\n", 2},
		{"on the keyword's line", "CONSTANTS Clients = {c1, c2} Service = service\nMaxRetries = 1 Sections = 2\n", 2},
		{"a set over lines", "CONSTANT\n    Clients = {c1,\n        c2,\n        c3}\n" + tail, 3},
		{"comments", "\\* header\nCONSTANTS (* a (* nested *) comment *)\n    Clients = {c1, (* not c9 *) c2} \\* c3\n" + tail, 2},
		{"two sections", "CONSTANT Clients = {c1, c2}\nINVARIANT X\nCONSTANT\n" + tail, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ModelConfig("DistLock.tla", tc.cfg)
			require.NoError(t, err)
			assert.Equal(t, tc.clients, c.Clients)
			assert.Equal(t, 2, c.Sections)
			assert.Equal(t, 1, c.Retries)
		})
	}
}

// replayCommitted replays rc's committed counterexample, which must
// replay, and returns its Go configuration, TLC's output and the replay.
func replayCommitted(t *testing.T, rc replayCase) (impl.Config, *tlc.Output, *Replayed) {
	t.Helper()
	c, err := ModelConfig(rc.model.Spec, rc.cfg)
	require.NoError(t, err)
	out := readCounterexample(t, rc.model.Name)
	good, err := Replay(c, out, rc.model.Property)
	require.NoError(t, err, rc.model.Name)
	return c, out, good
}

// TestReplayRejectsAnEarlierGoViolation: TLC stops at the first state
// that violates an invariant, so a Go run that violates it at an earlier
// step of TLC's counterexample departs from it, even when Go violates it
// at TLC's last state too: the replay fails at Go's first violation. The
// cases are the committed counterexamples of one invariant replayed as
// counterexamples of another that Go violates both earlier and at the end
// (a lost update after two clients both held the lock, and so on).
func TestReplayRejectsAnEarlierGoViolation(t *testing.T) {
	testbuild.SkipUnderRace(t)
	cases := 0
	for _, rc := range replayableModels(t) {
		c, out, good := replayCommitted(t, rc)
		if out.Deadlock || out.Temporal {
			continue
		}
		for _, p := range impl.Invariants() {
			if p.Name == rc.model.Property {
				continue
			}
			// Go's first violation of p along TLC's path, and whether it
			// violates p at TLC's last state.
			w, err := impl.NewWorld(c)
			require.NoError(t, err)
			first := -1
			if p.Violated(w) {
				first = 0
			}
			for k, i := range good.Path {
				w.Apply(i)
				if first < 0 && p.Violated(w) {
					first = k + 1
				}
			}
			if first < 0 || first == good.Steps || !p.Violated(w) {
				continue
			}
			cases++
			_, err = Replay(c, out, p.Name)
			var re *ReplayError
			require.ErrorAs(t, err, &re, "%s replayed as a counterexample of %s: Go violates it at step %d, TLC's last is %d", rc.model.Name, p.Name, first, good.Steps)
			assert.Equal(t, first, re.Step, "%s as %s: the departure is Go's first violation", rc.model.Name, p.Name)
			assert.Contains(t, re.Reason, fmt.Sprintf("the Go system violates %s here, TLC only at step %d", p.Name, good.Steps))
			assert.Len(t, re.Path, first, "%s as %s: the Go run up to its violation", rc.model.Name, p.Name)
		}
	}
	t.Logf("%d counterexamples replayed as another invariant's that Go violates earlier and at the end", cases)
	assert.GreaterOrEqual(t, cases, 3)
}

// TestReplayComparesActionsInOrder: each step of TLC's counterexample is
// matched by a Go step of the very action TLC names at that step, not by
// any action of the counterexample: with the action names of two steps
// swapped (the states left as TLC printed them) the replay departs at the
// first swapped step, though the same actions are there, in another order.
func TestReplayComparesActionsInOrder(t *testing.T) {
	testbuild.SkipUnderRace(t)
	swapped := 0
	for _, rc := range replayableModels(t) {
		c, out, good := replayCommitted(t, rc)
		// The first step whose action differs from its successor's.
		for k := 1; k < good.Steps; k++ {
			a, b := out.States[k].Action, out.States[k+1].Action
			if a == b {
				continue
			}
			changed := *out
			changed.States = slices.Clone(out.States)
			changed.States[k].Action, changed.States[k+1].Action = b, a
			_, err := Replay(c, &changed, rc.model.Property)
			var re *ReplayError
			require.ErrorAs(t, err, &re, "%s with the actions of steps %d and %d swapped (%s, %s)", rc.model.Name, k, k+1, a, b)
			assert.Equal(t, k, re.Step, "%s: the departure is the first swapped step", rc.model.Name)
			assert.Equal(t, b, re.Action, rc.model.Name)
			swapped++
			break
		}
	}
	assert.GreaterOrEqual(t, swapped, 30, "a swap in every counterexample of more than one action")
}
