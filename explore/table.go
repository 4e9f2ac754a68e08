package explore

import "github.com/cespare/xxhash/v2"

// fingerprint is the 64-bit hash of a canonical state encoding. 0 marks an
// empty slot of the table, so a state hashing to 0 is stored as 1: that
// merges two fingerprints out of 2^64, no worse than any other collision.
//
// Like TLC, the explorer trusts fingerprints: two distinct states with the
// same fingerprint would be taken for one, and the second's successors
// might go unexplored. With n states the chance of any collision is about
// n²/2⁶⁵: about 4·10⁻⁸ for the 1.1 million states of the largest model
// the tests and 'make explore' run, 3·10⁻⁵ for the 34 million of a
// 4-client run without symmetry's reduction.
func fingerprint(b []byte) uint64 {
	if fp := xxhash.Sum64(b); fp != 0 {
		return fp
	}
	return 1
}

// tableShards is the number of independent parts of the seen-set; a
// fingerprint's top bits choose its part.
const (
	tableShardBits = 8
	tableShards    = 1 << tableShardBits
	minShardSlots  = 1 << 6
)

// fpTable is the set of seen states: fingerprints only, 8 bytes a slot,
// in tableShards open-addressing tables with linear probing, each one flat
// pointer-free slice. The shards grow one at a time, each doubling on its
// own when three quarters full, so growing never holds more than one
// shard's old slots beside the new ones: the peak while resizing is 1/256
// above the table, not twice it. A stored state costs 8 bytes divided by
// the load factor (between 3/8 and 3/4): 10.7 to 21.3 bytes.
//
// Parent links are not here: the search keeps them per state, by index
// (see links).
//
// Each shard is changed by one goroutine at a time: the search's merge
// inserts a level's fingerprints with one goroutine per set of shards
// (insertLevel), so nothing here is shared between shards.
type fpTable struct {
	shards [tableShards]fpShard
}

type fpShard struct {
	slots []uint64
	mask  uint64
	count int
}

func newFPTable() *fpTable {
	t := &fpTable{}
	for i := range t.shards {
		t.shards[i] = fpShard{slots: make([]uint64, minShardSlots), mask: minShardSlots - 1}
	}
	return t
}

func (t *fpTable) shard(fp uint64) *fpShard { return &t.shards[fp>>(64-tableShardBits)] }

// insert adds fp and reports whether it was new.
func (t *fpTable) insert(fp uint64) bool {
	s := t.shard(fp)
	for i := fp & s.mask; ; i = (i + 1) & s.mask {
		switch s.slots[i] {
		case fp:
			return false
		case 0:
			s.slots[i] = fp
			s.count++
			if s.count*4 > len(s.slots)*3 {
				s.grow()
			}
			return true
		}
	}
}

// contains reports whether fp is in the table. It only reads, so any
// number of goroutines may call it while nobody inserts.
func (t *fpTable) contains(fp uint64) bool {
	s := t.shard(fp)
	for i := fp & s.mask; ; i = (i + 1) & s.mask {
		switch s.slots[i] {
		case fp:
			return true
		case 0:
			return false
		}
	}
}

func (s *fpShard) grow() {
	old := s.slots
	s.slots = make([]uint64, 2*len(old))
	s.mask = uint64(len(s.slots) - 1)
	for _, fp := range old {
		if fp == 0 {
			continue
		}
		i := fp & s.mask
		for s.slots[i] != 0 {
			i = (i + 1) & s.mask
		}
		s.slots[i] = fp
	}
}

// bytes is the memory the table holds.
func (t *fpTable) bytes() int {
	n := 0
	for i := range t.shards {
		n += len(t.shards[i].slots)
	}
	return n * 8
}

// linkChunk is the number of states per chunk of links.
const linkChunk = 1 << 16

// links records, for every distinct state by its index in breadth-first
// order (the initial state is 0), the index of the state it was first
// reached from and the action taken there: 5 bytes a state, in chunks of
// linkChunk states so that growing never copies what is stored.
//
// Following parents from a state leads back to the initial state along a
// shortest path, because breadth-first search reaches every state first
// from a state of the level before.
type links struct {
	parents [][]uint32
	actions [][]uint8
	n       int
}

// maxActions bounds the actions of one state that links can record.
const maxActions = 1 << 8

func (l *links) add(parent uint32, action int) {
	if l.n%linkChunk == 0 {
		l.parents = append(l.parents, make([]uint32, 0, linkChunk))
		l.actions = append(l.actions, make([]uint8, 0, linkChunk))
	}
	c := len(l.parents) - 1
	l.parents[c] = append(l.parents[c], parent)
	l.actions[c] = append(l.actions[c], uint8(action))
	l.n++
}

func (l *links) get(i int) (parent uint32, action int) {
	return l.parents[i/linkChunk][i%linkChunk], int(l.actions[i/linkChunk][i%linkChunk])
}

func (l *links) bytes() int { return len(l.parents) * linkChunk * 5 }

// levelIndex finds a state of the level being built by its fingerprint:
// with sleep sets, a state reached again in the same level gets the
// intersection of the sleep sets it was reached with, so the merge must
// find its position in the level. Like fpTable it is sharded by the
// fingerprint's top bits, so that it grows a shard at a time; a slot is a
// fingerprint and a position, 12 bytes, at a load factor of 3/8 to 3/4.
// It is emptied, not freed, from level to level.
type levelIndex struct {
	shards [tableShards]levelShard
}

type levelShard struct {
	fps   []uint64
	pos   []uint32
	mask  uint64
	count int
}

// insert records the position of fp, which must not be there yet.
func (t *levelIndex) insert(fp uint64, pos uint32) {
	s := &t.shards[fp>>(64-tableShardBits)]
	if s.fps == nil {
		s.fps, s.pos, s.mask = make([]uint64, minShardSlots), make([]uint32, minShardSlots), minShardSlots-1
	}
	s.put(fp, pos)
	s.count++
	if s.count*4 > len(s.fps)*3 {
		oldFPs, oldPos := s.fps, s.pos
		s.fps, s.pos = make([]uint64, 2*len(oldFPs)), make([]uint32, 2*len(oldFPs))
		s.mask = uint64(len(s.fps) - 1)
		for i, fp := range oldFPs {
			if fp != 0 {
				s.put(fp, oldPos[i])
			}
		}
	}
}

func (s *levelShard) put(fp uint64, pos uint32) {
	i := fp & s.mask
	for s.fps[i] != 0 {
		i = (i + 1) & s.mask
	}
	s.fps[i], s.pos[i] = fp, pos
}

// get returns the position of fp, if it is in the level.
func (t *levelIndex) get(fp uint64) (uint32, bool) {
	s := &t.shards[fp>>(64-tableShardBits)]
	if s.fps == nil {
		return 0, false
	}
	for i := fp & s.mask; ; i = (i + 1) & s.mask {
		switch s.fps[i] {
		case fp:
			return s.pos[i], true
		case 0:
			return 0, false
		}
	}
}

// reset empties the index for the next level, keeping its slots.
func (t *levelIndex) reset() {
	for i := range t.shards {
		if s := &t.shards[i]; s.count > 0 {
			clear(s.fps)
			s.count = 0
		}
	}
}

func (t *levelIndex) bytes() int {
	n := 0
	for i := range t.shards {
		n += len(t.shards[i].fps)
	}
	return 12 * n
}
