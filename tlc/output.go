package tlc

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/fencelab/fencelab/internal/quote"
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
	msgNestedExpr        = 2103
	msgBehaviorUpTo      = 2121
	msgCounterExample    = 2264
	msgFinished          = 2186
	msgNoError           = 2193
	msgSearchDepth       = 2194
	msgStats             = 2199
	msgModelChecking     = 2187 // "Running breadth-first search Model-Checking … with N workers on …"
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
	// Complete is true when the output ends as TLC ends every run, with
	// its "Finished in …" message. ParseOutput refuses an incomplete
	// output that reports an error or holds states.
	Complete bool
	// NoError is true when TLC said "Model checking completed. No error
	// has been found.": the only words with which TLC says a model holds.
	NoError bool
	// Module is the spec TLC checked: the first module it parsed
	// ("Parsing file …/DistLock.tla" gives "DistLock"); "" when the
	// output does not say.
	Module string
	// Messages are the -tool messages in order (none for plain output).
	Messages []Message
	// Counterexamples are the behaviours TLC printed, in order: one, or
	// several when TLC ran with -continue. States, Invariant, Deadlock,
	// Temporal and Failure are those of the selected one (Selected, the
	// first unless Select chose another).
	Counterexamples []Counterexample
	Selected        int
	// States is the counterexample, the first state first; empty when
	// TLC found no error.
	States []State
	// Invariant names the violated invariant, from "Invariant X is
	// violated", or action property ("Action property X is violated");
	// empty otherwise.
	Invariant string
	// Deadlock and Temporal are set when TLC reported a deadlock or a
	// violated temporal property (TLC does not name the latter).
	Deadlock, Temporal bool
	// Failure is set when TLC stopped on an error that is not a property:
	// an Assert that failed or an expression it could not evaluate.
	Failure *Failure
	// Errors are TLC's error messages (including the above), one string each.
	Errors []string
	// Warnings are "!! WARNING" lines, such as a stale PlusCal translation.
	Warnings []string
	// Generated and Distinct are the final state counts; Depth is the
	// search depth. Each is -1 when TLC did not report it.
	Generated, Distinct int64
	Depth               int
	// Workers is the number of workers TLC said it checked with; 0 when
	// it did not say.
	Workers int
}

// Counterexample is one behaviour TLC printed and the error it shows.
type Counterexample struct {
	States             []State
	Invariant          string
	Deadlock, Temporal bool
	Failure            *Failure
}

// Failure is an error TLC stopped on that is not a property's violation.
type Failure struct {
	// Kind is "Assert" for a failed Assert, "error" for any other.
	Kind string
	// Text is what TLC said, on one line, with where it was evaluating
	// when TLC gave the place.
	Text string
}

// violated reports whether the counterexample names what it violates.
func (c *Counterexample) violated() bool {
	return c.Invariant != "" || c.Deadlock || c.Temporal || c.Failure != nil
}

// ended reports whether the behaviour ended (stuttering or a loop back).
func (c *Counterexample) ended() bool {
	if len(c.States) == 0 {
		return false
	}
	last := c.States[len(c.States)-1]
	return last.LoopTo > 0 || last.Action == "Stuttering"
}

// Select returns the output with its i-th counterexample (from 1) as the
// one States and the violation describe.
func (o *Output) Select(i int) (*Output, error) {
	n := len(o.Counterexamples)
	if i < 1 || i > n {
		if n == 0 {
			return nil, fmt.Errorf("there is no counterexample %d: the TLC output has none", i)
		}
		return nil, fmt.Errorf("there is no counterexample %d: the TLC output has %d", i, n)
	}
	c := *o
	c.use(i - 1)
	return &c, nil
}

