package explore

import "slices"

// Commuter is a Model whose actions can be named across states and whose
// independent actions are known: what partial-order reduction by sleep
// sets needs (Options.SleepSets).
//
// Sleep sets (Godefroid, "Partial-Order Methods for the Verification of
// Concurrent Systems", 1996, chapter 5) prune transitions, never states:
// when a state's actions a and b commute, the search that took a first
// need not take a after b, because b then a leads where a then b did. The
// successor reached by b inherits a in its sleep set, and so on down the
// search. Every reachable state is still reached, at the same breadth-first
// depth — the pruned paths are reorderings of explored ones of the same
// length — so every invariant, goal and deadlock verdict, every distinct
// state count and every shortest counterexample's length are those of the
// full search; only the transitions computed (Outcome.Generated) drop.
// Breadth first, a state reached from several states of the level before
// it is expanded with the intersection of the sleep sets it was reached
// with (a transition pruned on one path must not be pruned on every path
// unless each path allows it); a state already reached at an earlier
// level is not expanded again, as without sleep sets.
type Commuter[S any] interface {
	// Actors appends, for each action of s in order, the actor taking
	// it: two actions of different actors commute and neither disables
	// the other. A negative actor commutes with no action.
	Actors(dst []int32, s S) []int32
	// Keys appends, for each action of s in order, a key naming it
	// across states: the same action has the same key wherever it is
	// enabled. renaming is what EncodeRenamed returned for a state
	// reached from s (0 when no renaming): the keys are then those of
	// the actions as that state's encoding names them.
	Keys(dst []uint64, s S, renaming uint64) []uint64
	// EncodeRenamed is Encode that also returns how the canonical
	// encoding renamed s (a value Keys alone reads; 0: not at all).
	EncodeRenamed(b []byte, s S) ([]byte, uint64)
}

// sleepLevel holds the sleep sets of a breadth-first level's states: the
// keys of state i are keys[start[i] : start[i]+size[i]], sorted, in one
// chunk of keys.
type sleepLevel struct {
	keys        chunked[uint64]
	start, size chunked[uint32]
}

func (l *sleepLevel) add(keys []uint64) error {
	start, err := l.keys.appendRun(keys)
	if err != nil {
		return err
	}
	if start+len(keys) > 1<<32-1 {
		return errLevelTooLarge
	}
	l.start.push(uint32(start))
	l.size.push(uint32(len(keys)))
	return nil
}

func (l *sleepLevel) of(i int) []uint64 {
	start := int(l.start.at(i))
	return l.keys.run(start, start+int(l.size.at(i)))
}

// intersect keeps in state i's sleep set only the keys also in keys
// (sorted).
func (l *sleepLevel) intersect(i int, keys []uint64) {
	own := l.of(i)
	kept := own[:0]
	for _, k := range own {
		if _, found := slices.BinarySearch(keys, k); found {
			kept = append(kept, k)
		}
	}
	l.size.set(i, uint32(len(kept)))
}
