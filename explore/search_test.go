package explore

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// grid is a toy model whose state space can be counted by hand: two
// counters x and y, each from 0 to k, and two actions, "x++" (enabled
// while x < k) and "y++" (while y < k), numbered in that order. With stuck
// set, the state (1, 1) has no action: a deadlock. Finished is (k, k).
type grid struct {
	k     int
	stuck bool
	props []string
	// badDecode makes every state past the first fail to decode.
	badDecode bool
}

type gridState struct{ x, y int }

func (g *grid) New() *gridState            { return &gridState{} }
func (g *grid) Init(s *gridState)          { *s = gridState{} }
func (g *grid) Copy(dst, src *gridState)   { *dst = *src }
func (g *grid) Properties() []string       { return g.props }
func (g *grid) Finished(s *gridState) bool { return s.x == g.k && s.y == g.k }

func (g *grid) Encode(b []byte, s *gridState) []byte { return append(b, byte(s.x), byte(s.y)) }

func (g *grid) Decode(s *gridState, b []byte) error {
	if len(b) != 2 {
		return fmt.Errorf("grid state of %d bytes", len(b))
	}
	if g.badDecode && (b[0] != 0 || b[1] != 0) {
		return fmt.Errorf("grid state %v refused", b)
	}
	s.x, s.y = int(b[0]), int(b[1])
	return nil
}

// enabled lists the enabled actions: 0 is x++, 1 is y++.
func (g *grid) enabled(s *gridState) []int {
	if g.stuck && s.x == 1 && s.y == 1 {
		return nil
	}
	var acts []int
	if s.x < g.k {
		acts = append(acts, 0)
	}
	if s.y < g.k {
		acts = append(acts, 1)
	}
	return acts
}

func (g *grid) Actions(s *gridState) int { return len(g.enabled(s)) }

func (g *grid) Apply(s *gridState, i int) {
	if g.enabled(s)[i] == 0 {
		s.x++
	} else {
		s.y++
	}
}

// The properties: "sum<N" is violated first at depth N; "x<=k" always holds.
func (g *grid) Holds(s *gridState, p int) bool {
	switch g.props[p] {
	case "sum<3":
		return s.x+s.y < 3
	case "sum<1":
		return s.x+s.y < 1
	case "sum<=2": // the same states as sum<3, under another name
		return s.x+s.y <= 2
	case "x<=k":
		return s.x <= g.k
	case "never":
		return false
	}
	panic("unknown property " + g.props[p])
}

// replayGrid follows path from (0, 0).
func replayGrid(g *grid, path []int) *gridState {
	s := g.New()
	for _, i := range path {
		g.Apply(s, i)
	}
	return s
}

