package conform

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/distlockspec"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/tlc"
)

// perturb returns v changed at its first leaf, so that TLA+ calls the two
// different: an integer one more, a Boolean negated, a string or model
// value renamed; a record's or function's first value, a sequence's or
// set's first element, perturbed in turn (an empty sequence or set gets an
// element).
func perturb(v tlc.Value) tlc.Value {
	switch v.Kind {
	case tlc.KindInt:
		v.Int++
	case tlc.KindBool:
		v.Bool = !v.Bool
	case tlc.KindString, tlc.KindModel:
		v.Str += "x"
	case tlc.KindInterval:
		v.Hi++
	case tlc.KindRecord, tlc.KindFunction:
		v.Fields = slices.Clone(v.Fields)
		v.Fields[0].Val = perturb(v.Fields[0].Val)
	case tlc.KindSeq, tlc.KindSet:
		if len(v.Elems) == 0 {
			v.Elems = []tlc.Value{{Kind: tlc.KindInt, Int: 7}}
			break
		}
		v.Elems = slices.Clone(v.Elems)
		v.Elems[0] = perturb(v.Elems[0])
	}
	return v
}

// withVar returns out with variable name of state k perturbed.
func withVar(out *tlc.Output, k int, name string) *tlc.Output {
	o := *out
	o.States = slices.Clone(out.States)
	st := o.States[k]
	st.Vars = slices.Clone(st.Vars)
	for i := range st.Vars {
		if st.Vars[i].Name == name {
			st.Vars[i].Value = perturb(st.Vars[i].Value)
		}
	}
	o.States[k] = st
	return &o
}

// TestReplayComparesEveryVariable: the replay compares every variable of
// the spec at every step. For one counterexample of each design the specs
// model (so every variable of DistLock.tla, DistLockFencing.tla and
// DistLockRedlock.tla, each
// spec's whole VARIABLES list, distlockspec.Vars), each variable perturbed
// in one state of TLC's trace — the initial state, a middle one, the last
// — makes the replay fail at exactly that step, naming the variable.
func TestReplayComparesEveryVariable(t *testing.T) {
	done := map[impl.Design]bool{}
	checked := map[string]map[string]bool{} // spec → variables caught
	for _, rc := range replayableModels(t) {
		c, err := ModelConfig(rc.model.Spec, rc.cfg)
		require.NoError(t, err)
		if done[c.Design] || !Replayable(rc.model.Property) {
			continue
		}
		out := readCounterexample(t, rc.model.Name)
		if _, err := Replay(c, out, rc.model.Property); err != nil {
			continue // TestReplayEveryCounterexample reports it
		}
		done[c.Design] = true
		last := len(out.States) - 1
		for last > 0 && (out.States[last].Action == "Stuttering" || len(out.States[last].Vars) == 0) {
			last--
		}
		if checked[rc.model.Spec] == nil {
			checked[rc.model.Spec] = map[string]bool{}
		}
		for _, name := range distlockspec.Vars(c.Design) {
			for _, k := range []int{0, last / 2, last} {
				t.Run(fmt.Sprintf("%s/%s/state%d", rc.model.Name, name, k), func(t *testing.T) {
					_, ok := out.States[k].Var(name)
					require.True(t, ok, "TLC's state has the variable")
					_, err := Replay(c, withVar(out, k, name), rc.model.Property)
					var re *ReplayError
					require.ErrorAs(t, err, &re, "the replay must reject %s perturbed in state %d", name, k)
					assert.Equal(t, k, re.Step, "rejected at the perturbed state: %v", err)
					assert.Contains(t, re.Reason, name+" is ", "the reason names the variable: %v", err)
				})
			}
			checked[rc.model.Spec][name] = true
		}
	}
	// A variable TLC prints that the abstraction does not map (one added
	// to the spec and not to distlockspec.Vars) is a difference too.
	rc := replayableModels(t)[0]
	c, err := ModelConfig(rc.model.Spec, rc.cfg)
	require.NoError(t, err)
	out := readCounterexample(t, rc.model.Name)
	o := *out
	o.States = slices.Clone(out.States)
	st := o.States[1]
	st.Vars = append(slices.Clone(st.Vars), tlc.Assignment{Name: "persisted", Value: tlc.Value{Kind: tlc.KindInt}})
	o.States[1] = st
	_, err = Replay(c, &o, rc.model.Property)
	var re *ReplayError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, 1, re.Step)
	assert.Contains(t, re.Reason, `"persisted" is a variable of TLC's state the abstraction does not map`)

	// Every row the specs model, and each spec's every variable.
	for _, d := range distlockspec.Designs() {
		assert.True(t, done[d], "no replayable counterexample of %s", d)
	}
	for spec, vars := range checked {
		declared := specVariables(t, spec)
		require.NotEmpty(t, declared, spec)
		for _, v := range declared {
			assert.True(t, vars[v], "%s's variable %s is never compared", spec, v)
		}
	}
	assert.Len(t, checked, 3, "DistLock.tla, DistLockFencing.tla and DistLockRedlock.tla")
}

// specVariables lists the VARIABLES the PlusCal translation of spec
// declares (its "VARIABLES a, b, …" up to the blank line after it).
func specVariables(t *testing.T, spec string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(specsDir, spec))
	require.NoError(t, err)
	text := string(data)
	i := strings.Index(text, "\nVARIABLES ")
	require.GreaterOrEqual(t, i, 0, "%s has no VARIABLES", spec)
	decl, _, _ := strings.Cut(text[i+len("\nVARIABLES "):], "\n\n")
	var names []string
	for _, f := range strings.Split(decl, ",") {
		if n := strings.TrimSpace(f); n != "" {
			names = append(names, n)
		}
	}
	return names
}

// TestDepartureRenderedLikeACounterexample: a counterexample replayed
// through a test-only mutant (a resource that refuses everything, which
// acts on most counterexamples) departs at a step; the departure carries
// the Go run that matched up to there, and RenderDeparture tells it like a
// counterexample: the initial state, one step per matched Go step, and
// the departure, named with its step, as the violation.
func TestDepartureRenderedLikeACounterexample(t *testing.T) {
	var mu mutant
	for _, m := range mutants() {
		if m.name == "a resource that refuses everything" {
			mu = m
		}
	}
	require.NotEmpty(t, mu.name)
	rendered := 0
	for _, rc := range replayableModels(t) {
		c, err := ModelConfig(rc.model.Spec, rc.cfg)
		require.NoError(t, err)
		out := readCounterexample(t, rc.model.Name)
		_, err = replay(c, out, rc.model.Property, mutantStepper(t, c, mu))
		var re *ReplayError
		if !errors.As(err, &re) {
			continue
		}
		require.LessOrEqual(t, len(re.Path), re.Step, "%s: the Go steps matched before the departure", rc.model.Name)
		tr, err := RenderDeparture(c, rc.model.Name, re)
		require.NoError(t, err, rc.model.Name)
		assert.Len(t, tr.Steps, len(re.Path)+1, "%s: the initial state and each matched step", rc.model.Name)
		require.NotNil(t, tr.Violation, rc.model.Name)
		assert.Equal(t, Rejected, tr.Violation.Property)
		assert.Contains(t, tr.Violation.Explanation, fmt.Sprintf("step %d (%s)", re.Step, re.Action), rc.model.Name)
		rendered++
	}
	assert.Positive(t, rendered, "the mutant departs from some counterexample")
	t.Logf("%d departures rendered", rendered)
}
