package sim

import "github.com/fencelab/fencelab/impl"

// evKind is what a queued event does.
type evKind uint8

const (
	evStart   evKind = iota + 1 // a client starts its workload
	evDeliver                   // msg arrives at node
	evTimer                     // node's timer fires (if gen is still current)
	evFault                     // schedule fault number fault takes effect at node
	evResume                    // node's pause that began with fault ends
)

// event is one entry of the queue, stored by value so that the queue
// allocates nothing once it has grown to a run's working size.
type event struct {
	at    int64  // global virtual time, ns
	seq   uint64 // insertion order: the deterministic tie-break
	msg   impl.Message
	gen   uint32 // evTimer: the timer's generation when it was set
	fault int32  // evFault, evResume: index in the schedule
	kind  evKind
	node  impl.NodeID
	timer impl.TimerKind
}

// queue is a binary min-heap of events by (at, seq). container/heap would
// box every event in an interface (an allocation per push); this typed
// heap keeps the events inline. seq is unique, so the order is total and a
// run never depends on how the heap happens to break ties.
type queue struct {
	ev  []event
	seq uint64
}

func (q *queue) reset() { q.ev, q.seq = q.ev[:0], 0 }

func (q *queue) len() int { return len(q.ev) }

func less(a, b *event) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// push adds e, stamping it with the next sequence number.
func (q *queue) push(e event) {
	e.seq = q.seq
	q.seq++
	q.ev = append(q.ev, e)
	i := len(q.ev) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !less(&q.ev[i], &q.ev[p]) {
			break
		}
		q.ev[i], q.ev[p] = q.ev[p], q.ev[i]
		i = p
	}
}

// pop removes and returns the earliest event.
func (q *queue) pop() event {
	top := q.ev[0]
	last := len(q.ev) - 1
	q.ev[0] = q.ev[last]
	q.ev = q.ev[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= last {
			break
		}
		m := l
		if r := l + 1; r < last && less(&q.ev[r], &q.ev[l]) {
			m = r
		}
		if !less(&q.ev[m], &q.ev[i]) {
			break
		}
		q.ev[i], q.ev[m] = q.ev[m], q.ev[i]
		i = m
	}
	return top
}
