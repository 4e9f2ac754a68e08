package report

import (
	"fmt"
	"io"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/sim"
	"github.com/fencelab/fencelab/verdict"
)

// simHeader is the columns of a design's row, after the design and runs.
func simHeader(first ...string) *Table {
	t := NewTable(append(first, "runs")...)
	t.Header = append(t.Header, impl.InvariantNames()...)
	t.Header = append(t.Header, "Porcupine illegal", "Porcupine unknown", "stalls", "first failing seed", "verdict")
	return t
}

// SimTable writes the design × property table of a simulator summary.
func SimTable(w io.Writer, s *sim.Summary) error {
	t := simHeader("design")
	for i := range s.Designs {
		t.Add(simRow(&s.Designs[i], s.Faults)...)
	}
	return t.WriteText(w)
}

// NPCTable writes the NPC table: for each fault class alone (the
// summaries, in sim.Singles order), each design's runs and what they
// violated.
func NPCTable(w io.Writer, sums []*sim.Summary) error {
	t := simHeader("faults", "design")
	for _, s := range sums {
		for i := range s.Designs {
			t.Add(append([]string{s.Faults.String() + " only"}, simRow(&s.Designs[i], s.Faults)...)...)
		}
	}
	return t.WriteText(w)
}

// simRow is a design's cells: runs, how many runs violated each property
// ("—" where it does not apply), Porcupine's illegal and unknown counts
// (sections / register), stalls, the first failing seed, and whether it is
// all as DESIGN.md expects.
func simRow(d *sim.DesignSummary, faults sim.FaultKinds) []string {
	cells := []string{d.Design.String(), fmt.Sprint(d.Runs)}
	vs := d.Verdicts()
	for _, name := range impl.InvariantNames() {
		v := vs.Get(name)
		if v.Status == verdict.NotApplicable {
			cells = append(cells, "—")
			continue
		}
		cells = append(cells, Percent(v.Violating, v.Runs))
	}
	// Porcupine's counts for the two models, sections / register. Every
	// run is judged by both, so there is no "not checked" cell.
	pair := func(sections, register int) string { return fmt.Sprintf("%d / %d", sections, register) }
	cells = append(cells, pair(d.SectionsIllegal, d.RegisterIllegal), pair(d.SectionsUnknown, d.RegisterUnknown))
	cells = append(cells, fmt.Sprint(d.Stalls), d.FirstFailing.String())
	v := "as expected"
	if len(d.Unexpected(faults)) > 0 {
		v = "UNEXPECTED"
	}
	return append(cells, v)
}

// FirstSeeds writes, for each design, the first seed that violated each
// property, so that any of them can be replayed.
func FirstSeeds(w io.Writer, s *sim.Summary) error {
	t := NewTable(append([]string{"first seed violating"}, impl.InvariantNames()...)...)
	for i := range s.Designs {
		d := &s.Designs[i]
		cells := []string{d.Design.String()}
		vs := d.Verdicts()
		for _, name := range impl.InvariantNames() {
			if vs.Get(name).Status == verdict.NotApplicable {
				cells = append(cells, "—")
				continue
			}
			cells = append(cells, d.FirstSeed(name).String())
		}
		t.Add(cells...)
	}
	return t.WriteText(w)
}
