package tlc

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// TLC's message codes (tlc2/output/EC.java) that the output parser reads.
const (
	msgInvariantInitial  = 2107
	msgInvariantBehavior = 2110
	msgActionProperty    = 2112
	msgDeadlock          = 2114
	msgTemporal          = 2116
	msgBackToState       = 2122
	msgAssertFailed      = 2132
	msgSearchDepth       = 2194
	msgStats             = 2199
	msgProgress          = 2200
	msgStatePrint        = 2217
	msgStuttering        = 2218
)

// Severity 1 is TLC's "error" class of message (tlc2/output/MPRecorder).
const severityError = 1

// Output is what one TLC run printed, parsed: the messages, the states of
// the counterexample if there is one, and the statistics.
type Output struct {
	// Tool is true when the output carries -tool message framing.
	Tool bool
	// Messages are the -tool messages in order (none for plain output).
	Messages []Message
	// States is the counterexample, the first state first; empty when
	// TLC found no error.
	States []State
	// Invariant names the violated invariant, from "Invariant X is
	// violated" (empty otherwise).
	Invariant string
	// Deadlock and Temporal are set when TLC reported a deadlock or a
	// violated temporal property (TLC does not name the latter).
	Deadlock, Temporal bool
	// Errors are TLC's error messages (including the above), one string each.
	Errors []string
	// Warnings are "!! WARNING" lines, such as a stale PlusCal translation.
	Warnings []string
	// Generated and Distinct are the final state counts; Depth is the
	// search depth. Each is -1 when TLC did not report it.
	Generated, Distinct int64
	Depth               int
}

// Message is one -tool message: @!@!@STARTMSG code:severity @!@!@ … ENDMSG.
type Message struct {
	Code, Severity int
	Text           string
}

// State is one state of a counterexample.
type State struct {
	Number int
	// Action is the PlusCal label or TLA+ action that led to this state
	// ("Init" for the initial state, "Stuttering" for a final stutter).
	Action string
	// Header is TLC's text after the state number, e.g.
	// "<Acquire line 147, col 18 to line 151, col 61 of module DistLock>".
	Header string
	// LoopTo is the state a liveness counterexample returns to; 0 if none.
	LoopTo int
	// Vars are the variables in TLC's order; empty for stuttering and
	// back-to-state markers.
	Vars []Assignment
}

// Assignment is one variable's value in a state.
type Assignment struct {
	Name  string
	Value Value
}

var (
	startMsg     = regexp.MustCompile(`^@!@!@STARTMSG (\d+):(\d+) @!@!@$`)
	endMsg       = regexp.MustCompile(`^@!@!@ENDMSG (\d+) @!@!@$`)
	plainState   = regexp.MustCompile(`^State (\d+): (.*)$`)
	plainBack    = regexp.MustCompile(`^Back to state (\d+)(?:: (.*))?$`)
	toolState    = regexp.MustCompile(`^(\d+): ?(.*)$`)
	statsLine    = regexp.MustCompile(`^([\d,]+) states generated, ([\d,]+) distinct states found`)
	depthLine    = regexp.MustCompile(`^The depth of the complete state graph search is (\d+)\.`)
	progressLine = regexp.MustCompile(`^Progress\((\d+)\)`)
	invariantMsg = regexp.MustCompile(`^(?:Error: )?Invariant (\S+) is violated`)
)

// ParseOutput parses TLC's output, with or without -tool. It fails on
// empty input, on text that is not TLC's, and on a state it cannot parse.
func ParseOutput(r io.Reader) (*Output, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading TLC output: %w", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("the TLC output is empty")
	}
	out := &Output{Generated: -1, Distinct: -1, Depth: -1}
	lines := splitLines(data)
	out.Tool = hasToolFraming(lines)
	if out.Tool {
		err = out.parseTool(lines)
	} else {
		err = out.parsePlain(lines)
	}
	if err != nil {
		return nil, err
	}
	if !out.recognised(lines) {
		return nil, fmt.Errorf("this does not look like TLC output (no TLC version line, result or state)")
	}
	return out, nil
}

func splitLines(data []byte) []string {
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 64*1024*1024)
	for sc.Scan() {
		lines = append(lines, strings.TrimRight(sc.Text(), "\r"))
	}
	return lines
}

