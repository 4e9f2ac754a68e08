// Package history is what a live run records: the clients' call and
// return records, the faults the nemesis injected, how each client ended,
// and the names of the faults (one name a fault, which the nemesis, the
// saved runs and the command line share).
package history

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"time"
)

// Operations a client records.
const (
	OpAcquire = "acquire"
	OpRead    = "read"
	OpWrite   = "write"
	OpRelease = "release"
	// OpExpire is a checked client's note that its grant's validity
	// ended before its next read or write: it did not act, and stopped
	// believing (a point, recorded as a return).
	OpExpire = "expire"
)

// Record phases.
const (
	Call   = "call"
	Return = "return"
)

// Record is one line a client process writes: the call or the return of
// one of its operations, at the machine's wall clock (every process shares
// it; a clock fault is only ever a fake clock inside a service).
type Record struct {
	Client int    `json:"client"` // 0-based index; c1 is 0
	Op     string `json:"op"`     // acquire, read, write, release
	Ev     string `json:"ev"`     // call or return
	Wall   int64  `json:"wall"`   // UnixNano
	Token  uint64 `json:"token,omitempty"`
	// Value is the value read (a read's return) or to write (a write's
	// call and return).
	Value int64 `json:"value"`
	// OK is the outcome of a return: granted, accepted, released.
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
	// Validity and ValidUntil are a granted acquire's validity, on its
	// return record: the duration the recipe reported (ns) and the wall
	// time (UnixNano) the client's window ends by impl.ValidUntil; 0 when
	// the grant has no end the client can check (a lock held until
	// released, a session its library renews, a history recorded before
	// clients checked).
	Validity   int64 `json:"validity,omitempty"`
	ValidUntil int64 `json:"valid_until,omitempty"`
}

// Validate checks what the judge relies on: a known operation and phase.
func (r Record) Validate(clients int) error {
	switch r.Op {
	case OpAcquire, OpRead, OpWrite, OpRelease, OpExpire:
	default:
		return fmt.Errorf("unknown operation %.20q", r.Op)
	}
	if r.Ev != Call && r.Ev != Return {
		return fmt.Errorf("unknown phase %.20q", r.Ev)
	}
	if r.Op == OpExpire && r.Ev != Return {
		return fmt.Errorf("an expire is a return, not a %.20q", r.Ev)
	}
	if (r.Validity != 0 || r.ValidUntil != 0) && (r.Op != OpAcquire || r.Ev != Return || !r.OK) {
		return fmt.Errorf("a validity on a %s %s: only a granted acquire's return has one", r.Op, r.Ev)
	}
	if r.Validity < 0 || r.ValidUntil < 0 {
		return fmt.Errorf("negative validity %d, valid until %d", r.Validity, r.ValidUntil)
	}
	if r.Client < 0 || r.Client >= clients {
		return fmt.Errorf("client %d out of range", r.Client)
	}
	return nil
}

// FaultRecord is one fault the nemesis injected, with its wall times.
type FaultRecord struct {
	Fault  Fault  `json:"fault"`
	Target string `json:"target"` // "c1", or the service's name
	Start  int64  `json:"start"`  // UnixNano when it began
	End    int64  `json:"end"`    // UnixNano when it was undone (= Start for a point fault)
	Detail string `json:"detail"`
	// Error is why the fault could not be injected or undone ("" when it
	// was); such a run is a harness error.
	Error string `json:"error,omitempty"`
}

// ClientExit is how a client process ended.
type ClientExit struct {
	Client int    `json:"client"`
	Wall   int64  `json:"wall"`   // UnixNano when the harness saw it end
	Status string `json:"status"` // "exit 0", "signal: killed", ...
	Stderr string `json:"stderr,omitempty"`
}

// History is everything a run recorded.
type History struct {
	Start   int64 `json:"start"` // UnixNano: the run's time 0
	End     int64 `json:"end"`
	Clients int   `json:"clients"`
	// Unchecked says the clients did not check their grants' validity
	// (the unchecked client behaviour): their beliefs last until they
	// release. false for the checked client, the models' client.
	Unchecked bool          `json:"unchecked,omitempty"`
	Records   []Record      `json:"records"`
	Faults    []FaultRecord `json:"faults"`
	Exits     []ClientExit  `json:"exits"`
}

// Sort orders the records by wall time, calls before returns at a tie,
// then by client: the order the judge and the pictures read them in.
func (h *History) Sort() {
	slices.SortStableFunc(h.Records, func(a, b Record) int {
		return cmp.Or(cmp.Compare(a.Wall, b.Wall), cmp.Compare(phaseRank(a.Ev), phaseRank(b.Ev)), cmp.Compare(a.Client, b.Client))
	})
}

func phaseRank(ev string) int {
	if ev == Call {
		return 0
	}
	return 1
}

// WriteJSONL writes the history as a history file (File.WriteJSONL)
// with nothing known besides its records.
func (h *History) WriteJSONL(w io.Writer) error {
	return (&File{History: *h}).WriteJSONL(w)
}

// WriteFaults writes the fault log for people, one fault a line, times
// since the run's start.
func (h *History) WriteFaults(w io.Writer) error {
	if len(h.Faults) == 0 {
		_, err := fmt.Fprintln(w, "no fault injected")
		return err
	}
	for _, f := range h.Faults {
		line := fmt.Sprintf("%s  %-14s %-8s %s", h.since(f.Start), f.Fault, f.Target, f.Detail)
		if f.End > f.Start {
			line += fmt.Sprintf(" (until %s, %v)", h.since(f.End), time.Duration(f.End-f.Start).Round(time.Millisecond))
		}
		if f.Error != "" {
			line += " — error: " + f.Error
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}

func (h *History) since(wall int64) string {
	return fmt.Sprintf("%9.3fs", time.Duration(wall-h.Start).Seconds())
}

// ClientName is client i's lane name: c1 for 0, as impl names clients.
func ClientName(i int) string { return fmt.Sprintf("c%d", i+1) }

// OneLine keeps the first line of s, at most n bytes of it: how a
// record or a fault log keeps an error.
func OneLine(s string, n int) string {
	for i := range len(s) {
		if s[i] == '\n' || s[i] == '\r' {
			s = s[:i]
			break
		}
	}
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
