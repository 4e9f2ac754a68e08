package conform

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/distlockspec"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/golden"
	"github.com/fencelab/fencelab/internal/testbuild"
)

var update = flag.Bool("update", false, golden.UpdateUsage)

// mappingKey names a Go step as Mappings does.
func mappingKey(w *impl.World, a impl.Action) (node, phase, input string) {
	switch {
	case a.Node.IsLockNode() && w.Sys.Redlock():
		node = "lock node"
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
