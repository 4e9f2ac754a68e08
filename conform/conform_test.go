package conform

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/distlockspec"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
)

var update = flag.Bool("update", false, "rewrite the golden trace module and its TLC output (needs the jar)")

// TestVarsAreTheTranslations: Vars lists each spec's variables in the
// order of the translation's vars tuple, which the trace specs compare a
// line's state with.
func TestVarsAreTheTranslations(t *testing.T) {
	re := regexp.MustCompile(`(?s)\nvars == <<(.*?)>>`)
	for _, d := range []impl.Design{impl.DesignNoFencing, impl.DesignFenceAll} {
		src, err := os.ReadFile(filepath.Join(specsDir, distlockspec.Spec(d)+".tla"))
		require.NoError(t, err)
		m := re.FindSubmatch(src)
		require.NotNil(t, m, "%s: no vars tuple", distlockspec.Spec(d))
		var got []string
		for _, f := range strings.Split(string(m[1]), ",") {
			got = append(got, strings.TrimSpace(f))
		}
		assert.Equal(t, got, distlockspec.Vars(d), distlockspec.Spec(d))
	}
}

// TestAbstractInitial: the initial world of every design is the specs'
// Init, variable by variable.
func TestAbstractInitial(t *testing.T) {
	for _, d := range distlockspec.Designs() {
		for _, n := range []int{1, 2, 3} {
			c := UntimedConfigs()[0]
			c.Design, c.Clients = d, n
			w, err := impl.NewWorld(c)
			require.NoError(t, err)
			s, err := distlockspec.Abstract(w, d)
			require.NoError(t, err)
			per := func(v string) string {
				var f []string
				for i := range n {
					f = append(f, fmt.Sprintf("c%d |-> %s", i+1, v))
				}
				return "[" + strings.Join(f, ", ") + "]"
			}
			want := distlockspec.State{
				"network": "{}", "timers": "{}", "counter": "0", "ops": "<<>>", "last_lease": "0",
				"renewals": per("0"), "renewed": per("FALSE"),
				"lock_held": per("FALSE"), "late": per("FALSE"), "lease": per("0"), "retries": per("0"),
				"read_val": per("0"), "committed": per("0"), "aborted": per("0"),
				"pc": strings.TrimSuffix(per(`"Acquire"`), "]") + `, service |-> "Serve", resource |-> "Access"]`,
			}
			if d.Tokens() {
				want["distLock"] = `[status |-> "Available", id |-> "none", lease |-> 0, token |-> 0]`
				want["max_token"], want["token"], want["queue"] = "0", per("0"), "<<>>"
				delete(want, "renewals")
				delete(want, "renewed")
				want["pending"], want["restarts"], want["held_at_restart"], want["revision"] = "<<>>", "0", "{}", "0"
			} else {
				want["distLock"] = `[status |-> "Available", id |-> "none", lease |-> 0]`
			}
			assert.Equal(t, want, s, "%s, %d clients", d, n)
			assert.Len(t, s, len(distlockspec.Vars(d)))
		}
	}
}

