package conform

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/tlc"
)

// TestReplayRefusesAnotherModelsOutput: an output given for a model that
// is another spec's (DieHard), another property's or violation kind's, or
// another model's of the same spec (3 clients for 2) is not the model's
// (ErrOtherOutput, what conform --replay-from calls bad input), never a
// departure of the Go system; the model's own output replays, and one
// whose states were changed departs (a *ReplayError, not ErrOtherOutput).
// Real TLC 2.19 outputs (testdata).
func TestReplayRefusesAnotherModelsOutput(t *testing.T) {
	read := func(path string) []byte {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		return data
	}
	fixture := func(name string) []byte { return read(filepath.Join(replayDir, name+".out")) }
	own := fixture("DistLockFencing_writes_2c_NoLostUpdate")
	changed := regexp.MustCompile(`(?m)^/\\ counter = 0$`).ReplaceAll(own, []byte(`/\ counter = 5`))
	tests := []struct {
		name, model string
		output      []byte
		other       string // what the OtherOutputError finds; "" for none
		departs     bool
	}{
		{"its own", "DistLockFencing_writes_2c_NoLostUpdate", own, "", false},
		{"DieHard", "DistLockFencing_writes_2c_NoLostUpdate", read("testdata/DieHard_NotSolved.tlc.out"), "found spec DieHard", false},
		{"another spec of the lock", "DistLockFencing_writes_2c_NoLostUpdate", fixture("DistLock_2c_NoLostUpdate"), "found spec DistLock", false},
		{"another invariant", "DistLockFencing_writes_2c_NoLostUpdate", fixture("DistLockFencing_writes_2c_AtMostOneClientHoldLock"), "found invariant AtMostOneClientHoldLock violated", false},
		{"a liveness violation for an invariant", "DistLock_2c_NoLostUpdate", fixture("DistLock_2c_Liveness_Unfair"), "found a temporal property violated", false},
		{"an invariant for a liveness property", "DistLock_2c_Liveness_Unfair", fixture("DistLock_2c_NoLostUpdate"), "found invariant NoLostUpdate violated", false},
		{"3 clients for 2", "DistLockFencing_writes_2c_NoLostUpdate", fixture("DistLockFencing_writes_3c_NoLostUpdate"), `found clients {"c1", "c2", "c3"}`, false},
		{"2 clients for 3", "DistLockFencing_writes_3c_NoLostUpdate", own, `found clients {"c1", "c2"}`, false},
		{"a design without tokens for one with", "DistLockFencing_writes_2c_NoLostUpdate", fixture("DistLock_2c_2s_NoLostUpdate"), "found spec DistLock", false},
		{"its own, a state changed", "DistLockFencing_writes_2c_NoLostUpdate", changed, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := findCase(t, tc.model).model
			r, err := ReplayModel(specsDir, m, tc.output)
			var other *OtherOutputError
			var re *ReplayError
			switch {
			case tc.other != "":
				require.ErrorAs(t, err, &other)
				assert.ErrorIs(t, err, ErrOtherOutput)
				assert.Contains(t, err.Error(), tc.other)
				assert.Contains(t, err.Error(), "expected ")
				assert.False(t, errors.As(err, &re), "not a departure")
			case tc.departs:
				require.ErrorAs(t, err, &re)
				assert.NotErrorIs(t, err, ErrOtherOutput)
			default:
				require.NoError(t, err)
				assert.Equal(t, m.Property, r.Property, "the good path: the violation replayed")
				assert.Equal(t, r.Steps, r.At)
			}
		})
	}
}

// TestReplayOfARepeatedClient: TLC checks a cfg whose Clients repeat an
// element ({c1, c2, c1}) with two clients; its counterexample replays in
// the Go system the cfg stands for, two clients.
func TestReplayOfARepeatedClient(t *testing.T) {
	cfg, err := os.ReadFile("testdata/dup_clients.cfg")
	require.NoError(t, err)
	require.Contains(t, string(cfg), "{c1, c2, c1}")
	c, err := ModelConfig("DistLockFencing.tla", string(cfg))
	require.NoError(t, err)
	assert.Equal(t, 2, c.Clients)
	data, err := os.ReadFile("testdata/dup_clients.tlc.out")
	require.NoError(t, err)
	out, err := tlc.ParseOutput(bytes.NewReader(data))
	require.NoError(t, err)
	m := tlc.Model{Name: "dup", Spec: "DistLockFencing.tla", Expected: tlc.ResultInvariant, Property: "NoLostUpdate"}
	require.NoError(t, identify(m, c, out))
	r, err := Replay(c, out, "NoLostUpdate")
	require.NoError(t, err)
	assert.Equal(t, r.Steps, r.At)
}
