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
// The HTML page shows the same rows (tableRows) as an HTML table.
func WriteTable(w io.Writer, t *Trace) error {
	t = printable(t)
	ew := &errWriter{w: w}
	if t.Title != "" {
		ew.printf("%s\n\n", t.Title)
	}
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(tableHeader(t), "\t"))
	for _, r := range tableRows(t) {
		lead := []string{fmt.Sprint(r.Number), r.Actor, r.Action}
		if t.Timed {
			lead = []string{fmt.Sprint(r.Number), r.Time, r.Actor, r.Action}
		}
		blank := make([]string, len(lead))
		lines := append([]string(nil), r.Changes...)
		for _, n := range r.Notes {
			lines = append(lines, noteMark(n.Kind)+" "+n.Text)
		}
		if u := r.Unchanged(); u != "" {
			lines = append(lines, u)
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

// tableRow is one step of the step table: the one source of which cells
// exist, rendered by WriteTable for a terminal and by the HTML page.
type tableRow struct {
	Number   int
	Time     string // empty unless the trace is timed
	Actor    string // "—" for a step no process takes
	Action   string
	Changes  []string // FormatChange of each change
	Notes    []tableNote
	Violated bool // the violation is at this step
}

// tableNote is a note in the changes column: its kind (whose mark the
// renderer draws) and "lane: text".
type tableNote struct {
	Kind NoteKind
	Text string
}

// Symbol is the id of the note's mark in the HTML page.
func (n tableNote) Symbol() string { return noteClass(n.Kind) }

// Unchanged is what the changes column says when a step changed nothing
// and has no notes; empty otherwise.
func (r tableRow) Unchanged() string {
	if len(r.Changes) == 0 && len(r.Notes) == 0 {
		return "(no variable changed)"
	}
	return ""
}

// tableHeader is the step table's column names.
func tableHeader(t *Trace) []string {
	if t.Timed {
		return []string{"step", "time", "process", "action", "changes"}
	}
	return []string{"step", "process", "action", "changes"}
}

// tableRows is the step table's rows, one per step.
func tableRows(t *Trace) []tableRow {
	notes := notesByStep(t.Notes)
	rows := make([]tableRow, 0, len(t.Steps))
	for _, s := range t.Steps {
		r := tableRow{Number: s.Number, Actor: s.Actor, Action: s.Action}
		if r.Actor == "" {
			r.Actor = "—"
		}
		if t.Timed {
			r.Time = FormatTime(s.At)
		}
		for _, c := range s.Changes {
			r.Changes = append(r.Changes, FormatChange(c))
		}
		for _, n := range notes[s.Number] {
			r.Notes = append(r.Notes, tableNote{Kind: n.Kind, Text: n.Lane + ": " + n.Text})
		}
		r.Violated = t.Violation != nil && t.Violation.Step == s.Number
		rows = append(rows, r)
	}
	return rows
}

// noteClass maps a note's kind to its CSS class and the id of its mark's
// symbol in the HTML page; a kind the renderer does not know is drawn as
// info.
func noteClass(k NoteKind) string {
	switch k {
	case NoteExpiry, NoteRejection, NoteFault, NoteViolation:
		return string(k)
	}
	return string(NoteInfo)
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

// noteMark is a note's mark in text renderings. The marks are text
// symbols that common monospace fonts (DejaVu, Liberation) carry, not
// emoji: an emoji (⏱, ⚡) shows as an empty box on a machine without an
// emoji font, and as a double-width cell that breaks the lane picture's
// columns in many terminals.
func noteMark(k NoteKind) string {
	switch k {
	case NoteExpiry:
		return "◷"
	case NoteRejection:
		return "⊘"
	case NoteFault:
		return "↯"
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
