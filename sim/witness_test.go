package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/verdict"
)

// TestVacuityWitness: a run reaches VacuityWitness's goal exactly when a
// section of it committed, and a design's runs that never reach it leave
// every property that no run violated Unknown (NoneCommitted), not Holds:
// the same runs with the witness reached give Holds.
func TestVacuityWitness(t *testing.T) {
	c := DefaultConfig()
	c.Design = impl.DesignFenceAll
	r, err := NewRunner(c)
	require.NoError(t, err)
	witnessed := 0
	for seed := uint64(1); seed <= 20; seed++ {
		res := r.Run(Generate(seed, c))
		assert.Equal(t, res.Committed > 0, res.Witnessed, "seed %d: %d sections committed", seed, res.Committed)
		if res.Witnessed {
			witnessed++
		}
	}
	require.Positive(t, witnessed, "some run commits a section")

	for _, reached := range []bool{false, true} {
		d := DesignSummary{Design: impl.DesignFenceAll}
		d.Add(&Result{Design: impl.DesignFenceAll, Witnessed: reached})
		for _, v := range d.Verdicts() {
			if v.Property != impl.NoLostUpdate {
				continue
			}
			if reached {
				assert.Equal(t, verdict.Holds, v.Status)
			} else {
				assert.Equal(t, verdict.Unknown, v.Status)
				assert.Equal(t, NoneCommitted, v.Detail)
			}
		}
	}
}
