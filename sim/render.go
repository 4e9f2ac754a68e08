package sim

import (
	"io"

	"github.com/fencelab/fencelab/trace"
)

// writeTimeline renders a run's trace as text: the lanes picture (one lane
// per node, faults ↯ and lease expiries ◷ marked, the violation named),
// then the step table with every state change, for the details.
func writeTimeline(w io.Writer, tr *trace.Trace) error {
	if err := trace.WriteLanes(w, tr); err != nil {
		return err
	}
	if _, err := io.WriteString(w, "\nEvery step and what it changed:\n\n"); err != nil {
		return err
	}
	untitled := *tr
	untitled.Title = ""
	return trace.WriteTable(w, &untitled)
}

// pictures are the files drawn from a run besides its timeline: the
// sequence picture (the renderer of the TLC traces, as a page and as
// Mermaid for Markdown) and Porcupine's page of the critical sections,
// with the faults and lease expiries as annotations.
func (rp *Replay) pictures() []struct {
	name  string
	write func(io.Writer) error
} {
	sections := rp.sections
	return []struct {
		name  string
		write func(io.Writer) error
	}{
		{"sequence.html", func(w io.Writer) error { return trace.WriteHTML(w, rp.Trace) }},
		{"sequence.md", func(w io.Writer) error { return trace.WriteMermaid(w, rp.Trace) }},
		{"porcupine.html", func(w io.Writer) error { return sections.WriteHTML(w, rp.annotations) }},
	}
}
