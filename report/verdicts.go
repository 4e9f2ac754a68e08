package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/fencelab/fencelab/explore"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/words"
	"github.com/fencelab/fencelab/sim"
	"github.com/fencelab/fencelab/tlc"
	"github.com/fencelab/fencelab/verdict"
)

// The checkers, in the order of the joined table's columns.
const (
	TLC       = "TLC"
	Explorer  = "explorer"
	Simulator = "simulator"
)

// NoFaults is the last rows' design: the simulator without faults, where
// every property holds in every design.
const NoFaults = "any design, simulator without faults"

// Reached is the verdicts one checker reached in one run, on one row of
// DESIGN.md's table: a design's description, or NoFaults.
type Reached struct {
	Design, Checker string
	Clients         int // the model's size (TLC, explorer)
	// Model is TLC's model name.
	Model string
	// Mismatch says why the run's verdicts cannot be taken: TLC's model
	// differs from the manifest ("F_all_2c: invariant NoLostUpdate").
	Mismatch string
	States   int64 // distinct states explored (TLC, explorer)
	// Committed is the sections the runs committed (simulator).
	Committed int
	Verdicts  verdict.Set
	// Pictures maps a violated property to its counterexample's sequence
	// picture (a trace.mmd file), where the checker wrote one.
	Pictures map[string]string
}

// Explored is the explorer's results as reached verdicts.
func Explored(results []*explore.Result) []Reached {
	var out []Reached
	for _, r := range results {
		out = append(out, Reached{Design: r.Config.Design.Describe(), Checker: Explorer, Clients: r.Config.Clients,
			States: int64(r.Distinct), Verdicts: r.Verdicts()})
	}
	return out
}

// Simulated is a simulator summary's verdicts, one per design, on the
// design's row — or, without faults, all on the NoFaults row.
func Simulated(s *sim.Summary) []Reached {
	var out []Reached
	for i := range s.Designs {
		d := &s.Designs[i]
		row := d.Design.Describe()
		if s.Faults == sim.NoFaults {
			row = NoFaults
		}
		out = append(out, Reached{Design: row, Checker: Simulator, Committed: d.Committed, Verdicts: d.Verdicts()})
	}
	return out
}

// Checked is TLC's outcomes as reached verdicts, on their models' designs.
func Checked(outcomes []tlc.Outcome) ([]Reached, error) {
	var out []Reached
	for _, o := range outcomes {
		// The timed models' verdicts depend on their bounds, not on the
		// design alone, and the variant models check a changed system
		// (no timeouts, a mutant service): neither is part of DESIGN.md's
		// table.
		if o.Model.Family != "" {
			continue
		}
		d, err := impl.ParseDesign(o.Model.Design)
		if err != nil {
			return nil, fmt.Errorf("model %s: %w", o.Model.Name, err)
		}
		r := Reached{Design: d.Describe(), Checker: TLC, Clients: clientsOf(o.Model.Name), Model: o.Model.Name, States: o.Distinct, Verdicts: o.Verdicts}
		if o.Mismatch != "" {
			r.Mismatch = o.Model.Name + ": " + o.Got
		}
		out = append(out, r)
	}
	return out, nil
}

// clientsOf reads the client count from a model name such as
// DistLock_3c_NoLostUpdate.
func clientsOf(name string) int {
	for _, part := range strings.Split(name, "_") {
		if n, err := strconv.Atoi(strings.TrimSuffix(part, "c")); err == nil && strings.HasSuffix(part, "c") {
			return n
		}
	}
	return 0
}

// Verdicts is DESIGN.md's table reached three ways: one row per design and
// property, then the simulator without faults, each with the verdict of
// every checker.
type Verdicts []verdictRow

type verdictRow struct {
	design, property string
	expected         verdict.Status
	// why says why the property does not apply, when expected is "—".
	why   string
	cells [3]cell // TLC, explorer, simulator
}

// cell is one checker's verdict: its text, whether the checker reached
// one (checked), and whether it agrees with DESIGN.md. A checker that did
// not run is not checked: it neither agrees nor contradicts. picture is
// the counterexample's sequence picture (a trace.mmd), if the checker
// wrote one.
type cell struct {
	text    string
	agrees  bool
	checked bool
	picture string
}