func hasToolFraming(lines []string) bool {
	for _, l := range lines {
		if startMsg.MatchString(l) {
			return true
		}
	}
	return false
}

// recognised tells TLC's output from arbitrary text.
func (o *Output) recognised(lines []string) bool {
	if o.Tool || len(o.States) > 0 || o.Distinct >= 0 || len(o.Errors) > 0 {
		return true
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "TLC2 Version") {
			return true
		}
	}
	return false
}

func (o *Output) parseTool(lines []string) error {
	for i := 0; i < len(lines); i++ {
		m := startMsg.FindStringSubmatch(lines[i])
		if m == nil {
			o.looseLine(lines[i])
			continue
		}
		code, _ := strconv.Atoi(m[1])
		sev, _ := strconv.Atoi(m[2])
		var body []string
		j := i + 1
		for ; j < len(lines); j++ {
			if e := endMsg.FindStringSubmatch(lines[j]); e != nil && e[1] == m[1] {
				break
			}
			body = append(body, lines[j])
		}
		if j == len(lines) {
			return fmt.Errorf("line %d: TLC message %d has no ENDMSG (truncated output?)", i+1, code)
		}
		i = j
		msg := Message{Code: code, Severity: sev, Text: strings.TrimRight(strings.Join(body, "\n"), "\n")}
		o.Messages = append(o.Messages, msg)
		if err := o.message(msg); err != nil {
			return err
		}
	}
	return nil
}

// message interprets one -tool message.
func (o *Output) message(msg Message) error {
	first, _, _ := strings.Cut(msg.Text, "\n")
	switch msg.Code {
	case msgStatePrint:
		m := toolState.FindStringSubmatch(first)
		if m == nil {
			return fmt.Errorf("TLC state message without a state number: %q", first)
		}
		n, _ := strconv.Atoi(m[1])
		_, rest, _ := strings.Cut(msg.Text, "\n")
		return o.addState(n, m[2], strings.Split(rest, "\n"))
	case msgStuttering:
		m := toolState.FindStringSubmatch(first)
		if m == nil {
			return fmt.Errorf("TLC stuttering message without a state number: %q", first)
		}
		n, _ := strconv.Atoi(m[1])
		o.States = append(o.States, State{Number: n, Action: "Stuttering", Header: "Stuttering"})
	case msgBackToState:
		m := toolState.FindStringSubmatch(first)
		if m == nil {
			return fmt.Errorf("TLC back-to-state message without a state number: %q", first)
		}
		to, _ := strconv.Atoi(m[1])
		_, action, _ := strings.Cut(m[2], ": ")
		o.addLoop(to, action)
	case msgStats:
		o.stats(first)
	case msgSearchDepth:
		o.depth(first)
	case msgProgress:
		o.progress(first)
	}
	if msg.Severity == severityError {
		o.errorLine(msg.Code, msg.Text)
	}
	return nil
}

// looseLine reads a line outside -tool framing (warnings, SANY's output).
func (o *Output) looseLine(l string) {
	if strings.HasPrefix(l, "!! WARNING") {
		o.Warnings = append(o.Warnings, strings.TrimSpace(strings.TrimPrefix(l, "!!")))
	}
}

func (o *Output) parsePlain(lines []string) error {
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		o.looseLine(l)
		if m := plainState.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[1])
			var body []string
			j := i + 1
			for ; j < len(lines) && isStateBody(lines[j], j == i+1); j++ {
				body = append(body, lines[j])
			}
			i = j - 1
			if strings.TrimSpace(m[2]) == "Stuttering" {
				o.States = append(o.States, State{Number: n, Action: "Stuttering", Header: "Stuttering"})
				continue
			}
			if err := o.addState(n, m[2], body); err != nil {
				return err
			}
			continue
		}
		if m := plainBack.FindStringSubmatch(l); m != nil {
			to, _ := strconv.Atoi(m[1])
			o.addLoop(to, m[2])
			continue
		}
		o.stats(l)
		o.depth(l)
		o.progress(l)
		if msg, ok := strings.CutPrefix(l, "Error: "); ok {
			o.errorLine(0, msg)
		}
	}
	return nil
}

