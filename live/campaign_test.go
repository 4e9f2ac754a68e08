package live

import (
	"testing"

	"github.com/fencelab/fencelab/verdict"
	"github.com/stretchr/testify/assert"
)

func TestTallyCells(t *testing.T) {
	assert.Equal(t, "violated (2 of 5)", Tally{Expected: verdict.Violated, Runs: 5, Violated: 2}.String())
	nv := Tally{Expected: verdict.Holds, Runs: 5, TookEffect: 4}
	assert.Equal(t, "not observed (0 of 5; the fault took effect in 4)", nv.String())
	assert.False(t, nv.Unexpected())
	assert.Equal(t, verdict.Unknown, nv.Status(), "not observed is never holds")
	bad := Tally{Expected: verdict.Holds, Runs: 5, Violated: 1}
	assert.True(t, bad.Unexpected())
	s := &Summary{Tallies: []Tally{nv, bad}}
	assert.True(t, s.Failed())
	s = &Summary{Tallies: []Tally{nv, {Expected: verdict.Violated, Runs: 1, Violated: 1}}}
	assert.False(t, s.Failed())
}
