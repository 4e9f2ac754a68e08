package tlc

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJudgeMatchesThePropertyNameExactly: the judge compares the violated
// property's name whole and case-sensitively. A near miss — a prefix, an
// extension, another case, surrounding space — is a mismatch, both when
// Got is written by hand and when TLC's output names the near miss.
func TestJudgeMatchesThePropertyNameExactly(t *testing.T) {
	const want = "AtMostOneClientHoldLock"
	for _, kind := range []string{ResultInvariant, ResultLiveness} {
		model := Model{Expected: kind, Property: want}
		exit := 12
		if kind == ResultLiveness {
			exit = 13
		}
		assert.Empty(t, Judge(model, Got{ExitCode: exit, Result: kind, Property: want}), "the exact name matches")
		for _, near := range []string{
			"AtMostOneClientHoldLoc", "AtMost", "AtMostOneClientHoldLockX", "AtMostOneClientHoldLock2",
			"atmostoneclientholdlock", "ATMOSTONECLIENTHOLDLOCK", "AtmostOneClientHoldLock",
			" AtMostOneClientHoldLock", "AtMostOneClientHoldLock ", "", "NoLostUpdate",
		} {
			msg := Judge(model, Got{ExitCode: exit, Result: kind, Property: near})
			assert.NotEmpty(t, msg, "%s %q must not match %q", kind, near, want)
		}
	}

	// The same through TLC's own output: the name TLC prints is what is judged.
	data := string(readFixture(t, "tool_DistLock_2c_AtMostOneClientHoldLock.out"))
	require.Contains(t, data, "Invariant "+want+" is violated")
	model := Model{Expected: ResultInvariant, Property: want}
	for _, near := range []string{"AtMostOneClientHoldLoc", "AtMostOneClientHoldLockX", "atMostOneClientHoldLock"} {
		out := strings.ReplaceAll(data, "Invariant "+want+" is violated", "Invariant "+near+" is violated")
		got, _, err := Interpret([]byte(out), 12, "")
		require.NoError(t, err)
		assert.Equal(t, near, got.Property)
		assert.NotEmpty(t, Judge(model, got), "TLC naming %q must not match %q", near, want)
	}
}
