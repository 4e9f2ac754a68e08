package sim

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
)

// TestSummaryMergesAcrossShards: the summaries of a batch's seeds run in
// pieces, each saved as JSON and read back, merge into the summary of the
// whole batch, every count and first seed alike (unexported ones too). The
// stall-bound case cuts runs short, so that the stall counts merged are
// not zero (issue 36: a merge that dropped them went unnoticed).
func TestSummaryMergesAcrossShards(t *testing.T) {
	stalling := DefaultConfig()
	stalling.StallAfter = 50 * time.Millisecond
	for _, tc := range []struct {
		name   string
		config Config
		stalls bool
	}{
		{"default", DefaultConfig(), false},
		{"stall bound", stalling, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := Batch{Config: tc.config, Designs: []impl.Design{impl.DesignNoFencing, impl.DesignFenceAll}, Seed: 11, Runs: 40, Workers: 2}
			whole, err := b.Run()
			require.NoError(t, err)
			require.True(t, whole.Designs[0].FirstFailing.Ok, "a run failed: the first seeds are compared")
			merged := b.EmptySummary()
			stalls := make([]int, len(b.Designs))
			for _, cut := range [][2]int{{0, 7}, {7, 8}, {8, 33}, {33, 40}} {
				piece := b
				piece.Seed, piece.Runs = b.Seed+uint64(cut[0]), cut[1]-cut[0]
				s, err := piece.Run()
				require.NoError(t, err)
				data, err := json.Marshal(s)
				require.NoError(t, err)
				var back Summary
				require.NoError(t, json.Unmarshal(data, &back))
				for i := range back.Designs {
					stalls[i] += back.Designs[i].Stalls
				}
				require.NoError(t, merged.Merge(&back))
			}
			assert.Equal(t, whole, merged)
			for i, d := range whole.Designs {
				assert.Equal(t, tc.stalls, d.Stalls > 0, "%s: %d stalls", d.Design, d.Stalls)
				assert.Equal(t, d.Stalls, stalls[i], "%s: the shards' stalls, read back, are the whole batch's", d.Design)
				assert.Equal(t, d.Stalls, merged.Designs[i].Stalls, d.Design)
				assert.Equal(t, d.FirstStall, merged.Designs[i].FirstStall, d.Design)
			}
		})
	}
}

// TestDesignSummaryRefusesImpossibleCounts: counts no batch makes are
// refused when read back.
func TestDesignSummaryRefusesImpossibleCounts(t *testing.T) {
	b := Batch{Config: DefaultConfig(), Designs: []impl.Design{impl.DesignNoFencing}, Seed: 1, Runs: 8}
	s, err := b.Run()
	require.NoError(t, err)
	good, err := json.Marshal(s.Designs[0])
	require.NoError(t, err)
	require.Contains(t, string(good), `"violations":{"NoLostUpdate"`, "the case below edits a violation")
	for _, tc := range []struct{ name, from, to, wantErr string }{
		{"unknown design", `"design":"off"`, `"design":"of"`, "unknown design"},
		{"unknown property", `"violations":{"NoLostUpdate"`, `"violations":{"NoLostUpdates"`, "unknown property"},
		{"negative runs", `"runs":8`, `"runs":-8`, "violations"},
		{"witnessed beyond runs", `"witnessed":`, `"witnessed":1000`, "beyond"},
		{"unknown field", `"stalls":`, `"stall":0,"stalls":`, "unknown field"},
		{"stalls without their first seed", `"stalls":0`, `"stalls":1`, "stalls without a first seed"},
		{"a first stall without stalls", `"first_stall":{"Seed":0,"Ok":false}`, `"first_stall":{"Seed":3,"Ok":true}`, "stalls without a first seed"},
		{"illegal histories without their first seed", `"register_illegal":0`, `"register_illegal":2`, "illegal register histories without"},
		{"disagreements without their first seed", `"disagree":0`, `"disagree":1`, "disagreements without"},
		{"failing runs without their first seed", `"Ok":true},"steps"`, `"Ok":false},"steps"`, "failing runs without"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			edited := strings.Replace(string(good), tc.from, tc.to, 1)
			require.NotEqual(t, string(good), edited)
			var d DesignSummary
			err := json.Unmarshal([]byte(edited), &d)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
	var d DesignSummary
	require.NoError(t, json.Unmarshal(good, &d))
	assert.Equal(t, s.Designs[0], d)
}

// TestMergeRefusesAnotherBatch: summaries of other designs or faults do
// not merge.
func TestMergeRefusesAnotherBatch(t *testing.T) {
	b := Batch{Config: DefaultConfig(), Designs: []impl.Design{impl.DesignNoFencing}}
	other := b
	other.Designs = []impl.Design{impl.DesignFenceAll}
	assert.ErrorContains(t, b.EmptySummary().Merge(other.EmptySummary()), "designs off and all")
	two := b
	two.Designs = []impl.Design{impl.DesignNoFencing, impl.DesignFenceAll}
	assert.ErrorContains(t, b.EmptySummary().Merge(two.EmptySummary()), "1 and 2 designs")
	faults := b
	faults.Config.Faults = NoFaults
	assert.ErrorContains(t, b.EmptySummary().Merge(faults.EmptySummary()), "faults")
}
