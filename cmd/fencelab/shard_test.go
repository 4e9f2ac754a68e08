package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/internal/faketlc"
	"github.com/fencelab/fencelab/internal/testbuild"
	"github.com/fencelab/fencelab/shard"
)

// readTree is every file under dir, by its path below dir.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		return files
	}
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[rel] = string(data)
		return err
	}))
	return files
}

// campaignRun is what a campaign printed, saved and exited with.
type campaignRun struct {
	code   int
	stdout string
	files  map[string]string
}

// campaign runs args on one machine into a folder of its own, then, for
// each n of ns, in n shards merged into that same folder (so that the
// paths printed are the same), and returns the one machine's run and
// each merge's.
func campaign(t *testing.T, args []string, ns ...int) (whole campaignRun, merged map[int]campaignRun) {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	cmd := append([]string{args[0], "--out", out}, args[1:]...)
	whole.code, whole.stdout, _ = runCLI(t, cmd...)
	whole.files = readTree(t, out)
	merged = map[int]campaignRun{}
	for _, n := range ns {
		require.NoError(t, os.RemoveAll(out))
		var shardDirs []string
		for i := range n {
			sd := filepath.Join(dir, fmt.Sprintf("%d-shard-%d", n, i))
			code, stdout, stderr := runCLI(t, append([]string{args[0], "--shard", fmt.Sprintf("%d/%d", i, n), "--out", sd}, args[1:]...)...)
			require.Equal(t, exitOK, code, "shard %d/%d: %s%s", i, n, stdout, stderr)
			require.FileExists(t, filepath.Join(sd, shard.FileName))
			// Any order of the folders: merge puts them in index order.
			shardDirs = append([]string{sd}, shardDirs...)
		}
		var m campaignRun
		var stderr string
		m.code, m.stdout, stderr = runCLI(t, append([]string{"merge", "--out", out}, shardDirs...)...)
		require.NotEqual(t, exitBadInput, m.code, "merge of %d shards: %s", n, stderr)
		m.files = readTree(t, out)
		merged[n] = m
	}
	return whole, merged
}

// shardCounts are the numbers of shards a test splits a campaign of
// items into: 1, 2, a few, and more than items (shards with none); at
// reduced size (go test -short) 2 and more than items.
func shardCounts(items int) []int {
	if testbuild.Reduced() {
		return []int{2, items + 2}
	}
	return []int{1, 2, 3, items + 2}
}

// TestShardedSimIsTheBatch: a batch split into n shards (n above the
// runs too) and merged prints the unsharded batch's bytes, saves the same
// failing runs byte for byte, and exits as it does.
func TestShardedSimIsTheBatch(t *testing.T) {
	testbuild.SkipUnderRace(t)
	args := []string{"sim", "--design", "off,writes,all", "--runs", "5", "--seed", "40"}
	whole, merged := campaign(t, args, shardCounts(5)...)
	// Witnesses that the comparison had something to compare: runs
	// failed, their files were saved, the table was printed.
	assert.Contains(t, whole.stdout, "5 runs per design (seeds 40–44)")
	assert.Contains(t, whole.stdout, "seed ")
	assert.Contains(t, whole.files, filepath.Join("off", "schedule.json"))
	assert.Contains(t, whole.files, filepath.Join("off", "run.txt"))
	for n, m := range merged {
		assert.Equal(t, whole.stdout, m.stdout, "%d shards", n)
		assert.Equal(t, whole.code, m.code, "%d shards", n)
		assert.Equal(t, whole.files, m.files, "%d shards", n)
	}
}

// TestShardedSimUnexpectedExitsOne: a campaign whose verdict is not the
// expected one (an expected violation not found: the faults too mild)
// exits 1 merged as unsharded.
func TestShardedSimUnexpectedExitsOne(t *testing.T) {
	testbuild.SkipUnderRace(t)
	whole, merged := campaign(t, []string{"sim", "--design", "off", "--runs", "3", "--faults", "delay"}, 2)
	assert.Equal(t, exitFailure, whole.code, whole.stdout)
	assert.Equal(t, whole.code, merged[2].code)
	assert.Equal(t, whole.stdout, merged[2].stdout)
}

