package check

import (
	"fmt"
	"strings"
	"time"

	"github.com/fencelab/fencelab/live/history"
)

// A fault "took effect" when it did what its story needs, read from the
// fault log and the clients' grants and beliefs (tookEffect): only then
// does a verdict that is not violated count as holds. An overlap of two
// beliefs is the violation of AtMostOneClientHoldLock, not the test of
// the fault: an overlap that no fault of the log can account for
// (explains) is the harness's error (*UnexplainedOverlap), since a run
// without the fault's help must never have two holders.

// UnexplainedOverlap is an overlap of two clients' beliefs that no fault
// of the run's log can account for: with --fault none, before any fault
// began, or with a timing the fault's story cannot give. A harness error,
// never a verdict: the run's setup keeps a grant past its lease on its
// own (a section longer than the TTL, a lock that is not one).
type UnexplainedOverlap struct {
	// A and B are the two beliefs (A began first); T0 is the run's start,
	// from which the times are given; Faults says what the log held.
	A, B   Belief
	T0     int64
	Faults string
}

func (e *UnexplainedOverlap) Error() string {
	return fmt.Sprintf("an overlap no fault explains: %s (%s) and %s (%s) both believed they held the lock from %s to %s; %s",
		history.ClientName(e.A.Client), interval(e.A, e.T0), history.ClientName(e.B.Client), interval(e.B, e.T0),
		seconds(max(e.A.Start, e.B.Start)-e.T0), seconds(min(e.A.End, e.B.End)-e.T0), e.Faults)
}

// validUntil is the end of a grant's validity, UnixNano: the end the
// client recorded on the acquire's return (impl.ValidUntil over the
// recipe's send time and reported validity), else — a session lock, or a
// run saved before validities were recorded — by the send rule, the
// setup's TTL from the acquire's call, the earliest a lease granted on
// that request may end.
func validUntil(call int64, ret history.Record, ttl time.Duration) int64 {
	if ret.ValidUntil != 0 {
		return ret.ValidUntil
	}
	return call + int64(ttl)
}

// tookEffect decides whether any fault of the log did what its story
// needs, and says how ("" when none did).
func tookEffect(faults []history.FaultRecord, bs []Belief, t0 int64) (bool, string) {
	for _, f := range faults {
		if f.Error != "" {
			continue // not injected, or not undone: a harness error already
		}
		if why := effectOf(f, bs, t0); why != "" {
			return true, why
		}
	}
	return false, ""
}

