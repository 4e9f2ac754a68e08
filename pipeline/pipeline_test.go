package pipeline

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/bounds"
	"github.com/fencelab/fencelab/explore"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
	"github.com/fencelab/fencelab/sim"
	"github.com/fencelab/fencelab/sweep"
	"github.com/fencelab/fencelab/trace"
)

// testEnv is an Env whose output the test reads.
func testEnv() (*Env, *strings.Builder, *strings.Builder) {
	var stdout, stderr strings.Builder
	return &Env{Stdout: &stdout, Stderr: &stderr}, &stdout, &stderr
}

// exitCodeOf is the exit code err stands for (0 for nil, 1 for an error
// without one, as cmd/fencelab maps it).
func exitCodeOf(err error) int {
	var ee *ExitError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ee):
		return ee.Code
	}
	return ExitFailure
}

// TestExploreSavesEveryCounterexample: the explorer's run of one design
// prints its verdicts, saves each counterexample's trace files in a folder
// named for the design, its clients and the property, and agrees with
// DESIGN.md's table; a search cut short leaves verdicts unknown, which
// fail (exit 1), never pass.
func TestExploreSavesEveryCounterexample(t *testing.T) {
	out := t.TempDir()
	e, stdout, _ := testEnv()
	c := explore.DefaultConfig(impl.DesignNoFencing, 2)
	require.NoError(t, Explore(e, []explore.Config{c}, out))
	assert.Contains(t, stdout.String(), "AtMostOneClientHoldLock")
	assert.Contains(t, stdout.String(), "counterexample traces written to "+out)
	dir := filepath.Join(out, "off-2c-AtMostOneClientHoldLock")
	for _, name := range trace.FileNames() {
		assert.FileExists(t, filepath.Join(dir, name))
	}

	c.MaxStates = 10
	e, _, _ = testEnv()
	err := Explore(e, []explore.Config{c}, "")
	assert.Equal(t, ExitFailure, exitCodeOf(err), "%v", err)
	assert.ErrorContains(t, err, "DESIGN.md's table differs")
}

// simOptions is fencelab sim's defaults for designs ds, runs runs from
// seed 1, saving into out.
func simOptions(out string, runs, workers int, ds ...impl.Design) *SimOptions {
	c := sim.DefaultConfig().DefaultFaultBounds()
	return &SimOptions{Cfg: c, Designs: ds, Runs: runs, Seed: 1, Workers: workers, Out: out, Porcupine: 10 * time.Second}
}

// TestSimBatchSavesEachDesignsFirstFailure: a batch prints the same bytes
// for any number of workers, saves the shrunk first failing run of each
// design that has one (with the command that replays it), and --out then
// holds this invocation's folders only: a later batch of a design that
// does not fail removes the earlier folder, and a folder with a user's
// file in it is never replaced.
func TestSimBatchSavesEachDesignsFirstFailure(t *testing.T) {
	// The batch's workers race in package sim's own tests; shrinking the
	// first failing runs takes half a minute under the race detector.
	testbuild.SkipUnderRace(t)
	out, other := filepath.Join(t.TempDir(), "sim"), filepath.Join(t.TempDir(), "sim")
	e1, stdout1, _ := testEnv()
	require.NoError(t, Sim(e1, simOptions(out, 100, 1, impl.DesignNoFencing, impl.DesignFenceAll)))
	e2, stdout2, _ := testEnv()
	require.NoError(t, Sim(e2, simOptions(other, 100, 3, impl.DesignNoFencing, impl.DesignFenceAll)))
	assert.Equal(t, strings.ReplaceAll(stdout1.String(), out, "OUT"), strings.ReplaceAll(stdout2.String(), other, "OUT"), "the same bytes for 1 and 3 workers, but the folder")
	assert.Contains(t, stdout1.String(), "replay: fencelab sim --design off --replay ")
	assert.Contains(t, stdout1.String(), "Every verdict is as DESIGN.md expects")
	assert.FileExists(t, filepath.Join(out, "off", "schedule.json"))
	assert.FileExists(t, filepath.Join(out, "off", "run.txt"))

	// Without faults nothing fails: the earlier folder goes.
	none := simOptions(out, 20, 1, impl.DesignNoFencing)
	none.Cfg.Faults = sim.NoFaults
	e, stdout, _ := testEnv()
	require.NoError(t, Sim(e, none), "nothing is expected violated without faults")
	assert.Contains(t, stdout.String(), "off     no run failed")
	assert.NoDirExists(t, filepath.Join(out, "off"))
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	for _, en := range entries {
		assert.False(t, strings.HasPrefix(en.Name(), "."), "temporary %s left", en.Name())
	}

	// A user's file in a design's folder: refused before any run.
	require.NoError(t, os.MkdirAll(filepath.Join(out, "off"), 0o755))
	notes := filepath.Join(out, "off", "notes.txt")
	require.NoError(t, os.WriteFile(notes, []byte("mine"), 0o644))
	err = CheckSimOut(out)
	assert.Equal(t, ExitBadInput, exitCodeOf(err))
	assert.ErrorContains(t, err, "notes.txt, which fencelab sim did not write")
	assert.FileExists(t, notes)
}