func (o *Output) use(i int) {
	ce := o.Counterexamples[i]
	o.Selected = i
	o.States, o.Invariant, o.Deadlock, o.Temporal, o.Failure = ce.States, ce.Invariant, ce.Deadlock, ce.Temporal, ce.Failure
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

// Var is the value of variable name in s; false when s has no such
// variable.
func (s State) Var(name string) (Value, bool) {
	for _, a := range s.Vars {
		if a.Name == name {
			return a.Value, true
		}
	}
	return Value{}, false
}

// Assignment is one variable's value in a state.
type Assignment struct {
	Name  string
	Value Value
}

var (
	startMsg   = regexp.MustCompile(`^@!@!@STARTMSG (\d+):(\d+) @!@!@$`)
	endMsg     = regexp.MustCompile(`^@!@!@ENDMSG (\d+) @!@!@$`)
	plainState = regexp.MustCompile(`^State (\d+): (.*)$`)
	plainBack  = regexp.MustCompile(`^Back to state (\d+)(?:: (.*))?$`)
	// looseStateLine is what a state line with a malformed number looks
	// like: "State -1: …", "State +2: …".
	looseStateLine = regexp.MustCompile(`^State [-+]?\d*[^\d:]*:`)
	toolState      = regexp.MustCompile(`^(\d+): ?(.*)$`)
	statsLine      = regexp.MustCompile(`^([\d,]+) states generated, ([\d,]+) distinct states found`)
	depthLine      = regexp.MustCompile(`^The depth of the complete state graph search is (\d+)\.`)
	// workersLine is in TLC's first line of a model's check: "Running
	// breadth-first search Model-Checking with fp 14 and seed … with 2
	// workers on 2 cores with …".
	workersLine  = regexp.MustCompile(`^Running .* with (\d+) workers? on \d+ cores?`)
	progressLine = regexp.MustCompile(`^Progress\((\d+)\)`)
	invariantMsg = regexp.MustCompile(`^(?:Error: )?(?:Invariant|Action property) (\S+) is violated`)
	finishedLine = regexp.MustCompile(`^Finished in [0-9][^(]* at \(`) // "Finished in 2s at (", "Finished in 05min 15s at ("
	noErrorLine  = "Model checking completed. No error has been found."
	parsingLine  = regexp.MustCompile(`^Parsing file (.*\S)\.tla$`)
	positionLine = regexp.MustCompile(`^\d+\. (Line \d+, column \d+ to line \d+, column \d+ in \S+)$`)
)

// maxStateNumber bounds the state numbers the parser believes: TLC's
// behaviours are at most as long as the search is deep.
const maxStateNumber = 100_000_000

// ParseOutput parses TLC's output, with or without -tool. It fails on
// empty input, on text that is not TLC's, on a state it cannot parse, on
// states numbered other than 1, 2, 3, … or a loop back to a state that
// is not there, and on an output that reports an error or holds states
// but stops before TLC's closing "Finished in …" (a truncated output).
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
	b := &builder{o: out}
	if out.Tool {
		err = b.parseTool(lines)
	} else {
		err = b.parsePlain(lines)
	}
	if err == nil {
		err = b.finish()
	}
	if err != nil {
		return nil, err
	}
	if !out.recognised(lines) {
		return nil, fmt.Errorf("this does not look like TLC output (no TLC version line, result or state)")
	}
	if !out.Complete && (len(out.Counterexamples) > 0 || len(out.Errors) > 0) {
		return nil, fmt.Errorf("the TLC output is incomplete: it stops before TLC's closing \"Finished in …\" message (TLC was stopped, or the file is cut short)")
	}
	return out, nil
}

// splitLines splits the output into lines of any length (a bufio.Scanner
// would stop, silently, at a line longer than its buffer).
func splitLines(data []byte) []string {
	text := strings.TrimSuffix(string(data), "\n")
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
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
	if o.Tool || len(o.Counterexamples) > 0 || o.Distinct >= 0 || len(o.Errors) > 0 || o.Complete {
		return true
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "TLC2 Version") {
			return true
		}
	}
	return false
}

