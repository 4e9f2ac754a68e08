package linearizability

import (
	"slices"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/verdict"
)

// Checker runs CheckSections and CheckResource on history after history,
// as the simulator does after every run, for their verdicts alone (no
// picture): the same Porcupine search of the same operations, without the
// one-shot checks' allocations. It reuses the operations, the structs they
// point to and the models from check to check, and it does not search a
// history again when it equals, in everything Porcupine's search reads,
// the one it judged last with the same model: a batch runs one seed's
// schedule once per design, and designs that behave alike on it record the
// same sections, and the same operations where their modes agree.
//
// A Checker is for one goroutine at a time.
type Checker struct {
	buf *buffers
	// sections is the counter model; registers the register model of each
	// mode, made when first needed, with its states in buf.
	sections  porcupine.Model
	registers map[impl.FenceMode]porcupine.Model

	lastSections memo[sectionKey]
	lastRegister memo[registerKey]
}

// memo is the last history a Checker judged with one model, as keys of
// what Porcupine's search reads of each operation, and the verdict: Ok or
// Illegal, never Unknown (another search might finish). next is the
// history being judged.
type memo[K comparable] struct {
	last, next []K
	model      impl.FenceMode // the register's mode; 0 for the counter
	verdict    verdict.Verdict
	have       bool
}

// judged is the verdict on next if it is the history judged last with
// model.
func (m *memo[K]) judged(model impl.FenceMode) (verdict.Verdict, bool) {
	if m.have && m.model == model && slices.Equal(m.next, m.last) {
		return m.verdict, true
	}
	return verdict.Verdict{}, false
}

// keep remembers v as the verdict on next.
func (m *memo[K]) keep(model impl.FenceMode, v verdict.Verdict) {
	m.have = v.Status != verdict.Unknown
	if m.have {
		m.last, m.next = m.next, m.last
		m.model, m.verdict = model, v
	}
}

// sectionKey is all that Porcupine's search reads of a committed section:
// its interval and, through sectionsModel's Step, the value it read. The
// client and the token only describe it.
type sectionKey struct {
	call, ret, read int64
}

// registerKey is all that Porcupine's search reads of a resource
// operation: its interval and what registerStep reads (the client only
// describes it, and modes none and sequencer never read the token).
type registerKey struct {
	call, ret int64
	op        registerOp
}

// NewChecker returns a Checker.
func NewChecker() *Checker {
	return &Checker{buf: &buffers{}, sections: sectionsModel(), registers: map[impl.FenceMode]porcupine.Model{}}
}

// Sections is CheckSections(sections, timeout).Verdict.
func (c *Checker) Sections(sections []Section, timeout time.Duration) verdict.Verdict {
	ops, _ := c.buf.sections(sections, false)
	m := &c.lastSections
	m.next = m.next[:0]
	for i := range ops {
		m.next = append(m.next, sectionKey{call: ops[i].Call, ret: ops[i].Return, read: ops[i].Output.(*sectionOp).read})
	}
	if v, ok := m.judged(0); ok {
		return v
	}
	v := c.check(SectionsLinearizable, c.sections, ops, timeout)
	m.keep(0, v)
	return v
}

// Resource is CheckResource(ops, mode, timeout).Verdict.
func (c *Checker) Resource(ops []ResourceOp, mode impl.FenceMode, timeout time.Duration) verdict.Verdict {
	mustBeMode(mode)
	pops := c.buf.register(ops)
	m := &c.lastRegister
	m.next = m.next[:0]
	for i := range pops {
		op := *pops[i].Input.(*registerOp)
		op.in.client = 0
		if mode == impl.FenceNone || mode == impl.FenceSequencer {
			op.in.token = 0
		}
		m.next = append(m.next, registerKey{call: pops[i].Call, ret: pops[i].Return, op: op})
	}
	if v, ok := m.judged(mode); ok {
		return v
	}
	model, ok := c.registers[mode]
	if !ok {
		model = registerModelIn(mode, &c.buf.states)
		c.registers[mode] = model
	}
	c.buf.states.reset()
	v := c.check(RegisterLinearizable, model, pops, timeout)
	m.keep(mode, v)
	return v
}

func (c *Checker) check(property string, model porcupine.Model, ops []porcupine.Operation, timeout time.Duration) verdict.Verdict {
	v := check(property, model, ops, timeout, nil).Verdict
	if v.Status == verdict.Unknown {
		// Porcupine returns on a timeout without waiting for its search's
		// goroutine, which may still read the operations and step the
		// model for a moment: they are left to it, with the models whose
		// states it keeps, and the next check builds new ones.
		c.buf = &buffers{}
		clear(c.registers)
	}
	return v
}