// Join lays out DESIGN.md's table with the verdicts reached, joined on
// (design, property, checker). Checkers in notRun did not run: their cells
// say so.
func Join(reached []Reached, notRun ...string) Verdicts {
	on := func(design, checker, property string) (rs []Reached, vs []verdict.Verdict) {
		for _, r := range reached {
			if r.Design != design || r.Checker != checker {
				continue
			}
			if v, ok := r.Verdicts.Lookup(property); ok {
				rs, vs = append(rs, r), append(vs, v)
			}
		}
		return rs, vs
	}
	judge := func(design, checker, property string, want verdict.Status, c func([]Reached, []verdict.Verdict, verdict.Status) cell) cell {
		if slices.Contains(notRun, checker) {
			return cell{text: "not run"}
		}
		rs, vs := on(design, checker, property)
		got := c(rs, vs, want)
		// The picture of the smallest model that has one.
		best := 0
		for _, r := range rs {
			if p := r.Pictures[property]; p != "" && (got.picture == "" || r.Clients < best) {
				got.picture, best = p, r.Clients
			}
		}
		return got
	}
	var t Verdicts
	dash := cell{text: "—", agrees: true}
	for _, d := range impl.Designs() {
		for _, inv := range impl.Invariants() {
			r := verdictRow{design: d.Describe(), property: inv.Name, expected: impl.Expected(d, inv.Name), why: impl.NotApplicableWhy(d, inv.Name)}
			if r.expected == verdict.NotApplicable {
				r.cells = [3]cell{dash, dash, dash}
			} else {
				r.cells[0] = judge(r.design, TLC, inv.Name, r.expected, tlcCell)
				r.cells[1] = judge(r.design, Explorer, inv.Name, r.expected, explorerCell)
				r.cells[2] = judge(r.design, Simulator, inv.Name, r.expected, simCell)
			}
			t = append(t, r)
		}
	}
	untimed := cell{text: "n/a (untimed)", agrees: true}
	for _, inv := range impl.Invariants() {
		r := verdictRow{design: NoFaults, property: inv.Name, expected: verdict.Holds, cells: [3]cell{untimed, untimed}}
		r.cells[2] = judge(NoFaults, Simulator, inv.Name, r.expected, simCell)
		t = append(t, r)
	}
	return t
}

// tlcCell is TLC's verdict: every model of the design that checks the
// property, each matching its manifest entry.
func tlcCell(rs []Reached, vs []verdict.Verdict, want verdict.Status) cell {
	var sizes []int
	var figures []string
	var most int64
	got := verdict.NotChecked
	for i, v := range vs {
		if rs[i].Mismatch != "" {
			return cell{text: "✗ " + rs[i].Mismatch, checked: true}
		}
		if v.Status == verdict.Violated {
			figures = append(figures, words.Count(v.Steps(), "step"))
		}
		if got != verdict.NotChecked && got != v.Status {
			return cell{text: "✗ models disagree", checked: true}
		}
		got = v.Status
		sizes = append(sizes, rs[i].Clients)
		most = max(most, rs[i].States)
	}
	if got == verdict.NotChecked {
		// The table promises every verdict three ways: a missing model is
		// a gap in the specs' manifest, not a pass.
		return cell{text: "✗ no model checks it", checked: true}
	}
	if got == verdict.Holds {
		// Several models (with and without symmetry, with liveness) check
		// it: say how many, and the largest state space.
		figures = []string{fmt.Sprintf("%s, up to %s", words.Count(len(vs), "model"), words.Count(int(most), "state"))}
		if len(vs) == 1 {
			figures = []string{fmt.Sprintf("1 model, %s states", thousands(int(most)))}
		}
	}
	return cell{text: cellText(got.String(), figures, sizes), agrees: got == want, checked: true}
}

// explorerCell is the explorer's verdict over every model size it ran.
func explorerCell(rs []Reached, vs []verdict.Verdict, want verdict.Status) cell {
	var sizes []int
	var figures []string
	agrees := true
	for i, v := range vs {
		agrees = agrees && v.Agrees(want)
		sizes = append(sizes, rs[i].Clients)
		switch v.Status {
		case verdict.Violated:
			figures = append(figures, words.Count(v.Steps(), "step"))
		case verdict.Holds:
			figures = append(figures, v.Covered)
		default:
			figures = append(figures, v.Status.String())
		}
	}
	if len(vs) == 0 {
		return cell{text: "not run"}
	}
	text := want.String()
	if !agrees {
		text = "✗"
	}
	return cell{text: cellText(text, figures, sizes), agrees: agrees, checked: true}
}

// simCell is the simulator's verdict: how many of its runs violated the
// property, over every design of the row where the property applies, and
// beside a holds how many sections those runs committed. Runs in which no
// section committed never make a holds: it would be vacuous.
func simCell(rs []Reached, vs []verdict.Verdict, want verdict.Status) cell {
	n, runs, committed, ran, vacuous := 0, 0, 0, false, false
	for i, v := range vs {
		switch {
		case v.Status == verdict.Holds || v.Status == verdict.Violated:
			n, runs, committed, ran = n+v.Violating, runs+v.Runs, committed+rs[i].Committed, true
		case v.Status == verdict.Unknown && v.Detail == sim.NoneCommitted:
			runs, vacuous = runs+v.Runs, true
		}
	}
	if !ran && !vacuous {
		return cell{text: "not run"}
	}
	found := verdict.Holds
	if n > 0 {
		found = verdict.Violated
	}
	if found == verdict.Holds && vacuous {
		return cell{text: fmt.Sprintf("unknown (0 of %s, %s)", words.Count(runs, "run"), sim.NoneCommitted), checked: true}
	}
	if found == verdict.Holds {
		return cell{text: fmt.Sprintf("holds (0 of %s, %s committed)", words.Count(runs, "run"), words.Count(committed, "section")), agrees: found == want, checked: true}
	}
	return cell{text: fmt.Sprintf("%s (%d of %s)", found, n, words.Count(runs, "run")), agrees: found == want, checked: true}
}

