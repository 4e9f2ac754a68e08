package explore

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/fencelab/fencelab/impl"
)

// TestTableOnDiskIsTheSameSet: with a budget of a few kilobytes the table
// flushes its fingerprints to the sorted file again and again; it still
// holds exactly the fingerprints inserted (a Go map says which), whether
// they are in memory or on disk, including fingerprints that share a
// shard and a home slot (the top and low bits) and the smallest and
// largest there are.
func TestTableOnDiskIsTheSameSet(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		dir, err := os.MkdirTemp("", "fptable-")
		require.NoError(t, err)
		defer os.RemoveAll(dir)
		tab := newFPTable(1, dir)
		defer tab.close()
		block := make([]byte, 8*fpBlock)
		want := map[uint64]bool{}
		fp := rapid.OneOf(rapid.Uint64Min(1), rapid.SampledFrom([]uint64{1, 2, 1 << 56, 1<<56 | 1, 1<<56 | 1<<20, ^uint64(0), ^uint64(0) - 1}))
		for range rapid.IntRange(1, 30).Draw(t, "rounds") {
			for _, f := range rapid.SliceOfN(fp, 0, 400).Draw(t, "fps") {
				on, err := tab.seen(f, block)
				require.NoError(t, err)
				require.Equal(t, want[f], on, "%016x before it is inserted", f)
				if !on {
					require.True(t, tab.insert(f))
					want[f] = true
				}
			}
			if rapid.Bool().Draw(t, "flush") || tab.full() {
				require.NoError(t, tab.flush())
			}
		}
		for _, f := range append(rapid.SliceOf(rapid.Uint64Min(1)).Draw(t, "probes"), 1, ^uint64(0)) {
			on, err := tab.seen(f, block)
			require.NoError(t, err)
			assert.Equal(t, want[f], on, "%016x", f)
		}
		n := 0
		for i := range tab.shards {
			n += tab.shards[i].count
		}
		if tab.disk != nil {
			n += tab.disk.n
		}
		assert.Equal(t, len(want), n, "every fingerprint once, in memory or on disk")
	})
}

// TestTableFlushesAtItsBudget: a bounded table stops growing its shards
// at the budget and reports full once one is three quarters full; after
// the flush its memory is the same and its fingerprints are on disk.
func TestTableFlushesAtItsBudget(t *testing.T) {
	tab := newFPTable(tableShards*8*1024, t.TempDir())
	defer tab.close()
	assert.Equal(t, 1024, tab.maxSlots)
	i := uint64(0)
	for !tab.full() {
		i++
		tab.insert(i * 0x9E3779B97F4A7C15)
		require.Less(t, i, uint64(tableShards*1024), "the table never filled")
	}
	for i := range tab.shards {
		assert.LessOrEqual(t, len(tab.shards[i].slots), 1024, "a shard grew past the budget")
	}
	before := tab.bytes()
	require.NoError(t, tab.flush())
	assert.Equal(t, int(i), tab.disk.n)
	assert.Equal(t, 8*int(i), tab.diskBytes())
	assert.False(t, tab.full())
	assert.LessOrEqual(t, tab.bytes(), before+8*cap(tab.disk.index))
	assert.True(t, tab.insert(0x1234567), "a new fingerprint goes into memory")
}

// TestSpillKeepsTheResult: a memory bound of a few kilobytes sends the
// fingerprints to disk at almost every chunk and the levels' encodings
// with them, and the Result — counts, depth, verdicts, shortest paths and
// traces, the sum of the states' fingerprints — is byte for byte the
// unbounded run's; the search's folder is gone afterwards.
func TestSpillKeepsTheResult(t *testing.T) {
	t.Parallel()
	var configs []Config
	for _, d := range []impl.Design{impl.DesignNoFencing, impl.DesignFenceAll} {
		for _, sleepSets := range []bool{false, true} {
			cfg := DefaultConfig(d, 3)
			cfg.Symmetry, cfg.SleepSets = true, sleepSets
			configs = append(configs, cfg)
		}
	}
	// Without symmetry (450,986 states) the widest levels span several
	// chunks of the search: spilled levels are read back a chunk at a
	// time while the next one spills.
	wide := DefaultConfig(impl.DesignFenceAll, 3)
	wide.SleepSets = true
	configs = append(configs, wide)
	for _, cfg := range configs {
		t.Run(fmt.Sprintf("%s/por=%v", cfg.Describe(), cfg.SleepSets), func(t *testing.T) {
			t.Parallel()
			want, err := Run(cfg)
			require.NoError(t, err)
			tmp := t.TempDir()
			cfg.MaxMemory, cfg.TempDir = 64<<10, tmp
			got, err := Run(cfg)
			require.NoError(t, err)
			assert.Positive(t, got.Flushes, "the table went to disk")
			assert.Greater(t, got.DiskBytes, got.LinkBytes+8*got.Distinct/2, "fingerprints and levels on disk beside the trace file")
			assert.Equal(t, want.stateSum, got.stateSum)
			cfg.MaxMemory, cfg.TempDir = 0, ""
			got.Config = cfg
			assert.Equal(t, sameResult(t, withoutDisk(want)), sameResult(t, withoutDisk(got)))
			assertEmpty(t, tmp)
		})
	}
}

