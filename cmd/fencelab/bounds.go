package main

import (
	"fmt"

	"github.com/fencelab/fencelab/bounds"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/report"
)

func boundsCommand() command {
	return command{name: "bounds", summary: "is a lease lock safe without fencing under given bounds? (DESIGN.md's condition)", run: runBounds}
}

const boundsUsage = `fencelab bounds [flags]

Answers "is my lock safe without fencing?" for bounds on clock rate drift,
clock steps, message delay and process pauses: DESIGN.md's condition
("When a lease lock is safe without fencing"). For AtMostOneClientHoldLock
(X = P) and NoLostUpdate (X = 2P + D) an unfenced lease lock, with the
client's validity counted from the acquire's send (Redlock's rule), keeps
the property iff

    (ttl − margin + J)/(1−ρ) + X  <  (ttl + lock-delay − J)/(1+ρ)

It prints, per property, whether the bounds keep it, the slack (real
time; safe iff positive), and the smallest safe margin and lock-delay —
the value must exceed it (strictly), the other bounds as given.

It is a calculator of your bounds: --ttl is required, and a bound you
do not give is zero (no drift, no steps, no delay, no pause), never the
simulator's default; the header states every bound it used, and which
ones you did not give. --max-delay D is the longest one-way delay of a
message from the step that sends it (in fencelab sim: processing +
latency + jitter + the longest spike, the same --max-delay).

With --tick T it also states the discrete condition the timed spec
(specs/DistLockTimed.tla) checks with TLC, one tick being T of real
time: timers fire and grants happen only on ticks, and a pause or delay
lasts whole ticks, so each side rounds up to a tick —

    ⌈window/T⌉ + X in ticks  <  ⌈next/T⌉

— which is stricter than the real-time condition wherever the window
does not end on a tick (docs/design/bounds.md, "Where the two
conditions differ").
Exit codes: 0 answered (safe or not), 2 bad bounds.`

func runBounds(e *env, args []string) error {
	fs := newFlagSet("bounds")
	ttl := fs.Duration("ttl", 0, "lease TTL at the service (clock units); required")
	margin := fs.Duration("margin", 0, "the client believes for ttl − margin of its own clock from its acquire's send")
	lockDelay := fs.Duration("lock-delay", 0, "time after an expiry before the lock is granted again (clock units)")
	drift := driftFlag(fs, 0, "largest clock rate error `ρ`, below 0.5 (0.1: clocks run at 0.9× to 1.1×)")
	jump := fs.Duration("max-jump", 0, "largest net clock step J during one lease, forward or back (a clock kept within ±E by steps: 2E)")
	pause := fs.Duration("max-pause", 0, "longest process pause P")
	delay := fs.Duration("max-delay", 0, "longest one-way message delay D (in fencelab sim: processing + latency + jitter + the longest spike)")
	tick := fs.Duration("tick", 0, "also state the timed spec's discrete condition, one tick being this much real time (0: not)")
	rest, err := parseFlags(e, fs, boundsUsage, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return badInput("unexpected argument %s", quote.Q(rest[0]))
	}
	b := bounds.Bounds{Drift: float64(*drift), Jump: *jump, Delay: *delay, Pause: *pause, TTL: *ttl, Margin: *margin, LockDelay: *lockDelay}
	if !given(fs, "ttl") {
		// The values given are judged first (with the longest TTL), then
		// the missing one is asked for.
		check := b
		check.TTL = impl.MaxDuration
		if err := check.Validate(); err != nil {
			return badInput("%v", err)
		}
		return badInput("give the lease's --ttl (and the bounds you have: --max-drift, --max-jump, --max-pause, --max-delay, --margin, --lock-delay; each one not given is zero)")
	}
	vs, err := bounds.Check(b)
	if err != nil {
		return badInput("%v", err)
	}
	var ticks []bounds.TickVerdict
	if given(fs, "tick") {
		if ticks, err = bounds.CheckTick(b, *tick); err != nil {
			return badInput("%v", err)
		}
	}
	// Every bound used, each marked when it is zero because it was not
	// given: the answer is about these bounds and no others.
	v := func(name, value string) string {
		if !given(fs, name) {
			return value + " (not given)"
		}
		return value
	}
	w := e.Stdout
	fmt.Fprintf(w, "fencelab bounds: an unfenced lease lock, validity counted from the acquire's send\n")
	fmt.Fprintf(w, "clock rate drift ±%s, clock steps up to %s, one-way delay up to %s, pauses up to %s\n",
		v("max-drift", bounds.FormatDrift(b.Drift)), v("max-jump", b.Jump.String()), v("max-delay", b.Delay.String()), v("max-pause", b.Pause.String()))
	fmt.Fprintf(w, "ttl %v, margin %s, lock-delay %s\n\n", b.TTL, v("margin", b.Margin.String()), v("lock-delay", b.LockDelay.String()))
	if err := report.BoundsTable(w, b, vs); err != nil {
		return err
	}
	if ticks != nil {
		fmt.Fprintf(w, "\nOn ticks of %v (the timed spec's discrete condition: the window ends on tick %d at the latest, the next grant on tick %d at the earliest):\n", *tick, ticks[0].Due, ticks[0].Next)
		for k, tv := range ticks {
			verdict := "holds"
			if !tv.Safe {
				verdict = "can be violated"
			}
			differs := ""
			if tv.Safe != vs[k].Safe {
				differs = " (differs from real time: the window rounds up to a tick)"
			}
			fmt.Fprintf(w, "  %-24s %d + %d < %d: %s%s\n", tv.Property, tv.Due, tv.X, tv.Next, verdict, differs)
		}
	}
	safe := 0
	for _, v := range vs {
		if v.Safe {
			safe++
		}
	}
	switch safe {
	case len(vs):
		fmt.Fprintln(w, "\nSafe without fencing under these bounds — as long as they hold. Beyond them only fencing (mode all) keeps NoLostUpdate.")
	case 0:
		fmt.Fprintln(w, "\nNot safe without fencing under these bounds: fence the resource (mode all), or raise the margin or the lock-delay above the figures shown.")
	default:
		fmt.Fprintln(w, "\nOne holder at a time, but a stale write can still land: fence the resource (mode all), or raise the margin or the lock-delay above NoLostUpdate's figures.")
	}
	return nil
}
