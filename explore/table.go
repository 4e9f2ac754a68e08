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
// 4-client run with --symmetry.
func fingerprint(b []byte) uint64 {
	if fp := xxhash.Sum64(b); fp != 0 {
		return fp
	}
	return 1
}

// slot is one entry of the table: a state's fingerprint and that of the
// state it was first reached from (0 for the initial state). Following
// parents from a state leads back to the initial state along a shortest
// path, because breadth-first search reaches every state first from a
// state of the level before.
type slot struct {
	fp, parent uint64
}

// fpTable is the set of seen states: open addressing with linear probing
// in one flat slice, so the garbage collector sees a single pointer-free
// object however many states there are, and a stored state costs 16 bytes
// divided by the load factor (between 3/8 and 3/4).
type fpTable struct {
	slots []slot
	mask  uint64
	count int
}

const minTableSlots = 1 << 10

func newFPTable() *fpTable {
	return &fpTable{slots: make([]slot, minTableSlots), mask: minTableSlots - 1}
}

// insert adds fp, first reached from parent, and reports whether it was new.
func (t *fpTable) insert(fp, parent uint64) bool {
	for i := fp & t.mask; ; i = (i + 1) & t.mask {
		switch t.slots[i].fp {
		case fp:
			return false
		case 0:
			t.slots[i] = slot{fp: fp, parent: parent}
			t.count++
			if t.count*4 > len(t.slots)*3 {
				t.grow()
			}
			return true
		}
	}
}

// parent returns the fingerprint fp was first reached from (0 for the
// initial state) and whether fp is in the table.
func (t *fpTable) parent(fp uint64) (uint64, bool) {
	for i := fp & t.mask; ; i = (i + 1) & t.mask {
		switch t.slots[i].fp {
		case fp:
			return t.slots[i].parent, true
		case 0:
			return 0, false
		}
	}
}

func (t *fpTable) grow() {
	old := t.slots
	t.slots = make([]slot, 2*len(old))
	t.mask = uint64(len(t.slots) - 1)
	for _, s := range old {
		if s.fp == 0 {
			continue
		}
		i := s.fp & t.mask
		for t.slots[i].fp != 0 {
			i = (i + 1) & t.mask
		}
		t.slots[i] = s
	}
}

// bytes is the memory the table holds.
func (t *fpTable) bytes() int { return len(t.slots) * 16 }
