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
// history of sections again when it equals, in everything Porcupine's
// search reads, the one it judged last: a batch runs one seed's schedule
// once per design, and designs that behave alike on it record the same
// sections.
//
// A Checker is for one goroutine at a time.
type Checker struct {
	buf *buffers
	// sections is the counter model; registers the register model of each
	// mode, made when first needed, with its states in buf.
	sections  porcupine.Model
	registers map[impl.FenceMode]porcupine.Model

	// The last history of sections judged Ok or Illegal (never Unknown:
	// another search might finish) and its verdict; next is the one being
	// judged.
	last, next  []sectionKey
	lastVerdict verdict.Verdict
	haveLast    bool
}

// sectionKey is all that Porcupine's search reads of a committed section:
// its interval and, through sectionsModel's Step, the value it read. The
// client and the token only describe it.
type sectionKey struct {
	call, ret, read int64
}

// NewChecker returns a Checker.
func NewChecker() *Checker {
	return &Checker{buf: &buffers{}, sections: sectionsModel(), registers: map[impl.FenceMode]porcupine.Model{}}
}

// Sections is CheckSections(sections, timeout).Verdict.
func (c *Checker) Sections(sections []Section, timeout time.Duration) verdict.Verdict {
	ops, _ := c.buf.sections(sections, false)
	c.next = c.next[:0]
	for i := range ops {
		c.next = append(c.next, sectionKey{call: ops[i].Call, ret: ops[i].Return, read: ops[i].Output.(*sectionOp).read})
	}
	if c.haveLast && slices.Equal(c.next, c.last) {
		return c.lastVerdict
	}
	v := c.check(SectionsLinearizable, c.sections, ops, timeout)
	c.haveLast = v.Status != verdict.Unknown
	if c.haveLast {
		c.last, c.next = c.next, c.last
		c.lastVerdict = v
	}
	return v
}

// Resource is CheckResource(ops, mode, timeout).Verdict.
func (c *Checker) Resource(ops []ResourceOp, mode impl.FenceMode, timeout time.Duration) verdict.Verdict {
	mustBeMode(mode)
	model, ok := c.registers[mode]
	if !ok {
		model = registerModelIn(mode, &c.buf.states)
		c.registers[mode] = model
	}
	c.buf.states.reset()
	return c.check(RegisterLinearizable, model, c.buf.register(ops), timeout)
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
