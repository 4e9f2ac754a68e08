package sim

import (
	"time"

	"github.com/fencelab/fencelab/linearizability"
)

// Check judges the history of the runner's last run with Porcupine, each
// model within timeout (0: linearizability.DefaultTimeout): the critical
// sections against an atomic counter (a lost update violates
// linearizability.SectionsLinearizable) and the resource's operations
// against the fenced register of the design's mode
// (linearizability.RegisterLinearizable). Every run is checked, faults or
// not.
func (r *Runner) Check(res *Result, timeout time.Duration) {
	h := &r.hist.h
	res.Sections = r.checker.Sections(h.Sections, timeout)
	res.Register = r.checker.Resource(h.Ops, r.cfg.Design.Mode(), timeout)
}

// checkHistory is Check keeping the results, for drawing.
func (r *Runner) checkHistory(timeout time.Duration) (sections, register linearizability.Result) {
	h := &r.hist.h
	return linearizability.CheckSections(h.Sections, timeout), linearizability.CheckResource(h.Ops, r.cfg.Design.Mode(), timeout)
}
