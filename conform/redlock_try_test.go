package conform

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/explore"
	"github.com/fencelab/fencelab/impl"
)

func TestTryRedlock(t *testing.T) {
	k := checker(t)
	for _, d := range []impl.Design{impl.DesignRedlock, impl.DesignRedlockUnique} {
		c := explore.DefaultConfig(d, 3).Config
		c.Validity = impl.ValiditySend
		c.Retries = 1
		g, err := Walks(c, 10, 200)
		require.NoError(t, err)
		g2, err := Counterexamples(d, 2)
		require.NoError(t, err)
		g3, err := SimRuns(SimConfig(d), 10, 2)
		require.NoError(t, err)
		for _, g := range []Group{g2, g3} {
			run, err := k.Check(t.Context(), g.Config, g.Traces)
			require.NoError(t, err)
			for _, v := range run.Verdict {
				t.Log(v.Trace.Name, v.Accepted, v.Trace.Unmapped, len(v.Trace.Lines))
			}
		}
		run, err := k.Check(t.Context(), c, g.Traces)
		if err != nil {
			t.Log(string(run.Output))
		}
		require.NoError(t, err)
		for _, v := range run.Verdict {
			if !v.Accepted {
				n, err := k.Diagnose(t.Context(), v.Trace)
				t.Errorf("%s rejected at line %d (%v): %v", v.Trace.Name, n, err, v.Trace.Lines[min(n, len(v.Trace.Lines)-1)].State)
				break
			}
		}
	}
}
