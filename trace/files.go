package trace

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/fencelab/fencelab/internal/atomicfile"
	"github.com/fencelab/fencelab/internal/quote"
)

// The files of a counterexample, named the same whichever runtime found
// it. WriteFiles writes them in this order.
const (
	TextFile    = "trace.txt"  // WriteText: the step table, then the lane picture
	JSONFile    = "trace.json" // WriteJSON: the Trace itself
	HTMLFile    = "trace.html" // WriteHTML: the sequence picture and the step table
	MermaidFile = "trace.mmd"  // WriteMermaid: a sequenceDiagram for Markdown
)

// FileNames is the names of a trace's files, in the order WriteFiles
// writes them.
func FileNames() []string { return []string{TextFile, JSONFile, HTMLFile, MermaidFile} }

// File is a runtime's own file written beside a trace's (the simulator's
// Porcupine page and fault schedule, TLC's output): its name in the
// folder and what writes it.
type File struct {
	Name  string
	Write func(io.Writer) error
}

// WriteFiles writes t into dir, created with its first file (see
// WriteFilesTo).
func WriteFiles(dir string, t *Trace, extras ...File) ([]string, error) {
	return WriteFilesTo(atomicfile.NewFolder(dir), t, extras...)
}

// WriteFilesTo writes t into the folder dir as TextFile, JSONFile,
// HTMLFile and MermaidFile, then each of extras. Each file is written
// whole or not at all, and the folder appears with its first complete
// file (atomicfile). It returns the names of the files written, in order,
// also when it stops at an error.
func WriteFilesTo(dir *atomicfile.Folder, t *Trace, extras ...File) ([]string, error) {
	render := map[string]func(io.Writer, *Trace) error{
		TextFile: WriteText, JSONFile: WriteJSON, HTMLFile: WriteHTML, MermaidFile: WriteMermaid,
	}
	var files []File
	for _, name := range FileNames() {
		files = append(files, File{name, func(w io.Writer) error { return render[name](w, t) }})
	}
	files = append(files, extras...)
	for _, f := range files {
		if err := dir.WriteFile(f.Name, f.Write); err != nil {
			return dir.Written(), err
		}
	}
	return dir.Written(), nil
}

// WriteText renders t as text for a terminal or a file: the step table
// (with the title), a blank line, then the lane picture.
func WriteText(w io.Writer, t *Trace) error {
	if err := WriteTable(w, t); err != nil {
		return err
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return err
	}
	untitled := *t
	untitled.Title = ""
	return WriteLanes(w, &untitled)
}

// WriteJSON writes t as indented JSON, the form every runtime's trace
// reads back from.
func WriteJSON(w io.Writer, t *Trace) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(t)
}

// ReadJSON reads a trace WriteJSON wrote (a trace.json) and checks it
// tells one behaviour: at least one step, steps numbered upward, and every
// arrow, note, loop and violation at one of its steps. Unknown fields are
// an error, so that another JSON file is not taken for a trace.
func ReadJSON(r io.Reader) (*Trace, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var t Trace
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("not a trace.json: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("not a trace.json: more than one JSON value")
	}
	if err := t.validate(); err != nil {
		return nil, fmt.Errorf("not a valid trace: %w", err)
	}
	return &t, nil
}

func (t *Trace) validate() error {
	if len(t.Steps) == 0 {
		return fmt.Errorf("it has no steps")
	}
	lanes := make(map[string]bool, len(t.Lanes))
	for _, l := range t.Lanes {
		if l == "" {
			return fmt.Errorf("a lane has no name")
		}
		if lanes[l] {
			return fmt.Errorf("the lane %s is listed twice", quote.Q(l))
		}
		lanes[l] = true
	}
	steps := make(map[int]bool, len(t.Steps))
	for i, s := range t.Steps {
		if s.Number < 1 || (i > 0 && s.Number <= t.Steps[i-1].Number) {
			return fmt.Errorf("step %d: steps are numbered from 1 upward", s.Number)
		}
		steps[s.Number] = true
	}
	last := t.Steps[len(t.Steps)-1].Number
	for _, a := range t.Arrows {
		if !steps[a.Sent] || (a.Received != 0 && (!steps[a.Received] || a.Received < a.Sent)) {
			return fmt.Errorf("the message %s is sent at step %d and received at step %d, not steps of the trace in order", quote.Q(a.Label), a.Sent, a.Received)
		}
	}
	for _, n := range t.Notes {
		if !steps[n.Step] {
			return fmt.Errorf("a note is at step %d, which the trace does not have", n.Step)
		}
	}
	if t.Loop != 0 && (!steps[t.Loop] || t.Loop >= last) {
		return fmt.Errorf("it loops back to step %d, which is not a step before its last", t.Loop)
	}
	if v := t.Violation; v != nil && !steps[v.Step] {
		return fmt.Errorf("its violation is at step %d, which the trace does not have", v.Step)
	}
	known := func(what, lane string) error {
		if !lanes[lane] {
			return fmt.Errorf("%s names the lane %s, which the trace does not list", what, quote.Q(lane))
		}
		return nil
	}
	for _, s := range t.Steps {
		if s.Actor != "" {
			if err := known(fmt.Sprintf("step %d", s.Number), s.Actor); err != nil {
				return err
			}
		}
	}
	for _, a := range t.Arrows {
		for _, l := range []string{a.From, a.To} {
			if err := known(fmt.Sprintf("the message %s", quote.Q(a.Label)), l); err != nil {
				return err
			}
		}
	}
	for _, n := range t.Notes {
		if err := known(fmt.Sprintf("a note at step %d", n.Step), n.Lane); err != nil {
			return err
		}
	}
	for _, n := range t.Notes {
		switch n.Kind {
		case NoteExpiry, NoteRejection, NoteFault, NoteViolation, NoteInfo:
		default:
			return fmt.Errorf("a note at step %d is of kind %s (want expiry, rejection, fault, violation or info)", n.Step, quote.Q(string(n.Kind)))
		}
	}
	if v := t.Violation; v != nil {
		for _, l := range v.Involved {
			if err := known("the violation", l); err != nil {
				return err
			}
		}
	}
	switch t.Source {
	case "", SourceTLC, SourceExplorer, SourceSimulator:
	default:
		return fmt.Errorf("its source is %s (want tlc, explorer or simulator)", quote.Q(string(t.Source)))
	}
	// Virtual time starts at 0 and never runs backwards; an untimed trace
	// has none.
	for i, s := range t.Steps {
		switch {
		case !t.Timed && s.At != 0:
			return fmt.Errorf("step %d has a time (%v) but the trace is not timed", s.Number, s.At)
		case s.At < 0:
			return fmt.Errorf("step %d is at %v, before the run's start", s.Number, s.At)
		case i > 0 && s.At < t.Steps[i-1].At:
			return fmt.Errorf("step %d is at %v, before step %d (%v): time runs forward", s.Number, s.At, t.Steps[i-1].Number, t.Steps[i-1].At)
		}
	}
	return nil
}
