package store

import (
	"testing"

	"github.com/fencelab/fencelab/impl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReplay: a log a resource of its mode wrote replays to the same log
// and counter; a log it did not write (a decision changed, a kind
// unknown, the sequencer's) is refused, naming the operation.
func TestReplay(t *testing.T) {
	c1, c2 := impl.ClientNode(0), impl.ClientNode(1)
	log := []impl.Op{
		{Client: c1, Kind: impl.OpRead, Accepted: true, Token: 1},
		{Client: c2, Kind: impl.OpRead, Accepted: true, Token: 2},
		{Client: c2, Kind: impl.OpWrite, Accepted: true, Token: 2, Value: 1},
		{Client: c1, Kind: impl.OpWrite, Accepted: false, Token: 1, Value: 1},
	}
	r, err := Replay(impl.FenceAll, log)
	require.NoError(t, err)
	assert.Equal(t, log, r.Log())
	assert.Equal(t, int64(1), r.Counter())
	assert.Equal(t, impl.FenceAll, r.Mode())

	flipped := append([]impl.Op(nil), log...)
	flipped[3].Accepted = true
	_, err = Replay(impl.FenceAll, flipped)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "operation 4")
	assert.Contains(t, err.Error(), "logged as accepted, a resource fencing all refused it")

	r, err = Replay(impl.FenceNone, flipped)
	require.NoError(t, err, "a resource fencing none accepts everything")
	assert.Equal(t, int64(1), r.Counter())

	_, err = Replay(impl.FenceWrites, []impl.Op{{Client: c1, Kind: 9}})
	assert.ErrorContains(t, err, "operation 1: unknown kind")
	_, err = Replay(impl.FenceSequencer, log)
	assert.ErrorContains(t, err, "cannot be replayed")
}