// builder collects the counterexamples as the parser meets their errors
// and states. An error that names what is violated opens the next
// counterexample's description; the state numbered 1 opens its
// behaviour.
type builder struct {
	o *Output
	// next is what the errors since the last behaviour say the next one
	// shows.
	next Counterexample
	// cur is the behaviour being read; nil before the first.
	cur *Counterexample
}

// finish closes the last behaviour and makes the first the selected one.
func (b *builder) finish() error {
	if err := b.close(); err != nil {
		return err
	}
	if len(b.o.Counterexamples) > 0 {
		b.o.use(0)
		return nil
	}
	// No behaviour: what the errors said still stands (an invariant
	// violated with its trace cut off is reported, not drawn).
	b.o.Invariant, b.o.Deadlock, b.o.Temporal, b.o.Failure = b.next.Invariant, b.next.Deadlock, b.next.Temporal, b.next.Failure
	return nil
}

// close ends the behaviour being read, checking it is whole.
func (b *builder) close() error {
	c := b.cur
	if c == nil {
		return nil
	}
	b.cur = nil
	if !c.violated() {
		return fmt.Errorf("TLC printed a behaviour of %d states without an error before it saying what it violates", len(c.States))
	}
	b.o.Counterexamples = append(b.o.Counterexamples, *c)
	return nil
}

// errorText records one of TLC's error messages: a violation opens the
// description of the next counterexample; TLC's place of an evaluation
// error completes the failure of the behaviour just read.
func (b *builder) errorText(code int, text string) {
	text = strings.TrimSpace(text)
	b.o.Errors = append(b.o.Errors, text)
	switch {
	case code == msgBehaviorUpTo || code == msgCounterExample ||
		strings.HasPrefix(text, "The behavior up to this point is") ||
		strings.HasPrefix(text, "The following behavior constitutes a counter-example"):
		return
	case code == msgNestedExpr || strings.HasPrefix(text, "The error occurred when TLC was evaluating the nested"):
		var f *Failure
		switch {
		case b.cur != nil && b.cur.Failure != nil:
			f = b.cur.Failure
		case b.cur == nil && b.next.Failure != nil:
			f = b.next.Failure
		}
		if f != nil && !strings.Contains(f.Text, " (at ") {
			if where := innermostPosition(text); where != "" {
				f.Text += " (at " + where + ")"
			}
		}
		return
	}
	if b.cur != nil && len(b.cur.States) > 0 {
		// A violation after a behaviour: TLC runs on (-continue).
		if b.cur.violated() {
			b.o.Counterexamples = append(b.o.Counterexamples, *b.cur)
			b.cur = nil
		}
	}
	n := &b.next
	if b.cur != nil && len(b.cur.States) == 0 {
		n = b.cur
	}
	switch {
	case invariantMsg.MatchString(text) && (code == 0 || code == msgInvariantBehavior || code == msgInvariantInitial || code == msgActionProperty):
		if n.Invariant == "" {
			n.Invariant = invariantMsg.FindStringSubmatch(text)[1]
		}
	case code == msgDeadlock || (code == 0 && strings.HasPrefix(text, "Deadlock reached")):
		n.Deadlock = true
	case code == msgTemporal || (code == 0 && strings.HasPrefix(text, "Temporal properties were violated")):
		n.Temporal = true
	case n.Failure == nil && !n.violated():
		n.Failure = newFailure(code, text)
	}
}

// newFailure states an Assert failure or an evaluation error in TLC's
// words, on one line; for a Java exception, what its message says.
func newFailure(code int, text string) *Failure {
	f := &Failure{Kind: "error"}
	if code == msgAssertFailed || strings.HasPrefix(text, "The first argument of Assert evaluated to FALSE") {
		f.Kind = "Assert"
	}
	one := strings.Join(strings.Fields(text), " ")
	if _, after, ok := strings.Cut(one, "The exception was a "); ok {
		if _, msg, ok := strings.Cut(after, ": "); ok && strings.TrimSpace(msg) != "" {
			one = strings.TrimSpace(msg)
		}
	}
	f.Text = one
	return f
}

