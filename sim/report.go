package sim

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/linearizability"
	"github.com/fencelab/fencelab/trace"
)

// Headline is the property a failing run is told by: a lost update first
// (the damage), then tokens out of order, then two clients believing they
// hold the lock; -1 if the run violated none.
func Headline(res *Result) int {
	for _, p := range []int{PropLostUpdate, PropToken, PropAtMostOne} {
		if res.Violated(p) {
			return p
		}
	}
	return -1
}

// PropName is the name of property p (a Prop index).
func PropName(p int) string { return impl.Invariants()[p].Name }

// Replay is one run retold for people.
type Replay struct {
	Config   Config
	Schedule *Schedule
	Result   Result
	Target   int // the property the trace is told up to (a Prop index), or -1
	Trace    *trace.Trace
	Runner   *Runner // holds the run's history until its next run

	annotations        []linearizability.Annotation
	sections, register linearizability.Result
}

// NewReplay runs schedule s once to learn how it fails, then again to
// record it up to the first violation of its headline property, and checks
// its history with Porcupine (each model within timeout; 0 for the default).
func NewReplay(c Config, s *Schedule, timeout time.Duration) (*Replay, error) {
	r, err := NewRunner(c)
	if err != nil {
		return nil, err
	}
	first := r.Run(s)
	target := Headline(&first)
	title := fmt.Sprintf("fencelab sim: design %s, seed %d", c.Design, s.Seed)
	if target >= 0 {
		title += ", until " + PropName(target) + " is violated"
	}
	res, tr, anns := r.Record(s, title, target)
	rp := &Replay{Config: r.Config(), Schedule: s, Target: target, Trace: tr, Runner: r, annotations: anns}
	rp.sections, rp.register = r.checkHistory(timeout)
	res.Sections, res.Register = rp.sections.Verdict, rp.register.Verdict
	rp.Result = res
	return rp, nil
}

// WriteTimeline writes the run's timeline for a terminal: what was run,
// the faults, what the run broke, then every step with its time, the lane
// that acted and what changed, faults and lease expiries marked.
func (rp *Replay) WriteTimeline(w io.Writer) error {
	if err := rp.writeRun(w); err != nil {
		return err
	}
	heading := "\nThe timeline of the whole run:\n\n"
	if rp.Target >= 0 {
		heading = fmt.Sprintf("\nThe timeline up to the first violation of %s:\n\n", PropName(rp.Target))
	}
	if _, err := io.WriteString(w, heading); err != nil {
		return err
	}
	return writeTimeline(w, rp.Trace)
}

// writeRun writes what was run and how it ended: the design, seed and
// size, the faults, the outcome and each violation, Porcupine's verdicts.
func (rp *Replay) writeRun(w io.Writer) error {
	var b strings.Builder
	c, res := rp.Config, &rp.Result
	fmt.Fprintf(&b, "design %s (%s), seed %d, %d clients × %d sections\n", c.Design, c.Design.Describe(), rp.Schedule.Seed, c.Clients, c.Sections)
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
	for p := range NumProps {
		if v := res.Violations[p]; v.Step > 0 {
			fmt.Fprintf(&b, "  ✗ %s violated at %s: %s\n", PropName(p), trace.FormatTime(v.At), v.Explanation)
		}
	}
	if res.Stall != "" {
		fmt.Fprintf(&b, "  ✗ stall: %s\n", res.Stall)
	}
	if res.Sections != "" {
		fmt.Fprintf(&b, "  Porcupine: sections %s, register %s\n", res.Sections, res.Register)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// outcome sums a run up in one line.
func outcome(res *Result) string {
	var parts []string
	for p := range NumProps {
		if res.Violated(p) {
			parts = append(parts, PropName(p))
		}
	}
	s := fmt.Sprintf("%d steps, %s of virtual time, counter %d, %d sections committed, %d aborted",
		res.Steps, trace.FormatTime(res.End), res.Counter, res.Committed, res.Aborted)
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
func (rp *Replay) Artifacts(dir string) ([]string, error) {
	return trace.WriteFiles(dir, rp.Trace, rp.extras()...)
}

// WriteFile writes path with write, whole or not at all.
func WriteFile(path string, write func(io.Writer) error) error {
	return trace.WriteFileAtomic(path, write)
}

// Percent formats n of total as "n (p%)", or "0".
func Percent(n, total int) string {
	if n == 0 || total == 0 {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%d (%.1f%%)", n, 100*float64(n)/float64(total))
}

// WriteTable writes the design × property table of s.
func (s *Summary) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	header := []string{"design", "runs"}
	header = append(header, impl.InvariantNames()...)
	header = append(header, "Porcupine illegal", "Porcupine unknown", "stalls", "first failing seed", "verdict")
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for i := range s.Designs {
		fmt.Fprintln(tw, strings.Join(s.Designs[i].row(s.Faults), "\t"))
	}
	return tw.Flush()
}

// row is a design's cells in WriteTable's columns.
func (d *DesignSummary) row(faults FaultKinds) []string {
	cells := []string{d.Design.String(), fmt.Sprint(d.Runs)}
	for p, inv := range impl.Invariants() {
		if !inv.AppliesTo(d.Design) {
			cells = append(cells, "—")
			continue
		}
		cells = append(cells, Percent(d.Violations[p], d.Runs))
	}
	cells = append(cells, pair(d.SectionsIllegal, d.RegisterIllegal), pair(d.SectionsUnknown, d.RegisterUnknown))
	cells = append(cells, fmt.Sprint(d.Stalls), d.FirstFailing.String())
	verdict := "as expected"
	if len(d.Unexpected(faults)) > 0 {
		verdict = "UNEXPECTED"
	}
	return append(cells, verdict)
}

// pair shows Porcupine's counts for the two models, sections / register.
// Every run is judged by both, so there is no "not checked" cell.
func pair(sections, register int) string {
	return fmt.Sprintf("%d / %d", sections, register)
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
	fmt.Fprintf(w, "%d runs in %v: %.0f runs/s, %.2fM events/s, simulated time %.0f× wall-clock time\n",
		runs, wall.Round(time.Millisecond), float64(runs)/secs, float64(steps)/secs/1e6, virtual.Seconds()/secs)
}

// WriteNPCTable writes the NPC table: for each fault class alone (the
// summaries, in Singles order), each design's runs and what they violated.
func WriteNPCTable(w io.Writer, sums []*Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	header := []string{"faults", "design", "runs"}
	header = append(header, impl.InvariantNames()...)
	header = append(header, "Porcupine illegal", "Porcupine unknown", "stalls", "first failing seed", "verdict")
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, s := range sums {
		for i := range s.Designs {
			fmt.Fprintf(tw, "%s only\t%s\n", s.Faults, strings.Join(s.Designs[i].row(s.Faults), "\t"))
		}
	}
	return tw.Flush()
}

// WriteFirstSeeds writes, for each design, the first seed that violated
// each property, so that any of them can be replayed.
func (s *Summary) WriteFirstSeeds(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(append([]string{"first seed violating"}, impl.InvariantNames()...), "\t"))
	for _, d := range s.Designs {
		cells := []string{d.Design.String()}
		for p, inv := range impl.Invariants() {
			if !inv.AppliesTo(d.Design) {
				cells = append(cells, "—")
				continue
			}
			cells = append(cells, d.FirstSeed[p].String())
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}
