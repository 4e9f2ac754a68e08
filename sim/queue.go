package sim

import (
	"cmp"
	"math"
	"slices"

	"github.com/fencelab/fencelab/impl"
)

// evKind is what a queued event does.
type evKind uint8

const (
	evStart   evKind = iota + 1 // a client starts its workload
	evDeliver                   // msg arrives at node
	evTimer                     // node's timer fires (the queue's timer firings only)
	evFault                     // schedule fault number fault takes effect at node
	evResume                    // node's pause that began with fault ends
)

// event is one entry of the queue, stored by value so that the queue
// allocates nothing once it has grown to a run's working size.
type event struct {
	at    int64  // global virtual time, ns
	seq   uint64 // insertion order: the deterministic tie-break
	msg   impl.Message
	fault int32 // evFault, evResume: index in the schedule
	kind  evKind
	node  impl.NodeID
	timer impl.TimerKind
}

// queue is a binary min-heap of events by (at, seq). The heap holds
// 16-byte keys — the time, and the sequence number and the event's slot
// packed in one word — while the events themselves stay put in a slab of
// reused slots: sifting moves keys, not 64-byte events. container/heap
// would box every event in an interface (an allocation per push); this
// typed heap allocates nothing once it has grown to a run's working size.
// seq is unique, so the order is total and a run never depends on how the
// heap happens to break ties.
//
// Timer firings are kept apart (timers), keyed the same way with the
// timer's slot (node × kind) in place of an event slot, and indexed
// (tpos), so that a timer set again, cancelled or moved by a clock step
// has its firing taken out at once. They are few — 3.25 on average under
// the default workload and faults, 6 at most — so they are not a heap but
// a short list sorted latest first: popping the earliest is taking the
// last, with no search, and a timer set (mostly far ahead: a lease, a
// validity window) moves the few earlier ones up one, a loop whose end is
// the only branch that is hard to predict. Left in the queue, stale until
// their time, they were most of a run's pending events: every section
// leaves a lease and a validity timer cancelled with most of a TTL to run.
// The faults' events — a pause's or a crash's start and end, a clock
// step — are all known before the run starts and are never taken out, so
// they are not in the heap either but in fixed, sorted once, popped in
// turn: they were three quarters of the heap (1.9 of its 2.5 events on
// average under the default faults), and every sift passed over them.
// Pop takes the earliest of the three — the heap's top, the last firing
// and the next fixed event — so the order of the live
// events is exactly that of one queue holding everything; what a stale
// firing did when it was popped and skipped is kept in stale (see
// staleLeft).
type queue struct {
	heap  []qkey
	slots []event
	free  []uint32
	seq   uint64
	// held is 1 + the slot of the event pop returned last, 0 if none: it
	// is freed at the next pop. firing is where pop puts a timer firing.
	held   uint32
	firing event

	// fixed are the events queued by pushFixed before the run's first
	// pop, in (at, seq) order once sortFixed has run; those before
	// nextFixed have been popped.
	fixed     []event
	nextFixed int

	timers []qkey  // latest first: the earliest is the last
	tpos   []int32 // per timer slot: its firing's index in timers, -1 if none is queued
	// last is the key of the last event popped; stale the greatest key of
	// a timer firing taken out (hasStale: there is one).
	last     qkey
	stale    qkey
	hasStale bool
}

// qkey orders an event: by at, then by seq (the high 32 bits of key); the
// low 32 bits are the event's slot.
type qkey struct {
	at  int64
	key uint64
}

// reset empties q for a run with timerSlots timers.
func (q *queue) reset(timerSlots int) {
	q.heap, q.slots, q.free, q.seq, q.held = q.heap[:0], q.slots[:0], q.free[:0], 0, 0
	q.fixed, q.nextFixed = q.fixed[:0], 0
	q.timers = q.timers[:0]
	q.tpos = resize(q.tpos, timerSlots, -1)
	q.last, q.stale, q.hasStale = qkey{at: math.MinInt64}, qkey{}, false // last: before any event
}

func (q *queue) len() int { return len(q.heap) + len(q.timers) + len(q.fixed) - q.nextFixed }

func less(a, b qkey) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.key < b.key
}

// push adds e, stamping it with the next sequence number.
func (q *queue) push(e event) {
	p := q.add(e.at)
	e.seq = p.seq
	*p = e
}

// pushFixed adds e, stamping it with the next sequence number, to the
// events that are never taken out; sortFixed must run after the last
// and before the first pop.
func (q *queue) pushFixed(e event) {
	e.seq = q.nextSeq()
	q.fixed = append(q.fixed, e)
}

