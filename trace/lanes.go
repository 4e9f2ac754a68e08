package trace

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Marks inside the lane grid are single-width characters so columns line
// up in any terminal; the wider note marks appear in the text after it.
const (
	laneBar      = '│'
	laneActor    = '●'
	laneExpiry   = '◷'
	laneReject   = '⊘'
	laneFault    = '↯'
	laneInfo     = '·'
	laneViolated = '✗'
)

// WriteLanes renders t as a plain-text sequence picture for a terminal:
// one column per lane, one row per step. The acting lane is marked ●, a
// message is a horizontal arrow from its sender to its receiver on the row
// it was sent (the text after the grid says when it arrived), notes are
// marked beside the lane (◷ expiry, ⊘ rejection, ↯ fault), and the lanes a
// violation involves are marked ✗ on its row.
func WriteLanes(w io.Writer, t *Trace) error {
	t = printable(t)
	ew := &errWriter{w: w}
	l := newLayout(t)
	width := 12
	for _, name := range l.lanes {
		if n := utf8.RuneCountInString(name) + 3; n > width {
			width = n
		}
	}
	if t.Title != "" {
		ew.printf("%s\n\n", t.Title)
	}
	lead := "step  "
	if t.Timed {
		lead = "step  time      "
	}
	var head strings.Builder
	head.WriteString(lead)
	for _, name := range l.lanes {
		head.WriteString(pad(name, width))
	}
	ew.printf("%s\n", strings.TrimRight(head.String(), " "))
	for _, s := range t.Steps {
		grid := l.laneRow(t, s, width)
		prefix := fmt.Sprintf("%4d  ", s.Number)
		if t.Timed {
			prefix = fmt.Sprintf("%4d  %-8s  ", s.Number, FormatTime(s.At))
		}
		summary := l.stepSummary(s)
		if v := t.Violation; v != nil && v.Step == s.Number {
			summary += "; " + ViolationLine(v)
		}
		ew.printf("%s%s  %s\n", prefix, string(grid), summary)
	}
	return ew.err
}

// laneRow draws one step's row of the grid.
func (l *layout) laneRow(t *Trace, s Step, width int) []rune {
	row := []rune(strings.Repeat(" ", width*len(l.lanes)))
	for i := range l.lanes {
		row[i*width] = laneBar
	}
	for _, a := range l.sent[s.Number] {
		from, to := l.laneIdx[a.From]*width, l.laneIdx[a.To]*width
		if from == to {
			continue
		}
		lo, hi, head := from, to, '▶'
		if to < from {
			lo, hi, head = to, from, '◀'
		}
		for c := lo + 1; c < hi; c++ {
			row[c] = '─'
		}
		row[to] = head
	}
	if i, ok := l.laneIdx[s.Actor]; ok && s.Actor != "" {
		row[i*width] = laneActor
	}
	for _, n := range l.notes[s.Number] {
		if i, ok := l.laneIdx[n.Lane]; ok && width > 1 {
			row[i*width+1] = noteLaneMark(n.Kind)
		}
	}
	if v := t.Violation; v != nil && v.Step == s.Number {
		for _, name := range v.Involved {
			if i, ok := l.laneIdx[name]; ok && width > 2 {
				row[i*width+2] = laneViolated
			}
		}
	}
	return row
}

func noteLaneMark(k NoteKind) rune {
	switch k {
	case NoteExpiry:
		return laneExpiry
	case NoteRejection:
		return laneReject
	case NoteFault:
		return laneFault
	case NoteViolation:
		return laneViolated
	default:
		return laneInfo
	}
}

// pad left-aligns s in a field of n runes.
func pad(s string, n int) string {
	if k := utf8.RuneCountInString(s); k < n {
		return s + strings.Repeat(" ", n-k)
	}
	return s
}