// effectOf is fault f's effect by its story ("" when it had none):
//   - client pause: the paused client's validity ran out while it was
//     stopped, and another client was granted before it resumed, while
//     the paused one believed or, when it held the lock as it was
//     stopped, after its validity ran out (a checked client stops
//     believing then; a client paused while it waited in its acquire
//     held nothing yet: its validity is the send rule's guess);
//   - restart: a grant after the restart overlaps a belief from before it,
//     or one held up by it (restartHeldUp);
//   - delay, blackhole: a message of the holder's — its release, the
//     one the history shows — was answered after its validity, or
//     another client was granted during the fault while the holder still
//     believed (a holder that had ended its section before the grant was
//     no longer the holder: the fault only cost it its release);
//   - server pause (not in the list; the client pause's story
//     told of the service): a holder's validity ran out while the service
//     was stopped, and another client was granted while it still
//     believed;
//   - clock step: a grant to another client while the first's lease had
//     time left by the real clock (and the first had not released).
func effectOf(f history.FaultRecord, bs []Belief, t0 int64) string {
	at := func(ns int64) string { return seconds(ns - t0) }
	switch f.Fault {
	case history.FaultClientPause:
		for _, x := range bs {
			if !isTarget(f, x) || !heldAt(x, f.Start) || x.Until < f.Start || x.Until > f.End {
				continue
			}
			for _, y := range bs {
				// Granted while x believed, or, x holding when it was
				// stopped, after x's validity ran out: a checked client's
				// belief ends with its validity, and its story takes effect
				// all the same (it gives up on resuming).
				if y.Client != x.Client && y.Start >= f.Start && y.Start <= f.End && (overlaps(x, y) || x.Start <= f.Start && y.Start >= x.Until) {
					return fmt.Sprintf("%s's validity ran out at %s while it was paused (%s to %s), and %s was granted at %s",
						history.ClientName(x.Client), at(x.Until), at(f.Start), at(f.End), history.ClientName(y.Client), at(y.Start))
				}
			}
		}
	case history.FaultRestartKeep, history.FaultRestartWipe:
		for _, x := range bs {
			for _, y := range bs {
				if restartExplains(f, x, y) {
					return fmt.Sprintf("%s was granted at %s, after the restart at %s, while %s still believed from %s",
						history.ClientName(y.Client), at(y.Start), at(f.Start), history.ClientName(x.Client), at(x.Start))
				}
				if restartHeldUp(f, x, y) {
					return fmt.Sprintf("%s's acquire, asked at %s within a lease of the restart (%s to %s), was granted only at %s, its validity ending at %s within its section; %s was granted at %s while %s still believed",
						history.ClientName(x.Client), at(x.Call), at(f.Start), at(f.End), at(x.Start), at(x.Until), history.ClientName(y.Client), at(y.Start), history.ClientName(x.Client))
				}
			}
		}
	case history.FaultServerPause:
		for _, x := range bs {
			if !heldAt(x, f.Start) || x.Until < f.Start || x.Until > f.End {
				continue
			}
			for _, y := range bs {
				if y.Client != x.Client && y.Start >= f.Start && overlaps(x, y) {
					return fmt.Sprintf("%s's validity ran out at %s while the service was paused (%s to %s), and %s was granted at %s while %s still believed",
						history.ClientName(x.Client), at(x.Until), at(f.Start), at(f.End), history.ClientName(y.Client), at(y.Start), history.ClientName(x.Client))
				}
			}
		}
	case history.FaultDelay, history.FaultBlackhole:
		for _, x := range bs {
			if !isTarget(f, x) || x.Call > f.End || x.End < f.Start {
				continue // not a holder during the fault
			}
			if x.Released != 0 && x.End <= f.End && x.Released > x.Until {
				return fmt.Sprintf("%s's release, sent at %s during the fault (%s to %s), was answered at %s, after its validity ended at %s",
					history.ClientName(x.Client), at(x.End), at(f.Start), at(f.End), at(x.Released), at(x.Until))
			}
			for _, y := range bs {
				if y.Client != x.Client && y.Start >= max(f.Start, x.Start) && y.Start <= f.End && y.Start < x.End {
					return fmt.Sprintf("%s was granted at %s during the fault (%s to %s) on %s, which believed from %s to %s",
						history.ClientName(y.Client), at(y.Start), at(f.Start), at(f.End), history.ClientName(x.Client), at(x.Start), at(x.End))
				}
			}
		}
	case history.FaultDeployment:
		// The deployment made two holders on its own: any overlap of two
		// clients' beliefs during the run is its effect.
		for i, x := range bs {
			for _, y := range bs[i+1:] {
				if x.Client != y.Client && overlaps(x, y) {
					return fmt.Sprintf("the deployment is the fault (%s): %s believed from %s and %s was granted at %s with no fault injected",
						f.Detail, history.ClientName(x.Client), at(x.Start), history.ClientName(y.Client), at(y.Start))
				}
			}
		}
	case history.FaultHolderDeath:
		// The killed client held the lock, and another was granted after
		// the kill: the lock was freed (how soon is MeasureLiveness's).
		for _, x := range bs {
			if !isTarget(f, x) || !heldAt(x, f.Start) || x.Start > f.Start {
				continue
			}
			if y, ok := nextGrant(bs, x.Client, f.End); ok {
				return fmt.Sprintf("%s was killed at %s while it held the lock (granted at %s), and %s was granted at %s",
					history.ClientName(x.Client), at(f.End), at(x.Start), history.ClientName(y.Client), at(y.Start))
			}
		}
	case history.FaultClockStep:
		for _, x := range bs {
			for _, y := range bs {
				if clockExplains(f, x, y) && y.Start < x.Until {
					return fmt.Sprintf("%s was granted at %s, after the clock step at %s, while %s's lease had time left until %s",
						history.ClientName(y.Client), at(y.Start), at(f.Start), history.ClientName(x.Client), at(x.Until))
				}
			}
		}
	}
	return ""
}

