package report

import (
	"fmt"
	"html"
	"slices"
	"strings"
	"unicode"

	"github.com/fencelab/fencelab/impl"
)

// Mark is one checker's verdict in one cell of the matrix's picture.
type Mark int

const (
	// MarkNone: nothing checked it — no live setup instantiates the row,
	// or the live harness does not judge the property.
	MarkNone Mark = iota
	MarkHolds
	MarkViolated
	// MarkNotApplicable: the property does not apply to the row, or the
	// checker is untimed and the row is the simulator without faults.
	MarkNotApplicable
	// MarkUnknown: the checker did not run, or gave no verdict.
	MarkUnknown
	// MarkNotSeen: live, the property held in the runs the fault took
	// effect in and no run violated it — a sample, never "holds".
	MarkNotSeen
	// MarkNoEffect: live, the fault never took effect in any run.
	MarkNoEffect
)

// Live is the live harness, the picture's fourth checker.
const Live = "live"

// Marks is how many marks a cell of the picture has.
const Marks = 4

// pictureCheckers are the marks of a cell, left to right.
func pictureCheckers() [Marks]string { return [Marks]string{TLC, Explorer, Simulator, Live} }

// Picture is the whole matrix at a glance: a row per design row, a column
// per property, each cell the marks of TLC, the explorer, the simulator
// and live.
type Picture struct {
	Properties []string
	Rows       []PictureRow
}

// PictureRow is one row of the picture: its short label (the --design
// value), its description and a cell per property.
type PictureRow struct {
	Label, Describe string
	Cells           [][Marks]Mark
}

// NoFaultsLabel is the picture's label of the NoFaults row.
const NoFaultsLabel = "no faults (sim)"

// NewPicture reads the picture from the two committed tables it is a view
// of: the verdict matrix (Verdicts.Matrix's Markdown) and the README's
// live block (written by fencelab-live), so that it can be redrawn from
// them without running anything, and never says more than they do.
func NewPicture(matrix, live string) (*Picture, error) {
	header, rows, err := markdownTable(matrix)
	if err != nil {
		return nil, fmt.Errorf("the verdict matrix: %w", err)
	}
	p := &Picture{}
	type col struct{ prop, checker int }
	var cols []col
	for _, h := range header[1:] {
		prop, checker, ok := strings.Cut(h, " · ")
		k := slices.Index([]string{TLC, Explorer, Simulator}, checker)
		if !ok || k < 0 {
			return nil, fmt.Errorf("the verdict matrix: column %q is no property · checker", h)
		}
		i := slices.Index(p.Properties, prop)
		if i < 0 {
			p.Properties = append(p.Properties, prop)
			i = len(p.Properties) - 1
		}
		cols = append(cols, col{i, k})
	}
	liveMarks, err := LiveMarks(live)
	if err != nil {
		return nil, fmt.Errorf("the live block: %w", err)
	}
	for _, r := range rows {
		if len(r) != len(header) {
			return nil, fmt.Errorf("the verdict matrix: row %q has %d cells, the header %d", r[0], len(r), len(header))
		}
		row := PictureRow{Label: NoFaultsLabel, Describe: r[0], Cells: make([][Marks]Mark, len(p.Properties))}
		if r[0] != NoFaults {
			d, ok := designDescribed(r[0])
			if !ok {
				return nil, fmt.Errorf("the verdict matrix: no design row is described as %q", r[0])
			}
			row.Label = d.String()
		}
		for j, c := range cols {
			m, err := matrixMark(r[1+j])
			if err != nil {
				return nil, fmt.Errorf("the verdict matrix: %s, %s: %w", r[0], header[1+j], err)
			}
			row.Cells[c.prop][c.checker] = m
		}
		for i, prop := range p.Properties {
			row.Cells[i][3] = liveMarks[row.Label][prop]
		}
		p.Rows = append(p.Rows, row)
	}
	return p, nil
}

func designDescribed(s string) (impl.Design, bool) {
	for _, d := range impl.Designs() {
		if d.Describe() == s {
			return d, true
		}
	}
	return 0, false
}

