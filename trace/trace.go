// Package trace is fencelab's one counterexample type and its renderers.
//
// TLC's output, the Go explorer and the simulator all produce a Trace: a
// sequence of steps (who acted, which action, which variables changed, and in
// the simulator when), the messages between processes as arrows, marks such as
// lease expiries, rejections and injected faults as notes, and the violated
// property. The renderers turn a Trace into a step table for a terminal, a
// Mermaid sequenceDiagram for Markdown, and a self-contained HTML page with an
// SVG sequence picture for a browser; encoding/json gives the machine form.
package trace

import "time"

// Source names the runtime that produced a trace.
type Source string

// The three ways fencelab reaches a verdict.
const (
	SourceTLC       Source = "tlc"
	SourceExplorer  Source = "explorer"
	SourceSimulator Source = "simulator"
)

// Trace is a behaviour told step by step. Step 1 is the initial state; every
// later step is one action of one process.
type Trace struct {
	Title  string `json:"title"`
	Source Source `json:"source"`
	// Lanes are the processes, in display order: the lock service, each
	// client, the resource. Step.Actor, Arrow.From/To and Note.Lane name one.
	Lanes []string `json:"lanes"`
	// Timed is true when Step.At carries virtual time (the simulator);
	// untimed runtimes (TLC, the explorer) leave it false.
	Timed     bool       `json:"timed,omitempty"`
	Steps     []Step     `json:"steps"`
	Arrows    []Arrow    `json:"arrows,omitempty"`
	Notes     []Note     `json:"notes,omitempty"`
	Violation *Violation `json:"violation,omitempty"`
	// Loop is the step whose state the last step returns to, when the
	// behaviour goes on forever around a loop (a liveness counterexample's
	// lasso: steps Loop+1 … last repeat); 0 for a behaviour that ends.
	Loop int `json:"loop,omitempty"`
}

// Step is one state of the behaviour and the action that led to it.
type Step struct {
	// Number is the 1-based position in the trace, as TLC numbers states.
	Number int `json:"number"`
	// At is the virtual time of the step when the trace is Timed.
	At time.Duration `json:"at,omitempty"`
	// Actor is the lane that acted; empty for the initial state.
	Actor string `json:"actor,omitempty"`
	// Action is the PlusCal label, TLA+ action or runtime event that led
	// here ("Init" for the initial state).
	Action string `json:"action"`
	// Changes lists only what differs from the previous step, each at the
	// innermost element that changed; for the initial state it lists every
	// variable with an empty Old.
	Changes []Change `json:"changes,omitempty"`
}

// Change is one variable, or one element of a structured variable, that
// changed in a step. Values are printed in TLA+ notation where they come
// from TLC, and in the same spirit elsewhere.
type Change struct {
	Path string `json:"path"` // e.g. "lock_held[c1]" or "distLock.status"
	Old  string `json:"old,omitempty"`
	New  string `json:"new"`
}

// Arrow is a message from one lane to another. Sent and Received are step
// numbers; Received is 0 when the message was still in flight when the trace
// ended.
type Arrow struct {
	From     string `json:"from"`
	To       string `json:"to"`
	Sent     int    `json:"sent"`
	Received int    `json:"received,omitempty"`
	Label    string `json:"label"`
}

// NoteKind classifies a note so renderers can mark it.
type NoteKind string

// Kinds of notes.
const (
	NoteExpiry    NoteKind = "expiry"    // the service expired a lease, or a client's lease timer fired
	NoteRejection NoteKind = "rejection" // an acquire or a resource operation was refused
	NoteFault     NoteKind = "fault"     // an injected fault: pause, resume, latency spike, clock jump
	NoteViolation NoteKind = "violation" // a property is violated in this step
	NoteInfo      NoteKind = "info"      // anything else worth pointing at
)

// Note marks something that happened on a lane at a step.
type Note struct {
	Lane string   `json:"lane"`
	Step int      `json:"step"`
	Kind NoteKind `json:"kind"`
	Text string   `json:"text"`
}

// Violation names the property a trace violates, the step where it first
// does, and the processes involved (for AtMostOneClientHoldLock, the clients
// that both believe they hold the lock).
type Violation struct {
	Property string   `json:"property"`
	Step     int      `json:"step"`
	Involved []string `json:"involved,omitempty"`
	// Explanation is one sentence for people, e.g. "c1 and c2 both hold the lock".
	Explanation string `json:"explanation,omitempty"`
}

// Var is one flattened variable of a state: a path to an element and its
// printed value. Runtimes describe each state as an ordered list of Vars and
// let Diff compute a step's Changes.
type Var struct {
	Path  string
	Value string
}

// Diff returns what changed from prev to next: paths whose value differs or
// that are new (in next's order), then paths that disappeared (in prev's
// order), shown with New "—". A nil prev yields every variable of next, as
// for the initial state.
func Diff(prev, next []Var) []Change {
	old := make(map[string]string, len(prev))
	for _, v := range prev {
		old[v.Path] = v.Value
	}
	var changes []Change
	seen := make(map[string]bool, len(next))
	for _, v := range next {
		seen[v.Path] = true
		was, ok := old[v.Path]
		if ok && was == v.Value {
			continue
		}
		changes = append(changes, Change{Path: v.Path, Old: was, New: v.Value})
	}
	for _, v := range prev {
		if !seen[v.Path] {
			changes = append(changes, Change{Path: v.Path, Old: v.Value, New: "—"})
		}
	}
	return changes
}
