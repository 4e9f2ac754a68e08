package main

import (
	"fmt"
	"math"

	"github.com/fencelab/fencelab/bounds"
	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/report"
	"github.com/fencelab/fencelab/sim"
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

The defaults are the simulator's (fencelab sim): its fault bounds mapped
onto the derivation's. --max-delay D is the longest one-way delay of a
message from the step that sends it: in the simulator, processing +
latency + jitter + max-spike (100µs + 1ms + 2ms + 3s by default).
Exit codes: 0 answered (safe or not), 2 bad bounds.`

func runBounds(e *env, args []string) error {
	def := sim.DefaultConfig().Assumptions()
	fs := newFlagSet("bounds")
	ttl := fs.Duration("ttl", def.TTL, "lease TTL at the service (clock units)")
	margin := fs.Duration("margin", def.Margin, "the client believes for ttl − margin of its own clock from its acquire's send")
	lockDelay := fs.Duration("lock-delay", def.LockDelay, "time after an expiry before the lock is granted again (clock units)")
	drift := fs.Float64("max-drift", def.Drift, "largest clock rate error ρ, as a fraction (0.1: clocks run at 0.9× to 1.1×); below 0.5")
	jump := fs.Duration("max-jump", def.Jump, "largest net clock step J during one lease, forward or back (a clock kept within ±E by steps: 2E)")
	pause := fs.Duration("max-pause", def.Pause, "longest process pause P")
	delay := fs.Duration("max-delay", def.Delay, "longest one-way message delay D (simulator: processing + latency + jitter + max-spike)")
	rest, err := parseFlags(e, fs, boundsUsage, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return badInput("unexpected argument %s", quote.Q(rest[0]))
	}
	b := bounds.Bounds{Drift: *drift, Jump: *jump, Delay: *delay, Pause: *pause, TTL: *ttl, Margin: *margin, LockDelay: *lockDelay}
	vs, err := bounds.Check(b)
	if err != nil {
		return badInput("%v", err)
	}
	fmt.Fprintf(e.stdout, "fencelab bounds: an unfenced lease lock, validity counted from the acquire's send\n")
	fmt.Fprintf(e.stdout, "clock rate drift ±%s, clock steps up to %v, one-way delay up to %v, pauses up to %v\n", percent(b.Drift), b.Jump, b.Delay, b.Pause)
	fmt.Fprintf(e.stdout, "ttl %v, margin %v, lock-delay %v\n\n", b.TTL, b.Margin, b.LockDelay)
	if err := report.BoundsTable(e.stdout, b, vs); err != nil {
		return err
	}
	safe := 0
	for _, v := range vs {
		if v.Safe {
			safe++
		}
	}
	switch safe {
	case len(vs):
		fmt.Fprintln(e.stdout, "\nSafe without fencing under these bounds — as long as they hold. Beyond them only fencing (mode all) keeps NoLostUpdate.")
	case 0:
		fmt.Fprintln(e.stdout, "\nNot safe without fencing under these bounds: fence the resource (mode all), or raise the margin or the lock-delay above the figures shown.")
	default:
		fmt.Fprintln(e.stdout, "\nOne holder at a time, but a stale write can still land: fence the resource (mode all), or raise the margin or the lock-delay above NoLostUpdate's figures.")
	}
	return nil
}

// percent prints a fraction as a percentage without float noise: 0.1 → 10%.
func percent(f float64) string {
	p := f * 100
	if r := math.Round(p*1e6) / 1e6; r == math.Trunc(r) {
		return fmt.Sprintf("%g%%", r)
	}
	return fmt.Sprintf("%g", f)
}
