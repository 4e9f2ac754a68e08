package tlc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return data
}

func parseFixture(t *testing.T, name string) *Output {
	t.Helper()
	out, err := ParseOutput(strings.NewReader(string(readFixture(t, name))))
	require.NoError(t, err)
	return out
}

func TestParseOutputFixtures(t *testing.T) {
	tests := []struct {
		file                string
		tool                bool
		states              int
		invariant           string
		deadlock, temporal  bool
		distinct            int64
		depth               int
		firstAction, action string // the first state's and the last state's action
		workers             int
	}{
		{"tool_DistLock_2c_AtMostOneClientHoldLock.out", true, 8, "AtMostOneClientHoldLock", false, false, 51, 8, "Init", "Receive", 1},
		{"plain_DistLock_2c_AtMostOneClientHoldLock.out", false, 8, "AtMostOneClientHoldLock", false, false, 51, 8, "Init", "Receive", 1},
		{"tool_DistLockFencing_writes_2c_NoLostUpdate.out", true, 16, "NoLostUpdate", false, false, 883, 16, "Init", "Access", 1},
		{"tool_DistLockFencing_none_2c_TokenIsMonotonical.out", true, 10, "TokenIsMonotonical", false, false, 131, 10, "Init", "Access", 1},
		{"tool_DistLock_2c_Liveness_Unfair.out", true, 15, "", false, true, 3716, 23, "Init", "Stuttering", 1},
		{"plain_DistLock_2c_Liveness_Unfair.out", false, 15, "", false, true, 3716, 23, "Init", "Stuttering", 1},
		{"tool_seed000_deadlock.out", true, 11, "", true, false, 185, 12, "Init", "Receive", 1},
		{"tool_DistLockFencing_all_2c.out", true, 0, "", false, false, 1409, 23, "", "", 2},
		{"plain_DistLockFencing_all_2c.out", false, 0, "", false, false, 1409, 23, "", "", 2},
		{"tool_parse_error.out", true, 0, "", false, false, -1, -1, "", "", 1},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			out := parseFixture(t, tc.file)
			assert.Equal(t, tc.tool, out.Tool)
			assert.Len(t, out.States, tc.states)
			assert.Equal(t, tc.invariant, out.Invariant)
			assert.Equal(t, tc.deadlock, out.Deadlock)
			assert.Equal(t, tc.temporal, out.Temporal)
			assert.Equal(t, tc.distinct, out.Distinct)
			assert.Equal(t, tc.workers, out.Workers)
			if tc.depth != 0 {
				assert.Equal(t, tc.depth, out.Depth)
			}
			if tc.states > 0 {
				assert.Equal(t, tc.firstAction, out.States[0].Action)
				assert.Equal(t, tc.action, out.States[len(out.States)-1].Action)
				for i, st := range out.States {
					assert.Equal(t, i+1, st.Number, "states are numbered from 1 in order")
				}
			}
		})
	}
}

func TestParseOutputStateContents(t *testing.T) {
	out := parseFixture(t, "tool_DistLock_2c_AtMostOneClientHoldLock.out")
	last := out.States[len(out.States)-1]
	held, _ := last.Var("lock_held")
	assert.Equal(t, "(c1 :> TRUE @@ c2 :> TRUE)", held.String())
	lock, _ := last.Var("distLock")
	assert.Equal(t, `[lease |-> 2, status |-> "Acquired", id |-> c2]`, lock.String())
	assert.Equal(t, "Receive", last.Action)
	assert.Contains(t, last.Header, "of module DistLock")

	// The plain output of the same model parses to the same kind of states.
	plain := parseFixture(t, "plain_DistLock_2c_AtMostOneClientHoldLock.out")
	pv, _ := plain.States[len(plain.States)-1].Var("lock_held")
	assert.Equal(t, "(c1 :> TRUE @@ c2 :> TRUE)", pv.String())
}

func TestParseOutputErrorsAndWarnings(t *testing.T) {
	out := parseFixture(t, "tool_parse_error.out")
	assert.Contains(t, out.Errors, "Parsing or semantic analysis failed.")
	assert.Empty(t, out.States)

	stale := "@!@!@STARTMSG 2262:0 @!@!@\nTLC2 Version 2.19 of 08 August 2024 (rev: v174)\n@!@!@ENDMSG 2262 @!@!@\n" +
		"!! WARNING: The PlusCal algorithm in module DistLock has changed since its last translation.\n"
	o, err := ParseOutput(strings.NewReader(stale))
	require.NoError(t, err)
	assert.Equal(t, []string{"WARNING: The PlusCal algorithm in module DistLock has changed since its last translation."}, o.Warnings)
}

func TestParseOutputMultiLineValue(t *testing.T) {
	text := "TLC2 Version 2.19\nError: Invariant Inv is violated.\nError: The behavior up to this point is:\n" +
		"State 1: <Initial predicate>\n/\\ log = << [op |-> \"read\", token |-> 2],\n   [op |-> \"write\", token |-> 1] >>\n/\\ x = -1\n\n" +
		"Finished in 00s at (2026-11-22 02:15:03)\n"
	out, err := ParseOutput(strings.NewReader(text))
	require.NoError(t, err)
	require.Len(t, out.States, 1)
	require.Len(t, out.States[0].Vars, 2)
	assert.Equal(t, `<<[op |-> "read", token |-> 2], [op |-> "write", token |-> 1]>>`, out.States[0].Vars[0].Value.String())
	assert.Equal(t, "-1", out.States[0].Vars[1].Value.String())
	assert.Equal(t, "Inv", out.Invariant)
}

func TestParseOutputMalformed(t *testing.T) {
	tests := []struct{ name, text, wantErr string }{
		{"empty", "", "empty"},
		{"blank", " \n\n", "empty"},
		{"not TLC", "hello world\nthis is a shopping list\n", "does not look like TLC output"},
		{"truncated message", "@!@!@STARTMSG 2217:4 @!@!@\n1: <Initial predicate>\n/\\ x = 1\n", "no ENDMSG"},
		{"bad value", "@!@!@STARTMSG 2217:4 @!@!@\n1: <Initial predicate>\n/\\ x = [a |-> \n@!@!@ENDMSG 2217 @!@!@\n", "state 1: variable x"},
		{"not an assignment", "TLC2 Version 2.19\nState 1: <Initial predicate>\n/\\ nonsense here\n\n", "variable = value"},
		{"state without number", "@!@!@STARTMSG 2217:4 @!@!@\nno number\n@!@!@ENDMSG 2217 @!@!@\n", "without a state number"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseOutput(strings.NewReader(tc.text))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
}
