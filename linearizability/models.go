package linearizability

import (
	"fmt"

	"github.com/anishathalye/porcupine"

	"github.com/fencelab/fencelab/impl"
)

// Neither model sets Partition: the counter is a single object, so there is
// nothing to split, and Porcupine then checks the whole history in exactly
// one goroutine. That is the "bounded concurrency per check" the simulator
// relies on when it runs one check per run on every core.

// clientName is a client's lane name, the same as impl.NodeID's ("c1" for
// index 0), so the picture and the traces name clients alike. It does not
// go through impl.ClientNode, whose byte-sized NodeID would wrap for large
// indexes.
func clientName(client int) string { return fmt.Sprintf("c%d", client+1) }

// tokenSuffix is " (token N)", or nothing for an operation without one
// (impl.NoToken: the designs without tokens).
func tokenSuffix(token uint64) string {
	if token == impl.NoToken {
		return ""
	}
	return fmt.Sprintf(" (token %d)", token)
}

// sectionOp is a committed critical section as Porcupine sees it: the call
// (its client and token) and the output (the value it read) in one struct,
// which an operation's Input and Output both point to. A pointer in an
// interface is not boxed, so a history of sections is built without an
// allocation per section (Checker reuses the structs from check to check).
type sectionOp struct {
	client int
	token  uint64
	read   int64
}

// sectionsModel is an atomic counter whose only operation is an increment
// that returns the value before it (fetch-and-add): a committed critical
// section read v and wrote v+1, so as one atomic step it returned v. The
// state is the counter. Two sections that read the same value cannot both
// be the increment from that value: a lost update is Illegal. Step reads
// only the value read: the client and token only describe the operation.
func sectionsModel() porcupine.Model {
	return porcupine.Model{
		Init: func() any { return int64(0) },
		Step: func(state, _, output any) (bool, any) {
			counter := state.(int64)
			if output.(*sectionOp).read != counter {
				return false, state
			}
			return true, counter + 1
		},
		Hash: func(state any) uint64 { return uint64(state.(int64)) },
		DescribeOperation: func(input, _ any) string {
			op := input.(*sectionOp)
			return fmt.Sprintf("%s increment → %d%s", clientName(op.client), op.read, tokenSuffix(op.token))
		},
		DescribeState: func(state any) string { return fmt.Sprintf("counter %d", state.(int64)) },
	}
}

// resourceInput is an operation as the client sent it.
type resourceInput struct {
	client int
	kind   impl.OpKind
	token  uint64
	value  int64 // the value to write; unused by reads
}

// resourceOutput is the resource's answer.
type resourceOutput struct {
	accepted bool
	value    int64 // the value read; meaningful only for an accepted read
}

// registerOp is one resource operation as Porcupine sees it, input and
// output in one struct that an operation's Input and Output both point to
// (see sectionOp).
type registerOp struct {
	in  resourceInput
	out resourceOutput
}

// registerState is what the fencing rules depend on. maxToken stays 0 in
// mode none, which never looks at tokens.
type registerState struct {
	counter  int64
	maxToken uint64
}

// registerModel specifies the resource under mode, written from DESIGN.md's
// table rather than by calling impl, so that a mistake in impl/resource.go
// shows up as Illegal instead of being copied into the specification. For
// every state and input exactly one output is right, so a wrong accept, a
// wrong reject or a wrong value read is always caught — except in mode
// sequencer, whose decision is the lock service's (who held the lock when
// the resource asked), which a register does not see: there the model
// takes the decision as given and judges the values, so a read must return
// the counter and a rejected write must change nothing.
func registerModel(mode impl.FenceMode) porcupine.Model {
	m := registerDescriptions(mode)
	m.Init = func() any { return registerState{} }
	m.Step = func(state, input, _ any) (bool, any) {
		s := state.(registerState)
		ok, next := registerStep(mode, s, input.(*registerOp))
		if !ok || next == s {
			return ok, state
		}
		return true, next
	}
	m.Hash = func(state any) uint64 { return state.(registerState).hash() }
	return m
}

// registerModelIn is registerModel with its states kept in a, so that a
// step boxes no state: a state is a pointer into a, compared and hashed by
// value. The search is the same: Porcupine's cache finds a state by Hash
// and Equal, never by identity. a serves one search at a time.
func registerModelIn(mode impl.FenceMode, a *stateArena) porcupine.Model {
	m := registerDescriptions(mode)
	m.Init = func() any { return &a.zero }
	m.Step = func(state, input, _ any) (bool, any) {
		s := state.(*registerState)
		ok, next := registerStep(mode, *s, input.(*registerOp))
		if !ok || next == *s {
			return ok, state
		}
		return true, a.put(next)
	}
	m.Hash = func(state any) uint64 { return state.(*registerState).hash() }
	m.Equal = func(x, y any) bool { return *x.(*registerState) == *y.(*registerState) }
	m.DescribeState = func(state any) string { return describeRegister(mode, *state.(*registerState)) }
	return m
}