// innermostPosition is the last place TLC lists in its "nested
// expressions" message: where the evaluation failed.
func innermostPosition(text string) string {
	where := ""
	for _, l := range strings.Split(text, "\n") {
		if m := positionLine.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			where = "l" + strings.TrimPrefix(m[1], "L")
		}
	}
	return where
}

// state adds a state of a behaviour: state 1 starts a new one, every
// other follows the one before it.
func (b *builder) state(st State) error {
	if st.Number < 1 || st.Number > maxStateNumber {
		return fmt.Errorf("state %d: TLC numbers the states of a behaviour 1, 2, 3, …", st.Number)
	}
	if st.Number == 1 && st.LoopTo == 0 && st.Action != "Stuttering" {
		if b.cur != nil && len(b.cur.States) > 0 {
			if err := b.close(); err != nil {
				return err
			}
		}
		if b.cur == nil {
			b.cur = &Counterexample{}
			*b.cur, b.next = b.next, Counterexample{}
		}
		b.cur.States = append(b.cur.States, st)
		return nil
	}
	if b.cur == nil || len(b.cur.States) == 0 {
		return fmt.Errorf("state %d comes before any state 1: the behaviour's start is missing", st.Number)
	}
	prev := b.cur.States[len(b.cur.States)-1]
	if b.cur.ended() {
		return fmt.Errorf("state %d follows the end of the behaviour (%s at state %d)", st.Number, strings.ToLower(prev.Header), prev.Number)
	}
	if st.Number != prev.Number+1 {
		return fmt.Errorf("state %d follows state %d: TLC numbers the states of a behaviour 1, 2, 3, … (duplicated or missing states)", st.Number, prev.Number)
	}
	if st.LoopTo == 0 && st.Action != "Stuttering" {
		if err := sameVariables(b.cur.States[0], st); err != nil {
			return err
		}
	}
	b.cur.States = append(b.cur.States, st)
	return nil
}

// loop ends the behaviour being read with a return to state to: a
// liveness counterexample's lasso. The step back is a state of its own,
// numbered after the last, with the variables of the state it returns to.
func (b *builder) loop(to int, header string) error {
	if b.cur == nil || len(b.cur.States) == 0 {
		return fmt.Errorf("\"Back to state %d\" comes before any state: the behaviour's start is missing", to)
	}
	last := b.cur.States[len(b.cur.States)-1]
	if to < 1 || to > last.Number {
		return fmt.Errorf("\"Back to state %d\" after state %d: there is no state %d to return to", to, last.Number, to)
	}
	target := b.cur.States[to-1]
	if target.LoopTo > 0 || target.Action == "Stuttering" {
		return fmt.Errorf("\"Back to state %d\": state %d is not a state of the behaviour", to, to)
	}
	header = strings.TrimSpace(header)
	action := actionName(header)
	if action == "" {
		action = "Back to state " + strconv.Itoa(to)
	}
	return b.state(State{
		Number: last.Number + 1,
		Action: action,
		Header: strings.TrimSpace("Back to state " + strconv.Itoa(to) + " " + header),
		LoopTo: to,
		Vars:   target.Vars,
	})
}

func (b *builder) stutter(n int) error {
	return b.state(State{Number: n, Action: "Stuttering", Header: "Stuttering"})
}

// sameVariables checks a state lists the variables the first state does:
// TLC prints every variable in every state, so a state with fewer is cut.
func sameVariables(first, st State) error {
	names := make(map[string]bool, len(first.Vars))
	for _, a := range first.Vars {
		names[a.Name] = true
	}
	seen := make(map[string]bool, len(st.Vars))
	for _, a := range st.Vars {
		if !names[a.Name] {
			return fmt.Errorf("state %d has a variable %s that state %d does not have", st.Number, a.Name, first.Number)
		}
		if seen[a.Name] {
			return fmt.Errorf("state %d gives variable %s twice", st.Number, a.Name)
		}
		seen[a.Name] = true
	}
	for _, a := range first.Vars {
		if !seen[a.Name] {
			return fmt.Errorf("state %d lacks variable %s (the state is cut short)", st.Number, a.Name)
		}
	}
	return nil
}

