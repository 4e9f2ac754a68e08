package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
	"github.com/fencelab/fencelab/linearizability"
)

// TestMemoChangesNoVerdict: a batch of every design whose Checkers
// remember the verdicts of the histories they judged sums up exactly as
// one whose Checkers have Porcupine judge every history afresh — every
// count, first seed and Porcupine verdict — so the memory saves time and
// changes nothing else (fencelab sim prints from the summary alone). The
// memory did answer checks, and some were illegal: the two batches agree
// on something.
func TestMemoChangesNoVerdict(t *testing.T) {
	t.Parallel()
	runs := 300
	if testbuild.Reduced() {
		runs = 40
	}
	var memo linearizability.MemoStats
	b := Batch{Config: DefaultConfig(), Designs: impl.Designs(), Seed: 1, Runs: runs, memo: &memo}
	with, err := b.Run()
	require.NoError(t, err)
	b.memo, b.noMemo = nil, true
	without, err := b.Run()
	require.NoError(t, err)
	assert.Equal(t, without, with)

	assert.Positive(t, memo.SectionsHits, "the memory answered no sections check")
	assert.Positive(t, memo.RegisterHits, "the memory answered no register check")
	assert.Less(t, memo.SectionsHits, memo.SectionsLookups, "Porcupine judged no sections")
	assert.Less(t, memo.RegisterHits, memo.RegisterLookups, "Porcupine judged no operations")
	illegal := 0
	for _, d := range with.Designs {
		illegal += d.SectionsIllegal + d.RegisterIllegal
	}
	assert.Positive(t, illegal, "no history was illegal")
}
