package history

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseFault(t *testing.T) {
	for _, f := range AllFaults() {
		g, err := ParseFault(string(f))
		require.NoError(t, err)
		assert.Equal(t, f, g)
	}
	_, err := ParseFault("pause\nplease")
	assert.Error(t, err)
}