func (b *builder) parseTool(lines []string) error {
	for i := 0; i < len(lines); i++ {
		m := startMsg.FindStringSubmatch(lines[i])
		if m == nil {
			b.o.looseLine(lines[i])
			continue
		}
		code, err1 := strconv.Atoi(m[1])
		sev, err2 := strconv.Atoi(m[2])
		if err1 != nil || err2 != nil {
			return fmt.Errorf("line %d: a TLC message with an impossible code %s:%s", i+1, m[1], m[2])
		}
		var body []string
		j := i + 1
		for ; j < len(lines); j++ {
			if e := endMsg.FindStringSubmatch(lines[j]); e != nil && e[1] == m[1] {
				break
			}
			if startMsg.MatchString(lines[j]) {
				return fmt.Errorf("line %d: TLC message %d has no ENDMSG before the next message (truncated output?)", i+1, code)
			}
			body = append(body, lines[j])
		}
		if j == len(lines) {
			return fmt.Errorf("line %d: TLC message %d has no ENDMSG (truncated output?)", i+1, code)
		}
		i = j
		msg := Message{Code: code, Severity: sev, Text: strings.TrimRight(strings.Join(body, "\n"), "\n")}
		b.o.Messages = append(b.o.Messages, msg)
		if err := b.message(msg); err != nil {
			return fmt.Errorf("line %d: %w", i+1, err)
		}
	}
	return nil
}

// message interprets one -tool message.
func (b *builder) message(msg Message) error {
	first, _, _ := strings.Cut(msg.Text, "\n")
	o := b.o
	switch msg.Code {
	case msgStatePrint:
		m := toolState.FindStringSubmatch(first)
		if m == nil {
			return fmt.Errorf("TLC state message without a state number: %s", quote.Q(first))
		}
		n, err := stateNumber(m[1])
		if err != nil {
			return err
		}
		_, rest, _ := strings.Cut(msg.Text, "\n")
		st, err := newState(n, m[2], strings.Split(rest, "\n"))
		if err != nil {
			return err
		}
		return b.state(st)
	case msgStuttering:
		m := toolState.FindStringSubmatch(first)
		if m == nil {
			return fmt.Errorf("TLC stuttering message without a state number: %s", quote.Q(first))
		}
		n, err := stateNumber(m[1])
		if err != nil {
			return err
		}
		return b.stutter(n)
	case msgBackToState:
		m := toolState.FindStringSubmatch(first)
		if m == nil {
			return fmt.Errorf("TLC back-to-state message without a state number: %s", quote.Q(first))
		}
		to, err := stateNumber(m[1])
		if err != nil {
			return err
		}
		_, action, _ := strings.Cut(m[2], ":")
		return b.loop(to, action)
	case msgStats:
		o.stats(first)
	case msgModelChecking:
		o.workers(first)
	case msgSearchDepth:
		o.depth(first)
	case msgProgress:
		o.progress(first)
	case msgFinished:
		o.Complete = true
	case msgNoError:
		o.NoError = true
	}
	if msg.Severity == severityError {
		b.errorText(msg.Code, msg.Text)
	}
	return nil
}

func stateNumber(digits string) (int, error) {
	n, err := strconv.Atoi(digits)
	if err != nil || n > maxStateNumber {
		return 0, fmt.Errorf("state number %s is out of range", digits)
	}
	return n, nil
}

