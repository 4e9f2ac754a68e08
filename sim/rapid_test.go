package sim

import (
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
)

// captureTB is the rapid.TB rapid.Check reports to: instead of failing the
// test it records that rapid found a counterexample (and what rapid said),
// so the test can examine the shrunk counterexample itself. rapid replays
// the minimal failing case last, so the property's last failing input is
// the shrunk one.
type captureTB struct {
	name   string
	failed bool
	log    strings.Builder
}

func (c *captureTB) Helper()                       {}
func (c *captureTB) Name() string                  { return c.name }
func (c *captureTB) Logf(format string, a ...any)  { fmt.Fprintf(&c.log, format+"\n", a...) }
func (c *captureTB) Log(a ...any)                  { fmt.Fprintln(&c.log, a...) }
func (c *captureTB) Skipf(format string, a ...any) { c.Logf("skip: "+format, a...) }
func (c *captureTB) Skip(a ...any)                 { c.Log(a...) }
func (c *captureTB) SkipNow()                      {}
func (c *captureTB) Errorf(format string, a ...any) {
	c.failed = true
	c.Logf(format, a...)
}
func (c *captureTB) Error(a ...any) { c.failed = true; c.Log(a...) }
func (c *captureTB) Fatalf(format string, a ...any) {
	c.failed = true
	c.Logf(format, a...)
}
func (c *captureTB) Fatal(a ...any) { c.failed = true; c.Log(a...) }
func (c *captureTB) FailNow()       { c.failed = true }
func (c *captureTB) Fail()          { c.failed = true }
func (c *captureTB) Failed() bool   { return c.failed }

// setFlag sets a command-line flag for the test's duration.
func setFlag(t *testing.T, name, value string) {
	f := flag.Lookup(name)
	require.NotNil(t, f, "flag %s", name)
	old := f.Value.String()
	require.NoError(t, f.Value.Set(value))
	t.Cleanup(func() { _ = f.Value.Set(old) })
}

// TestRapidShrinksToKleppmann states "no design without fencing loses an
// update under process pauses" as a rapid property over generated pause
// schedules, lets rapid falsify it and shrink the counterexample with its
// own shrinker, and checks that the counterexample it ends with has the
// shape the simulator's shrinker finds: one pause of one client, between
// its grant and its write, during which its lease expires.
func TestRapidShrinksToKleppmann(t *testing.T) {
	testbuild.SkipUnderRace(t)
	// A fixed seed keeps the test deterministic (unless -rapid.seed says
	// otherwise), and no fail file is left in testdata.
	if flag.Lookup("rapid.seed").Value.String() == "0" {
		setFlag(t, "rapid.seed", "4")
	}
	setFlag(t, "rapid.nofailfile", "true")
	// rapid favours small values, and most pause schedules are harmless:
	// give it enough tries to find a harmful one.
	setFlag(t, "rapid.checks", "2000")

	c := config(impl.DesignNoFencing, PauseFaults)
	r, err := NewRunner(c)
	require.NoError(t, err)
	horizon := c.horizon().Milliseconds()
	pause := rapid.Custom(func(rt *rapid.T) Fault {
		return Fault{
			Kind:     FaultPause,
			Node:     c.nodeAt(rapid.IntRange(0, c.NumNodes()-1).Draw(rt, "node")),
			At:       time.Duration(horizon-rapid.Int64Range(0, horizon).Draw(rt, "ms_before_horizon")) * time.Millisecond,
			Duration: time.Duration(rapid.Int64Range(1, 3*c.TTL.Milliseconds()).Draw(rt, "duration_ms")) * time.Millisecond,
		}
	})
	schedules := rapid.SliceOfN(pause, 0, 5)
	var last *Schedule
	prop := func(rt *rapid.T) {
		s := &Schedule{Version: ScheduleVersion, Seed: 1, Faults: schedules.Draw(rt, "pauses")}
		s.Sort()
		if res := r.Run(s); res.Violated(impl.NoLostUpdate) {
			last = s
			rt.Fatalf("lost update: %s", res.violations[propLostUpdate].Explanation)
		}
	}
	tb := &captureTB{name: t.Name()}
	rapid.Check(tb, prop)
	require.True(t, tb.failed, "rapid must falsify the property; it said:\n%s", tb.log.String())
	require.NotNil(t, last)
	for _, f := range last.Faults {
		t.Logf("rapid shrunk: %s at %v", f, f.At)
	}
	kleppmannShape(t, c, last)
}
