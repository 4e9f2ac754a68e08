package verdict

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAgrees(t *testing.T) {
	for _, got := range []Status{NotChecked, NotApplicable, Holds, Violated, Unknown} {
		for _, want := range []Status{NotApplicable, Holds, Violated} {
			v := Verdict{Property: "P", Status: got}
			assert.Equal(t, got == want, v.Agrees(want), "%s vs %s", got, want)
		}
		assert.False(t, Verdict{Status: got}.Agrees(Unknown), "nothing agrees with unknown")
	}
	assert.Equal(t, NotChecked, Verdict{}.Status, "the zero verdict was not reached")
}

func TestSet(t *testing.T) {
	var s Set
	s.Put(Verdict{Property: "A", Status: Holds})
	s.Put(Verdict{Property: "B", Status: Violated, Shortest: 7})
	s.Put(Verdict{Property: "A", Status: Unknown, Detail: "stopped early"})
	require.Len(t, s, 2)
	v, ok := s.Lookup("A")
	require.True(t, ok)
	assert.Equal(t, "A unknown (stopped early)", v.String())
	_, ok = s.Lookup("C")
	assert.False(t, ok)
	assert.Equal(t, Verdict{Property: "C"}, s.Get("C"))
	assert.Equal(t, 7, s.Get("B").Shortest)
}

// TestAgainst: "holds" over N sampled runs is not "violated" found: it
// is NotFound, neither agreement nor contradiction; an exhaustive "holds"
// contradicts an expected violation.
func TestAgainst(t *testing.T) {
	tests := []struct {
		v     Verdict
		want  Status
		agree Agreement
		words string
	}{
		{Verdict{Status: Violated, Runs: 10, Violating: 3}, Violated, Agree, "as expected"},
		{Verdict{Status: Holds, Runs: 10}, Violated, NotFound, "expected violated, none found in 10 runs"},
		{Verdict{Status: Holds, Runs: 1}, Violated, NotFound, "expected violated, none found in 1 run"},
		{Verdict{Status: Holds}, Violated, Disagree, "expected violated, holds"},
		{Verdict{Status: Violated, Runs: 1000, Violating: 3}, Holds, Disagree, "expected holds, violated in 3 of 1,000 runs"},
		{Verdict{Status: Violated, Shortest: 7}, Holds, Disagree, "expected holds, violated"},
		{Verdict{Status: Holds, Runs: 10}, Holds, Agree, "as expected"},
		{Verdict{Status: NotApplicable}, NotApplicable, Agree, "as expected"},
		{Verdict{Status: Unknown, Runs: 10}, Violated, Undecided, "unknown"},
		{Verdict{Status: NotChecked}, Holds, Undecided, "not checked"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.agree, tc.v.Against(tc.want), "%+v vs %s", tc.v, tc.want)
		assert.Equal(t, tc.words, tc.v.Versus(tc.want), "%+v vs %s", tc.v, tc.want)
		assert.Equal(t, tc.agree == Agree, tc.v.Agrees(tc.want), "Agrees is Against's Agree")
	}
}

// TestSteps: a counterexample of n actions is n+1 steps, as its trace
// numbers them (step 1 the initial state).
func TestSteps(t *testing.T) {
	assert.Equal(t, 8, Verdict{Status: Violated, Shortest: 7}.Steps())
	assert.Equal(t, 1, Verdict{Status: Violated}.Steps(), "the initial state itself violates")
	assert.Zero(t, Verdict{Status: Holds, Shortest: 7}.Steps())
}
