package sweep

import (
	"encoding/csv"
	"fmt"
	"html"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fencelab/fencelab/bounds"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/words"
)

// WriteCSV writes one row per cell and design: the cell's two bounds, then
// per property the derived verdict and slack, the worst case's result and
// the random runs that violated it.
func (r *Result) WriteCSV(w io.Writer) error {
	s := r.Sweep
	header := []string{"design", s.X.Name, s.Y.Name, "runs"}
	for _, p := range bounds.Properties() {
		header = append(header, p.Name+" derived", p.Name+" slack", p.Name+" worst case", p.Name+" random violations")
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, c := range r.Cells {
		row := []string{c.Design.String(), s.X.Format(s.X.Value(c.I)), s.Y.Format(s.Y.Value(c.J)), strconv.Itoa(c.Runs)}
		for _, o := range c.Outcomes {
			derived := "holds"
			if !o.Derived.Safe {
				derived = "violated"
			}
			row = append(row, derived, o.Derived.Slack.String(), o.Worst, strconv.Itoa(o.Random))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// Picture geometry, in SVG user units. The layout is computed from the
// text it holds (textWidth), so that no title, label or legend line
// overlaps another or leaves the canvas, whatever the grid's size.
const (
	cellSize  = 18 // a cell's height, and its width unless the x ticks need more
	fontSize  = 11
	titleSize = 15
	lineH     = 16 // a line of text at fontSize, with its leading
	pad       = 12 // around the picture and between its parts
	boundaryN = 160
)

// textWidth is an upper estimate of s's width at size: sans-serif glyphs
// average about 0.55 em and the widest capitals reach 0.72 em; 0.64 em
// per rune (0.68 bold) keeps the estimate above what a browser draws for
// the picture's text (TestSweepSVGInABrowser measures it).
func textWidth(s string, size int, bold bool) int {
	em := 0.64
	if bold {
		em = 0.68
	}
	return int(math.Ceil(float64(utf8.RuneCountInString(s)) * float64(size) * em))
}

// Class is how a cell of one property is coloured: one of Classes. The
// cells and the legend both come from Classify and Classes, so the legend
// says what the colours mean.
type Class int

// The classes of a cell, in the legend's order.
const (
	ClassNone       Class = iota // nothing violated the property
	ClassWorstOnly               // the worst case violated it, no random run did
	ClassRandomSome              // some random runs violated it (darker: more)
	ClassRandomAll               // every random run violated it
)

// Classes are every class, in the legend's order.
func Classes() []Class { return []Class{ClassNone, ClassWorstOnly, ClassRandomSome, ClassRandomAll} }

// Classify is the class of outcome o of a cell of runs random runs.
func Classify(o Outcome, runs int) Class {
	switch {
	case o.Random > 0 && o.Random >= runs:
		return ClassRandomAll
	case o.Random > 0:
		return ClassRandomSome
	case o.Worst == "violated":
		return ClassWorstOnly
	}
	return ClassNone
}

// Legend is what the class means, as the legend says it.
func (c Class) Legend() string {
	switch c {
	case ClassWorstOnly:
		return "the worst case violated, no random run did"
	case ClassRandomSome:
		return "some random runs violated (darker: more)"
	case ClassRandomAll:
		return "every random run violated"
	}
	return "nothing violated"
}

// Fill is the class's colour for a share of random runs that violated
// (used by ClassRandomSome only): from a light to a full red.
func (c Class) Fill(share float64) string {
	switch c {
	case ClassWorstOnly:
		return "#fde0dc"
	case ClassRandomSome, ClassRandomAll:
		if c == ClassRandomAll {
			share = 1
		}
		g := int(200 - 170*share)
		return fmt.Sprintf("#%02x%02x%02x", 230, g, g)
	}
	return "#e8f5e9"
}

// legendShare is the share the legend's swatch of ClassRandomSome shows.
const legendShare = 0.5

// fill is the colour of outcome o of a cell of runs random runs.
func fill(o Outcome, runs int) string {
	share := 0.0
	if runs > 0 {
		share = float64(o.Random) / float64(runs)
	}
	return Classify(o, runs).Fill(share)
}

// legendLines are the legend's lines besides the classes: the worst case's
// dot and the boundary's line.
const (
	legendDot  = "the worst-case schedule violated (dot)"
	legendLine = "derived boundary (DESIGN.md): safe on the side without dots"
)

// svgLayout is where the parts of the picture go.
type svgLayout struct {
	cellW          int // a cell's width
	pw, ph         int // a panel's size
	left           int // x of the first panel
	colW           int // from one panel's left to the next one's
	yTickW         int // the widest y tick label
	yLabelW        int // the y axis label's width
	yLabelRotated  bool
	top            int // y of the first row's panel title baseline
	rowH           int // from one row of panels to the next
	legendTop      int
	width, height  int
	titleLines     []string
	xTicks, yTicks []int
	panelTitle     func(d impl.Design, prop string) string
}

func newLayout(s *Sweep, props []bounds.Property) svgLayout {
	var l svgLayout
	l.panelTitle = func(d impl.Design, prop string) string { return fmt.Sprintf("design %s — %s", d, prop) }
	widest := func(a Axis) int {
		w := 0
		for i := range a.Cells {
			w = max(w, textWidth(a.Format(a.Value(i)), fontSize, false))
		}
		return w
	}
	// x: a small axis widens its cells to fit every label; a large one
	// labels every few cells, far enough apart not to overlap.
	xw := widest(s.X)
	l.cellW = cellSize
	step := 1
	if s.X.Cells <= 8 {
		l.cellW = max(cellSize, xw+6)
	} else {
		step = max((s.X.Cells-1)/4, (xw+6+cellSize-1)/cellSize)
	}
	l.xTicks = ticks(s.X.Cells, step)
	ystep := 1
	if s.Y.Cells > 8 {
		ystep = max(1, (s.Y.Cells-1)/4)
	}
	l.yTicks = ticks(s.Y.Cells, ystep)
	l.pw, l.ph = s.X.Cells*l.cellW, s.Y.Cells*cellSize
	l.yTickW = widest(s.Y)
	l.yLabelW = textWidth(s.Y.Label(), fontSize, false)
	// The y label runs along the panel when it fits there, else it is
	// written across, left of the tick labels.
	l.yLabelRotated = l.yLabelW <= l.ph
	yLabelSpace := lineH
	if !l.yLabelRotated {
		yLabelSpace = l.yLabelW + 6
	}
	l.left = pad + yLabelSpace + 4 + l.yTickW + 4
	colContent := l.pw
	for _, d := range s.Designs {
		for _, p := range props {
			colContent = max(colContent, textWidth(l.panelTitle(d, p.Name), fontSize, true))
		}
	}
	xLabelW := textWidth(s.X.Label(), fontSize, false)
	colContent = max(colContent, xLabelW, l.pw+xw/2)
	// The next panel's tick labels and y label come before it, as the
	// first one's do.
	l.colW = colContent + l.left
	panelsW := len(props)*l.colW - pad
	// The title and the fixed bounds wrap at the panels' width (at least
	// 480 units), at their commas.
	wrapAt := max(panelsW-2*pad, 480)
	l.titleLines = wrap(fixedBounds(s), wrapAt)
	title := fmt.Sprintf("Where a lease lock stops being safe: %s × %s", s.X.Name, s.Y.Name)
	contentW := max(panelsW, pad+textWidth(title, titleSize, true))
	for _, line := range l.titleLines {
		contentW = max(contentW, pad+textWidth(line, fontSize, false))
	}
	legendW := 24 + textWidth(legendLine, fontSize, false)
	for _, c := range Classes() {
		legendW = max(legendW, 24+textWidth(c.Legend(), fontSize, false))
	}
	contentW = max(contentW, pad+legendW)
	l.width = contentW + pad
	// Rows: a panel title line, the panel, the tick labels and the x label.
	l.top = pad + titleSize + len(l.titleLines)*lineH + pad + lineH
	panelH := l.ph
	if !l.yLabelRotated {
		panelH = max(panelH, lineH)
	}
	l.rowH = lineH + panelH + 2*lineH + pad
	l.legendTop = l.top - lineH + len(s.Designs)*l.rowH
	legendLines := len(Classes()) + 2
	l.height = l.legendTop + legendLines*lineH + pad
	return l
}

// wrap splits s at ", " and "; " into lines of at most width units.
func wrap(s string, width int) []string {
	var lines []string
	line := ""
	for _, part := range strings.SplitAfter(s, ", ") {
		for _, p := range strings.SplitAfter(part, "; ") {
			if line != "" && textWidth(line+p, fontSize, false) > width {
				lines = append(lines, strings.TrimRight(line, " "))
				line = ""
			}
			line += p
		}
	}
	if line != "" {
		lines = append(lines, strings.TrimRight(line, " "))
	}
	return lines
}

// WriteSVG draws the sweep: one panel per design and property, a cell per
// grid point coloured by its Class, a dot where the worst case violated
// the property, and DESIGN.md's boundary (where the slack is 0) drawn over
// the grid; the legend lists the classes. Hand-written SVG, no script: a
// browser opens it.
func (r *Result) WriteSVG(w io.Writer) error {
	s := r.Sweep
	props := bounds.Properties()
	l := newLayout(s, props)
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="%d">`+"\n", l.width, l.height, l.width, l.height, fontSize)
	p(`<rect width="100%%" height="100%%" fill="white"/>` + "\n")
	p(`<text x="%d" y="%d" font-size="%d" font-weight="bold">%s</text>`+"\n", pad, pad+titleSize-2, titleSize, esc(fmt.Sprintf("Where a lease lock stops being safe: %s × %s", s.X.Name, s.Y.Name)))
	for n, line := range l.titleLines {
		p(`<text x="%d" y="%d">%s</text>`+"\n", pad, pad+titleSize+(n+1)*lineH-2, esc(line))
	}
	for k, d := range s.Designs {
		top := l.top + k*l.rowH
		for q, prop := range props {
			left := l.left + q*l.colW
			p(`<text x="%d" y="%d" font-weight="bold">%s</text>`+"\n", left, top-6, esc(l.panelTitle(d, prop.Name)))
			for j := range s.Y.Cells {
				for i := range s.X.Cells {
					c := r.CellAt(k, i, j)
					o := c.Outcomes[q]
					x, y := left+i*l.cellW, top+(s.Y.Cells-1-j)*cellSize
					p(`<rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="#ddd" stroke-width="0.5" data-class="%d"><title>%s</title></rect>`+"\n",
						x, y, l.cellW, cellSize, fill(o, c.Runs), Classify(o, c.Runs), esc(tooltip(s, c, o)))
					if o.Worst == "violated" {
						p(`<circle cx="%d" cy="%d" r="3" fill="black"/>`+"\n", x+l.cellW/2, y+cellSize/2)
					}
				}
			}
			p(`<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#888"/>`+"\n", left, top, l.pw, l.ph)
			if pts := boundary(s, q, left, top, l.cellW); pts != "" {
				p(`<polyline points="%s" fill="none" stroke="#1f5fd6" stroke-width="2.5"/>`+"\n", pts)
			}
			axisLabels(p, s, l, left, top)
		}
	}
	ly := l.legendTop
	for n, c := range Classes() {
		y := ly + n*lineH
		p(`<rect x="%d" y="%d" width="12" height="12" fill="%s" stroke="#ddd" data-class="%d"/><text x="%d" y="%d">%s</text>`+"\n",
			pad, y, c.Fill(legendShare), c, pad+20, y+10, esc(c.Legend()))
	}
	y := ly + len(Classes())*lineH
	p(`<circle cx="%d" cy="%d" r="3" fill="black"/><text x="%d" y="%d">%s</text>`+"\n", pad+6, y+6, pad+20, y+10, esc(legendDot))
	y += lineH
	p(`<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#1f5fd6" stroke-width="2.5"/><text x="%d" y="%d">%s</text>`+"\n", pad, y+6, pad+14, y+6, pad+20, y+10, esc(legendLine))
	p("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func esc(s string) string { return html.EscapeString(s) }

// fixedBounds describes the bounds the axes do not vary.
func fixedBounds(s *Sweep) string {
	b := s.Bounds
	var parts []string
	add := func(name, v string) {
		if name != s.X.Name && name != s.Y.Name {
			parts = append(parts, name+" "+v)
		}
	}
	add("ttl", b.TTL.String())
	add("margin", b.Margin.String())
	add("lock-delay", b.LockDelay.String())
	add("drift", strconv.FormatFloat(b.Drift, 'f', -1, 64))
	add("jump", b.Jump.String())
	add("pause", b.Pause.String())
	add("delay", b.Delay.String())
	return fmt.Sprintf("%s; %s per cell (%s × %s), seeds %d–%d", strings.Join(parts, ", "),
		words.Count(s.Runs, "random run"), words.Count(s.Config.Clients, "client"), words.Count(s.Config.Sections, "section"), s.Seed, s.Seed+uint64(max(s.Runs, 1))-1)
}

func tooltip(s *Sweep, c *Cell, o Outcome) string {
	derived := "holds"
	if !o.Derived.Safe {
		derived = "can be violated"
	}
	t := fmt.Sprintf("%s=%s, %s=%s: derived %s (slack %v); worst case %s; %d of %d random runs violated",
		s.X.Name, s.X.Format(s.X.Value(c.I)), s.Y.Name, s.Y.Format(s.Y.Value(c.J)), derived, o.Derived.Slack, o.Worst, o.Random, c.Runs)
	if o.WorstNote != "" {
		t += " (" + o.WorstNote + ")"
	}
	return t
}

// boundary is the polyline where property q's derived slack is 0: for each
// of boundaryN x values, the y at which the verdict flips (slack is
// monotone in every bound), found by bisection; "" if it never crosses.
func boundary(s *Sweep, q, left, top, cellW int) string {
	safe := func(x, y int64) (bool, bool) {
		vs, err := bounds.Check(s.Y.set(s.X.set(s.Bounds, x), y))
		if err != nil {
			return false, false
		}
		return vs[q].Safe, true
	}
	// px is v's offset from the first cell's centre; an axis of one cell
	// has one value.
	px := func(a Axis, v int64, size int) float64 {
		if a.Cells == 1 {
			return 0
		}
		return float64(v-a.From) / float64(a.To-a.From) * float64(a.Cells-1) * float64(size)
	}
	var pts []string
	for n := 0; n <= boundaryN; n++ {
		x := s.X.From + (s.X.To-s.X.From)*int64(n)/boundaryN
		lo, hi := s.Y.From, s.Y.To
		a, ok1 := safe(x, lo)
		z, ok2 := safe(x, hi)
		if !ok1 || !ok2 || a == z {
			continue
		}
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			if m, _ := safe(x, mid); m == a {
				lo = mid
			} else {
				hi = mid
			}
		}
		fx := float64(left) + float64(cellW)/2 + px(s.X, x, cellW)
		fy := float64(top) + float64(s.Y.Cells)*cellSize - cellSize/2 - px(s.Y, hi, cellSize)
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", fx, fy))
	}
	return strings.Join(pts, " ")
}

func axisLabels(p func(string, ...any), s *Sweep, l svgLayout, left, top int) {
	for _, i := range l.xTicks {
		p(`<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", left+i*l.cellW+l.cellW/2, top+l.ph+lineH-3, esc(s.X.Format(s.X.Value(i))))
	}
	p(`<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", left+l.pw/2, top+l.ph+2*lineH-1, esc(s.X.Label()))
	for _, j := range l.yTicks {
		p(`<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", left-4, top+(s.Y.Cells-1-j)*cellSize+cellSize/2+4, esc(s.Y.Format(s.Y.Value(j))))
	}
	labelX := left - 4 - l.yTickW - 6
	if l.yLabelRotated {
		x := labelX - 4
		p(`<text x="%d" y="%d" text-anchor="middle" transform="rotate(-90 %d %d)">%s</text>`+"\n", x, top+l.ph/2, x, top+l.ph/2, esc(s.Y.Label()))
		return
	}
	p(`<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", labelX, top+min(l.ph, lineH)/2+4, esc(s.Y.Label()))
}

// ticks are the indices labelled on an axis of n cells, step apart and
// ends included (the last one replacing a tick closer than step to it).
func ticks(n, step int) []int {
	var out []int
	for i := 0; i < n; i += step {
		out = append(out, i)
	}
	if last := out[len(out)-1]; last != n-1 {
		if n-1-last < step && last != 0 {
			out = out[:len(out)-1]
		}
		if n-1-out[len(out)-1] >= step {
			out = append(out, n-1)
		}
	}
	return out
}
