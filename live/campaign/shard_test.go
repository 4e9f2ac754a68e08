package campaign

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/internal/livetest"
	"github.com/fencelab/fencelab/live/report"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/fencelab/fencelab/shard"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testBuild is the build the test's shards and merges name.
var testBuild = shard.Build{Version: "test", Go: "go", Binary: "sha256:00"}

// shardAndMerge runs plans whole, then in n shards (SaveShard, each into
// its own folder) merged into a folder of its own, and returns both.
func shardAndMerge(t *testing.T, plans []Config, n int) (whole []*Summary, merged *Merged, out string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, p := range plans {
		p.Out = t.TempDir()
		s, err := Run(ctx, p)
		require.NoError(t, err)
		whole = append(whole, s)
	}
	id := shard.Identity{Command: "live test", Args: []string{"--runs=x"}, Build: testBuild}
	var ms []*shard.Manifest
	var dirs []string
	for i := range n {
		dir := filepath.Join(t.TempDir(), fmt.Sprintf("shard-%d", i))
		require.NoError(t, SaveShard(ctx, id, shard.Spec{Index: i, Count: n}, plans, dir, nil))
		m, err := shard.Read(dir)
		require.NoError(t, err)
		ms = append(ms, m)
		dirs = append(dirs, dir)
	}
	c, err := shard.Check(ms, dirs, testBuild)
	require.NoError(t, err)
	results := make([]*ShardResult, n)
	for k, m := range c.Shards {
		results[k] = &ShardResult{}
		require.NoError(t, shard.Decode(m.Result, results[k]))
	}
	out = filepath.Join(t.TempDir(), "merged")
	merged, err = MergeShards(ctx, plans, c, results, out)
	require.NoError(t, err)
	return whole, merged, out
}

// checkMergedIsWhole: the merged campaigns have the whole runs' counts of
// runs and verdicts (the scripted stories are the same in every run), a
// saved folder for every failing run, and a summary.json each.
func checkMergedIsWhole(t *testing.T, whole []*Summary, merged *Merged, out string) {
	t.Helper()
	require.Len(t, merged.Summaries, len(whole))
	for k, w := range whole {
		m := merged.Summaries[k]
		assert.Equal(t, w.Setup.ID(), m.Setup.ID())
		assert.Equal(t, w.Runs, m.Runs)
		assert.Equal(t, w.Failed(), m.Failed())
		assert.Equal(t, w.Versions, m.Versions)
		assert.Len(t, m.Saved, len(w.Saved), "a folder per failing run")
		for j, wt := range w.Tallies {
			mt := m.Tallies[j]
			assert.Equal(t, wt.Property, mt.Property)
			assert.Equal(t, wt.Runs, mt.Runs, wt.Property)
			assert.Equal(t, wt.Status(), mt.Status(), wt.Property)
			assert.Equal(t, wt.String(), mt.String(), wt.Property)
			// Why no run mapped names the client that happened to read
			// first, which two executions of a story need not share.
			wm, mm := wt.Model, mt.Model
			assert.Equal(t, wm.NoStory == "", mm.NoStory == "", "a story mapped, %s", wt.Property)
			wm.NoStory, mm.NoStory = "", ""
			assert.Equal(t, wm, mm, "the model's word for the story, %s", wt.Property)
			assert.Equal(t, wt.Disagrees(), mt.Disagrees(), wt.Property)
		}
		for _, d := range m.Saved {
			assert.True(t, strings.HasPrefix(d, out), d)
			assert.FileExists(t, filepath.Join(d, report.VerdictsFile))
		}
		assert.FileExists(t, filepath.Join(out, m.Setup.Service, m.Setup.Name, string(m.Fault), SummaryFile))
	}
	// The witness that there was something to merge: runs failed.
	saved := 0
	for _, w := range whole {
		saved += len(w.Saved)
	}
	assert.Positive(t, saved, "some run violated a property and was saved")
}

