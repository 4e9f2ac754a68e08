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

// queue is a binary min-heap of events by (at, seq). The heap holds
// 16-byte keys — the time, and the sequence number and the event's slot
// packed in one word — while the events themselves stay put in a slab of
// reused slots: sifting moves keys, not 70-byte events. container/heap
// would box every event in an interface (an allocation per push); this
// typed heap allocates nothing once it has grown to a run's working size.
// seq is unique, so the order is total and a run never depends on how the
// heap happens to break ties.
type queue struct {
	heap  []qkey
	slots []event
	free  []uint32
	seq   uint64
}

// qkey orders an event: by at, then by seq (the high 32 bits of key); the
// low 32 bits are the event's slot.
type qkey struct {
	at  int64
	key uint64
}

func (q *queue) reset() {
	q.heap, q.slots, q.free, q.seq = q.heap[:0], q.slots[:0], q.free[:0], 0
}

func (q *queue) len() int { return len(q.heap) }

func less(a, b qkey) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.key < b.key
}

// push adds e, stamping it with the next sequence number.
func (q *queue) push(e event) {
	if q.seq >= 1<<32 {
		panic("sim: more than 2^32 events in one run") // MaxSteps keeps runs far below
	}
	e.seq = q.seq
	var slot uint32
	if n := len(q.free); n > 0 {
		slot = q.free[n-1]
		q.free = q.free[:n-1]
		q.slots[slot] = e
	} else {
		slot = uint32(len(q.slots))
		q.slots = append(q.slots, e)
	}
	k := qkey{at: e.at, key: q.seq<<32 | uint64(slot)}
	q.seq++
	q.heap = append(q.heap, k)
	h := q.heap
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !less(k, h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = k
}

// pop removes and returns the earliest event.
func (q *queue) pop() event {
	h := q.heap
	top := h[0]
	last := len(h) - 1
	k := h[last]
	h = h[:last]
	q.heap = h
	if last > 0 {
		i := 0
		for {
			l := 2*i + 1
			if l >= last {
				break
			}
			m := l
			if r := l + 1; r < last && less(h[r], h[l]) {
				m = r
			}
			if !less(h[m], k) {
				break
			}
			h[i] = h[m]
			i = m
		}
		h[i] = k
	}
	slot := uint32(top.key)
	q.free = append(q.free, slot)
	return q.slots[slot]
}