// TestShardedSweepIsTheSweep: a sweep's cells split into n shards (more
// shards than cells too) and merged write the unsharded sweep's files and
// print its bytes.
func TestShardedSweepIsTheSweep(t *testing.T) {
	testbuild.SkipUnderRace(t)
	args := []string{"sweep", "--grid", "pause:0..400ms/3,lock-delay:0..800ms/2", "--runs", "3", "--design", "off,all"}
	whole, merged := campaign(t, args, shardCounts(12)...)
	assert.Contains(t, whole.files, "sweep.csv")
	assert.Contains(t, whole.stdout, "cells inside the boundary")
	for n, m := range merged {
		assert.Equal(t, whole.stdout, m.stdout, "%d shards", n)
		assert.Equal(t, whole.code, m.code, "%d shards", n)
		assert.Equal(t, whole.files, m.files, "%d shards", n)
	}
}

// fakeWalkTLC is a fake TLC that accepts every walk of a trace run but
// those whose seed is a multiple of 4, which it rejects: it reads the
// trace module's "\* K: walk seed S, …" lines.
func fakeWalkTLC(t *testing.T) {
	t.Helper()
	faketlc.New(t, `echo "TLC2 Version 2.19 of 08 August 2024 (rev: 5a47802)"
sed -n 's/^\\\* \([0-9]*\): walk seed \([0-9]*\),.*/\1 \2/p' *.tla | while read k s; do
  if [ $((s % 4)) -ne 0 ]; then echo "<<\"fencelab-accepted\", $k>>"; fi
done
echo "Model checking completed. No error has been found."
echo "Finished in 10ms at (2026-11-26 01:00:00)"`, "exit 0")
}

// TestShardedConformIsTheWalks: conform's walks split into shards and
// merged give the unsharded table (TLC's times aside: the fake's are
// nearly 0), its rejections rendered alike and its exit code.
func TestShardedConformIsTheWalks(t *testing.T) {
	testbuild.SkipUnderRace(t)
	fakeWalkTLC(t)
	specs, err := filepath.Abs("../../specs")
	require.NoError(t, err)
	args := []string{"conform", "--walks", "5", "--max-steps", "30", "--explore=false", "--sim-runs", "0", "--sim-failing", "0", "--replay=false", "--show", "1", "--specs", specs, "--pin", "../../tla2tools.version"}
	whole, merged := campaign(t, args, 2, 6)
	assert.Equal(t, exitFailure, whole.code, "seed 4 of every configuration rejected: %s", whole.stdout)
	assert.Contains(t, whole.stdout, "rejection rendered in")
	assert.NotEmpty(t, whole.files)
	for n, m := range merged {
		assert.Equal(t, whole.code, m.code, "%d shards", n)
		assert.Equal(t, withoutTimes(whole.stdout), withoutTimes(m.stdout), "%d shards", n)
		assert.Equal(t, whole.files, m.files, "%d shards", n)
	}
}

// withoutTimes blanks the durations of conform's output.
func withoutTimes(s string) string {
	var out []string
	for _, f := range strings.Fields(s) {
		if strings.ContainsAny(f, "0123456789") && (strings.HasSuffix(f, "s") || strings.HasSuffix(f, "s)")) {
			f = "T"
		}
		out = append(out, f)
	}
	return strings.Join(out, " ")
}