// TestAbstractRefuses: a world the spec cannot hold (a lock-delay, two
// equal messages in flight, applies in flight that are not the writes
// checked, a unique token beyond the spec's table) has no abstraction.
func TestAbstractRefuses(t *testing.T) {
	c := UntimedConfigs()[0]
	w, err := impl.NewWorld(c)
	require.NoError(t, err)
	acq := impl.Message{Kind: impl.MsgAcquire, From: impl.ClientNode(0), To: impl.ServiceNode}
	w.InFlight = []impl.Message{acq, acq}
	_, err = distlockspec.Abstract(w, c.Design)
	assert.ErrorContains(t, err, "two equal messages")

	w, err = impl.NewWorld(c)
	require.NoError(t, err)
	w.Timers = []impl.PendingTimer{{Node: impl.ServiceNode, Timer: impl.Timer{Kind: impl.TimerLockDelay}}}
	_, err = distlockspec.Abstract(w, c.Design)
	assert.ErrorContains(t, err, "lock-delay")

	// A non-atomic resource's applies are its checked writes, one each.
	c.Design = impl.DesignNonAtomic
	w, err = impl.NewWorld(c)
	require.NoError(t, err)
	w.InFlight = []impl.Message{{Kind: impl.MsgApply, From: impl.ResourceNode, To: impl.ResourceNode}}
	_, err = distlockspec.Abstract(w, c.Design)
	assert.ErrorContains(t, err, "1 applies in flight for 0 writes")

	// Unique tokens are the spec's ranks up to lease 16, and none beyond.
	c.Design = impl.DesignUniqueCAS
	w, err = impl.NewWorld(c)
	require.NoError(t, err)
	w.InFlight = []impl.Message{{Kind: impl.MsgRead, From: impl.ClientNode(0), To: impl.ResourceNode, Token: impl.Scramble(16)}}
	s, err := distlockspec.Abstract(w, c.Design)
	require.NoError(t, err)
	assert.Contains(t, s["network"], "token |-> 14,")
	w.InFlight[0].Token = impl.Scramble(17)
	_, err = distlockspec.Abstract(w, c.Design)
	assert.ErrorContains(t, err, "UniqueTokens")

	// Every design with one lock service has a spec here; the Redlock
	// rows (DistLockRedlock.tla) have no abstraction yet, and say so.
	for _, d := range impl.Designs() {
		if !d.Redlock() {
			assert.Contains(t, distlockspec.Designs(), d)
			continue
		}
		c := UntimedConfigs()[0]
		c.Design = d
		w, err := impl.NewWorld(c)
		require.NoError(t, err)
		_, err = distlockspec.Abstract(w, d)
		assert.ErrorContains(t, err, "no spec models it", d.String())
	}
}

// TestUniqueTokensTable: DistLockFencing.tla's UniqueTokens is the ranks
// of Go's tokens (impl.Scramble), which keep their equalities and order;
// and they are not in lease order (else the row's tokens would be ordered
// after all).
func TestUniqueTokensTable(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(specsDir, "DistLockFencing.tla"))
	require.NoError(t, err)
	m := regexp.MustCompile(`\nUniqueTokens == <<([0-9, ]*)>>`).FindSubmatch(src)
	require.NotNil(t, m, "no UniqueTokens in DistLockFencing.tla")
	var want []string
	for _, r := range distlockspec.UniqueTokenRanks() {
		want = append(want, fmt.Sprint(r))
	}
	assert.Equal(t, strings.Join(want, ", "), string(m[1]))
	ranks := distlockspec.UniqueTokenRanks()
	for i := range ranks {
		for j := range ranks {
			a, b := impl.Scramble(uint64(i+1)), impl.Scramble(uint64(j+1))
			assert.Equal(t, a < b, ranks[i] < ranks[j], "leases %d, %d", i+1, j+1)
		}
	}
	assert.False(t, slices.IsSorted(ranks))
}

// TestSpecConstants: every design with tokens has its own constants, and
// DesignOf reads it back; a mutant's constants are no design's.
func TestSpecConstants(t *testing.T) {
	seen := map[distlockspec.Constants]impl.Design{}
	for _, d := range impl.Designs() {
		if !d.Tokens() {
			continue
		}
		k := distlockspec.SpecConstants(d)
		prev, dup := seen[k]
		assert.False(t, dup, "%s and %s share constants %+v", d, prev, k)
		seen[k] = d
		got, ok := distlockspec.DesignOf(k)
		assert.True(t, ok, d.String())
		assert.Equal(t, d, got)
	}
	_, ok := distlockspec.DesignOf(distlockspec.Constants{Check: "all", TokenRule: "pairs", ServiceRestart: "never"})
	assert.False(t, ok)
	_, ok = distlockspec.DesignOf(distlockspec.Constants{Check: "cas", TokenRule: "lease", ServiceRestart: "never"})
	assert.False(t, ok, "check-and-set on lease numbers is no row")
}