// stateArena holds the states of one register search in chunks that never
// move, so a state's pointer stays valid for the whole search.
type stateArena struct {
	zero   registerState
	chunks [][]registerState
	used   int // chunks[:used] are full or in use
}

const arenaChunk = 256

func (a *stateArena) put(s registerState) *registerState {
	if a.used == 0 || len(a.chunks[a.used-1]) == arenaChunk {
		if a.used == len(a.chunks) {
			a.chunks = append(a.chunks, make([]registerState, 0, arenaChunk))
		}
		a.chunks[a.used] = a.chunks[a.used][:0]
		a.used++
	}
	c := &a.chunks[a.used-1]
	*c = append(*c, s)
	return &(*c)[len(*c)-1]
}

// reset makes room for the next search, reusing the chunks.
func (a *stateArena) reset() { a.used = 0 }

func (s registerState) hash() uint64 { return uint64(s.counter)*0x9e3779b97f4a7c15 ^ s.maxToken }

// registerStep is the register's step under mode: whether op, with its
// answer, is what the register does in state s, and the state after it.
func registerStep(mode impl.FenceMode, s registerState, op *registerOp) (bool, registerState) {
	in, out := op.in, op.out
	next, accept := fence(mode, s, in)
	if mode == impl.FenceSequencer {
		accept = out.accepted
	}
	if out.accepted != accept {
		return false, s
	}
	if !accept {
		// A rejected operation changes nothing, not even the highest
		// token seen.
		return true, s
	}
	switch in.kind {
	case impl.OpRead:
		if out.value != s.counter {
			return false, s
		}
	case impl.OpWrite:
		next.counter = in.value
	}
	return true, next
}

// registerDescriptions is the register model's words for people.
func registerDescriptions(mode impl.FenceMode) porcupine.Model {
	return porcupine.Model{
		DescribeOperation: func(input, _ any) string {
			in, out := input.(*registerOp).in, input.(*registerOp).out
			tok := tokenSuffix(in.token)
			var d string
			switch in.kind {
			case impl.OpRead:
				if out.accepted {
					d = fmt.Sprintf("%s read → %d%s", clientName(in.client), out.value, tok)
				} else {
					d = fmt.Sprintf("%s read%s", clientName(in.client), tok)
				}
			default:
				d = fmt.Sprintf("%s write %d%s", clientName(in.client), in.value, tok)
			}
			if !out.accepted {
				d += " ✗ fenced"
			}
			return d
		},
		DescribeState: func(state any) string { return describeRegister(mode, state.(registerState)) },
	}
}

func describeRegister(mode impl.FenceMode, s registerState) string {
	switch mode {
	case impl.FenceNone, impl.FenceSequencer:
		return fmt.Sprintf("counter %d", s.counter)
	case impl.FenceCAS:
		return fmt.Sprintf("counter %d, current token %d", s.counter, s.maxToken)
	case impl.FenceVersion:
		return fmt.Sprintf("counter %d, version %d", s.counter, s.maxToken)
	}
	return fmt.Sprintf("counter %d, highest token %d", s.counter, s.maxToken)
}

// fence is DESIGN.md's table: whether mode accepts in from state s, and the
// state after the check (the highest token seen raised, where the mode
// raises it; the counter is the caller's business).
func fence(mode impl.FenceMode, s registerState, in resourceInput) (registerState, bool) {
	switch mode {
	case impl.FenceNone, impl.FenceSequencer:
		return s, true
	case impl.FenceWrites:
		if in.kind == impl.OpRead {
			return s, true // reads are neither checked nor raise the mark
		}
	case impl.FenceAll:
		// every operation is checked and marks the resource
	case impl.FenceCAS:
		// A read sets the current token; a write must carry it.
		if in.kind == impl.OpRead {
			s.maxToken = in.token
			return s, true
		}
		return s, in.token == s.maxToken
	case impl.FenceVersion:
		// Reads unchecked; the first write's version is remembered.
		switch {
		case in.kind == impl.OpRead:
			return s, true
		case s.maxToken == 0:
			s.maxToken = in.token
			return s, true
		}
		return s, in.token == s.maxToken
	default:
		panic(fmt.Sprintf("linearizability: unknown fencing mode %v", mode))
	}
	if in.token < s.maxToken {
		return s, false
	}
	s.maxToken = in.token
	return s, true
}
