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

// extras are a run's own files beside its trace's: what was run and how
// it ended, the fault schedule, and Porcupine's page of the critical
// sections with the faults and lease expiries as annotations.
func (rp *Replay) extras() []trace.File {
	sections := rp.sections
	return []trace.File{
		{Name: "run.txt", Write: rp.writeRun},
		{Name: "schedule.json", Write: rp.Schedule.WriteJSON},
		{Name: "porcupine.html", Write: func(w io.Writer) error { return sections.WriteHTML(w, rp.annotations) }},
	}
}
