package trace

import (
	"fmt"
	"strings"
)

// layout is what every sequence picture needs from a trace: the lanes in
// order (with any lane a step, arrow or note names but Lanes lacks), the
// row of each step number, and the arrows and notes of each step.
type layout struct {
	lanes   []string
	laneIdx map[string]int
	row     map[int]int // step number → position in Steps
	sent    map[int][]Arrow
	recv    map[int][]Arrow
	notes   map[int][]Note
}

func newLayout(t *Trace) *layout {
	l := &layout{laneIdx: map[string]int{}, row: map[int]int{}, sent: map[int][]Arrow{}, recv: map[int][]Arrow{}, notes: notesByStep(t.Notes)}
	add := func(name string) {
		if name == "" {
			return
		}
		if _, ok := l.laneIdx[name]; !ok {
			l.laneIdx[name] = len(l.lanes)
			l.lanes = append(l.lanes, name)
		}
	}
	for _, name := range t.Lanes {
		add(name)
	}
	for i, s := range t.Steps {
		l.row[s.Number] = i
		add(s.Actor)
	}
	for _, a := range t.Arrows {
		add(a.From)
		add(a.To)
		l.sent[a.Sent] = append(l.sent[a.Sent], a)
		if a.Received > 0 && a.Received != a.Sent {
			l.recv[a.Received] = append(l.recv[a.Received], a)
		}
	}
	for _, n := range t.Notes {
		add(n.Lane)
	}
	if t.Violation != nil {
		for _, name := range t.Violation.Involved {
			add(name)
		}
	}
	return l
}

// involved reports whether lane is named by the violation.
func involved(v *Violation, lane string) bool {
	if v == nil {
		return false
	}
	for _, name := range v.Involved {
		if name == lane {
			return true
		}
	}
	return false
}

// arrowText describes a message for a reader: who sends what to whom and
// when it arrives.
func arrowText(a Arrow) string {
	switch {
	case a.Received == a.Sent:
		return fmt.Sprintf("%s → %s: %s", a.From, a.To, a.Label)
	case a.Received == 0:
		return fmt.Sprintf("%s → %s: %s (still in flight at the end)", a.From, a.To, a.Label)
	default:
		return fmt.Sprintf("%s → %s: %s (received at step %d)", a.From, a.To, a.Label, a.Received)
	}
}

// stepSummary is one line about a step: the actor's action, the messages
// it received and sent, its notes.
func (l *layout) stepSummary(s Step) string {
	var parts []string
	head := s.Action
	if s.Actor != "" {
		head = s.Actor + " " + s.Action
	}
	for _, a := range l.recv[s.Number] {
		// Runtimes name the received message in the action already
		// ("recv Grant(lease 1) from service"); TLC's labels do not.
		if strings.Contains(s.Action, a.Label) {
			head += fmt.Sprintf(" (sent at step %d)", a.Sent)
			continue
		}
		parts = append(parts, fmt.Sprintf("receives %s from %s (sent at step %d)", a.Label, a.From, a.Sent))
	}
	parts = append([]string{head}, parts...)
	for _, a := range l.sent[s.Number] {
		parts = append(parts, arrowText(a))
	}
	for _, n := range l.notes[s.Number] {
		parts = append(parts, fmt.Sprintf("%s %s: %s", noteMark(n.Kind), n.Lane, n.Text))
	}
	return strings.Join(parts, "; ")
}
