package run

import (
	"testing"

	"github.com/fencelab/fencelab/impl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReplayChecksTheCounter(t *testing.T) {
	ops := []impl.Op{
		{Client: impl.ClientNode(0), Kind: impl.OpRead, Accepted: true, Token: 1},
		{Client: impl.ClientNode(0), Kind: impl.OpWrite, Accepted: true, Token: 1, Value: 1},
		{Client: impl.ClientNode(1), Kind: impl.OpWrite, Accepted: false, Token: 0, Value: 7},
	}
	r, err := replay(ops, 1)
	require.NoError(t, err)
	assert.Len(t, r.Log(), 2, "refused operations are not replayed")
	_, err = replay(ops, 2)
	assert.Error(t, err)
}