// TestShardedLiveCampaignIsTheWhole: the toy service's campaigns (its
// scripted pause violates the unfenced row's properties in every run of
// the unchecked client)
// split over 2 and over 7 shards (more than their 5 runs) merge into the
// whole campaigns' counts, verdicts and saved runs.
func TestShardedLiveCampaignIsTheWhole(t *testing.T) {
	plans := []Config{
		{Run: livetest.Config(t, livetest.MustSetup(t, livetest.Toy(), "toy", "none"+setup.UncheckedSuffix), history.FaultClientPause), Runs: 3},
		{Run: livetest.Config(t, livetest.MustSetup(t, livetest.Toy(), "toy", "all"), history.FaultClientPause), Runs: 2},
	}
	for _, n := range []int{2, 7} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			whole, merged, out := shardAndMerge(t, plans, n)
			checkMergedIsWhole(t, whole, merged, out)
			cs, err := ReadSummaries(out, livetest.Toy())
			require.NoError(t, err, "fencelab-live readme reads the merged folder")
			assert.Len(t, cs, 2)
		})
	}
}

// TestShardedRedisCampaignIsTheWhole is the same against real Redis.
func TestShardedRedisCampaignIsTheWhole(t *testing.T) {
	livetest.NeedRedis(t)
	plans := []Config{{Run: livetest.Config(t, livetest.MustSetup(t, setup.All(), "redis", "none"+setup.UncheckedSuffix), history.FaultClientPause), Runs: 3}}
	whole, merged, out := shardAndMerge(t, plans, 2)
	checkMergedIsWhole(t, whole, merged, out)
}

