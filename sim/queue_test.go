package sim

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestTimerQueueIsOneQueueWithStaleFirings: the queue with its timer
// firings in a list of their own, taken out when a timer is set again or
// cancelled, pops the live events and firings in exactly the order of one
// queue that keeps every firing until its time and skips the stale ones,
// the fixed events (the faults', pushFixed) among them;
// and staleLeft says whether that queue would still hold stale firings
// when nothing live is left, and the latest one's time.
func TestTimerQueueIsOneQueueWithStaleFirings(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		const timers = 4
		type ref struct {
			at, seq int64
			timer   int // -1: an event
			id      int32
			stale   bool
			popped  bool
		}
		var q queue
		q.reset(timers)
		var all []*ref               // the one queue, everything ever queued
		live := make([]*ref, timers) // per timer, its queued firing
		seq, id := int64(0), int32(0)
		popRef := func() *ref { // the earliest entry not popped yet, stale or not
			var best *ref
			for _, r := range all {
				if !r.popped && (best == nil || r.at < best.at || r.at == best.at && r.seq < best.seq) {
					best = r
				}
			}
			return best
		}
		// The faults' events, queued before the run starts.
		for range rapid.IntRange(0, 6).Draw(t, "fixed") {
			at := rapid.Int64Range(0, 30).Draw(t, "fixedAt")
			all = append(all, &ref{at: at, seq: seq, timer: -1, id: id})
			q.pushFixed(event{at: at, fault: id})
			seq++
			id++
		}
		q.sortFixed()
		now := int64(0)
		for range rapid.IntRange(1, 60).Draw(t, "actions") {
			switch rapid.IntRange(0, 3).Draw(t, "action") {
			case 0: // an event
				at := now + rapid.Int64Range(0, 5).Draw(t, "in")
				all = append(all, &ref{at: at, seq: seq, timer: -1, id: id})
				q.push(event{at: at, fault: id})
				seq++
				id++
			case 1: // set a timer, replacing its firing
				k := rapid.IntRange(0, timers-1).Draw(t, "timer")
				at := now + rapid.Int64Range(0, 5).Draw(t, "after")
				if live[k] != nil {
					live[k].stale = true
				}
				live[k] = &ref{at: at, seq: seq, timer: k}
				all = append(all, live[k])
				q.setTimer(k, at)
				seq++
			case 2: // cancel a timer
				k := rapid.IntRange(0, timers-1).Draw(t, "timer")
				if live[k] != nil {
					live[k].stale = true
					live[k] = nil
				}
				q.cancelTimer(k)
			case 3: // pop the next live one
				if q.len() == 0 {
					return // the run would end here, as the check below says
				}
				var want *ref
				for r := popRef(); r != nil; r = popRef() {
					r.popped = true
					if !r.stale {
						want = r
						break
					}
				}
				require.NotNil(t, want, "the queue has a live entry the reference has not")
				e, timer := q.pop()
				require.Equal(t, want.at, e.at)
				require.Equal(t, want.timer, timer)
				if timer < 0 {
					require.Equal(t, want.id, e.fault)
				} else {
					live[timer] = nil
				}
				now = e.at
			}
			// What a queue keeping stale firings would still hold beyond
			// the live ones.
			var left []int64
			for _, r := range all {
				if !r.popped && r.stale {
					left = append(left, r.at)
				}
			}
			if q.len() == 0 {
				at, ok := q.staleLeft()
				require.Equal(t, len(left) > 0, ok, "stale firings left")
				if ok {
					require.Equal(t, slices.Max(left), at)
				}
			}
		}
	})
}

func TestTimerQueueReplacesAndCancels(t *testing.T) {
	var q queue
	q.reset(3)
	q.setTimer(0, 10)
	q.setTimer(1, 5)
	q.setTimer(0, 3) // replaces the firing at 10
	q.setTimer(2, 7)
	q.cancelTimer(2)
	q.push(event{at: 4})
	var got [][2]int64
	for q.len() > 0 {
		e, timer := q.pop()
		got = append(got, [2]int64{e.at, int64(timer)})
	}
	assert.Equal(t, [][2]int64{{3, 0}, {4, -1}, {5, 1}}, got)
	at, ok := q.staleLeft()
	assert.True(t, ok, "the firing at 10, taken out, would still be queued")
	assert.Equal(t, int64(10), at)
}

// TestPoppedEventStaysUntilNextPop: the event pop returns is the queue's
// own slot, and what the step that handles it queues must not overwrite it.
func TestPoppedEventStaysUntilNextPop(t *testing.T) {
	var q queue
	q.reset(0)
	q.push(event{at: 1, fault: 1})
	e, _ := q.pop()
	for i := range 5 {
		q.push(event{at: int64(10 + i), fault: int32(10 + i)})
	}
	assert.Equal(t, int64(1), e.at)
	assert.Equal(t, int32(1), e.fault)
	next, _ := q.pop()
	assert.Equal(t, int32(10), next.fault)
}
