package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBoundsFromLive: --from-live takes the bounds a live run measured
// from testdata/from-live (two campaigns of setup redis/none, hand-made
// figures) and the arithmetic is the condition's, by hand:
//
//	ttl 1s (the files' ttl_ns)
//	margin = ttl − longest validity = 1s − 950ms (client-pause, seed 2) = 50ms
//	P = longest pause = 40ms (client-pause, seed 1); ρ = J = D = L = 0
//	window = ttl − margin = 950ms; next = ttl + L = 1s
//	AtMostOneClientHoldLock: slack = 1s − 950ms − 40ms = 10ms: holds;
//	  the margin must exceed X = 40ms (−L/1 + X), the lock-delay
//	  window − ttl + X = −10ms: any
//	NoLostUpdate: X = 2P + D = 80ms, slack = 1s − 950ms − 80ms = −30ms:
//	  can be violated; margin must exceed 80ms, lock-delay 950ms − 1s + 80ms = 30ms
//	kill→grant 1.05s, 1.15s, 1.1s: min 1.05s, median 1.1s, max 1.15s;
//	  bound 1.2s, margin 1.2s − 1.15s = 50ms: holds
//	blind windows −30ms, −10ms, 5ms: min −30ms, median −10ms, max 5ms > 0:
//	  the margin does not hold
func TestBoundsFromLive(t *testing.T) {
	code, stdout, stderr := runCLI(t, "bounds", "--from-live", "testdata/from-live")
	require.Equal(t, exitOK, code, stderr)
	assert.Empty(t, stderr)
	cp := filepath.Join("testdata", "from-live", "redis", "none", "client-pause", "liveness.json")
	for _, want := range []string{
		"(setup redis/none, 2 liveness.json files)",
		"ttl 1s: the setup's lease (" + filepath.Join("testdata", "from-live", "redis", "none"),
		"margin 50ms: ttl less the longest validity a grant reported, 950ms (" + cp + ", run seed 2)",
		"max-pause 40ms: the longest client pause (" + cp + ", run seed 1)",
		"pauses up to 40ms\n",
		"ttl 1s, margin 50ms, lock-delay 0s (not given)",
		"LockFreedAfterHolderDeath: kill→grant over 3 runs: min 1.05s, median 1.1s, max 1.15s",
		"holds, margin 50ms (bound − max)",
		"blind window over 3 runs: min -30ms, median -10ms, max 5ms",
		"the margin does not hold: an old holder believed 5ms after the service had let go",
	} {
		assert.Contains(t, stdout, want)
	}
	assert.Regexp(t, `AtMostOneClientHoldLock +P = 40ms +holds +10ms +40ms +any \(≥ 0\)`, stdout)
	assert.Regexp(t, `NoLostUpdate +2P\+D = 80ms +can be +-30ms +80ms +30ms`, stdout)

	// A bound still given by flag comes on top: D = 5ms makes
	// NoLostUpdate's X 85ms, its slack −35ms.
	code, stdout, stderr = runCLI(t, "bounds", "--from-live", "testdata/from-live", "--max-delay", "5ms")
	require.Equal(t, exitOK, code, stderr)
	assert.Regexp(t, `NoLostUpdate +2P\+D = 85ms +can be +-35ms`, stdout)

	// One campaign alone: the holder-death files' validity is 900ms, so
	// the margin is 100ms, and no pause was measured.
	code, stdout, stderr = runCLI(t, "bounds", "--from-live", filepath.Join("testdata", "from-live", "redis", "none", "holder-death"))
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "margin 100ms: ttl less the longest validity a grant reported, 900ms")
	assert.Contains(t, stdout, "max-pause 0s: the runs paused no client")
	assert.Contains(t, stdout, "blind window: not measured")
}

// TestBoundsFromLiveKillLate: a kill→grant past the bound violates
// LockFreedAfterHolderDeath, with a negative margin.
func TestBoundsFromLiveKillLate(t *testing.T) {
	dir := t.TempDir()
	writeLive(t, dir, "a", `{"format":"fencelab-liveness/1","setup":"redis/none","fault":"holder-death","ttl_ns":1000000000,"freed_bound_ns":1200000000,"freed_bound_why":"x",
		"runs":[{"seed":1,"kill_to_grant_ns":1300000000,"freed":"violated"},{"seed":2,"freed":"violated"}]}`)
	code, stdout, stderr := runCLI(t, "bounds", "--from-live", dir)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "violated, margin -100ms (bound − max)")
	assert.Contains(t, stdout, "violated: in 1 runs no other client was granted after the kill")
}

// TestBoundsFromLiveBadDir: a missing folder, one without measurements,
// a malformed or foreign file, two setups, a flag the run measured: one
// line on stderr, exit 2.
func TestBoundsFromLiveBadDir(t *testing.T) {
	good := `{"format":"fencelab-liveness/1","setup":"redis/none","fault":"client-pause","ttl_ns":1000000000,"freed_bound_ns":0,"freed_bound_why":"","runs":[]}`
	for _, tc := range []struct {
		name  string
		files map[string]string
		args  []string
		want  string
	}{
		{"missing", nil, []string{"--from-live", "/nonexistent/fencelab"}, "no such file or directory"},
		{"empty", map[string]string{}, nil, "holds no measurements"},
		{"not json", map[string]string{"a": "{"}, nil, "malformed"},
		{"unknown field", map[string]string{"a": strings.Replace(good, `"runs"`, `"extra":1,"runs"`, 1)}, nil, "malformed"},
		{"foreign format", map[string]string{"a": strings.Replace(good, "fencelab-liveness/1", "other/1", 1)}, nil, "format"},
		{"no ttl", map[string]string{"a": strings.Replace(good, "1000000000", "0", 1)}, nil, "ttl_ns 0"},
		{"negative pause", map[string]string{"a": strings.Replace(good, `"runs":[]`, `"runs":[{"seed":1,"pauses_ns":[-1]}]`, 1)}, nil, "negative"},
		{"bad verdict", map[string]string{"a": strings.Replace(good, `"runs":[]`, `"runs":[{"seed":1,"freed":"maybe"}]`, 1)}, nil, "freed"},
		{"two setups", map[string]string{"a": good, "b": strings.Replace(good, "redis/none", "etcd/mutex", 1)}, nil, "give one setup's folder"},
		{"ttl given too", map[string]string{"a": good}, []string{"--ttl", "1s"}, "--ttl and --from-live"},
		{"pause given too", map[string]string{"a": good}, []string{"--max-pause", "1s"}, "--max-pause and --from-live"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if tc.files != nil {
				dir := t.TempDir()
				for sub, body := range tc.files {
					writeLive(t, dir, sub, body)
				}
				args = append([]string{"--from-live", dir}, args...)
			}
			code, stdout, stderr := runCLI(t, append([]string{"bounds"}, args...)...)
			assert.Equal(t, exitBadInput, code, stdout)
			assert.Empty(t, stdout)
			assert.Contains(t, stderr, tc.want)
			assert.Equal(t, 1, strings.Count(strings.TrimRight(stderr, "\n"), "\n")+1, "one line: %q", stderr)
		})
	}
	// A file where the folder should be.
	f := filepath.Join(t.TempDir(), "liveness.json")
	require.NoError(t, os.WriteFile(f, []byte(good), 0o644))
	code, _, stderr := runCLI(t, "bounds", "--from-live", f)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "is not a folder")
}

// writeLive writes body as dir/sub/liveness.json.
func writeLive(t *testing.T, dir, sub, body string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, sub), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, sub, "liveness.json"), []byte(body), 0o644))
}