// matrixMark reads a cell of the verdict matrix by its first word:
// "[violated (8 steps)](…)", "holds (…)", "— (3)", "n/a (untimed)".
func matrixMark(cell string) (Mark, error) {
	word, _, _ := strings.Cut(strings.TrimPrefix(cell, "["), " ")
	switch word {
	case "holds":
		return MarkHolds, nil
	case "violated":
		return MarkViolated, nil
	case "—", "n/a":
		return MarkNotApplicable, nil
	case "not", "unknown", "✗":
		return MarkUnknown, nil
	}
	return MarkUnknown, fmt.Errorf("cell %q is no verdict", cell)
}

// LiveMarks reads the README's live block into a mark per row (its
// --design value) and property: violated if any setup's runs violated it,
// else not seen if it held in some run the fault took effect in, else
// unknown if the fault took effect but no run decided it, else no effect;
// a property that does not apply stays not applicable. A cell it cannot
// read is an error, never a guess.
func LiveMarks(block string) (map[string]map[string]Mark, error) {
	header, rows, err := markdownTable(block)
	if err != nil {
		return nil, err
	}
	props := map[int]string{}
	for i, h := range header {
		if p, ok := strings.CutSuffix(h, ": model · live"); ok {
			props[i] = p
		}
	}
	if len(props) == 0 {
		return nil, fmt.Errorf("no column \"<property>: model · live\" in %q", strings.Join(header, " | "))
	}
	// The strongest mark wins: one violating setup makes the row violated.
	rank := []Mark{MarkNone, MarkNotApplicable, MarkNoEffect, MarkUnknown, MarkNotSeen, MarkViolated}
	out := map[string]map[string]Mark{}
	for _, r := range rows {
		if len(r) != len(header) {
			return nil, fmt.Errorf("row %q has %d cells, the header %d", r[0], len(r), len(header))
		}
		row := strings.Trim(r[0], "`")
		if out[row] == nil {
			out[row] = map[string]Mark{}
		}
		for i, p := range props {
			m, err := liveMark(r[i])
			if err != nil {
				return nil, fmt.Errorf("%s, %s: %w", r[0], p, err)
			}
			if slices.Index(rank, m) > slices.Index(rank, out[row][p]) {
				out[row][p] = m
			}
		}
	}
	return out, nil
}

// liveMark reads a live cell, "model · live", in the words of
// campaign.Tally.String: "violated · [violated (3 of 3)](…)", "holds · held
// while the fault took effect in 3 of 3", "holds · inconclusive (the fault
// took effect in 0 of 3)", "violated · safe: leases survive a restart (3
// of 3)", "— · — (not applicable)"; and the words of a
// block written before those, "not observed (0 of 3; the fault took effect
// in M)", until make live writes it again.
func liveMark(cell string) (Mark, error) {
	_, got, ok := strings.Cut(cell, " · ")
	if !ok {
		return MarkUnknown, fmt.Errorf("cell %q is not \"model · live\"", cell)
	}
	got = strings.TrimPrefix(got, "[")
	switch {
	case strings.HasPrefix(got, "violated"):
		return MarkViolated, nil
	case strings.HasPrefix(got, "—"):
		return MarkNotApplicable, nil
	case strings.HasPrefix(got, "held while the fault took effect in "), strings.HasPrefix(got, "safe: "):
		// "safe: <mechanism> (S of N)": no run violated it, and the
		// service's mechanism against the fault was witnessed — a
		// sample, as a hold is.
		return MarkNotSeen, nil
	case strings.HasPrefix(got, "inconclusive (the fault took effect in 0 of "):
		return MarkNoEffect, nil
	case strings.HasPrefix(got, "inconclusive (the fault took effect in "):
		return MarkUnknown, nil
	case strings.HasPrefix(got, "not observed") && strings.HasSuffix(got, "took effect in 0)"):
		return MarkNoEffect, nil
	case strings.HasPrefix(got, "not observed"):
		return MarkNotSeen, nil
	}
	return MarkUnknown, fmt.Errorf("live cell %q is no verdict", got)
}

// markdownTable reads the first Markdown table of s: its header and rows,
// each cell trimmed.
func markdownTable(s string) (header []string, rows [][]string, err error) {
	var lines []string
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "|") {
			lines = append(lines, line)
		} else if len(lines) > 0 {
			break
		}
	}
	if len(lines) < 3 {
		return nil, nil, fmt.Errorf("no Markdown table with a row")
	}
	cells := func(line string) []string {
		cs := strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|"), " | ")
		for i := range cs {
			cs[i] = strings.TrimSpace(cs[i])
		}
		return cs
	}
	header = cells(lines[0])
	for _, line := range lines[2:] {
		rows = append(rows, cells(line))
	}
	return header, rows, nil
}

