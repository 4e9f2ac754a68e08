package main

import (
	"errors"
	"github.com/fencelab/fencelab/internal/testexec"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDemoLiveCached: make demo's live part (scripts/demo-live.sh) runs
// the matrix once, keeps a run that exited 0 by the binary's bytes and
// the flags, and prints it again marked "(cached …)" with its --out files
// put back; a changed binary, a damaged entry or NOCACHE=1 runs it again;
// a failing run is never kept.
func TestDemoLiveCached(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "runs.log")
	bin := filepath.Join(dir, "fencelab-live")
	writeBin := func(code string) {
		// A stand-in matrix: counts its runs, prints its verdicts and
		// writes a summary into --out.
		script := "#!/bin/sh\necho run >> '" + log + "'\nwhile [ $# -gt 0 ]; do [ \"$1\" = --out ] && out=$2; shift; done\n" +
			"mkdir -p \"$out\" && echo summary > \"$out/summary.json\"\necho 'etcd/mutex: violated as expected'\nexit " + code + "\n"
		testexec.Write(t, bin, []byte(script))
	}
	runs := func() int {
		data, _ := os.ReadFile(log)
		return strings.Count(string(data), "run\n")
	}
	cache := filepath.Join(dir, "cache")
	// liveIn runs the script in env; live in the test's usual one, with
	// extra (KEY=value) last, so that it counts.
	liveIn := func(env []string) (string, int) {
		out := filepath.Join(t.TempDir(), "live")
		cmd := exec.Command("sh", "../../scripts/demo-live.sh", bin, out)
		cmd.Env = env
		stdout, err := cmd.CombinedOutput()
		code := 0
		if err != nil {
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "%s", stdout)
			code = exit.ExitCode()
		}
		if code == 0 {
			summary, err := os.ReadFile(filepath.Join(out, "summary.json"))
			require.NoError(t, err, "the --out files are there, fresh or cached")
			assert.Equal(t, "summary\n", string(summary))
		}
		return string(stdout), code
	}
	live := func(extra ...string) (string, int) {
		return liveIn(cleanEnv(t, append([]string{"FENCELAB_CACHE=" + cache}, extra...)...))
	}
	writeBin("0")
	first, code := live()
	require.Equal(t, 0, code, first)
	assert.Contains(t, first, "violated as expected")
	assert.NotContains(t, first, "cached")
	second, code := live()
	require.Equal(t, 0, code, second)
	assert.Contains(t, second, "violated as expected")
	assert.Contains(t, second, "(cached: this fencelab-live binary ran it")
	assert.Equal(t, 1, runs(), "the matrix ran once")

	again, _ := live("NOCACHE=1")
	assert.NotContains(t, again, "(cached")
	assert.Equal(t, 2, runs(), "NOCACHE=1 reruns")

	entries, err := filepath.Glob(filepath.Join(cache, "live", "*", "out.tar"))
	require.NoError(t, err)
	require.Len(t, entries, 1)
	require.NoError(t, os.WriteFile(entries[0], []byte("damaged"), 0o644))
	damaged, _ := live()
	assert.NotContains(t, damaged, "(cached", "a damaged entry is ignored")
	assert.Equal(t, 3, runs())
	cached, _ := live()
	assert.Contains(t, cached, "(cached", "the entry was written whole again")
	assert.Equal(t, 3, runs())

	writeBin("1") // another binary, which fails
	for range 2 {
		failed, code := live()
		assert.Equal(t, 1, code)
		assert.NotContains(t, failed, "(cached", "a failing run is not kept")
	}
	assert.Equal(t, 5, runs())

	// A relative FENCELAB_CACHE is no cache, as for fencelab: said, and
	// nothing written where the test runs.
	writeBin("0")
	for range 2 {
		rel, code := live("FENCELAB_CACHE=relative/cache")
		assert.Equal(t, 0, code)
		assert.Contains(t, rel, "must be an absolute path")
		assert.NotContains(t, rel, "(cached")
	}
	assert.Equal(t, 7, runs())
	assert.NoDirExists(t, "relative")

	// No FENCELAB_CACHE, XDG_CACHE_HOME nor HOME (a bare cron job): the
	// part runs, uncached, and says so in one line.
	var bare []string
	for _, kv := range cleanEnv(t) {
		if k, _, _ := strings.Cut(kv, "="); k != "HOME" && k != "XDG_CACHE_HOME" && k != "FENCELAB_CACHE" {
			bare = append(bare, kv)
		}
	}
	for range 2 {
		homeless, code := liveIn(bare)
		assert.Equal(t, 0, code, homeless)
		assert.Contains(t, homeless, "violated as expected")
		assert.Contains(t, homeless, "the live part is not cached: no FENCELAB_CACHE, XDG_CACHE_HOME nor HOME")
		assert.NotContains(t, homeless, "(cached")
	}
	assert.Equal(t, 9, runs())
}

