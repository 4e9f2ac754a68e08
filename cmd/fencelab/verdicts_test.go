package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/sweep"
)

// slowOnlySpecs is a specs folder whose manifest's every model is slow.
func slowOnlySpecs(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	const manifest = `{"models": [{"name": "Big", "spec": "DistLock.tla", "cfg": "DistLock_2c.cfg", "design": "off", "expected": "ok", "distinct_states": 5, "slow": true}]}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "models.json"), []byte(manifest), 0o644))
	return dir
}

// TestNothingCheckedIsNeverSuccess: every command that would check
// nothing — no model (a manifest of slow models only), no trace and no
// counterexample, no run, no design — says so on one line and exits 2,
// before any work: never "all 0 model(s) match" with exit 0, never a
// failed check.
func TestNothingCheckedIsNeverSuccess(t *testing.T) {
	slow := slowOnlySpecs(t)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"tlc, every model slow", []string{"tlc", "--specs", slow, "--out", t.TempDir()}, "nothing to check: every model of " + filepath.Join(slow, "models.json") + " is marked slow"},
		{"demo, every model slow", []string{"demo", "--specs", slow, "--out", t.TempDir()}, "nothing to check: every model"},
		{"conform, no source", []string{"conform", "--specs", "../../specs", "--out", t.TempDir(), "--walks", "0", "--sim-runs", "0", "--sim-failing", "0", "--explore=false", "--replay=false"}, "nothing to check: --walks 0"},
		{"sim, no run", []string{"sim", "--runs", "0", "--out", t.TempDir()}, "runs must be positive, got 0"},
		{"sim --npc, no run", []string{"sim", "--npc", "--runs", "0"}, "runs must be positive, got 0"},
		{"sweep, no design", []string{"sweep", "--design", "", "--out", t.TempDir()}, "--design names no design"},
		{"sweep, blank design", []string{"sweep", "--design", "  ", "--out", t.TempDir()}, "--design names no design"},
		{"sweep, an empty design in the list", []string{"sweep", "--design", "off,", "--out", t.TempDir()}, `unknown design ""`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tc.args...)
			assert.Equal(t, exitBadInput, code, "stdout: %s\nstderr: %s", stdout, stderr)
			assert.Contains(t, stderr, tc.want)
			assert.Equal(t, 1, countLines(stderr), "one line: %s", stderr)
			assert.NotContains(t, stdout, "match")
		})
	}
}

// TestSweepRefusesDesignsItDoesNotJudge: sweep judges the designs whose
// safety DESIGN.md's timing condition decides; every other row (restarts,
// atomicity, Redlock, the token rules) is refused up front, exit 2 and one
// line naming those it judges, never "disagrees with DESIGN.md's
// condition" (exit 1) or an agreement it did not find.
func TestSweepRefusesDesignsItDoesNotJudge(t *testing.T) {
	judged := 0
	for _, d := range impl.Designs() {
		if sweep.Supported(d) == nil {
			judged++
			continue
		}
		for _, list := range []string{d.String(), "off," + d.String()} {
			code, stdout, stderr := runCLI(t, "sweep", "--design", list, "--out", t.TempDir())
			assert.Equal(t, exitBadInput, code, "%s: %s", list, stderr)
			assert.Empty(t, stdout, list)
			assert.Contains(t, stderr, "the sweep judges the designs off, none, writes, all, renewal", list)
			assert.Contains(t, stderr, "not "+d.String()+":", list)
			assert.Equal(t, 1, countLines(stderr), list)
		}
	}
	assert.Equal(t, 5, judged)
	for _, d := range []impl.Design{impl.DesignRestartVolatile, impl.DesignRestartDurable, impl.DesignRedlock, impl.DesignNonAtomic, impl.DesignSequencer} {
		assert.Error(t, sweep.Supported(d), d.String())
	}
	assert.True(t, slices.ContainsFunc(impl.Designs(), func(d impl.Design) bool { return sweep.Supported(d) != nil }))
}
