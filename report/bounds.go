package report

import (
	"fmt"
	"io"
	"time"

	"github.com/fencelab/fencelab/bounds"
	"github.com/fencelab/fencelab/impl"
)

// BoundsTable is DESIGN.md's condition for one set of bounds, one row per
// property: whether an unfenced lease lock keeps it, its slack, and the
// smallest safe margin and lock-delay (each with the other bounds as given).
func BoundsTable(w io.Writer, b bounds.Bounds, vs []bounds.Verdict) error {
	t := NewTable("property", "X", "without fencing", "slack", "margin must exceed", "lock-delay must exceed")
	for _, v := range vs {
		x := "2P+D"
		if v.Property == impl.AtMostOneClientHoldLock {
			x = "P"
		}
		safe := "holds"
		if !v.Safe {
			safe = "can be violated"
		}
		t.Add(v.Property, fmt.Sprintf("%s = %v", x, v.X), safe, v.Slack.String(), marginText(b, v.MarginAbove), atLeastText(v.LockDelayAbove))
	}
	return t.WriteText(w)
}

func marginText(b bounds.Bounds, above time.Duration) string {
	if above+1 >= b.TTL {
		return fmt.Sprintf("%v: none below the ttl", above)
	}
	return atLeastText(above)
}

func atLeastText(above time.Duration) string {
	if above < 0 {
		return "any (≥ 0)"
	}
	return above.String()
}

// BoundsAnswer is fencelab bounds' answer: the bounds used, each marked
// "(not given)" when notGiven says it was left at zero (the answer is
// about these bounds and no others), the table, the discrete condition on
// ticks of tick (when ticks is not nil) and the conclusion.
func BoundsAnswer(w io.Writer, b bounds.Bounds, vs []bounds.Verdict, tick time.Duration, ticks []bounds.TickVerdict, notGiven func(flag string) bool) error {
	v := func(name, value string) string {
		if notGiven(name) {
			return value + " (not given)"
		}
		return value
	}
	fmt.Fprintf(w, "fencelab bounds: an unfenced lease lock, validity counted from the acquire's send\n")
	fmt.Fprintf(w, "clock rate drift ±%s, clock steps up to %s, one-way delay up to %s, pauses up to %s\n",
		v("max-drift", bounds.FormatDrift(b.Drift)), v("max-jump", b.Jump.String()), v("max-delay", b.Delay.String()), v("max-pause", b.Pause.String()))
	fmt.Fprintf(w, "ttl %v, margin %s, lock-delay %s\n\n", b.TTL, v("margin", b.Margin.String()), v("lock-delay", b.LockDelay.String()))
	if err := BoundsTable(w, b, vs); err != nil {
		return err
	}
	if ticks != nil {
		fmt.Fprintf(w, "\nOn ticks of %v (the timed spec's discrete condition: the window ends on tick %d at the latest, the next grant on tick %d at the earliest):\n", tick, ticks[0].Due, ticks[0].Next)
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