// isStateBody tells a line of a plain-output state ("/\ x = v", a value
// continued on an indented line, or a one-variable spec's "x = v") from
// what TLC prints after the trace.
func isStateBody(l string, first bool) bool {
	switch {
	case strings.TrimSpace(l) == "" || plainState.MatchString(l):
		return false
	case strings.HasPrefix(l, "/\\ "), strings.HasPrefix(l, " "), strings.HasPrefix(l, "\t"):
		return true
	}
	return first && strings.Contains(l, " = ")
}

// errorLine records an error message and what it says about the result.
func (o *Output) errorLine(code int, text string) {
	text = strings.TrimSpace(text)
	o.Errors = append(o.Errors, text)
	if m := invariantMsg.FindStringSubmatch(text); m != nil && (code == 0 || code == msgInvariantBehavior || code == msgInvariantInitial) {
		o.Invariant = m[1]
	}
	switch {
	case code == msgDeadlock || (code == 0 && strings.HasPrefix(text, "Deadlock reached")):
		o.Deadlock = true
	case code == msgTemporal || (code == 0 && strings.HasPrefix(text, "Temporal properties were violated")):
		o.Temporal = true
	}
}

func (o *Output) stats(l string) {
	if m := statsLine.FindStringSubmatch(l); m != nil {
		o.Generated = atoi64(m[1])
		o.Distinct = atoi64(m[2])
	}
}

func (o *Output) depth(l string) {
	if m := depthLine.FindStringSubmatch(l); m != nil {
		o.Depth, _ = strconv.Atoi(m[1])
	}
}

// progress keeps the deepest level a progress report mentions, the only
// depth TLC gives when it stops on a liveness violation.
func (o *Output) progress(l string) {
	if m := progressLine.FindStringSubmatch(l); m != nil {
		if d, _ := strconv.Atoi(m[1]); d > o.Depth {
			o.Depth = d
		}
	}
}

func atoi64(s string) int64 {
	n, _ := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64)
	return n
}

func (o *Output) addLoop(to int, action string) {
	o.States = append(o.States, State{
		Number: len(o.States) + 1,
		Action: "Back to state " + strconv.Itoa(to),
		Header: strings.TrimSpace("Back to state " + strconv.Itoa(to) + " " + action),
		LoopTo: to,
	})
}

// addState parses a state's header and its "/\ x = v" lines.
func (o *Output) addState(n int, header string, body []string) error {
	st := State{Number: n, Header: strings.TrimSpace(header), Action: actionName(header)}
	vars, err := parseAssignments(body)
	if err != nil {
		return fmt.Errorf("state %d: %w", n, err)
	}
	st.Vars = vars
	o.States = append(o.States, st)
	return nil
}

// actionName turns TLC's state header into the action's name: "Init" for
// the initial predicate, else the name inside <…> without the location.
func actionName(header string) string {
	h := strings.TrimSpace(header)
	if strings.HasPrefix(h, "<Initial predicate") || h == "Initial predicate" {
		return "Init"
	}
	h = strings.TrimPrefix(h, "<")
	h = strings.TrimSuffix(h, ">")
	if i := strings.Index(h, " line "); i >= 0 {
		h = h[:i]
	}
	if i := strings.IndexByte(h, '('); i > 0 {
		h = h[:i]
	}
	return strings.TrimSpace(h)
}

// parseAssignments splits a state's body into its conjuncts — each starts
// with "/\ " at the start of a line; a value may continue on the lines
// after it — and parses every value. A one-variable spec prints "x = v"
// with no "/\ ".
func parseAssignments(body []string) ([]Assignment, error) {
	var chunks []string
	for _, l := range body {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(l, "/\\ "); ok {
			chunks = append(chunks, rest)
			continue
		}
		if len(chunks) == 0 {
			chunks = append(chunks, l)
			continue
		}
		chunks[len(chunks)-1] += "\n" + l
	}
	vars := make([]Assignment, 0, len(chunks))
	for _, c := range chunks {
		name, text, ok := strings.Cut(c, " = ")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("cannot read %q as \"variable = value\"", firstLine(c))
		}
		v, err := ParseValue(text)
		if err != nil {
			return nil, fmt.Errorf("variable %s: %w", name, err)
		}
		vars = append(vars, Assignment{Name: name, Value: v})
	}
	return vars, nil
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
