package explore

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
	"github.com/fencelab/fencelab/verdict"
)

// sameResult is r's JSON without what may differ between runs and worker
// counts: the wall time, the workers and the peak memory (their buffers).
func sameResult(t *testing.T, r *Result) string {
	t.Helper()
	c := *r
	c.Elapsed, c.PeakBytes, c.Config.Workers = 0, 0, 0
	b, err := json.Marshal(&c)
	require.NoError(t, err)
	return string(b)
}

// TestWorkersDoNotChangeTheResult: 1, 2, 3 and 8 workers give the same
// Result — counts, depth, verdicts, paths and traces, byte for byte — on
// complete searches, on searches stopped mid-level by the state limit,
// and with --first. At reduced size (the race build among them) it
// compares 1 with 3 workers (an uneven split of every level, three
// goroutines inserting into the table) on two rows (workerDesigns), at
// full size every count on every row.
func TestWorkersDoNotChangeTheResult(t *testing.T) {
	t.Parallel()
	counts := []int{1, 2, 3, 8}
	if testbuild.Reduced() {
		counts = []int{1, 3}
	}
	// A state limit in the middle of a level: the 3-client models with
	// symmetry go from 14,398 to 20,829 states in one level without
	// fencing, from 16,606 to 22,195 with mode all. Under the race
	// detector a third of it, in the middle of a level too (from 6,623 to
	// 9,825 and from 6,020 to 8,622).
	limit := 20011
	if testbuild.Race {
		limit = 7001
	}
	var configs []Config
	for _, d := range workerDesigns() {
		configs = append(configs, DefaultConfig(d, 2))
		sym := DefaultConfig(d, 3)
		sym.Symmetry = true
		sym.MaxStates = limit
		configs = append(configs, sym)
		first := DefaultConfig(d, 3)
		if d.Redlock() {
			// 1.6 million states to the first violation with 3 clients.
			first = DefaultConfig(d, 2)
		}
		first.Symmetry, first.First = true, true
		configs = append(configs, first)
	}
	for _, d := range impl.Designs()[:4] {
		if !slices.Contains(workerDesigns(), d) {
			continue
		}
		por := DefaultConfig(d, 2)
		por.SleepSets = true
		configs = append(configs, por)
	}
	porSym := DefaultConfig(impl.DesignFenceAll, 3)
	porSym.Symmetry, porSym.SleepSets, porSym.MaxStates = true, true, limit
	configs = append(configs, porSym)
	send := DefaultConfig(impl.DesignFenceNone, 2)
	send.Validity = impl.ValiditySend
	configs = append(configs, send)
	for _, cfg := range configs {
		t.Run(fmt.Sprintf("%s/%d/first=%v/por=%v", cfg.Describe(), cfg.MaxStates, cfg.First, cfg.SleepSets), func(t *testing.T) {
			var want string
			for _, w := range counts {
				cfg.Workers = w
				res, err := Run(cfg)
				require.NoError(t, err)
				got := sameResult(t, res)
				if w == 1 {
					want = got
					continue
				}
				assert.Equal(t, want, got, "%d workers differ from one", w)
			}
		})
	}
}

// TestGridWorkersAndFirst: on the hand-counted grid, --first stops at the
// first violating state of the level that holds it, with the counts a
// sequential search has at that point, for any number of workers.
func TestGridWorkersAndFirst(t *testing.T) {
	for _, w := range []int{1, 2, 4} {
		m := grid{k: 3, props: []string{"x<=k", "sum<3", "sum<=2"}}
		out, err := Search[*gridState](&m, Options{First: true, Workers: w})
		require.NoError(t, err)
		assert.Equal(t, StoppedAtFirst, out.Stopped)
		assert.False(t, out.Complete)
		assert.Nil(t, out.Violations[0])
		require.NotNil(t, out.Violations[1])
		require.NotNil(t, out.Violations[2], "the same state violates both")
		assert.Equal(t, []int{0, 0, 0}, out.Violations[1].Path, "(3,0): the first state of level 3")
		// Levels 0..2 hold 1+2+3 states; (3,0) is the first of level 3.
		assert.Equal(t, 7, out.Distinct)
		// Generated: 1 + 2 + 2·2 (level 1) + the first action of (2,0).
		assert.Equal(t, 1+2+4+1, out.Generated)
	}
}

// TestRunFirst: --first finds each design's shortest counterexample, the
// one a full search reports, and leaves the rest Unknown, never Holds.
func TestRunFirst(t *testing.T) {
	t.Parallel()
	testbuild.SkipUnderRace(t)
	for _, d := range rowDesigns() {
		full, _ := runShared(t, DefaultConfig(d, 2))
		cfg := DefaultConfig(d, 2)
		cfg.First = true
		res, err := Run(cfg)
		require.NoError(t, err)
		shortest := -1
		for _, f := range full.All() {
			if f.Status == verdict.Violated && (shortest < 0 || f.Steps() < shortest) {
				shortest = f.Steps()
			}
		}
		if shortest < 0 {
			assert.True(t, res.Complete, "%s: nothing to stop at", d)
			assert.Equal(t, full.Distinct, res.Distinct)
			continue
		}
		assert.Equal(t, StoppedAtFirst, res.Stopped, "%s", d)
		for i, f := range res.All() {
			want := full.All()[i]
			switch f.Status {
			case verdict.Violated:
				assert.Equal(t, shortest, f.Steps(), "%s %s", d, f.Property)
				assert.Equal(t, want.Path, f.Path, "%s %s: the full search's trace", d, f.Property)
			case verdict.Unknown:
				assert.Contains(t, f.Detail, "--first")
			default:
				assert.Contains(t, []verdict.Status{verdict.NotApplicable, verdict.NotChecked}, f.Status, "%s %s", d, f.Property)
			}
		}
	}
}
