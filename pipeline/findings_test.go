package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/distlockspec"
	"github.com/fencelab/fencelab/internal/faketlc"
	"github.com/fencelab/fencelab/trace"
)

// replayFolder lays out the committed TLC counterexamples as fencelab tlc
// --out writes them, with change applied to model's output.
func replayFolder(t *testing.T, model string, change func(string) string) string {
	t.Helper()
	from := t.TempDir()
	fixtures, err := filepath.Glob("../conform/testdata/replay/*.out")
	require.NoError(t, err)
	require.NotEmpty(t, fixtures)
	for _, f := range fixtures {
		name := strings.TrimSuffix(filepath.Base(f), ".out")
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		if name == model {
			changed := change(string(data))
			require.NotEqual(t, string(data), changed)
			data = []byte(changed)
		}
		dir := filepath.Join(from, name)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "tlc.out"), data, 0o644))
	}
	return from
}

// TestConformDepartureIsAFinding: a TLC counterexample the Go system
// departs from in its last state (the counter of TLC's last state
// changed) is a finding: conform finishes the replay of every other model,
// prints its summary, renders the departure like a counterexample (the Go
// run up to there, the departure as the violation, with its step) and
// exits 1. The tools are a stand-in: the replay runs no TLC.
func TestConformDepartureIsAFinding(t *testing.T) {
	faketlc.New(t, "exit 1", "exit 0")
	const model = "DistLock_2c_NoLostUpdate"
	from := replayFolder(t, model, func(s string) string {
		i := strings.LastIndex(s, "/\\ counter = ")
		j := i + strings.IndexByte(s[i:], '\n')
		return s[:i] + "/\\ counter = 42" + s[j:]
	})
	out := filepath.Join(t.TempDir(), "conform")
	e, stdout, _ := testEnv()
	err := Conform(e, ConformPlan{Specs: "../specs", Pin: "../tla2tools.version", Out: out, Timeout: time.Minute, Replay: true, ReplayFrom: from})
	require.Equal(t, ExitFailure, exitCodeOf(err), "%v\n%s", err, stdout)
	assert.Contains(t, err.Error(), "1 TLC counterexamples depart from the Go system")
	assert.Regexp(t, model+` +DEPARTS from TLC's counterexample at step \d+ \(\w+\): no Go step reaches TLC's state; .*counter is \d+ in Go, 42 in TLC's state`, stdout.String())
	assert.Regexp(t, `DistLock_2c_AtMostOneClientHoldLock +7 +violated at step 7`, stdout.String(), "the other models are replayed")
	assert.Regexp(t, `\n\d+ TLC counterexamples replayed in Go, \d+ of systems Go does not run`, stdout.String(), "the summary")
	dir := filepath.Join(out, "replay_"+model)
	assert.Contains(t, stdout.String(), "departure rendered in "+dir)
	for _, f := range trace.FileNames() {
		assert.FileExists(t, filepath.Join(dir, f))
	}
	text, err := os.ReadFile(filepath.Join(dir, trace.TextFile))
	require.NoError(t, err)
	assert.Regexp(t, `departs from the Go system after this step, at its step \d+ \(Access\): no Go step reaches TLC's state`, string(text))
	assert.Contains(t, string(text), "counter is")
}

// TestConformUnjudgedGroupsAreFindings: when TLC cannot judge a group of
// traces (it stops with an error), the traces are not accepted and the run
// does not stop there: every group is tried, the table and the summary are
// printed, each unjudged group is a finding line, and conform exits 1.
func TestConformUnjudgedGroupsAreFindings(t *testing.T) {
	faketlc.New(t, "echo 'TLC2 Version 2.19 of 08 August 2024'; echo 'Error: evaluating the trace'; exit 12", "exit 0")
	out := filepath.Join(t.TempDir(), "conform")
	e, stdout, _ := testEnv()
	err := Conform(e, ConformPlan{Specs: "../specs", Pin: "../tla2tools.version", Out: out, Timeout: time.Minute, Walks: 2, MaxSteps: 40})
	require.Equal(t, ExitFailure, exitCodeOf(err), "%v\n%s", err, stdout)
	assert.Contains(t, stdout.String(), "source  design", "the table")
	assert.Contains(t, stdout.String(), "traces, ", "the summary")
	lines := strings.Count(stdout.String(), "✗ walk, ")
	assert.Positive(t, lines)
	assert.Contains(t, stdout.String(), "2 traces not judged: TLC did not complete the trace run")
	assert.Contains(t, err.Error(), "findings (see above)")
}

// TestDemoConformanceFindings: the demo's conformance section, when TLC
// cannot judge any design's walks, prints its table and one finding per
// design, and reports a failed check (exit 1 after the demo's tables),
// never an error that stops the demo.
func TestDemoConformanceFindings(t *testing.T) {
	faketlc.New(t, "echo 'TLC2 Version 2.19 of 08 August 2024'; echo 'Error: evaluating the trace'; exit 12", "exit 0")
	e, stdout, _ := testEnv()
	failed, err := demoConformanceSection(e, "../specs", "../tla2tools.version", t.TempDir(), nil, true)
	require.NoError(t, err)
	require.Equal(t, ExitFailure, exitCodeOf(failed), "%v", failed)
	assert.Contains(t, stdout.String(), "Go walks TLC accepted")
	for _, d := range distlockspec.Designs() {
		if d.Redlock() {
			continue
		}
		assert.Contains(t, stdout.String(), "✗ "+d.String()+": trace validation, "+d.String()+": TLC did not complete the trace run")
	}
}
