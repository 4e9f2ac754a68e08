package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fencelab/fencelab/live/campaign"
	"github.com/fencelab/fencelab/live/check"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/report"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/fencelab/fencelab/shard"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// probed is setups whose probes count their calls and refuse with
// reasons[service] ("not installed (test)" by default): whether a command
// did any work, and services missing without uninstalling them. No run
// starts even where the command would go on wrongly.
func probed(reasons map[string]string) ([]setup.Setup, *int) {
	calls := new(int)
	var ss []setup.Setup
	for _, s := range setup.All() {
		reason := reasons[s.Service]
		if reason == "" {
			reason = "not installed (test)"
		}
		s.Probe = func(context.Context) (string, error) {
			*calls++
			return "", errors.New(reason)
		}
		ss = append(ss, s)
	}
	return ss, calls
}

// runCLI runs one command line over setups and checks the shape of a
// refusal: exit 2, one bounded line on stderr, nothing on stdout.
func refused(t *testing.T, setups []setup.Setup, args []string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Run(setups, args, strings.NewReader(""), &stdout, &stderr)
	assert.Equal(t, ExitBadInput, code, "stderr: %s", stderr.String())
	assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "one line: %q", stderr.String())
	assert.Less(t, len(stderr.String()), 600, "a bounded line")
	assert.Empty(t, stdout.String())
	return stderr.String()
}

// TestOutCheckedBeforeAnyWork: an --out that is empty, a file, under a
// file or read-only is one line and exit 2 before any setup is probed
// (no run starts), for every command that writes there; an empty --out
// of readme too.
func TestOutCheckedBeforeAnyWork(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	readOnly := filepath.Join(dir, "ro")
	require.NoError(t, os.Mkdir(readOnly, 0o555))
	shardDir := writeShard(t, t.TempDir(), "s", 2, 0, nil)
	outs := []struct {
		name, out, want string
	}{
		{"empty", "", "--out is empty"},
		{"a file", file, "not a folder"},
		{"under a file", filepath.Join(file, "out"), "not a folder"},
		{"read-only", filepath.Join(readOnly, "out"), "read-only"},
	}
	commands := []struct {
		name string
		args func(out string) []string
	}{
		{"run", func(out string) []string {
			return []string{"run", "--service", "redis", "--design", "none", "--runs", "1", "--out", out}
		}},
		{"run --shard", func(out string) []string {
			return []string{"run", "--service", "redis", "--design", "none", "--runs", "2", "--shard", "0/2", "--out", out}
		}},
		{"matrix", func(out string) []string {
			return []string{"matrix", "--service", "redis", "--runs", "1", "--out", out}
		}},
		{"merge", func(out string) []string { return []string{"merge", "--out", out, shardDir} }},
	}
	for _, c := range commands {
		for _, o := range outs {
			t.Run(c.name+"/"+o.name, func(t *testing.T) {
				setups, calls := probed(nil)
				line := refused(t, setups, c.args(o.out))
				assert.Contains(t, line, o.want)
				assert.Zero(t, *calls, "no setup probed, no run started")
			})
		}
	}
	t.Run("readme/empty", func(t *testing.T) {
		readme := filepath.Join(t.TempDir(), "README.md")
		require.NoError(t, os.WriteFile(readme, []byte(campaign.ReadmeBegin+campaign.ReadmeEnd+"\n"), 0o644))
		assert.Contains(t, refused(t, setup.All(), []string{"readme", "--out", "", readme}), "--out is empty")
	})
	entries, err := os.ReadDir(readOnly)
	require.NoError(t, err)
	assert.Empty(t, entries)
}

