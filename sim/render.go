package sim

import (
	"io"

	"github.com/fencelab/fencelab/trace"
)

// writeTimeline renders a run's trace as text.
//
// TODO(renderers): use trace.WriteLanes (one lane per node) once it lands
// on main; until then the step table tells the same steps.
func writeTimeline(w io.Writer, tr *trace.Trace) error {
	return trace.WriteTable(w, tr)
}

// pictures are the files drawn from a run besides its timeline: the
// sequence picture and Porcupine's page.
//
// TODO(renderers, linearizability): sequence.html (trace.WriteHTML),
// sequence.md (trace.WriteMermaid) and porcupine.html
// (linearizability.Result.WriteHTML) once they land on main.
func (rp *Replay) pictures() []struct {
	name  string
	write func(io.Writer) error
} {
	return nil
}