// TestMergeShardsRefuses: shard results that contradict the plan, their
// manifests or the runs they carry (hand-edited tallies, saved runs of
// other seeds or campaigns, listed twice or more often than runs), and an
// --out in use, are errors, and nothing is written.
func TestMergeShardsRefuses(t *testing.T) {
	// 4 runs in 2 shards: seeds 1 and 2, then 3 and 4, every run of row
	// none violating (and saved).
	plans := []Config{{Run: livetest.Config(t, livetest.MustSetup(t, livetest.Toy(), "toy", "none"+setup.UncheckedSuffix), history.FaultClientPause), Runs: 4}}
	id := shard.Identity{Command: "live test", Build: testBuild}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var ms []*shard.Manifest
	var dirs []string
	for i := range 2 {
		dir := filepath.Join(t.TempDir(), "s")
		require.NoError(t, SaveShard(ctx, id, shard.Spec{Index: i, Count: 2}, plans, dir, nil))
		m, err := shard.Read(dir)
		require.NoError(t, err)
		ms, dirs = append(ms, m), append(dirs, dir)
	}
	c, err := shard.Check(ms, dirs, testBuild)
	require.NoError(t, err)
	read := func() []*ShardResult {
		var rs []*ShardResult
		for _, m := range c.Shards {
			r := &ShardResult{}
			require.NoError(t, shard.Decode(m.Result, r))
			rs = append(rs, r)
		}
		return rs
	}
	used := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(used, "x"), nil, 0o644))
	for _, r := range read() {
		require.Len(t, r.Campaigns[0].Saved, 2, "both runs of each shard violated and were saved")
	}
	for _, tc := range []struct {
		name    string
		edit    func(rs []*ShardResult)
		plans   []Config
		out     string
		wantErr string
	}{
		{name: "other seed", edit: func(rs []*ShardResult) { rs[1].Campaigns[0].Seed = 9 }, wantErr: "not the plan's"},
		{name: "other runs", edit: func(rs []*ShardResult) { rs[1].Campaigns[0].First = 0 }, wantErr: "not the shard's 2 to 3"},
		{name: "counts beyond runs", edit: func(rs []*ShardResult) { rs[0].Campaigns[0].Tallies[0].Violated = 5 }, wantErr: "counts beyond"},
		{name: "a saved run outside", edit: func(rs []*ShardResult) { rs[0].Campaigns[0].Saved = []string{"../../etc"} }, wantErr: "outside its folder"},
		{name: "a missing campaign", edit: func(rs []*ShardResult) { rs[0].Campaigns = nil }, wantErr: "0 campaigns, not the plan's 1"},
		{name: "skipped on one shard", edit: func(rs []*ShardResult) { rs[0].Campaigns[0].Skipped = "no toy" }, wantErr: "skipped on another"},
		{name: "another plan", edit: func([]*ShardResult) {}, plans: append(plans, plans...), wantErr: "these flags plan 8"},
		{name: "tallies 0 beside violating runs", edit: func(rs []*ShardResult) {
			for i := range rs[0].Campaigns[0].Tallies {
				rs[0].Campaigns[0].Tallies[i].Violated, rs[0].Campaigns[0].Tallies[i].FirstViolation = 0, ""
			}
		}, wantErr: "of its saved runs violate it"},
		{name: "first violation not the first", edit: func(rs []*ShardResult) {
			c := &rs[0].Campaigns[0]
			for i := range c.Tallies {
				if c.Tallies[i].FirstViolation != "" {
					c.Tallies[i].FirstViolation = c.Saved[1]
				}
			}
		}, wantErr: "not its first saved run"},
		{name: "a seed outside the campaign", edit: func(rs []*ShardResult) { rs[0].Campaigns[0].Saved[0] = "toy/none+unchecked/client-pause/run-99" }, wantErr: "outside the shard's runs"},
		{name: "another shard's run", edit: func(rs []*ShardResult) { rs[1].Campaigns[0].Saved[0] = "toy/none+unchecked/client-pause/run-1" }, wantErr: "outside the shard's runs (seeds 3 to 4)"},
		{name: "another campaign's folder", edit: func(rs []*ShardResult) { rs[0].Campaigns[0].Saved[0] = "toy/all/client-pause/run-1" }, wantErr: "not a run folder of the campaign"},
		{name: "a seed spelt with a zero", edit: func(rs []*ShardResult) { rs[0].Campaigns[0].Saved[0] = "toy/none+unchecked/client-pause/run-01" }, wantErr: "not a run folder of the campaign"},
		{name: "out of run order", edit: func(rs []*ShardResult) {
			s := rs[0].Campaigns[0].Saved
			s[0], s[1] = s[1], s[0]
		}, wantErr: "out of run order"},
		{name: "a run listed twice", edit: func(rs []*ShardResult) { rs[0].Campaigns[0].Saved[1] = rs[0].Campaigns[0].Saved[0] }, wantErr: "listed twice"},
		{name: "more saved runs than runs", edit: func(rs []*ShardResult) {
			rs[0].Campaigns[0].Saved = append(rs[0].Campaigns[0].Saved, "toy/none+unchecked/client-pause/run-3")
		}, wantErr: "3 saved runs listed for its 2 runs"},
		{name: "an out in use", edit: func([]*ShardResult) {}, out: used, wantErr: "is not empty"},
		{name: "a model story the simulator does not tell", edit: func(rs []*ShardResult) {
			m := rs[0].Campaigns[0].Model
			require.NotNil(t, m)
			require.NotEmpty(t, m.Stories, "the toy's pause maps onto the simulator")
			m.Stories[0].Violated = []string{}
		}, wantErr: "the simulator violates"},
		{name: "a model of other runs", edit: func(rs []*ShardResult) { rs[0].Campaigns[0].Model.Stories[0].Runs += 4 }, wantErr: "the model's stories tell 6 runs of 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := read()
			tc.edit(rs)
			p := plans
			if tc.plans != nil {
				p = tc.plans
			}
			out := tc.out
			if out == "" {
				out = filepath.Join(t.TempDir(), "merged")
			}
			_, err := MergeShards(ctx, p, c, rs, out)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
			if tc.out == "" {
				assert.NoDirExists(t, out, "nothing written")
			}
		})
	}
	t.Run("the merge stopped", func(t *testing.T) {
		parent := t.TempDir()
		stopped, stop := context.WithCancel(ctx)
		stop()
		_, err := MergeShards(stopped, plans, c, read(), filepath.Join(parent, "merged"))
		require.ErrorIs(t, err, context.Canceled)
		entries, err := os.ReadDir(parent)
		require.NoError(t, err)
		assert.Empty(t, entries, "no merged folder, no staged one beside it")
	})
	t.Run("an out holding only the lock file", func(t *testing.T) {
		out := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(out, LockFile), nil, 0o644))
		m, err := MergeShards(ctx, plans, c, read(), out)
		require.NoError(t, err)
		require.Len(t, m.Summaries, 1)
		assert.Equal(t, 4, m.Summaries[0].Runs)
	})
}