// TestOutLocked: a command into an --out another holds is refused, one
// line naming the folder, exit 2, before any work; released, the folder
// is free again and the lock file gone (the folder too, if the command
// made it and left it empty).
func TestOutLocked(t *testing.T) {
	base := t.TempDir()
	shardDir := writeShard(t, t.TempDir(), "s", 2, 0, nil)
	for _, tc := range []struct {
		name string
		args func(out string) []string
	}{
		{"run", func(out string) []string {
			return []string{"run", "--service", "redis", "--design", "none", "--runs", "1", "--out", out}
		}},
		{"matrix", func(out string) []string { return []string{"matrix", "--runs", "1", "--out", out} }},
		{"merge", func(out string) []string { return []string{"merge", "--out", out, shardDir} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(base, tc.name, "out")
			release, err := takeOut(out)
			require.NoError(t, err)
			setups, calls := probed(nil)
			line := refused(t, setups, tc.args(out))
			assert.Contains(t, line, out)
			assert.Contains(t, line, "in use")
			assert.Zero(t, *calls, "no setup probed, no run started")
			release()
			assert.NoDirExists(t, out, "made by takeOut, left empty: removed")
			// Free again, and again after a release that leaves the folder.
			require.NoError(t, os.MkdirAll(out, 0o755))
			release, err = takeOut(out)
			require.NoError(t, err)
			release()
			assert.NoFileExists(t, filepath.Join(out, campaign.LockFile))
			assert.DirExists(t, out, "a folder it did not make stays")
		})
	}
}

// writeShard writes into parent/name a shard 0/1 of "fencelab-live run
// --service redis --design none --runs N", as if it ran: its runs in
// saved (seed → files besides verdicts.json) violated the first
// property; skipped, if set, says why none ran.
func writeShard(t *testing.T, parent, name string, runs int, files int, saved []uint64, skipped ...string) string {
	t.Helper()
	build, err := shard.ThisBuild(liveVersion)
	require.NoError(t, err)
	s, err := setup.Find(setup.All(), "redis", "none")
	require.NoError(t, err)
	dir := filepath.Join(parent, name)
	sc := campaign.ShardCampaign{Setup: s.ID(), Fault: history.FaultClientPause, Nemesis: "scripted", Seed: 1, Runs: runs, First: 0, Ran: runs,
		Tallies: []campaign.ShardTally{}, Saved: []string{}}
	if len(skipped) > 0 {
		sc.Skipped = skipped[0]
	}
	props := check.Properties()
	for _, seed := range saved {
		rel := filepath.ToSlash(strings.TrimPrefix(report.RunDir("", s, sc.Fault, seed), string(filepath.Separator)))
		sc.Saved = append(sc.Saved, rel)
		run := filepath.Join(dir, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(run, 0o755))
		v, err := json.Marshal(map[string]any{"setup": s.ID(), "fault": sc.Fault, "seed": seed,
			"verdicts": []map[string]string{{"property": props[0], "status": "violated"}}})
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(run, report.VerdictsFile), v, 0o644))
		for k := range files {
			require.NoError(t, os.WriteFile(filepath.Join(run, fmt.Sprintf("extra-%d.txt", k)), []byte("x\n"), 0o644))
		}
	}
	if sc.Skipped == "" {
		for i, p := range props {
			tally := campaign.ShardTally{Property: p, Runs: runs}
			if i == 0 && len(saved) > 0 {
				tally.Violated, tally.FirstViolation = len(saved), sc.Saved[0]
			}
			sc.Tallies = append(sc.Tallies, tally)
		}
	}
	id := shard.Identity{Command: "live run", Args: []string{"--design=none", fmt.Sprintf("--runs=%d", runs), "--service=redis"}, Build: build}
	m, err := shard.New(id, shard.Spec{Index: 0, Count: 1}, runs, campaign.ShardResult{Campaigns: []campaign.ShardCampaign{sc}})
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, m.Write(&b))
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, shard.FileName), b.Bytes(), 0o644))
	return dir
}

