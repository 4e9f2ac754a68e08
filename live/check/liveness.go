package check

import (
	"fmt"
	"strings"
	"time"

	"github.com/fencelab/fencelab/bounds"
	"github.com/fencelab/fencelab/live/history"
)

// kills are the moments the nemesis killed each client (a holder's death,
// history.FaultHolderDeath): the end of its fault record, when the kill
// had returned and the client could act no more.
func kills(h *history.History) map[int]int64 {
	out := map[int]int64{}
	for _, f := range h.Faults {
		if f.Fault != history.FaultHolderDeath || f.Error != "" || strings.Contains(f.Detail, "nothing to kill") {
			continue
		}
		for c := range h.Clients {
			if history.ClientName(c) == f.Target {
				out[c] = f.End
			}
		}
	}
	return out
}

// nextGrant is the first belief of a client other than c granted at or
// after t.
func nextGrant(bs []Belief, c int, t int64) (Belief, bool) {
	var first Belief
	found := false
	for _, y := range bs {
		if y.Client != c && y.Start >= t && (!found || y.Start < first.Start) {
			first, found = y, true
		}
	}
	return first, found
}

// Freedom is what a setup promises of a dead holder's lock: another
// client is granted within Bound of the death (Why names the service's
// documented mechanism); setup.Setup.Freedom gives it.
type Freedom struct {
	Bound time.Duration
	Why   string
}

// MeasureLiveness reads one judged run's liveness figures from its
// history and beliefs (Judgement.Beliefs): for every client the nemesis
// killed while it held the lock, kill→grant — the kill to the next grant
// to another client — and LockFreedAfterHolderDeath against free.Bound
// (violated when later, or when a client asked for the lock after the
// kill and was never granted within the run; unknown when none asked);
// for every client paused while it held the lock and followed by another
// client, the blind window (bounds.LiveRun.Blind): its belief's end less
// the latest moment the service can have let go — the next grant, or,
// for a lease with a fixed end (leased), the TTL after the holder's grant
// returned, the key having been set before that. The longest validity a
// grant reported and the pauses' lengths come with them.
func MeasureLiveness(h *history.History, bs []Belief, ttl time.Duration, leased bool, free Freedom) bounds.LiveRun {
	var r bounds.LiveRun
	t0 := h.Start
	at := func(ns int64) string { return seconds(ns - t0) }
	for _, rec := range h.Records {
		if rec.Op == history.OpAcquire && rec.Ev == history.Return && rec.OK {
			r.Validity = max(r.Validity, rec.Validity)
		}
	}
	var notes []string
	for _, f := range h.Faults {
		if f.Error != "" {
			continue
		}
		switch f.Fault {
		case history.FaultClientPause:
			r.Pauses = append(r.Pauses, f.End-f.Start)
			x, ok := heldWhen(bs, f, f.Start)
			if !ok {
				continue
			}
			y, ok := nextGrant(bs, x.Client, f.Start)
			if !ok {
				continue
			}
			let, by := y.Start, fmt.Sprintf("%s's grant at %s", history.ClientName(y.Client), at(y.Start))
			if lease := x.Start + int64(ttl); leased && lease < let {
				let, by = lease, fmt.Sprintf("the lease's end, %v after %s's grant returned at %s", ttl, history.ClientName(x.Client), at(x.Start))
			}
			if r.Blind == nil || x.End-let > *r.Blind {
				blind := x.End - let
				r.Blind = &blind
			}
			notes = append(notes, fmt.Sprintf("blind window %v: %s, paused %s to %s, believed until %s; the service had let go by %s (%s)",
				time.Duration(x.End-let), history.ClientName(x.Client), at(f.Start), at(f.End), at(x.End), at(let), by))
		case history.FaultHolderDeath:
			x, ok := heldWhen(bs, f, f.Start)
			if !ok {
				continue
			}
			if y, ok := nextGrant(bs, x.Client, f.End); ok {
				d := y.Start - f.End
				r.KillToGrant = &d
				r.Freed = bounds.FreedHolds
				if time.Duration(d) > free.Bound {
					r.Freed = bounds.FreedViolated
				}
				notes = append(notes, fmt.Sprintf("kill→grant %v: %s killed at %s while it held the lock, %s granted at %s; bound %v (%s): %s",
					time.Duration(d), history.ClientName(x.Client), at(f.End), history.ClientName(y.Client), at(y.Start), free.Bound, free.Why, r.Freed))
				continue
			}
			if waiter, ok := askedAfter(h, x.Client, f.End); ok {
				r.Freed = bounds.FreedViolated
				notes = append(notes, fmt.Sprintf("%s killed at %s while it held the lock; %s asked for it and was never granted within the run (to %s): violated",
					history.ClientName(x.Client), at(f.End), history.ClientName(waiter), at(h.End)))
				continue
			}
			r.Freed = bounds.FreedUnknown
			notes = append(notes, fmt.Sprintf("%s killed at %s while it held the lock; no other client asked for it after: unknown", history.ClientName(x.Client), at(f.End)))
		}
	}
	r.Detail = strings.Join(notes, "; ")
	return r
}

// heldWhen is the belief of fault f's target client that held the lock
// (granted, not yet ended) at t.
func heldWhen(bs []Belief, f history.FaultRecord, t int64) (Belief, bool) {
	for _, x := range bs {
		if isTarget(f, x) && x.Start <= t && t <= x.End {
			return x, true
		}
	}
	return Belief{}, false
}

// askedAfter finds a client other than c that was asking for the lock
// at or after t: an acquire called whose return came after t, or never.
func askedAfter(h *history.History, c int, t int64) (int, bool) {
	asking := map[int]bool{}
	for _, r := range h.Records {
		if r.Client == c || r.Op != history.OpAcquire {
			continue
		}
		switch {
		case r.Ev == history.Call && r.Wall >= t:
			return r.Client, true
		case r.Ev == history.Call:
			asking[r.Client] = true
		case r.Ev == history.Return && r.Wall >= t && asking[r.Client]:
			return r.Client, true
		default:
			delete(asking, r.Client)
		}
	}
	for w := range asking {
		return w, true
	}
	return 0, false
}
