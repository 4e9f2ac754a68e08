package report

import (
	"fmt"
	"io"
	"time"

	"github.com/fencelab/fencelab/bounds"
	"github.com/fencelab/fencelab/impl"
)

// LiveSource prints which measured figure `fencelab bounds --from-live`
// took from which file, before the answer: the TTL, the margin the
// grants left, the longest pause.
func LiveSource(w io.Writer, dir string, g *bounds.LiveFigures, b bounds.Bounds) error {
	fmt.Fprintf(w, "measured by the live runs under %s (setup %s, %d %s files):\n", dir, g.Setup, len(g.Files), bounds.LiveFile)
	fmt.Fprintf(w, "  ttl %v: the setup's lease (%s)\n", b.TTL, g.TTL.File)
	if g.Validity.Value > 0 {
		fmt.Fprintf(w, "  margin %v: ttl less the longest validity a grant reported, %v (%s, run seed %d)\n", b.Margin, g.Validity.Value, g.Validity.File, g.Validity.Seed)
	} else {
		fmt.Fprintf(w, "  margin 0s: no grant reported a validity (a session, a renewed lease: the client has no window to check)\n")
	}
	if g.Pause.File != "" {
		fmt.Fprintf(w, "  max-pause %v: the longest client pause (%s, run seed %d)\n", b.Pause, g.Pause.File, g.Pause.Seed)
	} else {
		fmt.Fprintf(w, "  max-pause 0s: the runs paused no client\n")
	}
	_, err := fmt.Fprintln(w)
	return err
}

// LiveAnswer prints what the runs measured of liveness, after the
// answer: LockFreedAfterHolderDeath (kill→grant against the setup's
// bound) and the blind window, each as min / median / max, and whether
// the margin holds on them. The first's margin is the bound less the
// longest kill→grant (a run in which no other client was granted after
// the kill violates it too); the second's holds exactly when the longest
// blind window is negative: the old holder stopped believing before the
// service could have let go (zero is a shared instant: unsafe, as the
// condition's strict inequality says).
func LiveAnswer(w io.Writer, g *bounds.LiveFigures) error {
	fmt.Fprintln(w, "\nMeasured liveness (live runs):")
	never := g.Freed[bounds.FreedViolated] - countAbove(g.KillToGrant, g.FreedBound.Value)
	if s, ok := bounds.SpreadOf(g.KillToGrant); ok {
		word := "holds"
		if s.Max > g.FreedBound.Value || never > 0 {
			word = "violated"
		}
		fmt.Fprintf(w, "  %s: kill→grant over %d runs: min %v, median %v, max %v\n", impl.LockFreedAfterHolderDeath, len(g.KillToGrant), s.Min, s.Median, s.Max)
		fmt.Fprintf(w, "    bound %v (%s): %s, margin %v (bound − max)\n", g.FreedBound.Value, g.FreedWhy, word, g.FreedBound.Value-s.Max)
	} else {
		fmt.Fprintf(w, "  %s: no kill→grant measured (no run killed a holder that another client then followed: --fault holder-death)\n", impl.LockFreedAfterHolderDeath)
	}
	if never > 0 {
		fmt.Fprintf(w, "    violated: in %d runs no other client was granted after the kill, within the run\n", never)
	}
	if s, ok := bounds.SpreadOf(g.Blind); ok {
		fmt.Fprintf(w, "  blind window over %d runs: min %v, median %v, max %v\n", len(g.Blind), s.Min, s.Median, s.Max)
		if s.Max < 0 {
			fmt.Fprintf(w, "    the margin holds: every old holder stopped believing at least %v before the service could have let go\n", -s.Max)
		} else {
			fmt.Fprintf(w, "    the margin does not hold: an old holder believed %v after the service had let go at the latest\n", s.Max)
		}
	} else {
		fmt.Fprintln(w, "  blind window: not measured (no paused holder lost the lock: --fault client-pause)")
	}
	return nil
}

// countAbove counts the durations above bound.
func countAbove(ds []time.Duration, bound time.Duration) int {
	n := 0
	for _, d := range ds {
		if d > bound {
			n++
		}
	}
	return n
}
