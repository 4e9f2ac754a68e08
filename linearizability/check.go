package linearizability

import (
	"fmt"
	"slices"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/verdict"
)

// The properties the two checks decide, by name: a history is linearizable
// against its model (verdict.Holds, Porcupine's "ok"), or not
// (verdict.Violated, "illegal"), or the search did not finish within its
// timeout (verdict.Unknown, "unknown"): the history may be linearizable or
// not, and it must be counted as unknown, never as ok.
const (
	// SectionsLinearizable: the critical sections against an atomic
	// counter (CheckSections).
	SectionsLinearizable = "SectionsLinearizable"
	// RegisterLinearizable: the resource's operations against the fenced
	// register of the design's mode (CheckResource).
	RegisterLinearizable = "RegisterLinearizable"
)

// Word is Porcupine's word for a check's status: ok, illegal or unknown
// ("" for a history not checked).
func Word(s verdict.Status) string {
	switch s {
	case verdict.Holds:
		return "ok"
	case verdict.Violated:
		return "illegal"
	case verdict.Unknown:
		return "unknown"
	}
	return ""
}

// DefaultTimeout replaces a zero or negative timeout. Porcupine reads 0 as
// "no limit", which could hang a simulation on one hard history; a caller
// that passes no usable timeout made a mistake, and the cheapest safe
// reading of it is a bound generous enough for any history the simulator
// records (they check in microseconds) yet short enough to notice.
const DefaultTimeout = 10 * time.Second

// Result is the outcome of one check; it keeps what WriteHTML needs to draw
// the history again.
type Result struct {
	Verdict verdict.Verdict

	model   porcupine.Model
	ops     []porcupine.Operation
	timeout time.Duration
	// notes are drawn but were not checked: the aborted sections, which
	// had no effect and so are not operations of the counter.
	notes []porcupine.Annotation
}

// CheckSections checks the critical sections against an atomic counter:
// each committed section is one atomic increment that returned the value it
// read, between its Call and Return. Two committed sections that read the
// same value — a lost update — make the history Illegal, and so does a
// section that read a value no order of the others can produce.
//
// Aborted sections are left out of the check: they changed nothing, and as
// no-op operations they would constrain nothing either (a no-op fits
// anywhere), only widen the search. They still appear in WriteHTML's
// picture, greyed, because a reader wants to see the section that was
// fenced off.
//
// A timeout <= 0 means DefaultTimeout. The check runs in one goroutine.
// It panics if a section has Client < 0 or Return < Call.
func CheckSections(sections []Section, timeout time.Duration) Result {
	var b buffers
	ops, notes := b.sections(sections, true)
	return check(SectionsLinearizable, sectionsModel(), ops, timeout, notes)
}

// CheckResource checks the resource's operations against a register that
// applies mode's fencing rule (DESIGN.md's table): every accept or reject
// decision and every value read must be the one the rule dictates in some
// order of the operations that respects their Call and Return. Rejected
// operations are checked like any other — rejecting a fresh operation is as
// wrong as accepting a stale one — and change nothing.
//
// A timeout <= 0 means DefaultTimeout. The check runs in one goroutine.
// It panics on an unknown mode or operation kind, or an operation with
// Client < 0 or Return < Call.
func CheckResource(ops []ResourceOp, mode impl.FenceMode, timeout time.Duration) Result {
	mustBeMode(mode)
	var b buffers
	return check(RegisterLinearizable, registerModel(mode), b.register(ops), timeout, nil)
}

func mustBeMode(mode impl.FenceMode) {
	switch mode {
	case impl.FenceNone, impl.FenceWrites, impl.FenceAll, impl.FenceCAS, impl.FenceVersion, impl.FenceSequencer:
	default:
		panic(fmt.Sprintf("linearizability: unknown fencing mode %v", mode))
	}
}

// buffers hold a history as Porcupine's operations: the operations and the
// structs their Input and Output point to. The one-shot checks use fresh
// ones (their Result keeps the operations for drawing); a Checker reuses
// its own.
type buffers struct {
	sectionOps  []sectionOp
	registerOps []registerOp
	ops         []porcupine.Operation
	states      stateArena // a Checker's register searches' states
}