// TestNothingRanIsNotAPass: a matrix every setup of which is skipped
// (its service missing), and a merge of shards that all skipped, is one
// line saying nothing ran and why, exit 2 — never "0 campaigns", exit 0.
func TestNothingRanIsNotAPass(t *testing.T) {
	for _, tc := range []struct {
		name    string
		reasons map[string]string
		args    []string
		want    []string
	}{
		{"matrix, one service missing", map[string]string{"redis": "redis-server not installed"},
			[]string{"matrix", "--service", "redis", "--runs", "1"},
			[]string{"nothing ran", "redis/none", "redis-server not installed"}},
		{"matrix, every service missing", everyMissing(),
			[]string{"matrix", "--runs", "1"},
			[]string{"nothing ran", "no redis", "no etcd"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setups, calls := probed(tc.reasons)
			out := filepath.Join(t.TempDir(), "out")
			line := refused(t, setups, append(tc.args, "--out", out))
			for _, w := range tc.want {
				assert.Contains(t, line, w)
			}
			assert.Positive(t, *calls)
			assert.NoDirExists(t, out, "nothing ran, nothing saved")
		})
	}
	t.Run("merge, every shard skipped", func(t *testing.T) {
		dir := writeShard(t, t.TempDir(), "s", 2, 0, nil, "redis-server not installed")
		out := filepath.Join(t.TempDir(), "merged")
		line := refused(t, setup.All(), []string{"merge", "--out", out, dir})
		assert.Contains(t, line, "nothing ran")
		assert.Contains(t, line, "redis-server not installed")
	})
}

// everyMissing is a probe refusal for every service: "no <service>".
func everyMissing() map[string]string {
	m := map[string]string{}
	for _, s := range setup.All() {
		m[s.Service] = "no " + s.Service
	}
	return m
}

// TestMergeSavedRunsBounded: a shard's saved-run list holds each of its
// runs once at most; one run listed twice, or more entries than runs, is
// refused before anything is copied.
func TestMergeSavedRunsBounded(t *testing.T) {
	for _, tc := range []struct {
		name  string
		saved func(one string) []string
		want  string
	}{
		{"one run twice", func(one string) []string { return []string{one, one} }, "listed twice"},
		{"one run twice, spelt apart", func(one string) []string { return []string{one, path.Dir(one) + "/./" + path.Base(one)} }, "listed twice"},
		{"one run 300 times", func(one string) []string { return slicesRepeat(one, 300) }, "300 saved runs listed for its 4 runs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeShard(t, t.TempDir(), "s", 4, 0, []uint64{1})
			m, err := shard.Read(dir)
			require.NoError(t, err)
			var res campaign.ShardResult
			require.NoError(t, shard.Decode(m.Result, &res))
			res.Campaigns[0].Saved = tc.saved(res.Campaigns[0].Saved[0])
			rewriteShard(t, dir, m, res)
			out := filepath.Join(t.TempDir(), "merged")
			assert.Contains(t, refused(t, setup.All(), []string{"merge", "--out", out, dir}), tc.want)
			assert.NoDirExists(t, out, "nothing copied")
		})
	}
}

func slicesRepeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// rewriteShard saves res as dir's shard result, as a hand edit would.
func rewriteShard(t *testing.T, dir string, m *shard.Manifest, res campaign.ShardResult) {
	t.Helper()
	raw, err := json.Marshal(res)
	require.NoError(t, err)
	m.Result = raw
	var b bytes.Buffer
	require.NoError(t, m.Write(&b))
	require.NoError(t, os.WriteFile(filepath.Join(dir, shard.FileName), b.Bytes(), 0o644))
}

