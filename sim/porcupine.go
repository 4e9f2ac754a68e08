package sim

import (
	"time"

	"github.com/fencelab/fencelab/linearizability"
)

// Verdict is a Porcupine verdict on a run's history; "" means not checked.
type Verdict = linearizability.Verdict

const (
	ok      = linearizability.Ok
	illegal = linearizability.Illegal
	unknown = linearizability.Unknown
)

// Check judges the history of the runner's last run with Porcupine, each
// model within timeout (0: linearizability.DefaultTimeout): the critical
// sections against an atomic counter (a lost update is Illegal) and the
// resource's operations against the fenced register of the design's mode.
// Every run is checked, faults or not.
func (r *Runner) Check(res *Result, timeout time.Duration) {
	h := &r.hist.h
	res.Sections = linearizability.CheckSections(h.Sections, timeout).Verdict
	res.Register = linearizability.CheckResource(h.Ops, r.cfg.Design.Mode(), timeout).Verdict
}

// checkHistory is Check keeping the results, for drawing.
func (r *Runner) checkHistory(timeout time.Duration) (sections, register linearizability.Result) {
	h := &r.hist.h
	return linearizability.CheckSections(h.Sections, timeout), linearizability.CheckResource(h.Ops, r.cfg.Design.Mode(), timeout)
}
