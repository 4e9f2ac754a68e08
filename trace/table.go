package trace

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteTable renders t as a step table for a terminal: one row per change,
// the step's number, time (when timed), process and action on its first
// row, the step's notes after its changes, and the violation at the end.
func WriteTable(w io.Writer, t *Trace) error {
	ew := &errWriter{w: w}
	if t.Title != "" {
		ew.printf("%s\n\n", t.Title)
	}
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	header := []string{"step", "process", "action", "changes"}
	if t.Timed {
		header = []string{"step", "time", "process", "action", "changes"}
	}
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	notes := notesByStep(t.Notes)
	for _, s := range t.Steps {
		actor := s.Actor
		if actor == "" {
			actor = "—"
		}
		lead := []string{fmt.Sprint(s.Number), actor, s.Action}
		if t.Timed {
			lead = []string{fmt.Sprint(s.Number), FormatTime(s.At), actor, s.Action}
		}
		blank := make([]string, len(lead))
		lines := make([]string, 0, len(s.Changes)+len(notes[s.Number]))
		for _, c := range s.Changes {
			lines = append(lines, FormatChange(c))
		}
		for _, n := range notes[s.Number] {
			lines = append(lines, fmt.Sprintf("%s %s: %s", noteMark(n.Kind), n.Lane, n.Text))
		}
		if len(lines) == 0 {
			lines = append(lines, "(no variable changed)")
		}
		for i, line := range lines {
			cells := blank
			if i == 0 {
				cells = lead
			}
			fmt.Fprintf(tw, "%s\t%s\n", strings.Join(cells, "\t"), line)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if v := t.Violation; v != nil {
		ew.printf("\n%s\n", ViolationLine(v))
	}
	return ew.err
}

// ViolationLine is the one-line statement of a violation used by every
// renderer: the property, the step and who was involved.
func ViolationLine(v *Violation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "✗ %s violated at step %d", v.Property, v.Step)
	if v.Explanation != "" {
		fmt.Fprintf(&b, ": %s", v.Explanation)
	} else if len(v.Involved) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(v.Involved, ", "))
	}
	return b.String()
}

// FormatChange prints a change as "path: old → new", or "path = new" when
// the variable is new (the initial state).
func FormatChange(c Change) string {
	if c.Old == "" {
		return fmt.Sprintf("%s = %s", c.Path, c.New)
	}
	return fmt.Sprintf("%s: %s → %s", c.Path, c.Old, c.New)
}

// FormatTime prints a virtual time with millisecond precision, the
// resolution at which the simulator's faults are meaningful to a reader.
func FormatTime(d time.Duration) string {
	return fmt.Sprintf("%.3fs", d.Seconds())
}

func noteMark(k NoteKind) string {
	switch k {
	case NoteExpiry:
		return "⏱"
	case NoteRejection:
		return "⊘"
	case NoteFault:
		return "⚡"
	case NoteViolation:
		return "✗"
	default:
		return "•"
	}
}

func notesByStep(notes []Note) map[int][]Note {
	m := make(map[int][]Note)
	for _, n := range notes {
		m[n.Step] = append(m[n.Step], n)
	}
	return m
}

// errWriter keeps the first write error so renderers can write freely and
// report it once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, args ...any) {
	fmt.Fprintf(e, format, args...)
}
