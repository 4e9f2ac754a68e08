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
// sequence picture and Porcupine's page of the critical sections (with the
// faults and lease expiries as annotations).
//
// TODO(renderers): sequence.html (trace.WriteHTML) and sequence.md
// (trace.WriteMermaid) once they land on main.
func (rp *Replay) pictures() []struct {
	name  string
	write func(io.Writer) error
} {
	sections := rp.sections
	return []struct {
		name  string
		write func(io.Writer) error
	}{
		{"porcupine.html", func(w io.Writer) error { return sections.WriteHTML(w, rp.annotations) }},
	}
}