func TestSearchCountsAHandCountedModel(t *testing.T) {
	tests := []struct {
		name      string
		model     grid
		distinct  int
		generated int
		depth     int
		// violation lengths per property, -1 for holds
		violations []int
		deadlock   int // path length, -1 for none
	}{
		{
			// 3×3 = 9 states; every state but those on the far edges has
			// two actions: 1 + 2·k·(k+1) = 13 generated; depth 2k = 4.
			name:     "k=2",
			model:    grid{k: 2, props: []string{"sum<3", "x<=k"}},
			distinct: 9, generated: 13, depth: 4,
			violations: []int{3, -1}, deadlock: -1,
		},
		{
			// 4×4 = 16 states, 1 + 2·3·4 = 25 generated, depth 6.
			name:     "k=3",
			model:    grid{k: 3, props: []string{"sum<3", "x<=k", "sum<1", "never"}},
			distinct: 16, generated: 25, depth: 6,
			violations: []int{3, -1, 1, 0}, deadlock: -1,
		},
		{
			// (1,1) is stuck but every state stays reachable — (2,1) via
			// (2,0), (1,2) via (0,2) — so 9 states; generated is 1 plus the
			// actions of each state: (0,0) 2, (1,0) 2, (0,1) 2, (2,0) 1,
			// (0,2) 1, (1,1) 0, (2,1) 1, (1,2) 1, (2,2) 0 = 11. The
			// deadlock is two steps away.
			name:     "k=2 stuck at (1,1)",
			model:    grid{k: 2, stuck: true, props: []string{"sum<3"}},
			distinct: 9, generated: 11, depth: 4,
			violations: []int{3}, deadlock: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.model
			out, err := Search[*gridState](&m, Options{})
			require.NoError(t, err)
			assert.Equal(t, tc.distinct, out.Distinct, "distinct")
			assert.Equal(t, tc.generated, out.Generated, "generated")
			assert.Equal(t, tc.depth, out.Depth, "depth")
			assert.True(t, out.Complete)
			require.Len(t, out.Violations, len(tc.violations))
			for p, want := range tc.violations {
				f := out.Violations[p]
				if want < 0 {
					assert.Nil(t, f, "%s should hold", m.props[p])
					continue
				}
				require.NotNil(t, f, "%s should be violated", m.props[p])
				assert.Len(t, f.Path, want, "%s: shortest path", m.props[p])
				assert.False(t, m.Holds(replayGrid(&m, f.Path), p), "%s: the path must end in a violating state", m.props[p])
			}
			if tc.deadlock < 0 {
				assert.Nil(t, out.Deadlock)
				return
			}
			require.NotNil(t, out.Deadlock)
			assert.Len(t, out.Deadlock.Path, tc.deadlock)
			end := replayGrid(&m, out.Deadlock.Path)
			assert.Equal(t, gridState{1, 1}, *end)
			assert.Zero(t, m.Actions(end))
		})
	}
}

func TestSearchStopsAtMaxStates(t *testing.T) {
	m := grid{k: 3, props: []string{"x<=k", "sum<1"}}
	out, err := Search[*gridState](&m, Options{MaxStates: 5})
	require.NoError(t, err)
	assert.False(t, out.Complete)
	assert.Equal(t, 5, out.Distinct)
	assert.Nil(t, out.Violations[0], "no violation of x<=k exists")
	require.NotNil(t, out.Violations[1], "sum<1 is violated one step from the start")
	assert.Len(t, out.Violations[1].Path, 1)
}

func TestFPTableGrows(t *testing.T) {
	tab := newFPTable(0, "")
	const n = 40 * tableShards * minShardSlots
	for i := uint64(1); i <= n; i++ {
		assert.True(t, tab.insert(i*0x9E3779B97F4A7C15|1))
	}
	for i := uint64(1); i <= n; i++ {
		assert.False(t, tab.insert(i*0x9E3779B97F4A7C15|1), "a second insert must report a duplicate")
		assert.True(t, tab.contains(i*0x9E3779B97F4A7C15|1))
	}
	assert.False(t, tab.contains(2), "even: never inserted")
	slots, count := 0, 0
	for i := range tab.shards {
		s := &tab.shards[i]
		assert.LessOrEqual(t, s.count*4, len(s.slots)*3, "load factor above 3/4")
		slots += len(s.slots)
		count += s.count
	}
	assert.Equal(t, n, count)
	assert.Equal(t, 8*slots, tab.bytes())
}

func TestLinksKeepParents(t *testing.T) {
	l, err := newLinks(t.TempDir())
	require.NoError(t, err)
	defer l.close()
	const n = 3<<16 + 5
	for i := range n {
		require.NoError(t, l.add(uint32(i*7/2), i%maxActions))
	}
	assert.Equal(t, 5*n, l.bytes(), "5 bytes a state, on disk")
	for i := range n {
		p, a, err := l.get(i)
		require.NoError(t, err)
		assert.Equal(t, uint32(i*7/2), p)
		assert.Equal(t, i%maxActions, a)
	}
	_, _, err = l.get(n)
	assert.Error(t, err, "past the last record")
}

