package distlockspec

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/internal/golden"
	"github.com/fencelab/fencelab/tlc"
	"github.com/fencelab/fencelab/trace"
)

var update = flag.Bool("update", false, golden.UpdateUsage)

// goldenFile compares got with testdata/name, or rewrites it with -update.
func goldenFile(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.File(t, *update, filepath.Join("testdata", name), got)
}

// parseFixture parses a TLC output captured in package tlc's testdata,
// the one folder of real TLC outputs (its README says how each was made).
func parseFixture(t *testing.T, name string) *tlc.Output {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "tlc", "testdata", name))
	require.NoError(t, err)
	out, err := tlc.ParseOutput(bytes.NewReader(data))
	require.NoError(t, err)
	return out
}

func fixtureTrace(t *testing.T, file, property string) *trace.Trace {
	t.Helper()
	tr, err := Trace(parseFixture(t, file), TraceOptions{Title: file, Property: property})
	require.NoError(t, err)
	return tr
}

func TestTraceGolden(t *testing.T) {
	tests := []struct{ file, property string }{
		{"tool_DistLock_2c_AtMostOneClientHoldLock.out", ""},
		{"plain_DistLock_2c_AtMostOneClientHoldLock.out", ""},
		{"tool_DistLockFencing_writes_2c_NoLostUpdate.out", ""},
		{"tool_DistLockFencing_none_2c_TokenIsMonotonical.out", ""},
		{"tool_DistLockFencing_all_3c_AtMostOneClientHoldLock.out", ""},
		{"tool_DistLock_2c_Liveness_Unfair.out", "AllClientsFinish"},
		{"tool_seed000_deadlock.out", ""},
		{"tool_assert.out", ""},
		{"tool_eval_error.out", ""},
		{"tool_interval.out", ""},
		{"tool_lasso.out", "Reach5"},
		{"tool_continue.out", ""},
		{"tool_intprocs.out", ""},
		{"tool_instance.out", ""},
		{"tool_plainspec.out", ""},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			tr := fixtureTrace(t, tc.file, tc.property)
			data, err := json.MarshalIndent(tr, "", "  ")
			require.NoError(t, err)
			goldenFile(t, strings.TrimSuffix(tc.file, ".out")+".golden.json", append(data, '\n'))
		})
	}
}

func TestTraceDistLockAtMostOne(t *testing.T) {
	tr := fixtureTrace(t, "tool_DistLock_2c_AtMostOneClientHoldLock.out", "")
	// Seed 000's counterexample had 15 states; ours must be no longer.
	assert.LessOrEqual(t, len(tr.Steps), 15)
	// The resource is a process of its own; its lane stays last.
	assert.Equal(t, []string{"service", "c1", "c2", ResourceLane}, tr.Lanes)
	assert.Equal(t, trace.SourceTLC, tr.Source)

	require.NotNil(t, tr.Violation)
	assert.Equal(t, "AtMostOneClientHoldLock", tr.Violation.Property)
	assert.Equal(t, tr.Steps[len(tr.Steps)-1].Number, tr.Violation.Step)
	assert.Equal(t, []string{"c1", "c2"}, tr.Violation.Involved)
	assert.Equal(t, "c1 and c2 both believe they hold the lock", tr.Violation.Explanation)

	first := tr.Steps[0]
	assert.Equal(t, "Init", first.Action)
	assert.Empty(t, first.Actor)
	assert.Contains(t, first.Changes, trace.Change{Path: "lock_held[c1]", New: "FALSE"})

	step2 := tr.Steps[1]
	assert.Equal(t, "c1", step2.Actor)
	assert.Equal(t, "Acquire", step2.Action)
	assert.Contains(t, step2.Changes, trace.Change{Path: "pc[c1]", Old: `"Acquire"`, New: `"Receive"`})
	for _, c := range step2.Changes {
		assert.NotContains(t, c.Path, "lock_held", "only what changed is listed")
	}

	// Each acquire goes client → service and each grant service → client,
	// received later, each read client → resource, not yet received when
	// the trace ends; the lease expiry is marked on the service's lane.
	require.Len(t, tr.Arrows, 6)
	assert.Equal(t, trace.Arrow{From: "c1", To: "service", Sent: 2, Received: 3, Label: "acquire"}, tr.Arrows[0])
	assert.Equal(t, trace.Arrow{From: "service", To: "c1", Sent: 3, Received: 5, Label: "grant (lease 1)"}, tr.Arrows[1])
	assert.Equal(t, trace.Arrow{From: "c1", To: ResourceLane, Sent: 5, Label: "read"}, tr.Arrows[2])
	require.Len(t, tr.Notes, 1)
	assert.Equal(t, trace.Note{Lane: "service", Step: 4, Kind: trace.NoteExpiry, Text: "the lease of c1 expired"}, tr.Notes[0])

	// The same model's plain output gives the same picture.
	plain := fixtureTrace(t, "plain_DistLock_2c_AtMostOneClientHoldLock.out", "")
	assert.Equal(t, tr.Violation, plain.Violation)
	assert.Equal(t, tr.Lanes, plain.Lanes)
}

