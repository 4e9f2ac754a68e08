package explore

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/fencelab/fencelab/impl"
)

// smallPools are level pools with chunks small enough that a few states
// fill one, so that padding, chunk boundaries and releases are exercised.
func smallPools(dataBits, indexBits, keyBits int) levelPools {
	return levelPools{
		data:  newChunkPool[byte](dataBits, 1),
		index: newChunkPool[uint32](indexBits, 4),
		keys:  newChunkPool[uint64](keyBits, 8),
	}
}

// TestLevelKeepsEveryStateAcrossReleases: a level gives back each state's
// encoding and sleep set as added — empty ones, ones that fill a chunk
// exactly, ones that do not fit in what is left of a chunk — after
// releases of the states before any point, with chunks reused from the
// pool by another level meanwhile; and the pool counts every chunk made.
func TestLevelKeepsEveryStateAcrossReleases(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		dataBits := rapid.IntRange(2, 7).Draw(t, "dataBits")
		keyBits := rapid.IntRange(1, 4).Draw(t, "keyBits")
		pools := smallPools(dataBits, rapid.IntRange(1, 4).Draw(t, "indexBits"), keyBits)
		sleepSets := rapid.Bool().Draw(t, "sleepSets")
		encs := rapid.SliceOf(rapid.SliceOfN(rapid.Byte(), 0, 1<<dataBits)).Draw(t, "encodings")
		sleeps := make([][]uint64, len(encs))
		l, other := newLevel(pools), newLevel(pools)
		for i, enc := range encs {
			if sleepSets {
				sleeps[i] = rapid.SliceOfNDistinct(rapid.Uint64(), 0, 1<<keyBits, rapid.ID).Draw(t, "sleep")
				slices.Sort(sleeps[i])
			}
			require.NoError(t, l.add(enc, sleeps[i], sleepSets))
		}
		require.Equal(t, len(encs), l.len())
		released := 0
		for released < len(encs) {
			for i := released; i < len(encs); i++ {
				assert.Equal(t, len(encs[i]), len(l.state(i)), "state %d", i)
				if len(encs[i]) > 0 {
					assert.Equal(t, encs[i], l.state(i), "state %d", i)
				}
				if sleepSets {
					assert.Equal(t, len(sleeps[i]), len(l.sleep.of(i)), "sleep set %d", i)
					if len(sleeps[i]) > 0 {
						assert.Equal(t, sleeps[i], l.sleep.of(i), "sleep set %d", i)
					}
				}
			}
			released = rapid.IntRange(released+1, len(encs)).Draw(t, "release")
			l.release(released)
			// Another level takes the chunks given back and writes over
			// them: the states not released must not change.
			for range rapid.IntRange(0, 8).Draw(t, "others") {
				require.NoError(t, other.add(slices.Repeat([]byte{0xee}, 1<<dataBits), []uint64{1}, sleepSets))
			}
		}
		assert.Equal(t, len(encs), l.len(), "release keeps the length")
		held := 0
		for _, ch := range other.data.chunks {
			held += cap(ch)
		}
		for _, ch := range pools.data.free {
			held += cap(ch)
		}
		assert.Equal(t, pools.data.made, held, "every data chunk made is in a level or the pool")
	})
}

// TestLevelRefusesWhatNoChunkHolds: an encoding or a sleep set longer
// than a chunk is an error, not a truncation.
func TestLevelRefusesWhatNoChunkHolds(t *testing.T) {
	l := newLevel(smallPools(4, 2, 2))
	require.NoError(t, l.add(make([]byte, 16), []uint64{1, 2, 3, 4}, true))
	assert.True(t, errors.Is(l.add(make([]byte, 17), nil, true), errRunTooLong))
	assert.True(t, errors.Is(l.add(nil, []uint64{1, 2, 3, 4, 5}, true), errRunTooLong))
}

// TestLevelsShareReleasedChunks: building a level while the one before it
// is released as it is read holds about one level's chunks, not two.
func TestLevelsShareReleasedChunks(t *testing.T) {
	const states, size, run = 4096, 50, 256
	pools := smallPools(12, 8, 8)
	frontier, next := newLevel(pools), newLevel(pools)
	enc := make([]byte, size)
	for range states {
		require.NoError(t, frontier.add(enc, []uint64{1, 2}, true))
	}
	alone := pools.bytes()
	for lo := 0; lo < states; lo += run {
		for range run {
			require.NoError(t, next.add(enc, []uint64{3}, true))
		}
		frontier.release(lo + run)
	}
	assert.Less(t, pools.bytes(), alone*11/10, "the next level reuses the chunks of the one expanded")
	next.reset()
	assert.Zero(t, next.len())
}

// TestLevelIndexIsAMap: the level index finds every position inserted and
// nothing else, across growth and resets.
func TestLevelIndexIsAMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var index levelIndex
		for range rapid.IntRange(1, 3).Draw(t, "levels") {
			want := map[uint64]uint32{}
			// Fingerprints are never 0 (fingerprint maps 0 to 1).
			fps := rapid.SliceOfDistinct(rapid.Uint64Min(1), rapid.ID).Draw(t, "fps")
			for i, fp := range fps {
				index.insert(fp, uint32(i))
				want[fp] = uint32(i)
			}
			for _, fp := range append(fps, rapid.SliceOf(rapid.Uint64Min(1)).Draw(t, "probes")...) {
				pos, ok := index.get(fp)
				wantPos, wantOK := want[fp]
				assert.Equal(t, wantOK, ok, "fingerprint %x", fp)
				assert.Equal(t, wantPos, pos, "fingerprint %x", fp)
			}
			index.reset()
		}
	})
}

// TestMemoryCountsWhatTheLevelsHold: the search's memory figures, which
// --max-memory bounds, count the levels: the two levels at their most
// hold at least the widest level's encodings (measured here by a plain
// breadth-first search of the same model), the peak is at least the table
// and at least the levels; the links are on disk.
func TestMemoryCountsWhatTheLevelsHold(t *testing.T) {
	for _, sleepSets := range []bool{false, true} {
		t.Run(fmt.Sprintf("por=%v", sleepSets), func(t *testing.T) {
			cfg := DefaultConfig(impl.DesignFenceAll, 2)
			cfg.SleepSets = sleepSets
			res, err := Run(cfg)
			require.NoError(t, err)
			require.True(t, res.Complete)

			m := &sysModel{cfg: cfg.Config}
			init := m.New()
			m.Init(init)
			seen := map[string]bool{string(m.Encode(nil, init)): true}
			widest := 0
			for level := []*impl.World{init}; len(level) > 0; {
				var next []*impl.World
				bytes := 0
				for _, s := range level {
					for i := range m.Actions(s) {
						succ := m.New()
						m.Copy(succ, s)
						m.Apply(succ, i)
						if enc := string(m.Encode(nil, succ)); !seen[enc] {
							seen[enc] = true
							bytes += len(enc)
							next = append(next, succ)
						}
					}
				}
				widest = max(widest, bytes)
				level = next
			}
			require.Equal(t, len(seen), res.Distinct)
			assert.GreaterOrEqual(t, res.FrontierBytes, widest, "the levels hold the widest level's encodings")
			// The levels give their free chunks back between levels, and
			// the table grows to the end: each alone is below the peak.
			assert.GreaterOrEqual(t, res.PeakBytes, res.TableBytes)
			assert.GreaterOrEqual(t, res.PeakBytes, res.FrontierBytes)
			assert.Equal(t, 5*res.Distinct, res.LinkBytes, "the trace file: 5 bytes a state, on disk")
		})
	}
}
