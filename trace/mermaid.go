package trace

import (
	"fmt"
	"io"
	"strings"
)

// WriteMermaid renders t as a Mermaid sequenceDiagram for Markdown: the
// lanes are participants, each message is an arrow on the step it was sent
// (its label says when it arrived), a step that sends nothing is a note
// over its actor, expiries, rejections and faults are notes over their
// lane, and the violation is a note over the lanes it involves.
func WriteMermaid(w io.Writer, t *Trace) error {
	t = printable(t)
	ew := &errWriter{w: w}
	l := newLayout(t)
	if len(l.lanes) == 0 {
		// A trace that names no process still gets its steps drawn.
		l.lanes, l.laneIdx[unnamedLane] = []string{unnamedLane}, 0
	}
	ew.printf("sequenceDiagram\n")
	if t.Title != "" {
		ew.printf("    %%%% %s\n", mermaidText(t.Title))
	}
	id := func(lane string) string { return fmt.Sprintf("L%d", l.laneIdx[lane]) }
	for i, name := range l.lanes {
		ew.printf("    participant L%d as %s\n", i, mermaidText(name))
	}
	for _, s := range t.Steps {
		prefix := fmt.Sprintf("%d. ", s.Number)
		if t.Timed {
			prefix = fmt.Sprintf("%d. [%s] ", s.Number, FormatTime(s.At))
		}
		sent := l.sent[s.Number]
		if len(sent) == 0 {
			over := s.Actor
			if over == "" && len(l.lanes) > 0 {
				over = l.lanes[0]
			}
			if over != "" {
				ew.printf("    Note over %s: %s\n", id(over), mermaidNote(prefix+s.Action))
			}
		}
		for _, a := range sent {
			label := prefix + s.Action + ": " + a.Label
			switch {
			case a.Received == 0:
				label += " (in flight at the end)"
			case a.Received != a.Sent:
				label += fmt.Sprintf(" (received at step %d)", a.Received)
			}
			// An open arrowhead (-)) marks an asynchronous message.
			arrow := "-)"
			if a.Received == a.Sent {
				arrow = "->>"
			}
			ew.printf("    %s%s%s: %s\n", id(a.From), arrow, id(a.To), mermaidText(label))
		}
		for _, n := range l.notes[s.Number] {
			ew.printf("    Note over %s: %s\n", id(n.Lane), mermaidNote(noteMark(n.Kind)+" "+n.Text))
		}
		if v := t.Violation; v != nil && v.Step == s.Number {
			over := mermaidOver(l, v, s.Actor, id)
			if over != "" {
				ew.printf("    Note over %s: %s\n", over, mermaidNote(ViolationLine(v)))
			}
		}
	}
	return ew.err
}

// unnamedLane is the one participant of a trace that names no lane.
const unnamedLane = "system"

// mermaidOver spans the violation note over the first and last lane it
// involves (Mermaid spans at most two participants).
func mermaidOver(l *layout, v *Violation, actor string, id func(string) string) string {
	first, last := -1, -1
	for _, name := range v.Involved {
		i := l.laneIdx[name]
		if first < 0 || i < first {
			first = i
		}
		if i > last {
			last = i
		}
	}
	switch {
	case first >= 0 && first != last:
		return id(l.lanes[first]) + "," + id(l.lanes[last])
	case first >= 0:
		return id(l.lanes[first])
	case actor != "":
		return id(actor)
	case len(l.lanes) > 0:
		return id(l.lanes[0])
	}
	return ""
}

// Mermaid draws a note or a message label on one line as wide as its
// text: a long one overflows the picture and pushes the lanes apart.
// mermaidNote wraps it at word boundaries into lines of at most
// mermaidWidth runes (a longer word is cut) joined by <br/>, at most
// mermaidLines of them, the last ending in "…" when text is left out.
const (
	mermaidWidth = 64
	mermaidLines = 6
)

// mermaidNote is s as a note or label: wrapped and bounded, each line
// made safe by mermaidText.
func mermaidNote(s string) string {
	var lines []string
	line := ""
	cut := false
	for _, word := range strings.Fields(s) {
		for len([]rune(word)) > mermaidWidth {
			r := []rune(word)
			if line != "" {
				lines, line = append(lines, line), ""
			}
			lines = append(lines, string(r[:mermaidWidth]))
			word = string(r[mermaidWidth:])
		}
		switch {
		case line == "":
			line = word
		case len([]rune(line))+1+len([]rune(word)) <= mermaidWidth:
			line += " " + word
		default:
			lines, line = append(lines, line), word
		}
		if len(lines) > mermaidLines {
			cut = true
			break
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	if len(lines) > mermaidLines {
		lines, cut = lines[:mermaidLines], true
	}
	if cut {
		last := []rune(lines[len(lines)-1])
		if len(last) >= mermaidWidth {
			last = last[:mermaidWidth-1]
		}
		lines[len(lines)-1] = string(last) + "…"
	}
	for i, l := range lines {
		lines[i] = mermaidText(l)
	}
	return strings.Join(lines, "<br/>")
}

// mermaidText makes user text safe in a Mermaid message or note: one line,
// and the characters Mermaid reads as syntax (# ; < >) as entity codes.
func mermaidText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	r := strings.NewReplacer("#", "#35;", ";", "#59;", "<", "#lt;", ">", "#gt;")
	return r.Replace(s)
}
