package bounds

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/tlctest"
	"github.com/fencelab/fencelab/tlc"
)

// TestTLCSweepFollowsCheckTicks (TLC): around both properties' boundaries,
// on both sides, at the margin where ticks round (M = 5) and where they do
// not (M = 3), TLC's verdict on DistLockTimed.tla is CheckTicks's — and
// where Check (real time) says otherwise, the point is one of those
// CheckTicks says it rounds (Check safe, the spec violated). The other
// client asks by the tick of the next grant (TickVerdict.MaxStart). About
// 8 minutes of TLC on 2 cores (the NoLostUpdate points are the slow ones;
// L = 14 and 18, the other sides, were run once: violated, 141,771 and
// 139,763 states).
func TestTLCSweepFollowsCheckTicks(t *testing.T) {
	tool := tlctest.Require(t, &tlcChecks)
	r := &tlc.Runner{Java: tool.Java, Jar: tool.Jar, Workers: "auto", Timeout: 10 * time.Minute}
	spec, err := os.ReadFile(filepath.Join("..", "specs", "DistLockTimed.tla"))
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "DistLockTimed.tla"), spec, 0o644))
	differ := 0
	for _, pt := range []struct {
		property string
		m, l     int64
	}{
		{impl.AtMostOneClientHoldLock, 3, 8}, {impl.AtMostOneClientHoldLock, 3, 9},
		{impl.AtMostOneClientHoldLock, 5, 4}, {impl.AtMostOneClientHoldLock, 5, 5},
		{impl.AtMostOneClientHoldLock, 5, 8}, {impl.AtMostOneClientHoldLock, 5, 9},
		{impl.NoLostUpdate, 5, 15}, {impl.NoLostUpdate, 5, 19},
	} {
		ticks := nominalTicks(pt.m, pt.l)
		verdicts, err := CheckTicks(ticks)
		require.NoError(t, err)
		cont, err := Check(ticks.Bounds(time.Millisecond))
		require.NoError(t, err)
		k := 0
		if pt.property == impl.NoLostUpdate {
			k = 1
		}
		v := verdicts[k]
		name := fmt.Sprintf("sweep_%s_M%d_L%d", pt.property, pt.m, pt.l)
		cfg := fmt.Sprintf("SPECIFICATION Spec\nCONSTANTS\n    Clients = {c1, c2}\n    Service = service\n"+
			"    Q = %d\n    R = %d\n    J = %d\n    P = %d\n    D = %d\n    TTL = %d\n    M = %d\n    L = %d\n"+
			"    MaxStart = %d\n    Fencing = \"off\"\n    Renewals = 0\n"+
			"INVARIANT TypeInvariant\nINVARIANT %s\nSYMMETRY Symmetry\nCHECK_DEADLOCK TRUE\n",
			ticks.Q, ticks.R, ticks.J, ticks.P, ticks.D, ticks.TTL, ticks.M, ticks.L, v.MaxStart, pt.property)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name+".cfg"), []byte(cfg), 0o644))
		model := tlc.Model{Name: name, Spec: "DistLockTimed.tla", Cfg: name + ".cfg", Expected: tlc.ResultOK}
		if !v.Safe {
			model.Expected, model.Property = tlc.ResultInvariant, pt.property
		}
		res, err := r.Run(context.Background(), dir, model)
		require.NoError(t, err)
		require.NoError(t, res.ParseErr)
		assert.Equal(t, model.Expected, res.Got.Result, "%s: TLC against CheckTicks %+v\n%s", name, v, res.Output)
		if model.Expected == tlc.ResultInvariant {
			assert.Equal(t, pt.property, res.Got.Property, name)
		}
		if cont[k].Safe != v.Safe {
			differ++
			assert.True(t, cont[k].Safe && !v.Safe, "%s: only rounding up can part them", name)
		}
		t.Logf("%s: Check safe %v (slack %v at 1ms a unit), CheckTicks safe %v (due %d, next %d, X %d); TLC %s, %d distinct states, depth %d",
			name, cont[k].Safe, cont[k].Slack, v.Safe, v.Due, v.Next, v.X, res.Got.Result, res.Got.Distinct, res.Got.Depth)
	}
	assert.Equal(t, 3, differ, "points where the two conditions differ: M 5, L 5 and 8 (AtMostOneClientHoldLock), L 15 (NoLostUpdate)")
}