// cellText is a verdict with its figures and the model sizes behind it:
// "violated (7 steps; 2 and 3 clients)".
func cellText(v string, figures []string, sizes []int) string {
	sizes = slices.Clone(sizes)
	slices.Sort(sizes)
	sizes = slices.Compact(sizes)
	var names []string
	for _, n := range sizes {
		names = append(names, strconv.Itoa(n))
	}
	figures = slices.Compact(slices.Clone(figures))
	list := names[len(names)-1]
	if len(names) > 1 {
		list = strings.Join(names[:len(names)-1], ", ") + " and " + list
	}
	return fmt.Sprintf("%s (%s; %s clients)", v, strings.Join(figures, ", "), list)
}

// Disagreements lists, one sentence each, every checked verdict that
// differs from DESIGN.md's table.
func (t Verdicts) Disagreements() []string {
	var out []string
	for _, r := range t {
		for i, c := range r.cells {
			if c.checked && !c.agrees {
				checker := [...]string{TLC, Explorer, Simulator}[i]
				out = append(out, fmt.Sprintf("%s: %s in %s gave %s, expected %s", checker, r.property, r.design, c.text, r.expected))
			}
		}
	}
	return out
}

// Table is t as a table.
func (t Verdicts) Table() *Table {
	tb := NewTable("design", "property", "DESIGN.md", TLC, Explorer, Simulator)
	for _, r := range t {
		tb.Add(r.design, r.property, r.expected.String(), r.cells[0].text, r.cells[1].text, r.cells[2].text)
	}
	return tb
}

// Matrix is t as the lock-design × fault matrix, in Markdown: one row per
// design (and the simulator without faults), a column per property and
// checker; each cell is the checker's verdict in short, linked to its
// counterexample's picture where there is one (link turns a picture's
// path into the link's target; nil: no links). A cell that contradicts
// DESIGN.md is marked ✗; a property that does not apply to a row is "—"
// with a numbered note below the table saying why, one note per reason.
func (t Verdicts) Matrix(link func(design, property, checker, picture string) string) string {
	var props []string
	for _, r := range t {
		if !slices.Contains(props, r.property) {
			props = append(props, r.property)
		}
	}
	checkers := [...]string{TLC, Explorer, Simulator}
	header := []string{"design"}
	for _, p := range props {
		for _, c := range checkers {
			header = append(header, p+" · "+c)
		}
	}
	tb := NewTable(header...)
	var notes []string
	var designs []string
	for _, r := range t {
		if !slices.Contains(designs, r.design) {
			designs = append(designs, r.design)
		}
	}
	for _, d := range designs {
		row := []string{d}
		for _, p := range props {
			var r *verdictRow
			for i := range t {
				if t[i].design == d && t[i].property == p {
					r = &t[i]
				}
			}
			if r == nil {
				row = append(row, "", "", "")
				continue
			}
			if r.expected == verdict.NotApplicable {
				// One note per reason: most rows without tokens share
				// theirs.
				n := slices.Index(notes, r.why)
				if n < 0 {
					notes = append(notes, r.why)
					n = len(notes) - 1
				}
				dash := fmt.Sprintf("— (%d)", n+1)
				row = append(row, dash, dash, dash)
				continue
			}
			for i, c := range r.cells {
				text := shortCell(c.text)
				if c.checked && !c.agrees {
					text = "✗ " + strings.TrimPrefix(text, "✗ ") + ", expected " + r.expected.String()
				}
				if c.picture != "" && link != nil {
					if target := link(d, p, checkers[i], c.picture); target != "" {
						text = fmt.Sprintf("[%s](%s)", text, target)
					}
				}
				row = append(row, text)
			}
		}
		tb.Add(row...)
	}
	var b strings.Builder
	b.WriteString(tb.Markdown())
	for i, n := range notes {
		fmt.Fprintf(&b, "\n(%d) — does not apply: %s\n", i+1, n)
	}
	return b.String()
}

// shortCell is a cell's text without the model sizes behind it, for the
// matrix: "violated (8 steps; 2 and 3 clients)" → "violated (8 steps)".
func shortCell(text string) string {
	if i := strings.LastIndex(text, "; "); i >= 0 && strings.HasSuffix(text, " clients)") {
		return text[:i] + ")"
	}
	return text
}

// WriteText writes t for a terminal.
func (t Verdicts) WriteText(w io.Writer) error { return t.Table().WriteText(w) }

// Markdown is t for README.md.
func (t Verdicts) Markdown() string { return t.Table().Markdown() }
