package sim

import (
	"io"
	"strings"
	"unicode/utf8"

	"github.com/fencelab/fencelab/trace"
)

// TimelineWidth is the widest line of a timeline printed for a terminal:
// longer lines are wrapped (wrapTimeline), so that an ordinary terminal
// shows the lanes picture and the step table unbroken.
const TimelineWidth = 100

// writeTimeline renders a run's trace as text: the lanes picture (one lane
// per node, faults ↯ and lease expiries ◷ marked, the violation named),
// then the step table with every state change, for the details. Lines
// longer than TimelineWidth are wrapped.
func writeTimeline(w io.Writer, tr *trace.Trace) error {
	var b strings.Builder
	if err := trace.WriteLanes(&b, tr); err != nil {
		return err
	}
	b.WriteString("\nEvery step and what it changed:\n\n")
	untitled := *tr
	untitled.Title = ""
	if err := trace.WriteTable(&b, &untitled); err != nil {
		return err
	}
	_, err := io.WriteString(w, wrapTimeline(b.String(), TimelineWidth))
	return err
}

// laneGrid are the runes of the lanes picture's grid (trace.WriteLanes).
const laneGrid = " │●◷⊘↯·✗─▶◀"

// wrapTimeline wraps the lines of a lanes picture and a step table longer
// than width at spaces. A wrapped line of the lanes picture goes on below
// its text, the lanes' bars drawn on through the continuation lines; one of
// the step table goes on in its last column ("changes").
func wrapTimeline(text string, width int) string {
	var out strings.Builder
	var lanes []int // rune columns of the lanes, from the picture's header
	indent := -1    // the step table's last column
	for _, line := range strings.SplitAfter(text, "\n") {
		body := strings.TrimSuffix(line, "\n")
		if strings.HasPrefix(body, "step  ") {
			lanes, indent = nil, -1
			if i := strings.Index(body, "changes"); i >= 0 {
				indent = utf8.RuneCountInString(body[:i])
			} else {
				lanes = laneColumns(body)
			}
		}
		runes := []rune(body)
		if len(runes) <= width || strings.HasPrefix(body, "step  ") {
			out.WriteString(line)
			continue
		}
		var at int
		var cont []rune
		switch {
		case len(lanes) > 0:
			at = lanes[0]
			for at < len(runes) && strings.ContainsRune(laneGrid, runes[at]) {
				at++
			}
			cont = []rune(strings.Repeat(" ", at))
			for _, c := range lanes {
				if c < at {
					cont[c] = '│'
				}
			}
		case indent >= 0 && indent < len(runes):
			at = indent
			cont = []rune(strings.Repeat(" ", at))
		default:
			out.WriteString(wrapPlain(line, width))
			continue
		}
		out.WriteString(string(runes[:at]))
		for i, part := range wrapWords(string(runes[at:]), max(width-at, 30)) {
			if i > 0 {
				out.WriteString("\n" + string(cont))
			}
			out.WriteString(part)
		}
		out.WriteString(strings.TrimPrefix(line, body))
	}
	return out.String()
}

// wrapPlain wraps the lines of plain text longer than width at spaces,
// each continuation indented four spaces more than its line.
func wrapPlain(text string, width int) string {
	var out strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		body := strings.TrimSuffix(line, "\n")
		if utf8.RuneCountInString(body) <= width {
			out.WriteString(line)
			continue
		}
		lead := len(body) - len(strings.TrimLeft(body, " "))
		indent := strings.Repeat(" ", lead+4)
		out.WriteString(body[:lead])
		for i, part := range wrapWords(body[lead:], max(width-lead-4, 30)) {
			if i > 0 {
				out.WriteString("\n" + indent)
			}
			out.WriteString(part)
		}
		out.WriteString(strings.TrimPrefix(line, body))
	}
	return out.String()
}

// laneColumns is the rune column of each lane named in a lanes picture's
// header: "step  time      service     c1 ...".
func laneColumns(header string) []int {
	var cols []int
	runes := []rune(header)
	start := len([]rune("step  "))
	if strings.HasPrefix(header, "step  time") {
		start = len([]rune("step  time      "))
	}
	for i := start; i < len(runes); i++ {
		if runes[i] != ' ' && (i == start || runes[i-1] == ' ') {
			cols = append(cols, i)
		}
	}
	return cols
}

// wrapWords splits s into lines of at most width runes at spaces (a word
// longer than width gets a line of its own).
func wrapWords(s string, width int) []string {
	var lines []string
	var cur []rune
	for _, word := range strings.Split(s, " ") {
		w := []rune(word)
		if len(cur) > 0 && len(cur)+1+len(w) > width {
			lines = append(lines, string(cur))
			cur = nil
		}
		if len(cur) > 0 {
			cur = append(cur, ' ')
		}
		cur = append(cur, w...)
	}
	return append(lines, string(cur))
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
