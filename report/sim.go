package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/sim"
	"github.com/fencelab/fencelab/verdict"
)

// MaxWidth is the widest a table for a terminal may be: an ordinary
// terminal's 100 columns, so that no row wraps.
const MaxWidth = 100

// Short is a property's name as a narrow table's header gives it; the
// legend under the table spells it out.
func Short(property string) string {
	switch property {
	case impl.AtMostOneClientHoldLock:
		return "AtMostOne"
	case impl.TokenIsMonotonical:
		return "TokenMono"
	case impl.TokensAreUnique:
		return "Unique"
	case impl.TokensIncreaseInGrantOrder:
		return "GrantOrder"
	}
	return property
}

// serviceSide reports whether property is one of the service-side token
// properties, which the simulator's summaries give in a table of their
// own: with them, a design's row would not fit in MaxWidth.
func serviceSide(property string) bool {
	return property == impl.TokensAreUnique || property == impl.TokensIncreaseInGrantOrder
}

// tableProperties are the invariants of the summaries' first table (the
// clients' and the resource's), or, with service, of the second.
func tableProperties(service bool) []string {
	var names []string
	for _, name := range impl.InvariantNames() {
		if serviceSide(name) == service {
			names = append(names, name)
		}
	}
	return names
}

// simHeader is the columns of a design's row, after the design and runs
// (and the sections committed, if committed).
//
// The runs of every design are the same number (the line above the table
// says how many), so the table has no column for it: with the ten rows of
// the matrix, the flags as wide as restart-volatile, it would not fit in
// MaxWidth. Porcupine's two counts share a column for the same reason.
func simHeader(committed bool, first ...string) *Table {
	t := NewTable(first...)
	if committed {
		t.Header = append(t.Header, "committed")
	}
	for _, name := range tableProperties(false) {
		t.Header = append(t.Header, Short(name))
	}
	t.Header = append(t.Header, "Porcupine", "stalls", "verdict")
	return t
}

// tokenTable is the second table of a simulator summary: each design's
// runs that violated the service-side token properties. The first
// table's verdict column judges these too.
func tokenTable(first ...string) *Table {
	return NewTable(append(first, tableProperties(true)...)...)
}

// tokenCells is a design's cells of tokenTable.
func tokenCells(d *sim.DesignSummary) []string {
	vs := d.Verdicts()
	var cells []string
	for _, name := range tableProperties(true) {
		cells = append(cells, violationCell(vs.Get(name)))
	}
	return cells
}

// violationCell is how many runs violated a property ("—" where it does
// not apply).
func violationCell(v verdict.Verdict) string {
	if v.Status == verdict.NotApplicable {
		return "—"
	}
	return Percent(v.Violating, v.Runs)
}

// simLegend spells out simHeader's abbreviations and the verdict column.
const simLegend = `committed: sections committed over all runs (none: no property holds, it would be vacuous).
AtMostOne = AtMostOneClientHoldLock, TokenMono = TokenIsMonotonical: runs that violated each
property (the service-side token properties in the second table, judged in the first's verdict
column; Unique = TokensAreUnique, GrantOrder = TokensIncreaseInGrantOrder where a table is
narrow). Porcupine: the runs whose history it found illegal, then those it could not decide
(unknown), each as sections/register. verdict: as DESIGN.md expects, UNEXPECTED (a
contradiction), "n not found": expected violations no run showed (see below the tables), or
NONE COMMITTED: no holds counts.
`

// SimTable writes the design × property table of a simulator summary,
// then its legend; no line is wider than MaxWidth.
func SimTable(w io.Writer, s *sim.Summary) error {
	t := simHeader(true, "design")
	tokens := tokenTable("design")
	for i := range s.Designs {
		t.Add(simRow(&s.Designs[i], s.Faults, true)...)
		tokens.Add(append([]string{s.Designs[i].Design.String()}, tokenCells(&s.Designs[i])...)...)
	}
	if err := t.WriteText(w); err != nil {
		return err
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return err
	}
	if err := tokens.WriteText(w); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n"+simLegend)
	return err
}

// NPCTable writes the NPC table: for each fault class alone (the
// summaries, in sim.Singles order), each design's runs and what they
// violated, then the legend.
func NPCTable(w io.Writer, sums []*sim.Summary) error {
	// No committed column here: the table would be wider than MaxWidth;
	// a design whose runs committed nothing says so in its verdict.
	t := simHeader(false, "alone", "design")
	tokens := tokenTable("alone", "design")
	for _, s := range sums {
		for i := range s.Designs {
			t.Add(append([]string{s.Faults.String()}, simRow(&s.Designs[i], s.Faults, false)...)...)
			tokens.Add(append([]string{s.Faults.String(), s.Designs[i].Design.String()}, tokenCells(&s.Designs[i])...)...)
		}
	}
	if err := t.WriteText(w); err != nil {
		return err
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return err
	}
	if err := tokens.WriteText(w); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\nalone: the one fault kind the runs drew.\n"+strings.SplitN(simLegend, "\n", 2)[1]+NPCNotFound+"\n")
	return err
}

// NPCNotFound says, under the NPC table, what its "n not found" means.
const NPCNotFound = `NPC table, "n not found": n violations DESIGN.md expects with every fault kind together that
this one kind alone did not produce in these runs — not a contradiction: that kind alone is milder.`

// simRow is a design's cells: sections committed, how many runs violated each property
// ("—" where it does not apply), Porcupine's illegal and unknown counts
// (sections / register), stalls, and how it all compares with DESIGN.md:
// "as expected", "UNEXPECTED", or how many expected violations no run
// showed ("2 not found": verdict.NotFound).
func simRow(d *sim.DesignSummary, faults sim.FaultKinds, withCommitted bool) []string {
	cells := []string{d.Design.String()}
	if withCommitted {
		committed := thousands(d.Committed)
		if d.Committed == 0 {
			committed = "none"
		}
		cells = append(cells, committed)
	}
	vs := d.Verdicts()
	for _, name := range tableProperties(false) {
		cells = append(cells, violationCell(vs.Get(name)))
	}
	// Porcupine's counts for the two models, sections / register. Every
	// run is judged by both, so there is no "not checked" cell.
	pair := func(sections, register int) string { return fmt.Sprintf("%d/%d", sections, register) }
	cells = append(cells, pair(d.SectionsIllegal, d.RegisterIllegal)+", "+pair(d.SectionsUnknown, d.RegisterUnknown))
	cells = append(cells, fmt.Sprint(d.Stalls))
	var judged []string
	if len(d.Unexpected(faults)) > 0 {
		judged = append(judged, "UNEXPECTED")
	}
	if d.Runs > 0 && d.Committed == 0 {
		judged = append(judged, "NONE COMMITTED")
	}
	if n := len(d.NotFound(faults)); n > 0 {
		judged = append(judged, fmt.Sprintf("%d not found", n))
	}
	if len(judged) == 0 {
		judged = append(judged, "as expected")
	}
	return append(cells, strings.Join(judged, ", "))
}

// FirstSeeds writes, for each design, the first seed that violated each
// property, so that any of them can be replayed.
func FirstSeeds(w io.Writer, s *sim.Summary) error {
	t := NewTable("first seed violating")
	for _, name := range impl.InvariantNames() {
		t.Header = append(t.Header, Short(name))
	}
	t.Header = append(t.Header, "first failing")
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
		t.Add(append(cells, d.FirstFailing.String())...)
	}
	return t.WriteText(w)
}
