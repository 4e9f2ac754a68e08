package conform

import (
	"fmt"
	"strings"

	"github.com/fencelab/fencelab/distlockspec"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/trace"
	"github.com/fencelab/fencelab/trace/steptrace"
)

// Rejected is the property a rejection trace reports.
const Rejected = "Conformance"

// Render tells a rejected trace like a counterexample: the Go run from its
// initial state to its first step no spec step can match (line matched;
// 0: the initial state itself), with the spec's state before that step
// and what Go's step did to it as the violation.
func Render(t *Trace, matched int) (*trace.Trace, error) {
	w, err := impl.NewWorld(t.Config)
	if err != nil {
		return nil, err
	}
	spec := distlockspec.Spec(t.Config.Design)
	title := fmt.Sprintf("%s rejected by %s.tla — %s", t.Name, spec, t.Source)
	rec := steptrace.New(title, trace.SourceExplorer, w.Sys, false)
	last := min(matched, len(t.Path))
	for _, i := range t.Path[:last] {
		a, out := w.Apply(i)
		rec.Step(a.Node, a.Input, 0, w.Sys, out)
	}
	b := &impl.Breach{}
	switch {
	case t.Unmapped != nil:
		b.Explanation = fmt.Sprintf("the Go state after step %d has no %s state: %v", last, spec, t.Unmapped)
	case matched == 0:
		b.Explanation = fmt.Sprintf("the initial Go state is not %s's Init", spec)
	case matched > len(t.Path) || matched >= len(t.Lines):
		return nil, fmt.Errorf("trace %s: line %d is past its end (%d steps)", t.Name, matched, len(t.Path))
	default:
		l := t.Lines[matched]
		b.Involved = []impl.NodeID{l.Go.Node}
		b.Explanation = fmt.Sprintf("no %s step matches Go step %d (%s, spec action %s(%s)); the spec's state before it is step %d's, and Go's step changes %s",
			spec, matched, describe(l.Go), l.Action.Label, l.Action.Process, matched, changed(t.Lines[matched-1].State, l.State, t.Config.Design))
	}
	rec.Violate(Rejected, b)
	return rec.Trace(), nil
}

// changed lists the variables that differ between two spec states, with
// their values after.
func changed(before, after distlockspec.State, d impl.Design) string {
	var parts []string
	for _, v := range distlockspec.Vars(d) {
		if before[v] != after[v] {
			parts = append(parts, fmt.Sprintf("%s to %s", v, after[v]))
		}
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, "; ")
}

// RenderDeparture tells a counterexample of TLC's that the Go system
// departs from (a ReplayError) like a counterexample: the Go run of c
// along the steps that matched TLC's, then, as the violation, the step of
// TLC's trace no Go step matches and why. name names the model.
func RenderDeparture(c impl.Config, name string, e *ReplayError) (*trace.Trace, error) {
	w, err := impl.NewWorld(c)
	if err != nil {
		return nil, err
	}
	title := fmt.Sprintf("%s: the Go system departs from TLC's counterexample — replay", name)
	rec := steptrace.New(title, trace.SourceExplorer, w.Sys, false)
	for k, i := range e.Path {
		if i < 0 || i >= w.Actions() {
			return nil, fmt.Errorf("%s: step %d: action %d of %d: the path is not a run of this configuration", name, k+1, i, w.Actions())
		}
		a, out := w.Apply(i)
		rec.Step(a.Node, a.Input, 0, w.Sys, out)
	}
	// The departure comes after the trace's last step: TLC's action
	// e.Step (its state e.Step+1) has no Go match.
	rec.Violate(Rejected, &impl.Breach{Explanation: fmt.Sprintf("TLC's counterexample departs from the Go system after this step, at its %v", e)})
	return rec.Trace(), nil
}