func TestTraceFencingViolations(t *testing.T) {
	writes := fixtureTrace(t, "tool_DistLockFencing_writes_2c_NoLostUpdate.out", "")
	require.NotNil(t, writes.Violation)
	assert.Equal(t, "NoLostUpdate", writes.Violation.Property)
	assert.Equal(t, []string{"c1", "c2"}, writes.Violation.Involved)
	assert.Contains(t, writes.Violation.Explanation, "the counter is 1 but the resource accepted 2 writes")
	var resourceOps int
	for _, a := range writes.Arrows {
		if a.To == ResourceLane {
			resourceOps++
			assert.Greater(t, a.Received, a.Sent, "the resource handles an operation in a step of its own")
		}
	}
	assert.Equal(t, 4, resourceOps, "two reads and two writes")

	none := fixtureTrace(t, "tool_DistLockFencing_none_2c_TokenIsMonotonical.out", "")
	require.NotNil(t, none.Violation)
	assert.Equal(t, "TokenIsMonotonical", none.Violation.Property)
	assert.Len(t, none.Violation.Involved, 2)
	assert.Regexp(t, `accepted c\d's \w+ with token 1 after c\d's \w+ with token 2`, none.Violation.Explanation)
}

func TestTraceLivenessAndDeadlock(t *testing.T) {
	live := fixtureTrace(t, "tool_DistLock_2c_Liveness_Unfair.out", "AllClientsFinish")
	require.NotNil(t, live.Violation)
	assert.Equal(t, "AllClientsFinish", live.Violation.Property)
	last := live.Steps[len(live.Steps)-1]
	assert.Equal(t, "Stuttering", last.Action)
	assert.Empty(t, last.Changes)
	assert.NotEmpty(t, live.Violation.Involved, "someone never finishes")

	dead := fixtureTrace(t, "tool_seed000_deadlock.out", "")
	require.NotNil(t, dead.Violation)
	assert.Equal(t, "Deadlock", dead.Violation.Property)
	assert.Equal(t, []string{"c2"}, dead.Violation.Involved)
	var rejections int
	for _, n := range dead.Notes {
		if n.Kind == trace.NoteRejection {
			rejections++
			assert.Equal(t, "service", n.Lane)
		}
	}
	assert.Positive(t, rejections, "the seed 000 deadlock starts with a rejected acquire")
}

// The resource's refusals under check "all" appear in no violated model's
// counterexample, so this state pair is written in TLC's format by hand.
func TestTraceResourceRefusal(t *testing.T) {
	text := `TLC2 Version 2.19
Error: Invariant Inv is violated.
State 1: <Initial predicate>
/\ pc = (c1 :> "ReadCounter" @@ service :> "Serve")
/\ lock_held = (c1 :> TRUE)
/\ counter = 0
/\ token = (c1 :> 1)
/\ max_token = 2
/\ read_val = (c1 :> 0)
/\ accepted = <<[op |-> "read", id |-> c2, token |-> 2]>>

State 2: <ReadCounter line 1, col 1 to line 2, col 2 of module DistLockFencing>
/\ pc = (c1 :> "Release" @@ service :> "Serve")
/\ lock_held = (c1 :> TRUE)
/\ counter = 0
/\ token = (c1 :> 1)
/\ max_token = 2
/\ read_val = (c1 :> 0)
/\ accepted = <<[op |-> "read", id |-> c2, token |-> 2]>>

Finished in 00s at (2026-11-22 02:15:03)
`
	out, err := tlc.ParseOutput(strings.NewReader(text))
	require.NoError(t, err)
	tr, err := Trace(out, TraceOptions{})
	require.NoError(t, err)
	require.Len(t, tr.Arrows, 1)
	assert.Equal(t, trace.Arrow{From: "c1", To: ResourceLane, Sent: 2, Received: 2, Label: "read (token 1) → 0 refused"}, tr.Arrows[0])
	require.Len(t, tr.Notes, 1)
	assert.Equal(t, trace.Note{Lane: ResourceLane, Step: 2, Kind: trace.NoteRejection,
		Text: "refuses c1's read (token 1): the highest token seen is 2"}, tr.Notes[0])
}