// sortFixed puts the fixed events in the order pop takes them: by (at, seq).
func (q *queue) sortFixed() {
	slices.SortFunc(q.fixed, func(a, b event) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
}

// add queues a new event at at, stamped with the next sequence number, and
// returns it for the caller to fill in: built in place, an event is not
// copied (a copy of a struct just written field by field stalls on the
// stores it must read back).
func (q *queue) add(at int64) *event {
	seq := q.nextSeq()
	var slot uint32
	if n := len(q.free); n > 0 {
		slot = q.free[n-1]
		q.free = q.free[:n-1]
	} else {
		slot = uint32(len(q.slots))
		q.slots = append(q.slots, event{})
	}
	q.heap = append(q.heap, qkey{at: at, key: seq<<32 | uint64(slot)})
	siftUp(q.heap, len(q.heap)-1)
	e := &q.slots[slot]
	*e = event{at: at, seq: seq}
	return e
}

// nextSeq is the next sequence number: events and timer firings draw from
// one count, in the order they are queued.
func (q *queue) nextSeq() uint64 {
	if q.seq >= 1<<32 {
		panic("sim: more than 2^32 events in one run") // MaxSteps keeps runs far below
	}
	q.seq++
	return q.seq - 1
}

// setTimer queues the firing of timer slot t at at, in place of the one
// queued for it, if any.
func (q *queue) setTimer(t int, at int64) {
	k := qkey{at: at, key: q.nextSeq()<<32 | uint64(t)}
	if i := q.tpos[t]; i >= 0 {
		q.staled(q.timers[i])
		q.removeTimer(int(i))
	}
	// Insert in order, latest first: the firings earlier than k, at the
	// end, move up one. A timer is mostly set far ahead (a lease, a
	// validity window), so k goes near the front.
	h := append(q.timers, k)
	i := len(h) - 1
	for ; i > 0 && less(h[i-1], k); i-- {
		h[i] = h[i-1]
		q.tpos[uint32(h[i].key)] = int32(i)
	}
	h[i] = k
	q.tpos[t] = int32(i)
	q.timers = h
}

// staled notes that the timer firing k was taken out before its time (see
// staleLeft).
func (q *queue) staled(k qkey) {
	if !q.hasStale || less(q.stale, k) {
		q.stale, q.hasStale = k, true
	}
}

// cancelTimer takes out the firing queued for timer slot t, if any.
func (q *queue) cancelTimer(t int) {
	i := int(q.tpos[t])
	if i < 0 {
		return
	}
	q.staled(q.timers[i])
	q.removeTimer(i)
}

// removeTimer takes the firing at index i out of timers: the earlier ones
// after it move down one.
func (q *queue) removeTimer(i int) {
	h := q.timers
	q.tpos[uint32(h[i].key)] = -1
	for ; i < len(h)-1; i++ {
		h[i] = h[i+1]
		q.tpos[uint32(h[i].key)] = int32(i)
	}
	q.timers = h[:len(h)-1]
}

// staleLeft reports whether a timer firing taken out would still be queued
// if stale firings stayed in the queue until their time, as they once did
// (the events after the last one popped), and the time of the latest. A
// stale firing popped set the run's time and could end the run as a stall,
// so a run without live events left plays them out (Runner.runOn) and
// ends as it did.
func (q *queue) staleLeft() (int64, bool) {
	if !q.hasStale || !less(q.last, q.stale) {
		return 0, false
	}
	return q.stale.at, true
}

// siftUp moves h[i] up to its place.
func siftUp(h []qkey, i int) {
	k := h[i]
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

// siftDown moves h[i] down to its place.
func siftDown(h []qkey, i int) {
	n := len(h)
	k := h[i]
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && less(h[r], h[l]) {
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

// pop removes and returns the earliest event or timer firing, in place:
// e stays valid, and its slot unused, until the next pop. For a firing,
// timer is its timer slot and only e.at and e.seq are set; for any other
// event timer is -1.
func (q *queue) pop() (e *event, timer int) {
	if q.held > 0 {
		q.free = append(q.free, q.held-1)
		q.held = 0
	}
	if q.nextFixed < len(q.fixed) {
		// Is the next fixed event the earliest? The sequence number in
		// the key's high bits orders it against the others exactly.
		f := &q.fixed[q.nextFixed]
		k := qkey{at: f.at, key: f.seq << 32}
		if (len(q.heap) == 0 || less(k, q.heap[0])) && (len(q.timers) == 0 || less(k, q.timers[len(q.timers)-1])) {
			q.nextFixed++
			q.last = k
			return f, -1
		}
	}
	if n := len(q.timers) - 1; n >= 0 && (len(q.heap) == 0 || less(q.timers[n], q.heap[0])) {
		k := q.timers[n]
		q.tpos[uint32(k.key)] = -1
		q.timers = q.timers[:n]
		q.last = k
		q.firing = event{at: k.at, seq: k.key >> 32}
		return &q.firing, int(uint32(k.key))
	}
	h := q.heap
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	q.heap = h[:last]
	if last > 0 {
		siftDown(q.heap, 0)
	}
	q.last = top
	slot := uint32(top.key)
	q.held = slot + 1
	return &q.slots[slot], -1
}