// TestShardBadInput: a bad --shard value, a command that cannot be split,
// and shard folders that are not one whole campaign: one line on stderr
// each, exit 2, nothing merged.
func TestShardBadInput(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string, n, i int, extra ...string) string {
		out := filepath.Join(dir, name)
		code, stdout, stderr := runCLI(t, append([]string{"sim", "--design", "off", "--runs", "6", "--shard", fmt.Sprintf("%d/%d", i, n), "--out", out}, extra...)...)
		require.Equal(t, exitOK, code, "%s%s", stdout, stderr)
		return out
	}
	s0, s1, s2 := mk("s0", 3, 0), mk("s1", 3, 1), mk("s2", 3, 2)
	other2 := mk("other2", 3, 2, "--seed", "9")
	of4 := mk("of4", 4, 3)
	edit := func(name, from, to string) string {
		d := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(d, 0o755))
		data, err := os.ReadFile(filepath.Join(s2, shard.FileName))
		require.NoError(t, err)
		edited := strings.Replace(string(data), from, to, 1)
		require.NotEqual(t, string(data), edited, "the edit %q applies", from)
		require.NoError(t, os.WriteFile(filepath.Join(d, shard.FileName), []byte(edited), 0o644))
		return d
	}
	truncated := filepath.Join(dir, "truncated")
	require.NoError(t, os.MkdirAll(truncated, 0o755))
	data, err := os.ReadFile(filepath.Join(s2, shard.FileName))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(truncated, shard.FileName), data[:len(data)*2/3], 0o644))
	runsLie := edit("runslie", `"runs": 2,`, `"runs": 3,`)
	seedLie := edit("seedlie", `"first_failing": {`, `"first_failing_": {`)
	notSim := edit("notsim", `"summary"`, `"cells"`)
	buildLie := edit("buildlie", `"binary": "sha256:`, `"binary": "sha256:0`)

	for _, tc := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"shard 0/0", []string{"sim", "--shard", "0/0"}, "the count \"0\" is not a number from 1"},
		{"shard 3/2", []string{"sim", "--shard", "3/2"}, "the index must be below the count"},
		{"shard -1/2", []string{"sim", "--shard", "-1/2"}, "the index \"-1\""},
		{"shard a/b", []string{"sweep", "--shard", "a/b"}, "the index \"a\""},
		{"shard 1/0", []string{"sim", "--shard", "1/0"}, "the count \"0\""},
		{"shard huge", []string{"sim", "--shard", "1/" + strings.Repeat("9", 100)}, "the count"},
		{"shard empty", []string{"sim", "--shard", ""}, "is not i/n"},
		{"shard of a replay", []string{"sim", "--design", "off", "--replay", "3", "--shard", "0/2"}, "--shard splits a batch of runs"},
		{"shard of the npc table", []string{"sim", "--npc", "--shard", "0/2"}, "--shard splits a batch of runs"},
		{"shard of conform's explorer", []string{"conform", "--shard", "0/2"}, "--shard splits conform's walks only"},
		{"merge nothing", []string{"merge"}, "no shard result folder given"},
		{"merge a missing shard", []string{"merge", s0, s2}, "1 of 3 shards missing: 1 (of 0 to 2)"},
		{"merge a duplicate shard", []string{"merge", s0, s1, s2, s1}, "shard 1/3 given twice"},
		{"merge another campaign", []string{"merge", s0, s1, other2}, "shards of different campaigns: flags"},
		{"merge another split", []string{"merge", s0, s1, s2, of4}, "split into 3 shards, then 4"},
		{"merge a truncated result", []string{"merge", s0, s1, truncated}, "not a whole shard result"},
		{"merge a folder of nothing", []string{"merge", s0, s1, t.TempDir()}, "has no shard.json"},
		{"merge a file", []string{"merge", s0, s1, filepath.Join(s2, shard.FileName)}, "is not a shard result folder"},
		{"merge runs not the shard's", []string{"merge", s0, s1, runsLie}, "design off: 3 runs, not the shard's 2"},
		{"merge an unknown field", []string{"merge", s0, s1, seedLie}, "unknown field"},
		{"merge another command's result", []string{"merge", s0, s1, notSim}, "its result is not a sim shard's"},
		{"merge another build", []string{"merge", s0, s1, buildLie}, "different campaigns: fencelab build"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			out := filepath.Join(t.TempDir(), "out")
			if args[0] == "merge" {
				args = append([]string{"merge", "--out", out}, args[1:]...)
			} else {
				args = append([]string{args[0], "--out", out}, args[1:]...)
			}
			code, stdout, stderr := runCLI(t, args...)
			assertBadInput(t, code, stderr, tc.wantErr)
			assert.Empty(t, stdout)
			assert.NoDirExists(t, out, "nothing merged")
		})
	}
}