func TestTraceWithoutCounterexample(t *testing.T) {
	_, err := Trace(parseFixture(t, "tool_DistLockFencing_all_2c.out"), TraceOptions{})
	assert.ErrorIs(t, err, ErrNoCounterexample)
}

// TestTraceOfOtherSpecs: traces of specs that are not fencelab's —
// PlusCal with integer process ids, a spec wrapped by INSTANCE, plain
// TLA+ — attribute every step to a lane and draw a Mermaid picture with
// every step in it.
func TestTraceOfOtherSpecs(t *testing.T) {
	tests := []struct {
		file   string
		lanes  []string
		actors []string // of the steps after the first
	}{
		{"tool_intprocs.out", []string{"1", "2"}, []string{"1", "2"}},
		{"tool_instance.out", []string{"1", "2"}, []string{"1", "2"}},
		{"tool_plainspec.out", []string{"PlainSpec"}, []string{"PlainSpec", "PlainSpec", "PlainSpec"}},
		{"tool_assert.out", []string{"AssertFail"}, []string{"AssertFail", "AssertFail"}},
		{"tool_lasso.out", []string{"Lasso"}, []string{"Lasso", "Lasso", "Lasso"}},
		{"plain_lasso.out", []string{"Lasso"}, []string{"Lasso", "Lasso", "Lasso"}},
		{"tool_interval.out", []string{"Interval"}, []string{"Interval", "Interval", "Interval"}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			tr := fixtureTrace(t, tc.file, "")
			assert.Equal(t, tc.lanes, tr.Lanes)
			var actors []string
			for _, s := range tr.Steps[1:] {
				actors = append(actors, s.Actor)
			}
			assert.Equal(t, tc.actors, actors)
			var mmd strings.Builder
			require.NoError(t, trace.WriteMermaid(&mmd, tr))
			for i := range tc.lanes {
				assert.Contains(t, mmd.String(), fmt.Sprintf("participant L%d as %s", i, tc.lanes[i]))
			}
			for _, s := range tr.Steps {
				assert.Contains(t, mmd.String(), fmt.Sprintf(": %d. %s", s.Number, s.Action), "step %d is in the picture", s.Number)
			}
		})
	}
}

// TestTraceFailures: an Assert failure and an evaluation error are the
// trace's violation, with TLC's words as the explanation.
func TestTraceFailures(t *testing.T) {
	tests := []struct{ file, property, explanation string }{
		{"tool_assert.out", "Assert", `TLC: The first argument of Assert evaluated to FALSE; the second argument was: "x must stay below 2"`},
		{"plain_assert.out", "Assert", `TLC: The first argument of Assert evaluated to FALSE; the second argument was: "x must stay below 2"`},
		{"tool_eval_error.out", EvaluationError, "TLC: Attempted to apply tuple <<20, 0>> to integer 3 which is out of domain."},
		{"plain_eval_error.out", EvaluationError, "TLC: Attempted to apply tuple <<20, 0>> to integer 3 which is out of domain."},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			tr := fixtureTrace(t, tc.file, "")
			require.NotNil(t, tr.Violation, "the trace carries the error")
			assert.Equal(t, tc.property, tr.Violation.Property)
			assert.Contains(t, tr.Violation.Explanation, tc.explanation)
			assert.Equal(t, tr.Steps[len(tr.Steps)-1].Number, tr.Violation.Step)
			var text strings.Builder
			require.NoError(t, trace.WriteText(&text, tr))
			assert.Contains(t, text.String(), tc.explanation)
		})
	}
}

// TestTraceLasso: a liveness counterexample that loops back ends with the
// step back to the state it returns to; the trace names that step.
func TestTraceLasso(t *testing.T) {
	tr := fixtureTrace(t, "tool_lasso.out", "Reach5")
	require.Len(t, tr.Steps, 4)
	assert.Equal(t, 1, tr.Loop)
	last := tr.Steps[3]
	assert.Equal(t, []trace.Change{{Path: "x", Old: "2", New: "0"}}, last.Changes, "the step back changes x to its value at step 1")
	assert.Equal(t, "Reach5", tr.Violation.Property)
	var found bool
	for _, n := range tr.Notes {
		if n.Step == 4 && strings.Contains(n.Text, "back to the state of step 1") {
			found = true
		}
	}
	assert.True(t, found, "a note says where the behaviour loops: %+v", tr.Notes)
}

