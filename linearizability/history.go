// Package linearizability judges the histories the simulator records with
// Porcupine: a fenced-register model checks that the resource behaved as
// its fencing mode specifies, and an atomic-increment model checks that the
// critical sections took effect as if each ran alone — a lost update is not
// linearizable.
package linearizability

import "github.com/fencelab/fencelab/impl"

// Times are virtual nanoseconds since the start of a run.

// ResourceOp is one operation on the resource as a client saw it: called
// when the client sent it, returned when the reply reached the client.
type ResourceOp struct {
	Client   int // 0-based client index
	Kind     impl.OpKind
	Token    uint64
	Value    int64 // the value written, or the value read when accepted
	Accepted bool
	Call     int64
	Return   int64
}

// Section is one critical section of a client: called when it sent its
// read, returned when it learned the outcome (its write's reply, or the
// moment it gave the section up). Committed sections act as one atomic
// increment that returned Read; aborted ones have no effect.
type Section struct {
	Client    int
	Token     uint64
	Read      int64
	Committed bool
	Call      int64
	Return    int64
}

// Annotation marks something that explains a history in the visualization:
// a pause, a latency spike, a clock jump, a lease expiry.
type Annotation struct {
	Client int // the client lane it belongs to, or -1 for the service
	Start  int64
	End    int64
	Text   string
	Tag    string // short category: "pause", "spike", "clock", "expiry"
}
