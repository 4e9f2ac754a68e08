package sim

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/fencelab/fencelab/internal/atomicfile"
	"github.com/fencelab/fencelab/internal/words"
	"github.com/fencelab/fencelab/linearizability"
	"github.com/fencelab/fencelab/trace"
	"github.com/fencelab/fencelab/verdict"
)

// Headline is the property a failing run is told by: a lost update first
// (the damage), then tokens out of order, then two clients believing they
// hold the lock; "" if the run violated none.
func Headline(res *Result) string {
	for _, p := range []int{propLostUpdate, propToken, propAtMostOne} {
		if res.violations[p].Step > 0 {
			return propName(p)
		}
	}
	return ""
}

// Replay is one run retold for people.
type Replay struct {
	Config   Config
	Schedule *Schedule
	Result   Result
	Target   string // the property the trace is told up to, or ""
	// Trace is the run told for people, focused on its violation (see
	// Focus); Full is every step recorded.
	Trace, Full *trace.Trace
	Runner      *Runner // holds the run's history until its next run

	annotations        []linearizability.Annotation
	sections, register linearizability.Result
}

// NewReplay runs schedule s once to learn how it fails, then again to
// record it up to the first violation of its headline property and on to
// the resource's decision on the stale operation (Record), focuses the
// trace on that story (Focus), and checks
// its history with Porcupine (each model within timeout; 0 for the default).
func NewReplay(c Config, s *Schedule, timeout time.Duration) (*Replay, error) {
	r, err := NewRunner(c)
	if err != nil {
		return nil, err
	}
	first := r.Run(s)
	target := Headline(&first)
	title := fmt.Sprintf("fencelab sim: design %s, seed %d", c.Design, s.Seed)
	if target != "" {
		title += ": " + target + " violated"
	}
	res, tr, anns := r.Record(s, title, target)
	rp := &Replay{Config: r.Config(), Schedule: s, Target: target, Trace: Focus(tr), Full: tr, Runner: r, annotations: anns}
	rp.sections, rp.register = r.checkHistory(timeout)
	res.Sections, res.Register = rp.sections.Verdict, rp.register.Verdict
	rp.Result = res
	return rp, nil
}

// WriteTimeline writes the run's timeline for a terminal: what was run,
// the faults, what the run broke, then every step with its time, the lane
// that acted and what changed, faults and lease expiries marked.
func (rp *Replay) WriteTimeline(w io.Writer) error {
	var b strings.Builder
	if err := rp.writeRun(&b); err != nil {
		return err
	}
	heading := "\nThe timeline of the whole run:\n\n"
	if rp.Target != "" {
		heading = fmt.Sprintf("\nThe timeline of the first violation of %s, on to the resource's decision on the stale operation (the steps and clients that do not tell it are elided):\n\n", rp.Target)
	}
	b.WriteString(heading)
	if _, err := io.WriteString(w, wrapPlain(b.String(), TimelineWidth)); err != nil {
		return err
	}
	return writeTimeline(w, rp.Trace)
}

// writeRun writes what was run and how it ended: the design, seed and
// size, the faults, the outcome and each violation, Porcupine's verdicts.
func (rp *Replay) writeRun(w io.Writer) error {
	var b strings.Builder
	c, res := rp.Config, &rp.Result
	fmt.Fprintf(&b, "design %s (%s), seed %d, %s × %s\n", c.Design, c.Design.Describe(), rp.Schedule.Seed, words.Count(c.Clients, "client"), words.Count(c.Sections, "section"))
	fmt.Fprintf(&b, "faults (%d):\n", len(rp.Schedule.Faults))
	for _, f := range rp.Schedule.Faults {
		if f.Kind == FaultDrift {
			fmt.Fprintf(&b, "  %-7s %s\n", "always", f)
		} else {
			fmt.Fprintf(&b, "  %-7s %s\n", trace.FormatTime(f.At), f)
		}
	}
	if len(rp.Schedule.Faults) == 0 {
		b.WriteString("  none\n")
	}
	fmt.Fprintf(&b, "outcome: %s\n", outcome(res))
	for p := range numProps {
		if v := res.violations[p]; v.Step > 0 {
			fmt.Fprintf(&b, "  ✗ %s violated at %s: %s\n", propName(p), trace.FormatTime(v.At), v.Explanation)
		}
	}
	if res.Stall != "" {
		fmt.Fprintf(&b, "  ✗ stall: %s\n", res.Stall)
	}
	if res.Sections.Status != verdict.NotChecked {
		fmt.Fprintf(&b, "  %s\n", PorcupineWords(res))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// outcome sums a run up in one line.
func outcome(res *Result) string {
	var parts []string
	for p := range numProps {
		if res.violations[p].Step > 0 {
			parts = append(parts, propName(p))
		}
	}
	s := fmt.Sprintf("%s, %s of virtual time, counter %d, %s committed, %d aborted",
		words.Count(res.Steps, "step"), trace.FormatTime(res.End), res.Counter, words.Count(res.Committed, "section"), res.Aborted)
	if len(parts) == 0 && res.Stall == "" {
		return s + "; every property held"
	}
	if len(parts) > 0 {
		s += "; violated " + strings.Join(parts, ", ")
	}
	if res.Stall != "" {
		s += "; stalled"
	}
	return s
}

// Artifacts writes the run's files into dir: its trace's files, named as
// every runtime names them (trace.WriteFiles), then its own: run.txt (what
// was run and how it ended), schedule.json (its faults, replayable) and
// porcupine.html. It returns the files' names, in the order written.
func (rp *Replay) Artifacts(dir *atomicfile.Folder) ([]string, error) {
	return trace.WriteFilesTo(dir, rp.Trace, rp.extras()...)
}

// WriteSpeed writes the wall-clock figures of a batch that took wall.
// They differ from run to run of the command, so the command writes them
// to stderr, keeping stdout byte-identical for the same flags.
func (s *Summary) WriteSpeed(w io.Writer, wall time.Duration) {
	runs, steps, virtual := s.Totals()
	secs := wall.Seconds()
	if secs <= 0 {
		secs = 1e-9
	}
	fmt.Fprintf(w, "%s in %v: %.0f runs/s, %.2fM events/s, simulated time %.0f× wall-clock time\n",
		words.Count(runs, "run"), wall.Round(time.Millisecond), float64(runs)/secs, float64(steps)/secs/1e6, virtual.Seconds()/secs)
}

// PorcupineWords is the Porcupine verdicts on a run's history in
// Porcupine's words: "Porcupine: sections ok, register ok".
func PorcupineWords(res *Result) string {
	return fmt.Sprintf("Porcupine: sections %s, register %s",
		linearizability.Word(res.Sections.Status), linearizability.Word(res.Register.Status))
}