// TestTraceContinue: of TLC's several counterexamples the trace is the
// selected one, and says how many there were.
func TestTraceContinue(t *testing.T) {
	out := parseFixture(t, "tool_continue.out")
	first, err := Trace(out, TraceOptions{})
	require.NoError(t, err)
	assert.Len(t, first.Steps, 3)
	require.NotEmpty(t, first.Notes)
	assert.Equal(t, "TLC printed 2 counterexamples (it ran with -continue); this is number 1", first.Notes[0].Text)
	sel, err := out.Select(2)
	require.NoError(t, err)
	second, err := Trace(sel, TraceOptions{})
	require.NoError(t, err)
	assert.Len(t, second.Steps, 5)
	assert.Equal(t, "TLC printed 2 counterexamples (it ran with -continue); this is number 2", second.Notes[0].Text)
	assert.Equal(t, "Inv", second.Violation.Property)
}

// TestTraceMatrixRows: the pictures of the matrix's rows tell their
// row's story. A non-atomic resource's write is checked in one step and
// applied in a later one (never "refused"); a restart of the service is
// marked as a fault, with the lease counter it restarted with.
func TestTraceMatrixRows(t *testing.T) {
	na := fixtureTrace(t, "tool_DistLockFencing_nonatomic_2c_NoLostUpdate.out", "")
	require.NotNil(t, na.Violation)
	assert.Equal(t, "NoLostUpdate", na.Violation.Property)
	var checked, applied int
	for _, n := range na.Notes {
		switch {
		case n.Lane == ResourceLane && strings.HasPrefix(n.Text, "checks ") && strings.HasSuffix(n.Text, ": applied later"):
			checked++
		case n.Lane == ResourceLane && strings.HasPrefix(n.Text, "applies "):
			applied++
		}
		assert.NotEqual(t, trace.NoteRejection, n.Kind, "no write is refused in this story: %v", n)
	}
	assert.Equal(t, 2, checked, "both writes are checked")
	assert.Equal(t, 2, applied, "and both applied later")
	for _, a := range na.Arrows {
		assert.NotContains(t, a.Label, "refused")
	}

	rs := fixtureTrace(t, "tool_DistLockFencing_restart-volatile_2c_NoLostUpdate.out", "")
	require.NotNil(t, rs.Violation)
	var restarts []trace.Note
	for _, n := range rs.Notes {
		if n.Kind == trace.NoteFault {
			restarts = append(restarts, n)
		}
	}
	require.Len(t, restarts, 1)
	assert.Equal(t, "service", restarts[0].Lane)
	assert.Equal(t, "crashed and restarted: the lock is free, the lease counter is 0", restarts[0].Text)
	var grants []string
	for _, a := range rs.Arrows {
		if strings.HasPrefix(a.Label, "grant") {
			grants = append(grants, a.Label)
		}
	}
	assert.Equal(t, []string{"grant (lease 1, token 1)", "grant (lease 1, token 1)"}, grants, "token 1 handed out twice")
}

// instanceHeader matches a step's header in TLC's output: its number, the
// action's name and where TLC found it.
var instanceHeader = regexp.MustCompile(`(?m)^([0-9]+): <([A-Za-z_]+)(\([^)]*\))? line [0-9]+, col [0-9]+ to line [0-9]+, col [0-9]+ of module [A-Za-z_]+>$`)

// asInstance rewrites a TLC output as a spec that INSTANCEs the spec would
// print it: each action under the instance's prefix (D!Serve), or, when
// the wrapper's Next is the instance's, every step D!Next, located in the
// wrapper — as TLC names the steps of tool_instance.out (M!Next).
func asInstance(t *testing.T, data []byte, everyStepNext bool) []byte {
	t.Helper()
	require.True(t, instanceHeader.Match(data), "the output has steps to rewrite")
	return instanceHeader.ReplaceAllFunc(data, func(h []byte) []byte {
		m := instanceHeader.FindSubmatch(h)
		action := "D!" + string(m[2]) + string(m[3])
		if everyStepNext {
			action = "D!Next"
		}
		return []byte(fmt.Sprintf("%s: <%s line 5, col 9 to line 5, col 14 of module WrapDistLock>", m[1], action))
	})
}