// looseLine reads a line outside -tool framing (warnings, SANY's output).
func (o *Output) looseLine(l string) {
	if strings.HasPrefix(l, "!! WARNING") {
		o.Warnings = append(o.Warnings, strings.TrimSpace(strings.TrimPrefix(l, "!!")))
	}
	if m := parsingLine.FindStringSubmatch(l); m != nil && o.Module == "" {
		// The spec is parsed first, then the modules it extends; a path
		// from Windows or Unix alike ends in the module's name.
		name := m[1]
		if i := strings.LastIndexAny(name, `/\`); i >= 0 {
			name = name[i+1:]
		}
		o.Module = name
	}
}

func (b *builder) parsePlain(lines []string) error {
	o := b.o
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		o.looseLine(l)
		if m := plainState.FindStringSubmatch(l); m != nil {
			n, err := stateNumber(m[1])
			if err != nil {
				return fmt.Errorf("line %d: %w", i+1, err)
			}
			var body []string
			j := i + 1
			for ; j < len(lines) && isStateBody(lines[j], j == i+1); j++ {
				body = append(body, lines[j])
			}
			at := i + 1
			i = j - 1
			if strings.TrimSpace(m[2]) == "Stuttering" {
				err = b.stutter(n)
			} else {
				var st State
				if st, err = newState(n, m[2], body); err == nil {
					err = b.state(st)
				}
			}
			if err != nil {
				return fmt.Errorf("line %d: %w", at, err)
			}
			continue
		}
		if m := plainBack.FindStringSubmatch(l); m != nil {
			to, err := stateNumber(m[1])
			if err == nil {
				err = b.loop(to, m[2])
			}
			if err != nil {
				return fmt.Errorf("line %d: %w", i+1, err)
			}
			continue
		}
		if strings.HasPrefix(l, "Back to state") || looseStateLine.MatchString(l) {
			// A back-to-state or state line TLC would not print ("Back to
			// state -1"): read as text, it would drop the loop or a state.
			return fmt.Errorf("line %d: %s is not a state line TLC prints (a state number is 1 or more)", i+1, quote.Q(l))
		}
		o.stats(l)
		o.depth(l)
		o.workers(l)
		o.progress(l)
		if finishedLine.MatchString(l) {
			o.Complete = true
		}
		if strings.TrimSpace(l) == noErrorLine {
			o.NoError = true
		}
		if msg, ok := strings.CutPrefix(l, "Error: "); ok {
			// An error's text goes on over the lines up to a blank line
			// or the next thing TLC prints.
			j := i + 1
			for ; j < len(lines) && isErrorContinuation(lines[j]); j++ {
				msg += "\n" + lines[j]
			}
			i = j - 1
			b.errorText(0, msg)
		}
	}
	return nil
}

// isErrorContinuation tells a line that goes on with a plain-output error
// message from one that starts something else.
func isErrorContinuation(l string) bool {
	switch {
	case strings.TrimSpace(l) == "", strings.HasPrefix(l, "Error: "), strings.HasPrefix(l, "@!@!@"),
		plainState.MatchString(l), plainBack.MatchString(l), statsLine.MatchString(l),
		finishedLine.MatchString(l), progressLine.MatchString(l), depthLine.MatchString(l):
		return false
	}
	return true
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

func (o *Output) stats(l string) {
	if m := statsLine.FindStringSubmatch(l); m != nil {
		o.Generated = atoi64(m[1])
		o.Distinct = atoi64(m[2])
	}
}

func (o *Output) workers(l string) {
	if m := workersLine.FindStringSubmatch(l); m != nil {
		o.Workers, _ = strconv.Atoi(m[1])
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

// newState parses a state's header and its "/\\ x = v" lines.
func newState(n int, header string, body []string) (State, error) {
	st := State{Number: n, Header: strings.TrimSpace(header), Action: actionName(header)}
	vars, err := parseAssignments(body)
	if err != nil {
		return State{}, fmt.Errorf("state %d: %w", n, err)
	}
	if len(vars) == 0 {
		return State{}, fmt.Errorf("state %d has no variables (the state is cut short)", n)
	}
	st.Vars = vars
	return st, nil
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
			return nil, fmt.Errorf("cannot read %s as \"variable = value\"", quote.Q(firstLine(c)))
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