// sections turns the committed sections into operations of the counter;
// with notes, it also returns the aborted ones as annotations for the
// picture. It panics on a malformed section.
func (b *buffers) sections(sections []Section, notes bool) ([]porcupine.Operation, []porcupine.Annotation) {
	var aborted []porcupine.Annotation
	b.sectionOps = b.sectionOps[:0]
	for i, s := range sections {
		mustBeWellFormed("section", i, s.Client, s.Call, s.Return)
		if !s.Committed {
			if notes {
				aborted = append(aborted, abortedNote(s))
			}
			continue
		}
		b.sectionOps = append(b.sectionOps, sectionOp{client: s.Client, token: s.Token, read: s.Read})
	}
	// The structs are all in place before the operations point into them.
	b.ops = b.ops[:0]
	k := 0
	for _, s := range sections {
		if !s.Committed {
			continue
		}
		op := &b.sectionOps[k]
		k++
		b.ops = append(b.ops, porcupine.Operation{ClientId: s.Client, Input: op, Call: s.Call, Output: op, Return: s.Return})
	}
	return b.ops, aborted
}

// register turns the resource's operations into operations of the
// register. It panics on an unknown operation kind or a malformed
// operation.
func (b *buffers) register(ops []ResourceOp) []porcupine.Operation {
	b.registerOps = slices.Grow(b.registerOps[:0], len(ops))[:len(ops)]
	b.ops = slices.Grow(b.ops[:0], len(ops))[:len(ops)]
	for i, op := range ops {
		mustBeWellFormed("resource operation", i, op.Client, op.Call, op.Return)
		r := &b.registerOps[i]
		*r = registerOp{in: resourceInput{client: op.Client, kind: op.Kind, token: op.Token}, out: resourceOutput{accepted: op.Accepted}}
		switch op.Kind {
		case impl.OpRead:
			if op.Accepted {
				r.out.value = op.Value
			}
		case impl.OpWrite:
			r.in.value = op.Value
		default:
			panic(fmt.Sprintf("linearizability: resource operation %d has unknown kind %v", i, op.Kind))
		}
		b.ops[i] = porcupine.Operation{ClientId: op.Client, Input: r, Call: op.Call, Output: r, Return: op.Return}
	}
	return b.ops
}

func check(property string, model porcupine.Model, ops []porcupine.Operation, timeout time.Duration, notes []porcupine.Annotation) Result {
	timeout = effectiveTimeout(timeout)
	// The plain check, not the verbose one: it stops at the first sign of
	// illegality, and most runs never need a picture. WriteHTML searches
	// again, with the linearization data, when asked.
	res := porcupine.CheckOperationsTimeout(model, ops, timeout)
	v := verdict.Verdict{Property: property, Status: verdictOf(res), Covered: fmt.Sprintf("%d operations", len(ops))}
	if v.Status == verdict.Unknown {
		v.Detail = fmt.Sprintf("Porcupine timed out after %v", timeout)
	}
	return Result{Verdict: v, model: model, ops: ops, timeout: timeout, notes: notes}
}

func effectiveTimeout(d time.Duration) time.Duration {
	if d <= 0 {
		return DefaultTimeout
	}
	return d
}

// verdictOf maps Porcupine's result. Anything it does not recognise is
// Unknown: only a finished search may say ok.
func verdictOf(r porcupine.CheckResult) verdict.Status {
	switch r {
	case porcupine.Ok:
		return verdict.Holds
	case porcupine.Illegal:
		return verdict.Violated
	}
	return verdict.Unknown
}

// mustBeWellFormed panics on what Porcupine would silently misread: a
// return before the call breaks its pairing of calls and returns, and a
// negative client has no lane in the picture.
func mustBeWellFormed(what string, i, client int, call, ret int64) {
	if client < 0 {
		panic(fmt.Sprintf("linearizability: %s %d has client %d < 0", what, i, client))
	}
	if ret < call {
		panic(fmt.Sprintf("linearizability: %s %d of %s returns at %d, before its call at %d", what, i, clientName(client), ret, call))
	}
}