// mappingKey names a Go step as Mappings does.
func mappingKey(w *impl.World, a impl.Action) (node, phase, input string) {
	switch {
	case a.Node == impl.ServiceNode:
		node = "service"
	case a.Node == impl.ResourceNode:
		node = "resource"
	default:
		node, phase = "client", w.Sys.Clients[a.Node.ClientIndex()].Phase().String()
	}
	switch a.Input.Kind {
	case impl.InputStart:
		input = "InputStart"
	case impl.InputMessage:
		input = "Msg" + a.Input.Msg.Kind.String()
	case impl.InputTimer:
		input = "Timer"
		for _, part := range strings.Split(a.Input.Timer.Kind.String(), "-") {
			input += strings.ToUpper(part[:1]) + part[1:]
		}
	case impl.InputRestart:
		input = "InputRestart"
	}
	return node, phase, input
}

// TestMappingsCoverWalks: every step of many walks (both validity rules)
// is a row of Mappings, with the label SpecAction gives it, and every row
// is taken by some walk.
func TestMappingsCoverWalks(t *testing.T) {
	testbuild.SkipUnderRace(t)
	rows := map[string]string{}
	for _, m := range distlockspec.Mappings() {
		in, _, _ := strings.Cut(m.Input, " ")
		rows[m.Node+"/"+m.Phase+"/"+in] = m.Label
	}
	taken := map[string]bool{}
	for _, c := range UntimedConfigs() {
		for _, rule := range impl.ValidityRules() {
			if c.Design.Renews() && rule == impl.ValiditySend {
				continue // DistLock.tla models renewal under the arrival rule only
			}
			c.Validity = rule
			seeds := uint64(30)
			if c.Design.Renews() {
				// A renewal's answer reaching a client that backs off
				// in its next section is rare.
				seeds = 300
			}
			for seed := range seeds {
				w, err := impl.NewWorld(c)
				require.NoError(t, err)
				choose := impl.SeededChooser(seed)
				for w.Actions() > 0 {
					a := w.Action(choose(w.Actions()))
					node, phase, input := mappingKey(w, a)
					key := node + "/" + phase + "/" + input
					label, ok := rows[key]
					require.True(t, ok, "no mapping row for %s", key)
					assert.Equal(t, label, distlockspec.SpecAction(w, a).Label, key)
					taken[key] = true
					w.Apply(indexOf(t, w, a))
				}
			}
		}
	}
	for key := range rows {
		assert.True(t, taken[key], "no walk took %s", key)
	}
}

func indexOf(t *testing.T, w *impl.World, a impl.Action) int {
	for i := range w.Actions() {
		if w.Action(i) == a {
			return i
		}
	}
	t.Fatalf("action %v not enabled", a)
	return -1
}

// TestRecordFollowsWalk: a recorded walk has one line per step plus the
// initial state, its lines' states are the abstraction of the world after
// each step, and a path that is not a run is refused.
func TestRecordFollowsWalk(t *testing.T) {
	testbuild.SkipUnderRace(t)
	for _, c := range UntimedConfigs() {
		path, err := Walk(c, 7, 60)
		require.NoError(t, err)
		tr, err := Record(c, SourceWalk, "w", path)
		require.NoError(t, err)
		require.NoError(t, tr.Unmapped)
		require.Len(t, tr.Lines, len(path)+1)
		w, _ := impl.NewWorld(c)
		for k, i := range path {
			w.Apply(i)
			s, err := distlockspec.Abstract(w, c.Design)
			require.NoError(t, err)
			assert.Equal(t, s, tr.Lines[k+1].State)
		}
		_, err = Record(c, SourceWalk, "bad", append(path[:len(path):len(path)], 99))
		assert.Error(t, err)
	}
}