// TestTraceOfInstanceSpec: the counterexample of a spec that INSTANCEs
// the spec — its actions named D!Serve, or every step D!Next — is drawn
// with the lanes of the spec's own counterexample: every step after the
// first has the actor it has there, and no note or arrow is on a lane
// without a name.
func TestTraceOfInstanceSpec(t *testing.T) {
	for _, file := range []string{
		"tool_DistLock_2c_AtMostOneClientHoldLock.out",
		"tool_DistLockFencing_nonatomic_2c_NoLostUpdate.out",
		"tool_DistLockFencing_restart-volatile_2c_NoLostUpdate.out",
		"tool_DistLockFencing_writes_2c_NoLostUpdate.out",
		"tool_DistLockFencing_none_2c_TokenIsMonotonical.out",
		"tool_DistLockFencing_all_3c_AtMostOneClientHoldLock.out",
		"tool_seed000_deadlock.out",
		"tool_intprocs.out",
	} {
		data, err := os.ReadFile(filepath.Join("..", "tlc", "testdata", file))
		require.NoError(t, err)
		want := traceOf(t, data)
		for _, everyStepNext := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s every step Next %v", file, everyStepNext), func(t *testing.T) {
				got := traceOf(t, asInstance(t, data, everyStepNext))
				assert.Equal(t, want.Lanes, got.Lanes)
				require.Len(t, got.Steps, len(want.Steps))
				for i, s := range got.Steps[1:] {
					assert.Equal(t, want.Steps[i+1].Actor, s.Actor, "step %d", s.Number)
					assert.NotEmpty(t, s.Actor, "step %d has an actor", s.Number)
				}
				for _, n := range got.Notes {
					assert.NotEmpty(t, n.Lane, "note %q at step %d", n.Text, n.Step)
				}
				for _, a := range got.Arrows {
					assert.NotEmpty(t, a.From, "arrow %q sent at step %d", a.Label, a.Sent)
					assert.NotEmpty(t, a.To, "arrow %q sent at step %d", a.Label, a.Sent)
				}
			})
		}
	}
}

func traceOf(t *testing.T, data []byte) *trace.Trace {
	t.Helper()
	out, err := tlc.ParseOutput(bytes.NewReader(data))
	require.NoError(t, err)
	tr, err := Trace(out, TraceOptions{})
	require.NoError(t, err)
	return tr
}

// TestTraceOfTheTimedSpec: the timed spec's service is a constant, not a
// process, so its steps change no pc; they are drawn in the service's own
// lane, first — never in the first client's — and a step of no one (a
// tick of real time) is no lane's. Written in TLC's format by hand, as
// DistLockTimed's models print their states.
func TestTraceOfTheTimedSpec(t *testing.T) {
	state := func(n int, action, pc, resp string) string {
		return fmt.Sprintf("State %d: %s\n/\\ now = %d\n/\\ pc = (c1 :> %q @@ c2 :> \"Idle\")\n/\\ resp = (c1 :> %s @@ c2 :> [st |-> \"none\", t |-> 0])\n/\\ counter = 0\n\n", n, action, n, pc, resp)
	}
	none, granted := `[st |-> "none", t |-> 0]`, `[st |-> "granted", t |-> 1]`
	text := "TLC2 Version 2.19\nError: Invariant NoLostUpdate is violated.\n" +
		state(1, "<Initial predicate>", "Idle", none) +
		state(2, "<Acquire line 296, col 5 to line 304, col 80 of module DistLockTimed>", "Wait", none) +
		state(3, "<Serve line 269, col 5 to line 287, col 60 of module DistLockTimed>", "Wait", granted) +
		state(4, "<Tick line 234, col 5 to line 245, col 80 of module DistLockTimed>", "Wait", granted) +
		"Finished in 00s at (2026-11-22 02:15:03)\n"
	out, err := tlc.ParseOutput(strings.NewReader(text))
	require.NoError(t, err)
	tr, err := Trace(out, TraceOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{ServiceLane, "c1", "c2", ResourceLane}, tr.Lanes)
	var actors []string
	for _, s := range tr.Steps[1:] {
		actors = append(actors, s.Actor)
	}
	assert.Equal(t, []string{"c1", ServiceLane, ""}, actors, "Acquire is c1's, Serve the service's, Tick no one's")

	var b strings.Builder
	require.NoError(t, trace.WriteMermaid(&b, tr))
	assert.Contains(t, b.String(), "participant L0 as service\n")
	assert.Contains(t, b.String(), "Note over L0: 3. Serve\n", "the service's step in the service's lane")
}
