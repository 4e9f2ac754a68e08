package sweep

import (
	"encoding/csv"
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"

	"github.com/fencelab/fencelab/bounds"
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

// Picture geometry, in SVG user units.
const (
	cellSize  = 18
	panelGap  = 70
	marginL   = 90
	marginT   = 70
	marginB   = 60
	legendH   = 70
	boundaryN = 160 // samples of the derived boundary along x
)

// WriteSVG draws the sweep: one panel per design and property, a cell per
// grid point shaded by the share of random runs that violated the
// property, a dot where the worst case violated it, and DESIGN.md's
// boundary (where the slack is 0) drawn over the grid. Hand-written SVG,
// no script: a browser opens it.
func (r *Result) WriteSVG(w io.Writer) error {
	s := r.Sweep
	props := bounds.Properties()
	pw, ph := s.X.Cells*cellSize, s.Y.Cells*cellSize
	width := marginL + len(props)*(pw+panelGap)
	height := marginT + len(s.Designs)*(ph+marginB+marginT/2) + legendH
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	p(`<rect width="100%%" height="100%%" fill="white"/>` + "\n")
	p(`<text x="%d" y="22" font-size="15" font-weight="bold">%s</text>`+"\n", marginL, esc(fmt.Sprintf("Where a lease lock stops being safe: %s × %s", s.X.Name, s.Y.Name)))
	p(`<text x="%d" y="40">%s</text>`+"\n", marginL, esc(fixedBounds(s)))
	for k, d := range s.Designs {
		top := marginT + k*(ph+marginB+marginT/2)
		for q, prop := range props {
			left := marginL + q*(pw+panelGap)
			p(`<text x="%d" y="%d" font-weight="bold">%s</text>`+"\n", left, top-8, esc(fmt.Sprintf("fencing %s — %s", d, prop.Name)))
			for j := range s.Y.Cells {
				for i := range s.X.Cells {
					c := r.CellAt(k, i, j)
					o := c.Outcomes[q]
					x, y := left+i*cellSize, top+(s.Y.Cells-1-j)*cellSize
					p(`<rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="#ddd" stroke-width="0.5"><title>%s</title></rect>`+"\n",
						x, y, cellSize, cellSize, fill(o, c.Runs), esc(tooltip(s, c, o)))
					if o.Worst == "violated" {
						p(`<circle cx="%d" cy="%d" r="3" fill="black"/>`+"\n", x+cellSize/2, y+cellSize/2)
					}
				}
			}
			p(`<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#888"/>`+"\n", left, top, pw, ph)
			if pts := boundary(s, q, left, top); pts != "" {
				p(`<polyline points="%s" fill="none" stroke="#1f5fd6" stroke-width="2.5"/>`+"\n", pts)
			}
			axisLabels(p, s, left, top)
		}
	}
	ly := height - legendH + 20
	p(`<rect x="%d" y="%d" width="14" height="14" fill="%s" stroke="#ddd"/><text x="%d" y="%d">no random run violated</text>`+"\n", marginL, ly, fill(Outcome{}, 1), marginL+20, ly+11)
	p(`<rect x="%d" y="%d" width="14" height="14" fill="%s" stroke="#ddd"/><text x="%d" y="%d">all random runs violated (lighter: fewer)</text>`+"\n", marginL+170, ly, fill(Outcome{Random: 1}, 1), marginL+190, ly+11)
	p(`<circle cx="%d" cy="%d" r="3" fill="black"/><text x="%d" y="%d">the worst-case schedule violated</text>`+"\n", marginL+427, ly+7, marginL+437, ly+11)
	p(`<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#1f5fd6" stroke-width="2.5"/><text x="%d" y="%d">derived boundary (DESIGN.md): safe on the side without dots</text>`+"\n", marginL, ly+32, marginL+24, ly+32, marginL+30, ly+36)
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
	return fmt.Sprintf("%s; %d random runs per cell (%d clients × %d sections), seeds %d–%d", strings.Join(parts, ", "),
		s.Runs, s.Config.Clients, s.Config.Sections, s.Seed, s.Seed+uint64(max(s.Runs, 1))-1)
}

func fill(o Outcome, runs int) string {
	if o.Random == 0 || runs == 0 {
		if o.Worst == "violated" {
			return "#fde0dc"
		}
		return "#e8f5e9"
	}
	// From a light to a full red by the share of runs that violated.
	f := float64(o.Random) / float64(runs)
	g := int(200 - 170*f)
	return fmt.Sprintf("#%02x%02x%02x", 230, g, g)
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
func boundary(s *Sweep, q, left, top int) string {
	safe := func(x, y int64) (bool, bool) {
		vs, err := bounds.Check(s.Y.set(s.X.set(s.Bounds, x), y))
		if err != nil {
			return false, false
		}
		return vs[q].Safe, true
	}
	px := func(a Axis, v int64) float64 {
		return float64(v-a.From) / float64(a.To-a.From) * float64(a.Cells-1) * cellSize
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
		fx := float64(left) + cellSize/2 + px(s.X, x)
		fy := float64(top) + float64(s.Y.Cells)*cellSize - cellSize/2 - px(s.Y, hi)
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", fx, fy))
	}
	return strings.Join(pts, " ")
}

func axisLabels(p func(string, ...any), s *Sweep, left, top int) {
	ph := s.Y.Cells * cellSize
	for _, i := range ticks(s.X.Cells) {
		p(`<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", left+i*cellSize+cellSize/2, top+ph+14, esc(s.X.Format(s.X.Value(i))))
	}
	p(`<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", left+s.X.Cells*cellSize/2, top+ph+32, esc(s.X.Label()))
	for _, j := range ticks(s.Y.Cells) {
		p(`<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", left-4, top+(s.Y.Cells-1-j)*cellSize+cellSize/2+4, esc(s.Y.Format(s.Y.Value(j))))
	}
	p(`<text x="%d" y="%d" text-anchor="middle" transform="rotate(-90 %d %d)">%s</text>`+"\n", left-62, top+ph/2, left-62, top+ph/2, esc(s.Y.Label()))
}

// ticks are the indices labelled on an axis: about five, ends included.
func ticks(n int) []int {
	step := max(1, (n-1)/4)
	var out []int
	for i := 0; i < n; i += step {
		out = append(out, i)
	}
	if out[len(out)-1] != n-1 {
		if n-1-out[len(out)-1] < step/2 {
			out = out[:len(out)-1]
		}
		out = append(out, n-1)
	}
	return out
}