// explains reports whether fault f can account for the overlap of a and b
// (of two clients): the stale belief (x) is the one the fault acted on,
// and the other (y) was granted once the fault had begun. It asks for
// timing only, not for a lease's end, so that a library's renewed lease
// (whose end the judge does not see) is no harness error.
func explains(f history.FaultRecord, a, b Belief) bool {
	for _, p := range [2][2]Belief{{a, b}, {b, a}} {
		x, y := p[0], p[1]
		switch f.Fault {
		case history.FaultClientPause, history.FaultDelay, history.FaultBlackhole, history.FaultServerPause:
			// The fault stopped x's client, or its messages, while it
			// believed (or while its grant was on its way).
			if isTarget(f, x) && x.Call <= f.End && x.End >= f.Start && y.Start >= f.Start {
				return true
			}
		case history.FaultRestartKeep, history.FaultRestartWipe:
			if restartExplains(f, x, y) || restartHeldUp(f, x, y) {
				return true
			}
		case history.FaultClockStep:
			if clockExplains(f, x, y) {
				return true
			}
		case history.FaultDeployment:
			// The deployment is at fault over the whole run.
			return true
		}
	}
	return false
}

// restartExplains: y was granted after the restart began while x
// believed from before it.
func restartExplains(f history.FaultRecord, x, y Belief) bool {
	return x.Client != y.Client && x.Start < f.Start && y.Start >= f.Start && y.Start < x.End
}

// restartHeldUp: x's grant was held up by the restart, so that its lease
// ran out in its section and y was granted then. A restart that keeps the
// data keeps the keys of the acquires it cut short (etcd: the waiter's
// key stays, its lease refreshed, heading the queue until it expires), so
// the acquires asked for within a lease of the restart's end wait behind
// it, spending the lease each takes before it waits (a lease nobody
// renews). The story, from the history: x asked for its grant after the
// restart began and at most its validity after it ended; its section
// alone fits its validity (else the setup's section is too long: the
// harness's error); y was granted once x's validity had ended (the
// service expired x's lease: not two grants of one lease) while x still
// believed.
func restartHeldUp(f history.FaultRecord, x, y Belief) bool {
	validity := x.Until - x.Call
	return x.Client != y.Client && x.Call >= f.Start && x.Call <= f.End+validity && x.End-x.Start <= validity &&
		y.Start >= x.Until && y.Start < x.End
}

// clockExplains: x's grant was asked for before the step, y's granted
// after it, while x believed.
func clockExplains(f history.FaultRecord, x, y Belief) bool {
	return x.Client != y.Client && x.Call <= f.Start && y.Start >= f.Start && y.Start < x.End
}

// isTarget: the fault acted on x's client — its target for a client
// fault, every client for a fault of the service.
func isTarget(f history.FaultRecord, x Belief) bool {
	if f.Fault == history.FaultClientPause || f.Fault == history.FaultDelay || f.Fault == history.FaultBlackhole || f.Fault == history.FaultHolderDeath {
		return f.Target == history.ClientName(x.Client)
	}
	return true
}

// overlaps: x and y were believed at once.
func overlaps(x, y Belief) bool { return x.Start < y.End && y.Start < x.End }

// heldAt: x's client believed, or had asked for the grant it then
// believed, at t.
func heldAt(x Belief, t int64) bool { return x.Call <= t && t <= x.End }

// unexplained finds the first overlap of two clients' beliefs that no
// fault of the log explains (nil when every overlap is explained).
func unexplained(faults []history.FaultRecord, bs []Belief, t0 int64) *UnexplainedOverlap {
	for i, a := range bs {
		for _, b := range bs[i+1:] {
			if a.Client == b.Client || !overlaps(a, b) {
				continue
			}
			explained := false
			for _, f := range faults {
				if f.Error == "" && explains(f, a, b) {
					explained = true
					break
				}
			}
			if !explained {
				if b.Start < a.Start {
					a, b = b, a
				}
				return &UnexplainedOverlap{A: a, B: b, T0: t0, Faults: faultsNote(faults, t0)}
			}
		}
	}
	return nil
}

// faultsNote names the run's faults for an UnexplainedOverlap.
func faultsNote(faults []history.FaultRecord, t0 int64) string {
	if len(faults) == 0 {
		return "the run had no fault"
	}
	var parts []string
	for _, f := range faults {
		parts = append(parts, fmt.Sprintf("%s on %s from %s to %s", f.Fault, f.Target, seconds(f.Start-t0), seconds(f.End-t0)))
	}
	return "the run's faults: " + strings.Join(parts, "; ")
}
