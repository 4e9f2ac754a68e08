package conform

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/distlockspec"
	"github.com/fencelab/fencelab/explore"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/golden"
)

// walksDir holds the validated walks: per design conform covers, the trace
// module of its seeded walks (TraceData_<design>_2c.tla), the output of
// the TLC run that accepted every one of them (.tlc.out), and the module's
// SHA-256 as TLC accepted it (.sha256), written only with that run.
const walksDir = "testdata/walks"

// Fixture walks: seeds 1..fixtureWalks of each design, up to 200 steps.
const fixtureWalks = 8

// walkFile is the path of design d's fixture with extension ext.
func walkFile(d impl.Design, ext string) string {
	return filepath.Join(walksDir, "TraceData_"+d.String()+"_2c"+ext)
}

// fixtureConfig is the walks' configuration of design d: the explorer's
// untimed one, 2 clients, 1 section.
func fixtureConfig(d impl.Design) impl.Config { return explore.DefaultConfig(d, 2).Config }

// fixtureTraces are design d's seeded walks, each step taken by apply
// (a mutant's seam; (*impl.World).Apply for the Go code as it is).
func fixtureTraces(t *testing.T, d impl.Design, apply func(*impl.World, int) (impl.Action, *impl.Effects)) []*Trace {
	t.Helper()
	c := fixtureConfig(d)
	var ts []*Trace
	for seed := range uint64(fixtureWalks) {
		choose := impl.SeededChooser(seed + 1)
		next := func(w *impl.World) (int, error) { return choose(w.Actions()), nil }
		tr, err := record(c, SourceWalk, fmt.Sprintf("walk seed %d, %s", seed+1, describeConfig(c)), 200, next, apply)
		require.NoError(t, err)
		require.Nil(t, tr.Unmapped, "%s: walk seed %d", d, seed+1)
		ts = append(ts, tr)
	}
	return ts
}

func moduleSum(module string) string {
	sum := sha256.Sum256([]byte(module))
	return hex.EncodeToString(sum[:])
}

// TestValidatedWalks: for every design conform covers, the Go code still
// produces exactly the walks TLC accepted — the committed trace module,
// whose SHA-256 the accepting run recorded, and whose TLC output accepts
// every walk. A change of Go behaviour that keeps every verdict (a
// sequencer that says yes a step too long, a grant a step late) changes a
// walk and fails here, without TLC. With -update and the jar
// (TLA2TOOLS_JAR=... make fixtures) TLC validates the walks again and the
// fixtures are rewritten, only when it accepts every one.
func TestValidatedWalks(t *testing.T) {
	for _, d := range distlockspec.Designs() {
		t.Run(d.String(), func(t *testing.T) {
			ts := fixtureTraces(t, d, (*impl.World).Apply)
			got := Module(fixtureConfig(d), ts)
			if *update {
				run, err := checker(t).Check(t.Context(), fixtureConfig(d), ts)
				require.NoError(t, err)
				for _, v := range run.Verdict {
					require.True(t, v.Accepted, "%s: TLC rejects %s: fixtures not rewritten", d, v.Trace.Name)
				}
				require.NoError(t, os.MkdirAll(walksDir, 0o755))
				require.NoError(t, os.WriteFile(walkFile(d, ".tlc.out"), run.Output, 0o644))
				require.NoError(t, os.WriteFile(walkFile(d, ".sha256"), []byte(moduleSum(got)+"\n"), 0o644))
			}
			golden.File(t, *update, walkFile(d, ".tla"), []byte(got))
			sum, err := os.ReadFile(walkFile(d, ".sha256"))
			require.NoError(t, err)
			assert.Equal(t, moduleSum(got), strings.TrimSpace(string(sum)), "%s: the module is not the one TLC accepted", d)
			out, err := os.ReadFile(walkFile(d, ".tlc.out"))
			require.NoError(t, err)
			checkAccepted(t, string(out), len(ts))
		})
	}
}

// checkAccepted: out is a complete TLC run that found no error and
// accepted each of n traces, and no more.
func checkAccepted(t *testing.T, out string, n int) {
	t.Helper()
	assert.Contains(t, out, "Model checking completed. No error has been found.")
	for i := range n {
		assert.Contains(t, out, fmt.Sprintf(`<<"fencelab-accepted", %d>>`, i+1))
	}
	assert.NotContains(t, out, fmt.Sprintf(`<<"fencelab-accepted", %d>>`, n+1))
}

// TestValidatedWalksCatchVerdictPreservingMutants: a sequencer service
// that says yes for the latest lease after it expired (until the next
// grant) keeps every verdict of its row — the lock-delay holds the next
// grant back, so nobody else's operation is in between — yet the
// fixture's walks change: CI fails without TLC.
func TestValidatedWalksCatchVerdictPreservingMutants(t *testing.T) {
	d := impl.DesignSequencer
	acted := 0
	apply := func(w *impl.World, i int) (impl.Action, *impl.Effects) {
		a, out := w.Apply(i)
		if a.Node != impl.ServiceNode || a.Input.Msg.Kind != impl.MsgCheck {
			return a, out
		}
		l := w.Sys.Service.Lock()
		for k := range w.InFlight {
			m := &w.InFlight[k]
			if m.Kind == impl.MsgCheckReply && !m.OK && l.Status == impl.Expired && m.Token == l.LastLease {
				m.OK = true
				w.Canonicalize()
				acted++
				break
			}
		}
		return a, out
	}
	ts := fixtureTraces(t, d, apply)
	require.Positive(t, acted, "the mutant never acted in the fixture's walks")
	want, err := os.ReadFile(walkFile(d, ".tla"))
	require.NoError(t, err)
	assert.NotEqual(t, string(want), Module(fixtureConfig(d), ts), "the mutant's walks are the validated ones")
}
