package nemesis

import (
	"context"
	"time"

	"github.com/fencelab/fencelab/live/history"
)

// Event is one step of a client's progress the run tells the nemesis
// of, as its records arrive: what triggers a scripted fault and what
// ends one (FaultEvent.Until).
type Event struct {
	Client int
	Kind   string
}

// Event kinds.
const (
	// EventGrant: an acquire returned a grant.
	EventGrant = "grant"
	// EventRead: a read was accepted.
	EventRead = "read"
	// EventWriteGate and EventReadGate: the client passed its validity
	// check for a write (a read), recorded the call, and waits at its
	// gate before sending it.
	EventWriteGate = "write-gate"
	EventReadGate  = "read-gate"
)

// GateOf is the operation ("write", "read") whose gate trigger waits at,
// or "" when the trigger gates nothing: the run's clients wait at a gate
// before every such operation, and the run opens every gate at once but
// the trigger's, which the nemesis opens.
func GateOf(trigger string) string {
	switch trigger {
	case TriggerAtWriteGate:
		return history.OpWrite
	case TriggerAtReadGate:
		return history.OpRead
	}
	return ""
}

// GateEvent is the event a client waiting at its gate before op makes.
func GateEvent(op string) string {
	if op == history.OpRead {
		return EventReadGate
	}
	return EventWriteGate
}

// triggerEvent is the event that fires trigger; false for a timed one.
func triggerEvent(trigger string) (string, bool) {
	switch trigger {
	case TriggerAfterRead:
		return EventRead, true
	case TriggerAtWriteGate:
		return EventWriteGate, true
	case TriggerAtReadGate:
		return EventReadGate, true
	}
	return "", false
}

// untilEvent is the event kind Until waits for.
func untilEvent(until string) string {
	if until == UntilOtherRead {
		return EventRead
	}
	return EventGrant
}

// Gate is a client process whose gate the nemesis can open: it sends
// the operation it holds.
type Gate interface {
	OpenGate() error
}

// await waits for the first event match accepts and returns its client;
// false when ctx ended or the run's events did.
func (n *Nemesis) await(ctx context.Context, match func(Event) bool) (int, bool) {
	for {
		select {
		case ev, ok := <-n.events:
			if !ok {
				return -1, false
			}
			if match(ev) {
				return ev.Client, true
			}
		case <-ctx.Done():
			return -1, false
		}
	}
}

// hold waits out fault e: until its Until event from a client other than
// the trigger's, at most limit; without Until, limit itself.
func (n *Nemesis) hold(ctx context.Context, e FaultEvent, limit time.Duration) {
	hctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	if e.Until == "" {
		<-hctx.Done()
		return
	}
	want, subject := untilEvent(e.Until), n.subject
	n.await(hctx, func(ev Event) bool { return ev.Kind == want && ev.Client != subject })
}

// openGates opens the gate of every client the nemesis holds (after it
// resumed them): on every path, so no client waits at its gate to its
// deadline.
func (n *Nemesis) openGates() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, c := range n.gated {
		if c >= 0 && c < len(n.clients) {
			if g, ok := n.clients[c].(Gate); ok {
				g.OpenGate()
			}
		}
	}
	n.gated = nil
}