// TestShardBadResults: a sweep's or conform's shard result that
// contradicts its manifest or the campaign's flags is one line, exit 2,
// and nothing is merged.
func TestShardBadResults(t *testing.T) {
	fakeWalkTLC(t)
	specs, err := filepath.Abs("../../specs")
	require.NoError(t, err)
	dir := t.TempDir()
	mk := func(name string, args []string, i, n int) string {
		out := filepath.Join(dir, name)
		code, stdout, stderr := runCLI(t, append([]string{args[0], "--shard", fmt.Sprintf("%d/%d", i, n), "--out", out}, args[1:]...)...)
		require.Equal(t, exitOK, code, "%s%s", stdout, stderr)
		return out
	}
	edit := func(from, name, old, new string) string {
		d := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(d, 0o755))
		data, err := os.ReadFile(filepath.Join(from, shard.FileName))
		require.NoError(t, err)
		edited := strings.Replace(string(data), old, new, 1)
		require.NotEqual(t, string(data), edited, "the edit %q applies", old)
		require.NoError(t, os.WriteFile(filepath.Join(d, shard.FileName), []byte(edited), 0o644))
		return d
	}
	sweepArgs := []string{"sweep", "--grid", "pause:0..400ms/2,lock-delay:0..800ms/2", "--runs", "3", "--design", "off"}
	w0, w1 := mk("w0", sweepArgs, 0, 2), mk("w1", sweepArgs, 1, 2)
	conformArgs := []string{"conform", "--walks", "5", "--max-steps", "30", "--explore=false", "--sim-runs", "0", "--sim-failing", "0", "--replay=false", "--specs", specs, "--pin", "../../tla2tools.version"}
	c0, c1 := mk("c0", conformArgs, 0, 2), mk("c1", conformArgs, 1, 2)
	for _, tc := range []struct {
		name    string
		dirs    []string
		wantErr string
	}{
		{"sweep: random runs beyond the cell's", []string{w0, edit(w1, "w1a", `"Random": 0`, `"Random": 9`)}, "9 of 3 random runs violate"},
		{"sweep: a cell out of place", []string{w0, edit(w1, "w1b", `"J": 1`, `"J": 0`)}, "cell 2 is off at (0, 0), not off at (0, 1)"},
		{"sweep: a derived verdict not the derivation's", []string{w0, edit(w1, "w1c", `"Safe": true`, `"Safe": false`)}, "is not the derivation's"},
		{"sweep: a cell missing", []string{w0, edit(w1, "w1d", `"cells": [`, `"cells": [ ], "x": [`)}, "unknown field"},
		{"conform: walks not the shard's", []string{c0, edit(c1, "c1a", `"traces": 3`, `"traces": 4`)}, "not the shard's 3 walks"},
		{"conform: a group of another configuration", []string{c0, edit(c1, "c1b", `"clients": 2`, `"clients": 4`)}, "group 1 is walk"},
		{"conform: shards of different campaigns", []string{c0, w1}, "shards of different campaigns: command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			code, stdout, stderr := runCLI(t, append([]string{"merge", "--out", out}, tc.dirs...)...)
			assertBadInput(t, code, stderr, tc.wantErr)
			assert.Empty(t, stdout)
			assert.NoDirExists(t, out, "nothing merged")
		})
	}
}

// TestShardedSimMergesStalls: the stall counts of a sim campaign's shards
// add up in the merge, and the first stall is the lowest shard's (issue
// 36: a merge that dropped them went unnoticed, since no run with the
// default flags stalls). The shards' results are edited to hold stalls, as
// a run cut short would have saved them: shard 0 (seeds 40–41) one from
// seed 41, shard 1 (seeds 42–43) two from seed 42.
func TestShardedSimMergesStalls(t *testing.T) {
	testbuild.SkipUnderRace(t)
	dir := t.TempDir()
	var dirs []string
	for _, sh := range []struct {
		stalls int
		first  uint64
	}{{1, 41}, {2, 42}} {
		out := filepath.Join(dir, fmt.Sprintf("s%d", len(dirs)))
		code, stdout, stderr := runCLI(t, "sim", "--design", "off", "--runs", "4", "--seed", "40", "--shard", fmt.Sprintf("%d/2", len(dirs)), "--out", out)
		require.Equal(t, exitOK, code, "%s%s", stdout, stderr)
		path := filepath.Join(out, shard.FileName)
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		edited := string(data)
		for _, e := range [][2]string{
			{`"stalls": 0,`, fmt.Sprintf(`"stalls": %d,`, sh.stalls)},
			{"\"first_stall\": {\n            \"Seed\": 0,\n            \"Ok\": false", fmt.Sprintf("\"first_stall\": {\n            \"Seed\": %d,\n            \"Ok\": true", sh.first)},
			{"\"first_failing\": {\n            \"Seed\": 0,\n            \"Ok\": false", fmt.Sprintf("\"first_failing\": {\n            \"Seed\": %d,\n            \"Ok\": true", sh.first)},
		} {
			require.Contains(t, edited, e[0], "the edit applies")
			edited = strings.Replace(edited, e[0], e[1], 1)
		}
		require.NoError(t, os.WriteFile(path, []byte(edited), 0o644))
		dirs = append(dirs, out)
	}
	code, stdout, stderr := runCLI(t, append([]string{"merge", "--out", filepath.Join(dir, "out")}, dirs...)...)
	assert.Equal(t, exitFailure, code, "a stall is unexpected: %s", stderr)
	assert.Regexp(t, `(?m)^off +\d+ +0 +— +0 +0/0, 0/0 +3 +UNEXPECTED`, stdout, "the stalls column adds the shards'")
	assert.Contains(t, stdout, "off stalled in 3 of 4 runs (first seed 41)")
}