func TestSearchReportsProgressPerLevel(t *testing.T) {
	m := grid{k: 2, props: []string{"x<=k"}}
	var calls [][3]int
	_, err := Search[*gridState](&m, Options{Progress: func(depth, distinct, queued int) {
		calls = append(calls, [3]int{depth, distinct, queued})
	}})
	require.NoError(t, err)
	// Levels of the 3×3 grid hold 1, 2, 3, 2 and 1 states.
	assert.Equal(t, [][3]int{{1, 3, 2}, {2, 6, 3}, {3, 8, 2}, {4, 9, 1}, {4, 9, 0}}, calls)
}

// TestSearchReportsEveryPropertyAStateViolates: a state that violates
// several properties at once is the first violation of each of them — not
// of the first alone, the others left to some later state. sum<3 and
// sum<=2 fail in exactly the same states, "never" in every state: each
// gets its own shortest path, the first two the very same one.
func TestSearchReportsEveryPropertyAStateViolates(t *testing.T) {
	for _, props := range [][]string{
		{"sum<3", "sum<=2", "x<=k"},
		{"x<=k", "sum<=2", "sum<3"},
		{"never", "sum<3", "sum<=2"},
	} {
		t.Run(fmt.Sprint(props), func(t *testing.T) {
			m := grid{k: 3, props: props}
			out, err := Search[*gridState](&m, Options{})
			require.NoError(t, err)
			byName := map[string]*Found{}
			for k, name := range props {
				byName[name] = out.Violations[k]
			}
			require.NotNil(t, byName["sum<3"])
			require.NotNil(t, byName["sum<=2"], "the second property the state violates is reported too")
			assert.Len(t, byName["sum<3"].Path, 3)
			assert.Equal(t, byName["sum<3"].Path, byName["sum<=2"].Path, "in the same, first, violating state")
			if f, ok := byName["never"]; ok {
				require.NotNil(t, f)
				assert.Empty(t, f.Path, "never holds, not even in the initial state")
			}
			if _, ok := byName["x<=k"]; ok {
				assert.Nil(t, byName["x<=k"])
			}
		})
	}
}

// TestInsertLevelIsSequentialInsertion: inserting a level's candidates by
// shard, with any number of workers, marks as fresh exactly the
// candidates one goroutine inserting them in frontier order finds new —
// the first of equal ones in frontier order, none already in the table —
// and leaves the same table.
func TestInsertLevelIsSequentialInsertion(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		// Few distinct fingerprints, so that duplicates within a batch,
		// across batches and with the table are common; spread over the
		// shards by their top bits.
		pool := rapid.SliceOfN(rapid.Uint64Min(1), 1, 64).Draw(t, "pool")
		pick := rapid.IntRange(0, len(pool)-1)
		seen := rapid.SliceOf(pick).Draw(t, "in the table before")
		var bs []*batch
		for range rapid.IntRange(1, 6).Draw(t, "batches") {
			b := &batch{}
			for _, k := range rapid.SliceOf(pick).Draw(t, "candidates") {
				b.cands = append(b.cands, candidate{fp: pool[k]})
			}
			bs = append(bs, b)
		}
		want, wantTable := newFPTable(0, ""), newFPTable(0, "")
		for _, k := range seen {
			want.insert(pool[k])
		}
		var wantFresh [][]bool
		for _, b := range bs {
			var fresh []bool
			for _, c := range b.cands {
				fresh = append(fresh, want.insert(c.fp))
			}
			wantFresh = append(wantFresh, fresh)
		}
		*wantTable = *want
		workers := rapid.IntRange(1, 9).Draw(t, "workers")
		got := newFPTable(0, "")
		for _, k := range seen {
			got.insert(pool[k])
		}
		require.NoError(t, insertLevel(got, bs, workers))
		for i, b := range bs {
			if len(b.cands) == 0 {
				continue
			}
			assert.Equal(t, wantFresh[i], b.fresh, "batch %d", i)
		}
		assert.Equal(t, wantTable.shards, got.shards)
	})
}
