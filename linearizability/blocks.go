package linearizability

import (
	"cmp"
	"slices"
)

// Partitioning, and why not Porcupine's Partition.
//
// Porcupine's Model.Partition splits a history into parts that are
// checked independently, each from Init: sound only when the model is a
// product of independent objects (a key-value store split by key), so
// that no operation of one part can change what another part observes.
// Neither of our models is such a product. The sections model is one
// counter: every increment changes what every later increment returns,
// whatever lease or token it came from, so splitting the sections by
// lease or token and checking each part from 0 would call a lost update
// linearizable whenever the two sections that read the same value fall
// into different parts (and a correct history illegal whenever a part does
// not start at 0). The register is one object too: its counter and its
// highest token seen carry every operation's effect to the next.
//
// What does decompose is time. Sort the operations by call; wherever every
// operation before a point has returned before the next one is called
// (Porcupine reads [Call, Return] as closed, so "before" is strict), every
// linearization puts all the operations before the point first: real time
// orders them. The history is cut there into blocks, and it is
// linearizable if and only if some sequence of states runs through the
// blocks: from the initial state, each block linearized from one of the
// states the blocks before it can end in. decide carries that set of
// states from block to block; most blocks of a simulated run are one
// operation (the resource handles one at a time, and sections overlap only
// around faults), which leaves no choice and costs one step of the model.
// A block of several concurrent operations is searched exhaustively (every
// order real time allows, each (done, state) pair once). So decide's
// verdict is Porcupine's on every history, which TestDecideAgreesWithPorcupine
// checks on random histories; it is only faster, and allocates a few
// slices per history instead of Porcupine's boxed operations and search.
// Where a block is too large for that search (blockLimit, visitLimit,
// stateLimit), decide gives up and Porcupine checks the whole history,
// within its timeout.

// fastOp is one operation of a history with its model's own types.
type fastOp[I, O any] struct {
	client    int
	call, ret int64
	in        I
	out       O
}

// Bounds of decide's search of one block: beyond them Porcupine decides.
const (
	blockLimit = 16   // operations in a block (a bit set of them fits a uint32)
	visitLimit = 1024 // (done, state) pairs searched in a block
	stateLimit = 64   // states a block may end in
)

// decide reports whether ops, a history of a model with initial state init
// and transition step (legal, and the state after), is linearizable;
// decided is false when a block exceeds the search's bounds.
func decide[S comparable, I, O any](init S, step func(S, I, O) (bool, S), ops []fastOp[I, O]) (linearizable, decided bool) {
	order := make([]int32, len(ops))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(ops[a].call, ops[b].call) })
	cur, next := []S{init}, []S(nil)
	var seen map[visit[S]]bool
	for lo := 0; lo < len(order); {
		// The block: operations up to the first one called after every
		// one before it has returned.
		hi, end := lo+1, ops[order[lo]].ret
		for hi < len(order) && ops[order[hi]].call <= end {
			end = max(end, ops[order[hi]].ret)
			hi++
		}
		next = next[:0]
		if hi-lo == 1 {
			op := &ops[order[lo]]
			for _, s := range cur {
				if ok, after := step(s, op.in, op.out); ok && !slices.Contains(next, after) {
					next = append(next, after)
				}
			}
		} else {
			if hi-lo > blockLimit {
				return false, false
			}
			if seen == nil {
				seen = map[visit[S]]bool{}
			}
			b := blockSearch[S, I, O]{ops: ops, block: order[lo:hi], step: step, seen: seen, ends: next}
			b.prepare()
			for _, s := range cur {
				if !b.search(0, s) {
					return false, false
				}
			}
			next = b.ends
			clear(seen)
		}
		if len(next) == 0 {
			return false, true
		}
		if len(next) > stateLimit {
			return false, false
		}
		cur, next = next, cur
		lo = hi
	}
	return true, true
}

// visit is a point of a block's search: the operations done, the state.
type visit[S comparable] struct {
	done  uint32
	state S
}

// blockSearch linearizes one block of concurrent operations every way real
// time allows, collecting the states it can end in.
type blockSearch[S comparable, I, O any] struct {
	ops   []fastOp[I, O]
	block []int32 // the block's operations, indexes into ops
	step  func(S, I, O) (bool, S)
	seen  map[visit[S]]bool
	ends  []S
	// before[j] has bit i set when block operation i returned before
	// operation j was called: i must come first.
	before []uint32
}

func (b *blockSearch[S, I, O]) prepare() {
	b.before = make([]uint32, len(b.block))
	for j, oj := range b.block {
		for i, oi := range b.block {
			if b.ops[oi].ret < b.ops[oj].call {
				b.before[j] |= 1 << i
			}
		}
	}
}

// search extends the linearization with done operations and state s; it
// returns false when it ran out of its bounds.
func (b *blockSearch[S, I, O]) search(done uint32, s S) bool {
	if done == 1<<len(b.block)-1 {
		if !slices.Contains(b.ends, s) {
			b.ends = append(b.ends, s)
		}
		return len(b.ends) <= stateLimit
	}
	v := visit[S]{done, s}
	if b.seen[v] {
		return true
	}
	if len(b.seen) >= visitLimit {
		return false
	}
	b.seen[v] = true
	for j, o := range b.block {
		if done&(1<<j) != 0 || b.before[j]&^done != 0 {
			continue
		}
		op := &b.ops[o]
		if ok, after := b.step(s, op.in, op.out); ok && !b.search(done|1<<j, after) {
			return false
		}
	}
	return true
}