// TestSimPathIsTheWorlds: every simulator step of a run (default faults)
// is a step of the untimed world, found by SimPath.
func TestSimPathIsTheWorlds(t *testing.T) {
	for _, d := range distlockspec.Designs() {
		g, err := SimRuns(SimConfig(d), 5, 1)
		require.NoError(t, err)
		cut := 0
		for _, tr := range g.Traces {
			assert.NoError(t, tr.Unmapped, tr.Name)
			assert.NotEmpty(t, tr.Path, tr.Name)
			if strings.Contains(tr.Name, ErrRestartsBeyondWorld.Error()) {
				// Only a restarting service's runs are cut, and only at
				// a restart past the world's bound.
				assert.NotEqual(t, impl.NoRestart, d.Restart(), tr.Name)
				assert.Empty(t, tr.Violates, tr.Name)
				cut++
			}
		}
		assert.GreaterOrEqual(t, len(g.Traces), 5)
		assert.Less(t, cut, len(g.Traces), "%s: some runs are validated whole", d)
		failing := 0
		for _, tr := range g.Traces {
			if len(tr.Violates) > 0 {
				failing++
			}
		}
		assert.GreaterOrEqual(t, failing, 1, "%s: a failing run among the first 5 or after them", d)
	}
	// A step the world cannot take is refused.
	c := SimConfig(impl.DesignFenceAll).Config
	_, err := SimPath(c, []impl.Action{{Node: impl.ServiceNode, Input: impl.Input{Kind: impl.InputTimer, Timer: impl.Timer{Kind: impl.TimerLease}}}})
	assert.ErrorContains(t, err, "no step of the untimed world")
}

// goldenTraces are the traces of the committed golden module: fixed seeds,
// design all, 2 clients, 1 section.
func goldenTraces(t *testing.T) (impl.Config, []*Trace) {
	i := slices.IndexFunc(UntimedConfigs(), func(c impl.Config) bool {
		return c.Design == impl.DesignFenceAll && c.Clients == 2 && c.Sections == 1
	})
	require.GreaterOrEqual(t, i, 0)
	c := UntimedConfigs()[i]
	var ts []*Trace
	for seed := range uint64(5) {
		path, err := Walk(c, seed+1, 200)
		require.NoError(t, err)
		tr, err := Record(c, SourceWalk, fmt.Sprintf("walk seed %d", seed+1), path)
		require.NoError(t, err)
		ts = append(ts, tr)
	}
	return c, ts
}

