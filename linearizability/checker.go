package linearizability

import (
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/verdict"
)

// Checker runs CheckSections and CheckResource on history after history,
// as the simulator does after every run, for their verdicts alone (no
// picture): the same Porcupine search of the same operations, without the
// one-shot checks' allocations. It reuses the operations, the structs they
// point to and the models from check to check, and it does not search
// again a history whose canonical form — everything Porcupine's search
// reads of it (memo.go) — it has judged before: each distinct history is
// judged by Porcupine once.
//
// A Checker is for one goroutine at a time.
type Checker struct {
	buf *buffers
	// sections is the counter model; registers the register model of each
	// mode, made when first needed, with its states in buf.
	sections  porcupine.Model
	registers map[impl.FenceMode]porcupine.Model

	sectionsMemo, registerMemo memo
}

// NewChecker returns a Checker that remembers up to MemoHistories
// verdicts of each kind of check.
func NewChecker() *Checker { return NewCheckerMemo(MemoHistories) }

// NewCheckerMemo returns a Checker that remembers up to histories
// verdicts of each kind of check, within MemoBytes; 0 remembers none, so
// that Porcupine judges every history (to show that the memory changes no
// verdict, and to measure what it saves).
func NewCheckerMemo(histories int) *Checker {
	return &Checker{
		buf: &buffers{}, sections: sectionsModel(), registers: map[impl.FenceMode]porcupine.Model{},
		sectionsMemo: newMemo(max(histories, 0), MemoBytes), registerMemo: newMemo(max(histories, 0), MemoBytes),
	}
}

// MemoStats is how many histories a Checker looked up in its memory and
// found there, per kind of check.
type MemoStats struct {
	SectionsLookups, SectionsHits int
	RegisterLookups, RegisterHits int
}

// Add adds o's counts to s's.
func (s *MemoStats) Add(o MemoStats) {
	s.SectionsLookups += o.SectionsLookups
	s.SectionsHits += o.SectionsHits
	s.RegisterLookups += o.RegisterLookups
	s.RegisterHits += o.RegisterHits
}

// MemoStats is what the Checker's memory has saved so far.
func (c *Checker) MemoStats() MemoStats {
	return MemoStats{
		SectionsLookups: c.sectionsMemo.Lookups, SectionsHits: c.sectionsMemo.Hits,
		RegisterLookups: c.registerMemo.Lookups, RegisterHits: c.registerMemo.Hits,
	}
}

// Sections is CheckSections(sections, timeout).Verdict.
func (c *Checker) Sections(sections []Section, timeout time.Duration) verdict.Verdict {
	ops, _ := c.buf.sections(sections, false)
	m := &c.sectionsMemo
	m.sectionsForm(ops)
	if v, ok := m.lookup(); ok {
		return v
	}
	v := c.check(SectionsLinearizable, c.sections, ops, timeout)
	m.keep(v)
	return v
}

// Resource is CheckResource(ops, mode, timeout).Verdict.
func (c *Checker) Resource(ops []ResourceOp, mode impl.FenceMode, timeout time.Duration) verdict.Verdict {
	mustBeMode(mode)
	pops := c.buf.register(ops)
	m := &c.registerMemo
	m.registerForm(mode, pops)
	if v, ok := m.lookup(); ok {
		return v
	}
	model, ok := c.registers[mode]
	if !ok {
		model = registerModelIn(mode, &c.buf.states)
		c.registers[mode] = model
	}
	c.buf.states.reset()
	v := c.check(RegisterLinearizable, model, pops, timeout)
	m.keep(v)
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
