// Package linearizability judges the histories the simulator records with
// Porcupine: a fenced-register model checks that the resource behaved as
// its fencing mode specifies, and an atomic-increment model checks that the
// critical sections took effect as if each ran alone — a lost update is not
// linearizable.
//
// One check is one call: CheckSections or CheckResource, always with a
// timeout, giving a Result whose Verdict (in package verdict's vocabulary,
// under the property SectionsLinearizable or RegisterLinearizable) Holds,
// is Violated or is Unknown (the search ran out of time; never to be read
// as Holds). Result.WriteHTML draws
// the history, its linearization (or how far one got) and the faults that
// explain it.
//
// Porcupine reads [Call, Return] as a closed interval, so two operations
// that touch at one virtual nanosecond count as concurrent, even two of the
// same client. That can only make a check more permissive, never report a
// correct history Illegal; a recorder that wants such operations ordered
// gives them distinct times.
package linearizability

import "github.com/fencelab/fencelab/impl"

// Times are virtual nanoseconds since the start of a run. Every operation
// and section must have Call <= Return and Client >= 0; the checks panic
// otherwise, because such a history is a bug of its recorder, not a
// behaviour of the system under test.

// ResourceOp is one operation on the resource as a client saw it: called
// when the client sent it, returned when the reply reached the client. If
// the reply never reaches the client, the recorder (who sees the whole
// system) sets Return to the moment the resource handled the operation,
// which is where it took effect.
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
//
// Committed must mean "the resource accepted the section's write", which
// is what the client learns from the write's reply (impl's client never
// abandons a write it has sent). A section counted as aborted although its
// write landed would make the check disagree with NoLostUpdate.
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
	End    int64 // End < Start is read as a point in time at Start
	Text   string
	Tag    string // short category: "pause", "spike", "clock", "expiry"
}