// TestGoldenModule: the Go code still produces the committed trace module
// (testdata/TraceData_all_2c.tla), which TLC accepted in full
// (testdata/TraceData_all_2c.tlc.out, committed with it): a change of Go
// behaviour or of the abstraction shows here, without TLC.
func TestGoldenModule(t *testing.T) {
	c, ts := goldenTraces(t)
	got := Module(c, ts)
	golden := filepath.Join("testdata", "TraceData_all_2c.tla")
	outFile := filepath.Join("testdata", "TraceData_all_2c.tlc.out")
	if *update {
		k := checker(t)
		run, err := k.Check(t.Context(), c, ts)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
		require.NoError(t, os.WriteFile(outFile, run.Output, 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), got, "regenerate with go test ./conform -run TestGoldenModule -update (needs the jar) after checking why")
	out, err := os.ReadFile(outFile)
	require.NoError(t, err)
	assert.Contains(t, string(out), "Model checking completed. No error has been found.")
	for i := range ts {
		assert.Contains(t, string(out), fmt.Sprintf(`<<"fencelab-accepted", %d>>`, i+1))
	}
}

// TestModuleShares: equal values and states are written once.
func TestModuleShares(t *testing.T) {
	c, ts := goldenTraces(t)
	one := Module(c, ts[:1])
	twice := Module(c, []*Trace{ts[0], ts[0]})
	assert.Equal(t, strings.Count(one, "\n=="), strings.Count(twice, "\n=="))
	assert.Equal(t, strings.Count(one, " == "), strings.Count(twice, " == "))
	assert.Equal(t, 2*strings.Count(one, "[label |->"), strings.Count(twice, "[label |->"))
}

// TestCfg: the trace run's constants are the configuration's.
func TestCfg(t *testing.T) {
	c := UntimedConfigs()[0]
	c.Retries, c.Sections, c.Validity = 3, 2, impl.ValiditySend
	got := distlockspec.TraceCfg(c, true)
	for _, want := range []string{"INIT TraceInit", "NEXT TraceNext", "Clients <- TraceClients", "MaxRetries = 3", "Sections = 2",
		`Validity = "send"`, "Verbose = TRUE", "CHECK_DEADLOCK FALSE"} {
		assert.Contains(t, got, want)
	}
	assert.NotContains(t, got, "Check =")
	c.Design = impl.DesignFenceWrites
	assert.Contains(t, distlockspec.TraceCfg(c, false), `Check = "writes"`)
	assert.Contains(t, distlockspec.TraceCfg(c, false), "Verbose = FALSE")
	c.Design = impl.DesignRestartDurable
	for _, want := range []string{`Check = "all"`, `TokenRule = "lease"`, `ServiceRestart = "durable"`, "NonAtomic = FALSE"} {
		assert.Contains(t, distlockspec.TraceCfg(c, false), want)
	}
	c.Design = impl.DesignVersionEquality
	for _, want := range []string{`Check = "version"`, `TokenRule = "unique"`, `ServiceRestart = "never"`} {
		assert.Contains(t, distlockspec.TraceCfg(c, false), want)
	}
}

// TestRender: a rejection renders as a counterexample of the Go run up to
// the unmatched step, with the spec action and what the step changed.
func TestRender(t *testing.T) {
	c := UntimedConfigs()[12]
	path, err := Walk(c, 3, 200)
	require.NoError(t, err)
	tr, err := Record(c, SourceWalk, "w", path)
	require.NoError(t, err)
	out, err := Render(tr, 4)
	require.NoError(t, err)
	require.NotNil(t, out.Violation)
	assert.Equal(t, Rejected, out.Violation.Property)
	assert.Len(t, out.Steps, 5)
	assert.Contains(t, out.Violation.Explanation, "no DistLockFencing step matches Go step 4")
	assert.Contains(t, out.Violation.Explanation, tr.Lines[4].Action.Label+"("+tr.Lines[4].Action.Process+")")
	out, err = Render(tr, 0)
	require.NoError(t, err)
	assert.Len(t, out.Steps, 1)
	assert.Contains(t, out.Violation.Explanation, "initial Go state is not DistLockFencing's Init")
	_, err = Render(tr, len(tr.Lines))
	assert.Error(t, err, "past the end")
}

// TestReducedConfigs: at reduced size the walks still cover every design,
// both client counts, both section counts and both validity rules.
func TestReducedConfigs(t *testing.T) {
	configs := UntimedConfigs()
	for _, c := range UntimedConfigs() {
		if !c.Design.Renews() {
			c.Validity = impl.ValiditySend
			configs = append(configs, c)
		}
	}
	got := reducedConfigs(configs)
	designs, clients, sections, validity := map[impl.Design]bool{}, map[int]bool{}, map[int]bool{}, map[impl.ValidityRule]bool{}
	for _, c := range got {
		designs[c.Design], clients[c.Clients], sections[c.Sections], validity[c.Validity] = true, true, true, true
	}
	assert.Len(t, got, len(distlockspec.Designs()))
	assert.Len(t, designs, len(distlockspec.Designs()))
	assert.Len(t, clients, 2)
	assert.Len(t, sections, 2)
	assert.Len(t, validity, 2)
}