// TestMergeStoppedBySignalLeavesNothing: SIGTERM or SIGINT during a
// merge's copying removes its staged folder beside --out and exits with
// 128 + the signal.
func TestMergeStoppedBySignalLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("copies thousands of files")
	}
	const runs = 400
	saved := make([]uint64, runs)
	for i := range saved {
		saved[i] = uint64(i + 1)
	}
	dir := writeShard(t, t.TempDir(), "s", runs, 20, saved)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			parent := t.TempDir()
			out := filepath.Join(parent, "merged")
			cmd := exec.Command(os.Args[0], "merge", "--out", out, dir)
			cmd.Env = append(os.Environ(), mainEnv+"=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			require.NoError(t, cmd.Start())
			// Ready when the staged folder appears: the copying is under way.
			staged := func() []string {
				m, _ := filepath.Glob(filepath.Join(parent, ".merged.new-*"))
				return m
			}
			deadline := time.Now().Add(2 * time.Minute)
			for len(staged()) == 0 && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			require.NotEmpty(t, staged(), "the merge staged its output")
			require.NoError(t, cmd.Process.Signal(sig))
			err := cmd.Wait()
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "stderr: %s", stderr.String())
			assert.Equal(t, 128+int(sig), exit.ExitCode(), "stderr: %s", stderr.String())
			assert.Contains(t, stderr.String(), "stopped by")
			assert.Empty(t, staged(), "no staged folder left")
			assert.NoDirExists(t, out)
		})
	}
}

// TestHelpIsNotAnError: every command's -h, -help, --help and help CMD
// print its usage on stdout and exit 0.
func TestHelpIsNotAnError(t *testing.T) {
	for _, cmd := range []string{"run", "matrix", "merge", "readme", "list"} {
		for _, args := range [][]string{{cmd, "-h"}, {cmd, "-help"}, {cmd, "--help"}, {"help", cmd}} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				var stdout, stderr bytes.Buffer
				code := Run(setup.All(), args, strings.NewReader(""), &stdout, &stderr)
				assert.Equal(t, ExitOK, code, "stderr: %s", stderr.String())
				assert.Contains(t, stdout.String(), "Usage: fencelab-live "+cmd)
				assert.Empty(t, stderr.String())
			})
		}
	}
	for _, arg := range []string{"help", "-h", "--help"} {
		var stdout, stderr bytes.Buffer
		assert.Equal(t, ExitOK, Run(setup.All(), []string{arg}, strings.NewReader(""), &stdout, &stderr), arg)
		assert.Contains(t, stdout.String(), "Usage:", arg)
	}
}

// TestReadmeRefusesAShard: a shard's folder holds its part of each
// campaign (1 run of 2): readme refuses it, one line, exit 2.
func TestReadmeRefusesAShard(t *testing.T) {
	dir := writeShard(t, t.TempDir(), "s", 2, 0, nil)
	s, err := setup.Find(setup.All(), "redis", "none")
	require.NoError(t, err)
	// The part a shard's campaign.Run saved: 1 of the campaign's 2 runs.
	sum := filepath.Join(dir, s.Service, s.Name, string(history.FaultClientPause), campaign.SummaryFile)
	require.NoError(t, os.MkdirAll(filepath.Dir(sum), 0o755))
	var props []map[string]any
	for _, p := range check.Properties() {
		props = append(props, map[string]any{"property": p, "expected": "x", "live": "x", "runs": 1})
	}
	doc, err := json.Marshal(map[string]any{"setup": s.ID(), "row": s.Design.String(), "fault": history.FaultClientPause, "nemesis": "scripted", "runs": 1, "properties": props})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(sum, doc, 0o644))
	root := t.TempDir()
	readme := filepath.Join(root, "README.md")
	const text = "# x\n" + campaign.ReadmeBegin + campaign.ReadmeEnd + "\n"
	require.NoError(t, os.WriteFile(readme, []byte(text), 0o644))
	page := filepath.Join(root, filepath.FromSlash(campaign.LivePage))
	require.NoError(t, os.MkdirAll(filepath.Dir(page), 0o755))
	require.NoError(t, os.WriteFile(page, []byte(text), 0o644))
	line := refused(t, setup.All(), []string{"readme", "--out", dir, readme})
	assert.Contains(t, line, "one shard's result")
	got, err := os.ReadFile(readme)
	require.NoError(t, err)
	assert.Equal(t, text, string(got), "README untouched")
}