// TestSweepWritesItsFiles: a small sweep writes sweep.csv and sweep.svg,
// counts the cells on each side of the derived boundary, and agrees with
// the derivation.
func TestSweepWritesItsFiles(t *testing.T) {
	x, y, err := sweep.ParseGrid("pause:0..400ms/3,lock-delay:0..800ms/3")
	require.NoError(t, err)
	c := sim.DefaultConfig()
	c.Clients, c.Sections = 2, 2
	b := bounds.Bounds{Delay: c.OneWay() + 50*time.Millisecond, Pause: 100 * time.Millisecond, Jump: 20 * time.Millisecond, TTL: c.TTL, Margin: c.Margin}
	s := &sweep.Sweep{Config: c, Designs: []impl.Design{impl.DesignNoFencing}, Bounds: b, X: x, Y: y, Runs: 2, Seed: 1, Workers: 2}
	require.NoError(t, s.Validate())
	out := filepath.Join(t.TempDir(), "sweep")
	e, stdout, _ := testEnv()
	require.NoError(t, Sweep(e, s, out, "off"))
	assert.FileExists(t, filepath.Join(out, "sweep.csv"))
	assert.FileExists(t, filepath.Join(out, "sweep.svg"))
	assert.Contains(t, stdout.String(), "cells inside the boundary")
	assert.Contains(t, stdout.String(), "random runs inside the boundary: 0 of ")
	assert.Contains(t, stdout.String(), "the sweep agrees with DESIGN.md's condition")
}

// TestSweepRandomViolationInsideFails: a cell inside the boundary where
// random runs violated (a sweep result as a simulator that strays past its
// bounds gives it, sweep.TestRandomRunsInsideTheBoundaryDisagree) is
// counted, printed as a disagreement, and fails the sweep: exit 1.
func TestSweepRandomViolationInsideFails(t *testing.T) {
	x, y, err := sweep.ParseGrid("pause:100ms..100ms/1,lock-delay:600ms..600ms/1")
	require.NoError(t, err)
	s := &sweep.Sweep{Designs: []impl.Design{impl.DesignNoFencing}, X: x, Y: y, Runs: 10}
	safe := bounds.Verdict{Property: impl.AtMostOneClientHoldLock, Safe: true}
	res := &sweep.Result{Sweep: s, Cells: []sweep.Cell{{Design: impl.DesignNoFencing, Runs: 10,
		Outcomes: []sweep.Outcome{{Derived: safe, Worst: "held", Random: 3}}}}}
	var stdout strings.Builder
	err = sweepVerdict(&stdout, res)
	assert.Equal(t, ExitFailure, exitCodeOf(err), "%v", err)
	assert.Contains(t, stdout.String(), "random runs inside the boundary: 3 of 10 violated")
	assert.Contains(t, stdout.String(), "✗ off, pause=100ms, lock-delay=600ms: AtMostOneClientHoldLock violated inside the boundary (worst case held, 3 of 10 random runs)")

	res.Cells[0].Outcomes[0].Random = 0
	stdout.Reset()
	require.NoError(t, sweepVerdict(&stdout, res))
	assert.Contains(t, stdout.String(), "random runs inside the boundary: 0 of 10 violated")
}

// TestTLCWithoutJavaWritesNothing: without Java, fencelab tlc's run is bad
// input (exit 2) before any model, and leaves no --out folder behind.
func TestTLCWithoutJavaWritesNothing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("JAVA_HOME", "")
	models, err := LoadModels("../specs", "", false)
	require.NoError(t, err)
	require.NotEmpty(t, models)
	out := filepath.Join(t.TempDir(), "tlc")
	e, stdout, _ := testEnv()
	err = TLC(e, TLCPlan{Specs: "../specs", Pin: "../tla2tools.version", Out: out, Models: models, Timeout: time.Minute, Workers: "auto"})
	assert.Equal(t, ExitBadInput, exitCodeOf(err), "%v", err)
	assert.Empty(t, stdout.String())
	assert.NoDirExists(t, out)
}