// The picture's geometry, in pixels: it fits GitHub's README column
// (about 830 px) without scaling.
const (
	picWidth    = 820
	picMargin   = 10
	picLabelW   = 150
	picSlotW    = 31
	picRowH     = 24
	picTitleH   = 28
	picHeaderH  = 58
	picLegendH  = 118
	picFont     = `-apple-system,'Segoe UI',Helvetica,Arial,sans-serif`
	picMonoFont = `ui-monospace,SFMono-Regular,Menlo,Consolas,monospace`
)

// SVG draws p: only the standard library, shapes rather than glyphs for
// the marks (so they look the same in every font), a legend below.
func (p *Picture) SVG() string {
	slots := Marks
	colW := (picWidth - 2*picMargin - picLabelW) / max(1, len(p.Properties))
	tableTop := picTitleH + picHeaderH
	height := tableTop + picRowH*len(p.Rows) + picLegendH
	var b strings.Builder
	f := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	f(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="%s" font-size="12">`+"\n", picWidth, height, picWidth, height, picFont)
	f(`<title>fencelab's matrix: every design row × property, as TLC, the explorer, the simulator and live found it</title>` + "\n")
	f(`<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", picWidth, height)
	f(`<text x="%d" y="19" font-size="14" font-weight="600" fill="#1f2328">Each design row × each property: the verdict of TLC, the explorer, the simulator and live</text>`+"\n", picMargin)
	x0 := picMargin + picLabelW
	for i, prop := range p.Properties {
		cx := x0 + i*colW + colW/2
		for k, line := range splitCamel(prop) {
			f(`<text x="%d" y="%d" text-anchor="middle" font-weight="600" fill="#1f2328">%s</text>`+"\n", cx, picTitleH+16+k*15, esc(line))
		}
		for k, c := range pictureCheckers() {
			f(`<text x="%d" y="%d" text-anchor="middle" font-size="10" fill="#59636e">%s</text>`+"\n", slotX(x0+i*colW, colW, slots, k), tableTop-6, esc(shortChecker(c)))
		}
	}
	f(`<text x="%d" y="%d" font-size="11" fill="#59636e">--design</text>`+"\n", picMargin+4, tableTop-6)
	for r, row := range p.Rows {
		y := tableTop + r*picRowH
		if r%2 == 0 {
			f(`<rect x="%d" y="%d" width="%d" height="%d" fill="#f6f8fa"/>`+"\n", picMargin, y, picWidth-2*picMargin, picRowH)
		}
		font := picMonoFont
		if row.Label == NoFaultsLabel {
			font = picFont
		}
		f(`<text x="%d" y="%d" font-family="%s" font-size="12.5" fill="#1f2328"><title>%s</title>%s</text>`+"\n", picMargin+4, y+16, font, esc(row.Describe), esc(row.Label))
		for i, cell := range row.Cells {
			for k, m := range cell {
				drawMark(&b, m, slotX(x0+i*colW, colW, slots, k), y+picRowH/2)
			}
		}
	}
	bottom := tableTop + picRowH*len(p.Rows)
	for i := 0; i <= len(p.Properties); i++ {
		x := x0 + i*colW
		f(`<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#d1d9e0"/>`+"\n", x, picTitleH+2, x, bottom)
	}
	f(`<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#d1d9e0"/>`+"\n", picMargin, tableTop, picWidth-picMargin, tableTop)
	f(`<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#d1d9e0"/>`+"\n", picMargin, bottom, picWidth-picMargin, bottom)
	p.legend(&b, bottom+18)
	b.WriteString("</svg>\n")
	return b.String()
}

// legend says what the marks mean and where the figures are.
func (p *Picture) legend(b *strings.Builder, y int) {
	items := []struct {
		m    Mark
		text string
	}{
		{MarkHolds, "holds: no state, interleaving or run violates it"},
		{MarkViolated, "violated: a counterexample (live: a run) breaks it"},
		{MarkNotApplicable, "does not apply (no tokens to order; an untimed checker without faults)"},
		{MarkNotSeen, "live: held while the fault took effect, or witnessed safe (never holds)"},
		{MarkNoEffect, "live: the fault never took effect in any run"},
		{MarkNone, "live: no live setup instantiates the row, or live does not judge the property"},
		{MarkUnknown, "the checker did not run, or reached no verdict"},
	}
	// Only the marks the picture shows.
	used := map[Mark]bool{}
	for _, r := range p.Rows {
		for _, c := range r.Cells {
			for _, m := range c {
				used[m] = true
			}
		}
	}
	items = slices.DeleteFunc(items, func(it struct {
		m    Mark
		text string
	}) bool {
		return !used[it.m]
	})
	for i, it := range items {
		col, line := i%2, i/2
		x := picMargin + 12 + col*(picWidth/2)
		drawMark(b, it.m, x, y+line*19)
		fmt.Fprintf(b, `<text x="%d" y="%d" font-size="11" fill="#1f2328">%s</text>`+"\n", x+14, y+line*19+4, esc(it.text))
	}
	y += (len(items)+1)/2*19 + 4
	fmt.Fprintf(b, `<text x="%d" y="%d" font-size="11" fill="#59636e">%s</text>`+"\n", picMargin, y,
		esc("TLC on the PlusCal specs · expl.: the explorer, every interleaving of the Go code · sim.: 1,000 seeded runs under NPC faults · live: real services under real faults"))
	fmt.Fprintf(b, `<text x="%d" y="%d" font-size="11" fill="#59636e">%s</text>`+"\n", picMargin, y+16,
		esc("Every cell's figures and counterexample: docs/matrix.md. The live setups, faults and runs: the README's live block."))
}

// slotX is the centre of mark k of a cell of width w starting at x.
func slotX(x, w, slots, k int) int {
	left := x + (w-slots*picSlotW)/2
	return left + k*picSlotW + picSlotW/2
}

func shortChecker(c string) string {
	switch c {
	case Explorer:
		return "expl."
	case Simulator:
		return "sim."
	}
	return c
}

// drawMark draws m centred on (x, y), each a shape of its own so that the
// marks differ without colour too.
func drawMark(b *strings.Builder, m Mark, x, y int) {
	f := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	switch m {
	case MarkHolds:
		f(`<circle cx="%d" cy="%d" r="7.5" fill="#1a7f37"/><path d="M%d %d l3 3 l5 -6" stroke="#fff" stroke-width="2" fill="none"/>`+"\n", x, y, x-4, y)
	case MarkViolated:
		f(`<rect x="%d" y="%d" width="15" height="15" rx="2" fill="#cf222e"/><path d="M%d %d l7 7 M%d %d l-7 7" stroke="#fff" stroke-width="2"/>`+"\n", x-7, y-7, x-3, y-3, x+4, y-3)
	case MarkNotApplicable:
		f(`<path d="M%d %d h10" stroke="#8c959f" stroke-width="2"/>`+"\n", x-5, y)
	case MarkNotSeen:
		f(`<circle cx="%d" cy="%d" r="6.5" fill="none" stroke="#1a7f37" stroke-width="2"/>`+"\n", x, y)
	case MarkNoEffect:
		f(`<circle cx="%d" cy="%d" r="6.5" fill="none" stroke="#8c959f" stroke-width="1.5" stroke-dasharray="2 2"/>`+"\n", x, y)
	case MarkUnknown:
		f(`<text x="%d" y="%d" text-anchor="middle" font-weight="700" fill="#9a6700">?</text>`+"\n", x, y+4)
	default:
		f(`<circle cx="%d" cy="%d" r="1.5" fill="#afb8c1"/>`+"\n", x, y)
	}
}

// splitCamel breaks a property's name into two lines at the capital
// nearest its middle: "AtMostOne" "ClientHoldLock".
func splitCamel(s string) []string {
	r := []rune(s)
	best := -1
	for i := 1; i < len(r); i++ {
		if unicode.IsUpper(r[i]) && (best < 0 || abs(i-len(r)/2) < abs(best-len(r)/2)) {
			best = i
		}
	}
	if best < 0 || len(r) <= 12 {
		return []string{s}
	}
	return []string{string(r[:best]), string(r[best:])}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func esc(s string) string { return html.EscapeString(s) }
