package linearizability

import (
	"encoding/binary"
	"slices"

	"github.com/anishathalye/porcupine"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/verdict"
)

// A Checker remembers the verdicts of the histories it judged, by their
// canonical form: everything Porcupine's search reads of a history, and
// nothing else. Porcupine reads the times of the operations only to sort
// their calls and returns (makeEntries: by time, a call before a return
// at equal times); after that it walks the sorted entries, stepping the
// model on the operations' inputs and outputs and hashing and comparing
// the model's states. Replacing every time by its rank among the
// history's distinct times keeps every comparison of two times, so the
// sort makes the very same moves and the search that follows is the same
// search, step for step, to the same verdict. The canonical form is
// therefore, operation by operation in the order given (the order the
// sort starts from, and the one the operations are numbered in): the
// ranks of its call and return, and what the model's Step reads of it —
// a section's value read; a resource operation's kind, answer, values
// and, where the mode reads it, token. A client names the lane of an
// operation in a picture and is read by no search; nor is a token in
// modes none and sequencer.
//
// Two runs of different seeds rarely share their times, but often the
// order of their calls and returns and what was read and written: the
// faults that overlap two sections are rare, and a run without overlaps
// records the same order as every other run with as many sections. And a
// batch runs each seed once per design, rows that behave alike recording
// the same history. Such a history is judged by Porcupine once, and its
// verdict reused; a history whose form differs in anything the search
// reads is a different key, judged afresh (TestMemoKeepsHistoriesApart).
// The memory is bounded (MemoHistories forms of at most MemoBytes in
// all, per model kind; the oldest go first), the full form is stored and
// compared, not only its hash, so a collision of hashes cannot return a
// wrong verdict, and a verdict is remembered only when the search
// finished (Ok or Illegal: another search might finish where one timed
// out).

// MemoHistories and MemoBytes bound what a Checker remembers for each of
// its two kinds of check (the sections, the registers of every mode):
// that many canonical forms, of at most that many bytes in all (a form
// takes a few bytes an operation; a default run's about 100 for its
// sections and 400 for its operations).
const (
	MemoHistories = 4096
	MemoBytes     = 1 << 20
)

// memo is one kind of check's remembered verdicts: the canonical forms in
// a map (Go's map hashes a key and compares it whole), and the same keys
// in the order they came in, so that the oldest goes first when the
// memory is full.
type memo struct {
	histories, bytes int // the bounds; histories 0: remember nothing
	verdicts         map[string]verdict.Verdict
	order            []string // a ring of the keys, oldest at head
	head, size       int      // how many bytes the keys take
	key              []byte   // the form of the history being judged
	times            []int64  // scratch: the history's distinct times, sorted
	// Lookups counts the histories looked up; Hits those found.
	Lookups, Hits int
}

func newMemo(histories, bytes int) memo {
	return memo{histories: histories, bytes: bytes, verdicts: map[string]verdict.Verdict{}}
}

// lookup is the remembered verdict on the history whose form is in m.key.
func (m *memo) lookup() (verdict.Verdict, bool) {
	if m.histories == 0 {
		return verdict.Verdict{}, false
	}
	m.Lookups++
	v, ok := m.verdicts[string(m.key)] // no allocation: the compiler looks up the bytes
	if ok {
		m.Hits++
	}
	return v, ok
}

// keep remembers v as the verdict on the history whose form is in m.key,
// unless v is Unknown; the oldest forms go first to make room.
func (m *memo) keep(v verdict.Verdict) {
	if m.histories == 0 || v.Status == verdict.Unknown || len(m.key) > m.bytes {
		return
	}
	for len(m.verdicts) > 0 && (len(m.verdicts) >= m.histories || m.size+len(m.key) > m.bytes) {
		old := m.order[m.head]
		m.order[m.head] = ""
		m.head = (m.head + 1) % len(m.order)
		delete(m.verdicts, old)
		m.size -= len(old)
	}
	if _, ok := m.verdicts[string(m.key)]; ok {
		return // kept before (keep without a lookup first): kept once
	}
	if m.order == nil {
		m.order = make([]string, m.histories)
	}
	k := string(m.key)
	m.order[(m.head+len(m.verdicts))%len(m.order)] = k
	m.verdicts[k] = v
	m.size += len(k)
}

// Form kinds, the first byte of a canonical form.
const (
	formSections byte = iota + 1
	formRegister
)

// ranks starts the form of ops: the kind (and for a register its mode),
// the number of operations, and in m.times the distinct times of their
// calls and returns, sorted, whose indexes rank rank reads.
func (m *memo) ranks(kind byte, mode impl.FenceMode, ops []porcupine.Operation) {
	m.key = append(m.key[:0], kind, byte(mode))
	m.key = binary.AppendUvarint(m.key, uint64(len(ops)))
	m.times = m.times[:0]
	for i := range ops {
		m.times = append(m.times, ops[i].Call, ops[i].Return)
	}
	slices.Sort(m.times)
	m.times = slices.Compact(m.times)
}

// interval appends the ranks of op's call and return.
func (m *memo) interval(op *porcupine.Operation) {
	call, _ := slices.BinarySearch(m.times, op.Call)
	ret, _ := slices.BinarySearch(m.times, op.Return)
	m.key = binary.AppendUvarint(m.key, uint64(call))
	m.key = binary.AppendUvarint(m.key, uint64(ret))
}

// sectionsForm puts the canonical form of the counter's operations ops
// (buffers.sections') in m.key: the intervals' ranks and the values read,
// all sectionsModel's Step reads.
func (m *memo) sectionsForm(ops []porcupine.Operation) {
	m.ranks(formSections, 0, ops)
	for i := range ops {
		m.interval(&ops[i])
		m.key = binary.AppendVarint(m.key, ops[i].Output.(*sectionOp).read)
	}
}

// registerForm puts the canonical form of the register's operations ops
// (buffers.register') under mode in m.key: the intervals' ranks and all
// registerStep reads — the kind, the values written and read, the answer
// and, but in the modes that never look at it, the token.
func (m *memo) registerForm(mode impl.FenceMode, ops []porcupine.Operation) {
	m.ranks(formRegister, mode, ops)
	tokens := readsTokens(mode)
	for i := range ops {
		m.interval(&ops[i])
		op := ops[i].Input.(*registerOp)
		m.key = append(m.key, byte(op.in.kind), boolByte(op.out.accepted))
		if tokens {
			m.key = binary.AppendUvarint(m.key, op.in.token)
		}
		m.key = binary.AppendVarint(m.key, op.in.value)
		m.key = binary.AppendVarint(m.key, op.out.value)
	}
}

// readsTokens reports whether the register of mode reads an operation's
// token (fence): every mode but none and sequencer.
func readsTokens(mode impl.FenceMode) bool {
	return mode != impl.FenceNone && mode != impl.FenceSequencer
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}