// withoutDisk is r without the figures of the memory bound.
func withoutDisk(r *Result) *Result {
	c := *r
	c.TableBytes, c.FrontierBytes, c.DiskBytes, c.Flushes = 0, 0, 0, 0
	return &c
}

func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "the search left files in %s", dir)
}

// TestSearchRemovesItsFolder: the search's folder goes on every path —
// a complete search, one that fails (a state that does not decode), one
// whose context ends.
func TestSearchRemovesItsFolder(t *testing.T) {
	tmp := t.TempDir()
	_, err := Search[*gridState](&grid{k: 3, props: []string{"x<=k"}}, Options{TempDir: tmp})
	require.NoError(t, err)
	assertEmpty(t, tmp)

	_, err = Search[*gridState](&grid{k: 3, props: []string{"x<=k"}, badDecode: true}, Options{TempDir: tmp})
	require.Error(t, err)
	assertEmpty(t, tmp)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cfg := DefaultConfig(impl.DesignFenceAll, 2)
	cfg.TempDir, cfg.Context = tmp, ctx
	_, err = Run(cfg)
	require.ErrorIs(t, err, context.Canceled)
	assertEmpty(t, tmp)

	_, err = Search[*gridState](&grid{k: 3, props: []string{"x<=k"}}, Options{TempDir: filepath.Join(tmp, "missing")})
	assert.Error(t, err, "no folder for the search's files")
}

// TestInterruptRemovesTheFolder: a process exploring a large model with
// its context tied to SIGINT and SIGTERM, as fencelab explore does, gets
// the signal while its files are on disk: it ends, and its folder is
// gone.
func TestInterruptRemovesTheFolder(t *testing.T) {
	if os.Getenv("FENCELAB_EXPLORE_SIGNAL_CHILD") == "1" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		cfg := DefaultConfig(impl.DesignFenceNone, 4)
		cfg.Symmetry, cfg.Context, cfg.TempDir, cfg.MaxMemory = true, ctx, os.Getenv("FENCELAB_EXPLORE_SIGNAL_DIR"), 1<<20
		_, err := Run(cfg)
		fmt.Println("search ended:", err)
		os.Exit(3)
	}
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^TestInterruptRemovesTheFolder$")
			cmd.Env = append(os.Environ(), "FENCELAB_EXPLORE_SIGNAL_CHILD=1", "FENCELAB_EXPLORE_SIGNAL_DIR="+tmp)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			require.NoError(t, cmd.Start())
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			exited := false
			defer func() {
				if !exited {
					_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
					<-done
				}
			}()
			// Wait until the search has files on disk: its trace file
			// and the fingerprints of a first flush.
			deadline := time.Now().Add(60 * time.Second)
			for {
				found, _ := filepath.Glob(filepath.Join(tmp, "fencelab-explore-*", "fingerprints.*"))
				if len(found) > 0 {
					break
				}
				require.True(t, time.Now().Before(deadline), "no fingerprint file within a minute")
				time.Sleep(20 * time.Millisecond)
			}
			require.NoError(t, cmd.Process.Signal(sig))
			select {
			case err := <-done:
				exited = true
				var exit *exec.ExitError
				require.ErrorAs(t, err, &exit)
				assert.Equal(t, 3, exit.ExitCode(), "the search returned and the process exited by itself")
			case <-time.After(60 * time.Second):
				t.Fatal("the search did not end within a minute of the signal")
			}
			assertEmpty(t, tmp)
		})
	}
}

// TestCollisionIsTLCsEstimate: the chance of a fingerprint collision is
// TLC's optimistic estimate, distinct × (generated − distinct) / 2⁶⁴: on
// the 4×4 grid, 16 states and 24 transitions plus the initial state
// (25 generated), 16 × 9 / 2⁶⁴.
func TestCollisionIsTLCsEstimate(t *testing.T) {
	out, err := Search[*gridState](&grid{k: 3, props: []string{"x<=k"}}, Options{})
	require.NoError(t, err)
	require.Equal(t, 16, out.Distinct)
	require.Equal(t, 25, out.Generated)
	assert.InEpsilon(t, 16.0*9/(1<<64), out.Collision, 1e-12)
}
