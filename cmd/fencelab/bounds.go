package main

import (
	"flag"
	"time"

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

With --from-live DIR it takes the bounds a live run measured in place
of assumed ones: every liveness.json under DIR, at most three folders
down (fencelab-live run --out DIR writes one per campaign, in
<service>/<setup>/<fault>/; one setup's) gives the TTL, the margin
(the TTL less the longest validity a grant reported) and the longest
client pause, each printed with the file it came from (--ttl, --margin
and --max-pause are then refused; the other bounds are as given). After
the answer it prints the measured liveness: LockFreedAfterHolderDeath
(kill→grant min / median / max against the setup's bound, and the
margin left) and the blind window (min / median / max, and whether
every old holder stopped believing before the service let go).
Exit codes: 0 answered (safe or not), 2 bad bounds.`

func runBounds(e *env, args []string) error {
	fs := newFlagSet("bounds")
	ttl := ttlFlag(fs, 0, " (clock units); required")
	margin := marginFlag(fs, 0, " from its acquire's send")
	lockDelay := lockDelayFlag(fs, 0, " (clock units)")
	drift := driftFlag(fs, 0, "largest clock rate error `ρ`, below 0.5 (0.1: clocks run at 0.9× to 1.1×)")
	jump := maxJumpFlag(fs, 0, ", net during one lease (a clock kept within ±E by steps: 2E)")
	pause := maxPauseFlag(fs, 0, "")
	delay := maxDelayFlag(fs, 0, " (in fencelab sim: processing + latency + jitter + the longest spike)")
	tick := fs.Duration("tick", 0, "also state the timed spec's discrete condition, one tick being this much real time (0: not)")
	fromLive := fs.String("from-live", "", "take the ttl, margin and longest pause a live run measured (every liveness.json under this `folder`), and print its liveness figures")
	rest, err := parseFlags(e, fs, boundsUsage, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return badInput("unexpected argument %s", quote.Q(rest[0]))
	}
	b := bounds.Bounds{Drift: float64(*drift), Jump: *jump, Delay: *delay, Pause: *pause, TTL: *ttl, Margin: *margin, LockDelay: *lockDelay}
	if given(fs, "from-live") {
		return boundsFromLive(e, fs, b, *fromLive, *tick)
	}
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
	notGiven := func(name string) bool { return !given(fs, name) }
	return report.BoundsAnswer(e.Stdout, b, vs, *tick, ticks, notGiven)
}

// boundsFromLive is `fencelab bounds --from-live dir`: the measured TTL,
// margin and pause in place of the flags', the answer, then the measured
// liveness figures.
func boundsFromLive(e *env, fs *flag.FlagSet, b bounds.Bounds, dir string, tick time.Duration) error {
	for _, name := range []string{"ttl", "margin", "max-pause"} {
		if given(fs, name) {
			return badInput("--%s and --from-live: the live run measured it; give one or the other", name)
		}
	}
	if dir == "" {
		return badInput("--from-live needs a folder")
	}
	g, err := bounds.ReadLive(dir)
	if err != nil {
		return badInput("--from-live: %v", err)
	}
	b = g.Bounds(b)
	vs, err := bounds.Check(b)
	if err != nil {
		return badInput("--from-live %s: the measured bounds: %v", quote.Q(dir), err)
	}
	var ticks []bounds.TickVerdict
	if given(fs, "tick") {
		if ticks, err = bounds.CheckTick(b, tick); err != nil {
			return badInput("%v", err)
		}
	}
	if err := report.LiveSource(e.Stdout, dir, g, b); err != nil {
		return err
	}
	measured := map[string]bool{"ttl": true, "margin": true, "max-pause": true}
	notGiven := func(name string) bool { return !measured[name] && !given(fs, name) }
	if err := report.BoundsAnswer(e.Stdout, b, vs, tick, ticks, notGiven); err != nil {
		return err
	}
	return report.LiveAnswer(e.Stdout, g)
}
