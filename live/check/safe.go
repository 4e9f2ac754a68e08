package check

import (
	"fmt"

	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/verdict"
)

// A setup may declare that its service is safe against a fault
// (setup.Setup.Safe: the mechanism, in words). The judge does not take
// the word for it: witness reads the run's own history for the
// mechanism at work, and only a run with that witness, where the fault
// did not take effect and nothing was violated, counts as "safe"; a run
// without it stays inconclusive.

// witness says how the run shows the service keeping the lock safe
// through one of its faults ("" when no fault of the log shows it):
//   - restart: a holder believed from before the restart until after the
//     service was back, released the lock itself (its release returned),
//     and no other client was granted before that release, but one was
//     after it: the lock outlived the restart and passed on only when its
//     holder gave it up;
//   - server pause: a holder believed when the service stopped, its grant's
//     validity ran out while the service was stopped, and no other client
//     was granted while it believed, but one was after the service
//     resumed: the waiter stayed queued through the whole pause;
//   - delay, blackhole: the holder whose links the fault cut (or slowed)
//     ended its section during the fault, its release did not come back
//     within its validity (lost, refused or late), and no other client was
//     granted while it believed, but one was once that validity had ended:
//     a fixed lease, whose validity the holder counts from before its
//     acquire was sent, ran out at the server by itself, and no message
//     the network held stretched it.
//
// Other faults have no such witness: a client pause or a clock step acts
// on the very timing safety rests on.
//
// In either, the resource refused none of the holder's operations while
// it believed: a refusal is the store seeing the lock lost (etcd's
// lock-guarded store found the holder's key gone after a restart at load
// 15, the waiter's session lost as well, so nobody else was granted).
func witness(h *history.History, bs []Belief) string {
	for _, f := range h.Faults {
		if f.Error != "" {
			continue
		}
		if w := witnessOf(f, h, bs); w != "" {
			return w
		}
	}
	return ""
}

// witnessOf is witness for one fault.
func witnessOf(f history.FaultRecord, h *history.History, bs []Belief) string {
	at := func(ns int64) string { return seconds(ns - h.Start) }
	for _, x := range bs {
		var ok bool
		switch f.Fault {
		case history.FaultRestartKeep, history.FaultRestartWipe:
			ok = x.Start < f.Start && x.End > f.End && x.Released != 0
		case history.FaultServerPause:
			ok = heldAt(x, f.Start) && f.Start <= x.Until && x.Until <= f.End
		case history.FaultDelay, history.FaultBlackhole:
			ok = isTarget(f, x) && heldAt(x, f.Start) && x.End <= f.End && (x.Released == 0 || x.Released > x.Until)
		}
		if !ok || refusedWhile(h, x) {
			continue
		}
		// Nobody else granted while x believed once the fault began; the
		// first granted after x let go, after the fault had ended.
		next, clash := Belief{}, false
		for _, y := range bs {
			if y.Client == x.Client || y.Start < f.Start {
				continue
			}
			if y.Start < x.End {
				clash = true
				break
			}
			if next.Start == 0 || y.Start < next.Start {
				next = y
			}
		}
		// The next grant comes after the service is back; after a fault of
		// one holder's links, which leaves the service up, once the lost
		// holder's validity has ended.
		after := f.End
		if f.Fault == history.FaultDelay || f.Fault == history.FaultBlackhole {
			after = x.Until
		}
		if clash || next.Start == 0 || next.Start < after {
			continue
		}
		who, other := history.ClientName(x.Client), history.ClientName(next.Client)
		switch f.Fault {
		case history.FaultDelay, history.FaultBlackhole:
			return fmt.Sprintf("%s's release, sent at %s during the %s of its links (%s to %s), did not come back within its validity (until %s); %s was granted only at %s, once the lease had run out",
				who, at(x.End), f.Fault, at(f.Start), at(f.End), at(x.Until), other, at(next.Start))
		case history.FaultServerPause:
			return fmt.Sprintf("%s's validity ran out at %s while the service was paused (%s to %s); %s had stopped believing at %s, and %s was granted only at %s, after the pause",
				who, at(x.Until), at(f.Start), at(f.End), who, at(x.End), other, at(next.Start))
		}
		return fmt.Sprintf("%s held the lock from %s through the restart (%s to %s) and released it at %s; %s was granted only at %s",
			who, at(x.Start), at(f.Start), at(f.End), at(x.End), other, at(next.Start))
	}
	return ""
}

// SafeBy reports whether the run's verdict v counts toward a setup's
// claim that its service is safe against the fault: the run shows the
// mechanism at work (Witness), the fault did not take effect, and v is
// the Holds the judge made inconclusive for that alone — never a
// violation, nor an Unknown of its own (a check that could not decide).
func (j *Judgement) SafeBy(v verdict.Verdict) bool {
	return j.Witness != "" && !j.TookEffect && v.Status == verdict.Unknown && v.Detail == Inconclusive
}

// refusedWhile reports whether the resource refused a read or write of
// x's client made while x believed.
func refusedWhile(h *history.History, x Belief) bool {
	call := map[string]int64{}
	for _, r := range h.Records {
		if r.Client != x.Client || (r.Op != history.OpRead && r.Op != history.OpWrite) {
			continue
		}
		if r.Ev == history.Call {
			call[r.Op] = r.Wall
			continue
		}
		if c := call[r.Op]; !r.OK && r.Error == "" && c >= x.Start && c <= x.End {
			return true
		}
	}
	return false
}