// TestMakeDemoEndsWithASummary: make demo's last lines are one closing
// block, after the live part's output: fencelab demo's own summary lines
// (out/demo/summary.txt), then the live part's, from its exit code; a
// demo that stopped before its summary says so, never leaves the block
// without a line per part. Stand-ins for both binaries (GO=true keeps
// make from building them).
func TestMakeDemoEndsWithASummary(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make on PATH")
	}
	for _, tc := range []struct {
		name               string
		demoCode, live     int
		summary            bool
		wantCode           int
		wantDemo, wantLive string
	}{
		{"both as expected", 0, 0, true, 0, "  explorer     every verdict as expected\n", "  live         embedded etcd, every setup under each of its faults, 1 run each: every verdict as the models expect\n"},
		{"TLC not run, live unexpected", 2, 1, true, 2, "  explorer     every verdict as expected\n", "  live         embedded etcd, every setup under each of its faults, 1 run each: ✗ a verdict the models do not expect (UNEXPECTED above)\n"},
		{"the demo stopped early", 1, 0, false, 1, "  fencelab demo stopped before its summary (exit code 1): see above\n", "every verdict as the models expect\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			demo := "#!/bin/sh\necho 'demo output'\n"
			if tc.summary {
				demo += "mkdir -p '" + out + "/demo' && printf '  explorer     every verdict as expected\\n' > '" + out + "/demo/summary.txt'\n"
			}
			demo += "exit " + strconv.Itoa(tc.demoCode) + "\n"
			live := "#!/bin/sh\nwhile [ $# -gt 0 ]; do [ \"$1\" = --out ] && out=$2; shift; done\nmkdir -p \"$out\"\necho 'etcd/mutex: live output'\nexit " + strconv.Itoa(tc.live) + "\n"
			bin, liveBin := filepath.Join(dir, "fencelab"), filepath.Join(dir, "fencelab-live")
			testexec.Write(t, bin, []byte(demo))
			testexec.Write(t, liveBin, []byte(live))
			// A summary an earlier run left is not this run's.
			require.NoError(t, os.MkdirAll(filepath.Join(out, "demo"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(out, "demo", "summary.txt"), []byte("  stale\n"), 0o644))

			cmd := exec.Command("make", "-s", "-C", "../..", "demo", "GO=true", "BIN="+bin, "LIVE_BIN="+liveBin, "OUT="+out)
			cmd.Env = cleanEnv(t, "FENCELAB_CACHE="+filepath.Join(dir, "cache"))
			stdout, err := cmd.Output()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else {
				require.NoError(t, err)
			}
			if tc.wantCode != 0 {
				assert.NotZero(t, code, "make fails with the demo")
			} else {
				assert.Zero(t, code, "%s", stdout)
			}
			text := string(stdout)
			at := strings.LastIndex(text, "━━ make demo: summary ━━")
			require.GreaterOrEqual(t, at, 0, "no closing block:\n%s", text)
			block := text[at:]
			assert.Less(t, strings.Index(text, "etcd/mutex: live output"), strings.Index(text, block), "the block comes after the live part")
			assert.Contains(t, block, tc.wantDemo)
			assert.True(t, strings.HasSuffix(block, tc.wantLive), "the live line closes the block:\n%s", block)
			assert.NotContains(t, block, "stale")
		})
	}
}
