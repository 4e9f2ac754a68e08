package trace

import (
	"embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
)

// Geometry of the HTML page's sequence picture, in SVG user units (pixels).
const (
	minColW     = 170 // distance between lanes, before long texts widen it
	maxColW     = 260 // beyond this, texts wrap rather than widen the picture
	maxNoteColW = 220 // notes are rarer: they widen lanes less before wrapping
	textGap     = 8   // from a lane's line to the text beside it
	textRoom    = 16  // kept free between a lane's text and the next lane
	markW       = 16  // a note's mark and the space after it
	markSize    = 12
	labelPad    = 5 // from a label's text to the edge of its background
	labelH      = 16
	minRowH     = 46 // distance between steps with nothing to stack
	rowPad      = 12 // between one row's notes and the next row's action
	dotR        = 5
	gutterPad   = 10
	maxGutterW  = 130 // an action no process takes wraps beyond this
	headerH     = 44  // the lane headers, kept in view while the page scrolls
	tailH       = 34  // below the last step, where messages still in flight end
)

// WriteHTML renders t as one self-contained HTML page (no scripts, no
// external files): an inline SVG sequence picture — one vertical lane per
// process, each message an arrow from the row it was sent to the row it was
// received, its label on a background where it hides no text, expiry,
// rejection and fault notes stacked under their lane, the violation's row
// and lanes highlighted, step times when the trace is timed — and the step
// table below it. The lane headers stay in view while a long trace scrolls.
func WriteHTML(w io.Writer, t *Trace) error {
	return pageTemplate.Execute(w, buildPage(printable(t)))
}

// The page's template, style sheet and SVG symbols are files in assets/,
// embedded; html/template escapes every text of the trace. The marks of
// notes and violations are SVG symbols rather than characters: ⏱ and ⚡
// need an emoji font, which many browsers lack, and draw as boxes; the
// legend, the picture and the table all use them.
//
//go:embed assets/page.html.tmpl assets/page.css assets/symbols.svg
var assets embed.FS

var pageTemplate = template.Must(template.ParseFS(assets, "assets/page.html.tmpl", "assets/page.css", "assets/symbols.svg"))

type page struct {
	Title     string
	Timed     bool
	Width     int
	Height    int
	HeaderH   int
	StepX     int // right edge of the step numbers
	TimeX     int
	Lanes     []svgLane
	Rows      []svgRow
	Arrows    []svgArrow
	Notes     []svgNote
	Violation string
	Header    []string // the step table's, as the text table's
	Table     []tableRow
}

type svgLane struct {
	Name     string
	X, BoxX  int // the lane's line, its header's left edge
	BoxW     int
	Involved bool
	LineY2   int
}

type svgRow struct {
	Number    int
	Time      string
	Y         int
	BandY     int // the row's band, halfway to its neighbours
	BandH     int
	Shade     bool // every other row is shaded so a reader's eye keeps to its row
	Violated  bool
	Actor     bool
	ActorX    int
	Action    []svgLine // beside the actor's dot, or under the step number
	ActionEnd bool      // the action is right-aligned, left of the dot
	Marks     []svgMark // the lanes a violation involves
}

type svgLine struct {
	X, Y int
	Text string
}

type svgMark struct {
	X, Y   int
	Symbol string
}

type svgArrow struct {
	X1, Y1, X2, Y2 int
	Label          string
	Box            box // the label's background
	TextX, TextY   int
	InFlight       bool
	Title          string
}

type svgNote struct {
	Class string
	Mark  svgMark
	Lines []svgLine
	Title string
}

// rowText is what a step writes into the picture, wrapped to fit.
type rowText struct {
	action []string   // beside the actor's dot, or under the step number
	left   bool       // the action is written left of the dot
	notes  [][]string // in layout.notes order
	below  int        // room the notes (or the gutter's action) take under the step's line
	same   bool       // the step sends a message received in the same step
}

// sketch is a page being built and the measures its phases share.
type sketch struct {
	t         *Trace
	l         *layout
	colW      int       // distance between lanes
	gutterW   int       // the step numbers and times, or an unacted step's action
	gutterEnd int       // where the lanes' room begins
	left      int       // the left edge of the first lane's column
	texts     []rowText // each step's text, wrapped
	ys        []int     // each step's line
	lines     []segment // each arrow's line, by index in p.Arrows
	obstacles []box     // what the labels are placed around
	right     int       // how far the picture's texts reach
	p         page
}

// buildPage lays t's page out in phases, each using what the ones before
// it decided.
func buildPage(t *Trace) page {
	s := measure(t) // lane width, gutter, each step's text wrapped, each row's y
	s.arrows()      // one per message, from its sender's row to its receiver's
	s.actionSides() // each action left or right of its dot; the lanes make room
	s.rows()        // numbers, times, dots, actions and the violation's marks
	s.notes()       // each lane's notes, stacked under their row
	s.lanes()       // headers and lines, now the picture's width is known
	s.labels()      // each arrow's label where it hides the least
	s.p.Header, s.p.Table = tableHeader(t), tableRows(t)
	if t.Violation != nil {
		s.p.Violation = ViolationLine(t.Violation)
	}
	return s.p
}

// measure sizes the picture: the distance between lanes, the gutter
// (step numbers right-aligned, the time after them, and the action of a
// step no process takes, such as Init, under its number), every step's
// text wrapped to its room, each row's y and the picture's height.
func measure(t *Trace) *sketch {
	l := newLayout(t)
	s := &sketch{t: t, l: l, colW: columnWidth(t, l)}
	s.p = page{Title: t.Title, Timed: t.Timed, HeaderH: headerH}
	if s.p.Title == "" {
		s.p.Title = "fencelab trace"
	}
	numW, timeW, unactedW := textWidth("step"), 0, 0
	for _, st := range t.Steps {
		numW = max(numW, textWidth(strconv.Itoa(st.Number)))
		if t.Timed {
			timeW = max(timeW, textWidth(FormatTime(st.At))+8)
		}
		if st.Actor == "" {
			unactedW = max(unactedW, min(textWidth(st.Action), maxGutterW))
		}
	}
	s.gutterW = max(numW+timeW, unactedW)
	s.p.StepX, s.p.TimeX = gutterPad+numW, gutterPad+numW+8
	s.gutterEnd = gutterPad + s.gutterW + 8
	s.left = s.gutterEnd + 6

	s.texts = rowTexts(t, l, s.colW, s.gutterW)
	s.ys = rowPositions(t, s.texts)
	s.p.Height = tailH
	if n := len(s.ys); n > 0 {
		s.p.Height = s.ys[n-1] + max(s.texts[n-1].below, 10) + tailH
	}
	return s
}

// laneX is the x of a lane's line.
func (s *sketch) laneX(name string) int { return s.left + s.colW/2 + s.l.laneIdx[name]*s.colW }

// rowY is the y of a step's line.
func (s *sketch) rowY(step int) int { return s.ys[s.l.row[step]] }

// arrows draws each message from its sender's lane at the row it was sent
// to its receiver's lane at the row it was received, or to the bottom of
// the picture, dashed, while still in flight. The lanes are still where
// measure put them: which side of its dot each action goes depends on the
// arrows, and how far the left-most action reaches decides where the
// lanes finally are (actionSides).
func (s *sketch) arrows() {
	for _, a := range s.t.Arrows {
		if _, ok := s.l.row[a.Sent]; !ok {
			continue
		}
		ar := svgArrow{X1: s.laneX(a.From), Y1: s.rowY(a.Sent), X2: s.laneX(a.To), Label: a.Label, Title: arrowText(a)}
		if i, ok := s.l.row[a.Received]; ok && a.Received > 0 {
			ar.Y2 = s.rowY(a.Received)
			if s.t.Steps[i].Actor == a.To {
				// The head touches the receiver's dot instead of hiding in it.
				ar.X2, ar.Y2 = shorten(ar.X1, ar.Y1, ar.X2, ar.Y2, dotR+2)
			}
		} else {
			ar.Y2, ar.InFlight = s.p.Height-14, true
		}
		s.lines = append(s.lines, segment{ar.X1, ar.Y1, ar.X2, ar.Y2})
		s.p.Arrows = append(s.p.Arrows, ar)
	}
}

// actionSides writes each actor's action on the side of its dot that
// fewer arrows cross, and moves the lanes and arrows right as far as an
// action written left of its dot reaches into the gutter.
func (s *sketch) actionSides() {
	var byY yIndex // the arrows by their rows: only those beside a text can cross it
	for i, ln := range s.lines {
		byY.add(i, min(ln.Y1, ln.Y2), max(ln.Y1, ln.Y2))
	}
	shift := 0
	for i, st := range s.t.Steps {
		if st.Actor == "" {
			continue
		}
		x, y := s.laneX(st.Actor), s.ys[i]
		rightBoxes := actionLines(s.texts[i].action, x, y, false)
		leftBoxes := actionLines(s.texts[i].action, x, y, true)
		if crossings(leftBoxes, true, s.lines, &byY, x, y) < crossings(rightBoxes, false, s.lines, &byY, x, y) {
			s.texts[i].left = true
			for _, ln := range leftBoxes {
				shift = max(shift, s.gutterEnd-lineBox(ln, true).X)
			}
		}
	}
	s.left += shift
	for i := range s.p.Arrows {
		s.p.Arrows[i].X1 += shift
		s.p.Arrows[i].X2 += shift
		s.lines[i].X1 += shift
		s.lines[i].X2 += shift
	}
}

// rows draws one row per step: its band, number and time, the actor's dot
// and action (or the action under the number when no process takes the
// step), and on the violation's row a mark by each lane it involves.
// Everything drawn is an obstacle for the labels.
func (s *sketch) rows() {
	t, p := s.t, &s.p
	s.right = s.left + len(s.l.lanes)*s.colW
	for i, st := range t.Steps {
		y := s.ys[i]
		r := svgRow{Number: st.Number, Y: y, Shade: i%2 == 1}
		if t.Timed {
			r.Time = FormatTime(st.At)
		}
		if i > 0 {
			r.BandY = (s.ys[i-1] + y) / 2
		}
		if i+1 < len(s.ys) {
			r.BandH = (y+s.ys[i+1])/2 - r.BandY
		} else {
			r.BandH = p.Height - r.BandY
		}
		if st.Actor != "" {
			r.Actor, r.ActorX, r.ActionEnd = true, s.laneX(st.Actor), s.texts[i].left
			r.Action = actionLines(s.texts[i].action, r.ActorX, y, r.ActionEnd)
			s.addText(r.Action, r.ActionEnd)
			s.obstacles = append(s.obstacles, box{r.ActorX - dotR - 1, y - dotR - 1, 2*dotR + 2, 2*dotR + 2})
		} else {
			for k, text := range s.texts[i].action {
				r.Action = append(r.Action, svgLine{X: gutterPad, Y: y + 18 + k*lineH, Text: text})
			}
		}
		if v := t.Violation; v != nil && v.Step == st.Number {
			r.Violated = true
			for _, name := range v.Involved {
				// Left of the lane, just under the row: arrows arrive at the
				// dot from above, the action is above, notes are to the right.
				m := svgMark{X: s.laneX(name) - markSize - 3, Y: y + 8, Symbol: "violation"}
				r.Marks = append(r.Marks, m)
				s.obstacles = append(s.obstacles, box{m.X, m.Y, markSize, markSize})
			}
		}
		p.Rows = append(p.Rows, r)
	}
}

// notes stacks each step's notes under its row, a lane's notes each
// under the one before, each with its kind's mark.
func (s *sketch) notes() {
	for i, st := range s.t.Steps {
		next := map[string]int{}
		for k, n := range s.l.notes[st.Number] {
			x := s.laneX(n.Lane) + textGap
			base, ok := next[n.Lane]
			if !ok {
				base = s.ys[i] + notesTop(s.texts[i].same)
			}
			class := noteClass(n.Kind)
			sn := svgNote{Class: class, Mark: svgMark{X: x, Y: base - 10, Symbol: class},
				Title: fmt.Sprintf("step %d, %s: %s", n.Step, n.Lane, n.Text)}
			for j, text := range s.texts[i].notes[k] {
				sn.Lines = append(sn.Lines, svgLine{X: x + markW, Y: base + j*lineH, Text: text})
			}
			s.obstacles = append(s.obstacles, box{x, base - 10, markSize, markSize})
			s.addText(sn.Lines, false)
			next[n.Lane] = base + len(sn.Lines)*lineH + 3
			s.p.Notes = append(s.p.Notes, sn)
		}
	}
}

// addText makes lines of text obstacles and widens the picture to hold
// them.
func (s *sketch) addText(lines []svgLine, anchorEnd bool) {
	for _, ln := range lines {
		b := lineBox(ln, anchorEnd)
		s.obstacles = append(s.obstacles, b)
		s.right = max(s.right, b.X+b.W+8)
	}
}

// lanes fixes the picture's width and draws each lane's header and line,
// the lanes a violation involves highlighted.
func (s *sketch) lanes() {
	p := &s.p
	p.Width = s.right + 12
	for _, name := range s.l.lanes {
		x := s.laneX(name)
		p.Lanes = append(p.Lanes, svgLane{Name: name, X: x, BoxX: x - s.colW/2 + 10, BoxW: s.colW - 20,
			Involved: involved(s.t.Violation, name), LineY2: p.Height - 8})
	}
}

// labels places each arrow's label last, with the deterministic label
// placer, where it hides the least of what is drawn and of the labels
// placed before it.
func (s *sketch) labels() {
	p := &s.p
	obstacles := s.obstacles
	for _, ar := range p.Arrows {
		obstacles = append(obstacles, box{ar.X2 - 6, ar.Y2 - 6, 12, 12})
	}
	pl := &labelPlacer{obstacles: obstacles, lines: s.lines, minX: s.gutterEnd, maxX: p.Width - 4, reach: 5 * minRowH}
	for _, ln := range p.Lanes {
		pl.lanes = append(pl.lanes, ln.X)
	}
	for i := range p.Arrows {
		ar := &p.Arrows[i]
		ar.Box = pl.place(i, textWidth(ar.Label)+2*labelPad, labelH)
		ar.TextX, ar.TextY = ar.Box.X+ar.Box.W/2, ar.Box.Y+12
	}
}

// rowTexts wraps each step's action and notes to the room they have: the
// action of an actor and its lane's notes fit between their lane and the
// next, an action nobody takes fits the gutter.
func rowTexts(t *Trace, l *layout, colW, gutterW int) []rowText {
	actionChars := charsIn(colW - textGap - textRoom)
	noteChars := charsIn(colW - textGap - markW - textRoom)
	texts := make([]rowText, len(t.Steps))
	for i, s := range t.Steps {
		rt := &texts[i]
		if s.Actor != "" {
			rt.action = wrap(s.Action, actionChars)
		} else {
			rt.action = wrap(s.Action, charsIn(gutterW))
		}
		for _, a := range l.sent[s.Number] {
			rt.same = rt.same || a.Received == a.Sent
		}
		perLane := map[string]int{}
		for _, n := range l.notes[s.Number] {
			lines := wrap(n.Text, noteChars)
			rt.notes = append(rt.notes, lines)
			perLane[n.Lane] += len(lines)*lineH + 3
		}
		for _, h := range perLane {
			rt.below = max(rt.below, h)
		}
		if rt.below > 0 {
			rt.below += notesTop(rt.same) - 10
		}
		if s.Actor == "" {
			rt.below = max(rt.below, 8+len(rt.action)*lineH)
		}
		if v := t.Violation; v != nil && v.Step == s.Number {
			rt.below = max(rt.below, 8+markSize+4)
		}
	}
	return texts
}

// rowPositions gives each step's line a y: rows are as far apart as what
// is stacked between them needs (the step's notes below its line, the next
// step's action above its line), and never closer than minRowH.
func rowPositions(t *Trace, texts []rowText) []int {
	above := func(i int) int {
		if t.Steps[i].Actor == "" {
			return 10
		}
		return 4 + len(texts[i].action)*lineH
	}
	ys := make([]int, len(t.Steps))
	for i := range t.Steps {
		if i == 0 {
			ys[i] = above(0) + rowPad
			continue
		}
		ys[i] = ys[i-1] + max(minRowH, texts[i-1].below+above(i)+rowPad)
	}
	return ys
}

// actionLines places an actor's action above its dot at (x, y), its last
// line just over the dot's row, right of the dot or (left) right-aligned
// left of it.
func actionLines(lines []string, x, y int, left bool) []svgLine {
	x += textGap
	if left {
		x -= 2 * textGap
	}
	out := make([]svgLine, 0, len(lines))
	for k, text := range lines {
		out = append(out, svgLine{X: x, Y: y - 8 - (len(lines)-1-k)*lineH, Text: text})
	}
	return out
}

// lineBox is the box a line of text covers, halo included.
func lineBox(ln svgLine, anchorEnd bool) box {
	b := box{ln.X - 2, ln.Y - 11, textWidth(ln.Text) + 4, lineH + 1}
	if anchorEnd {
		b.X -= b.W - 4
	}
	return b
}

// crossings scores an action's place: how many arrows run through its
// text, an arrow ending at the actor's dot (x, y) counting three times, as
// the text would hide its head. Only the arrows byY finds beside the text's
// rows can run through it.
func crossings(lines []svgLine, anchorEnd bool, arrows []segment, byY *yIndex, x, y int) int {
	if len(lines) == 0 {
		return 0
	}
	boxes := make([]box, len(lines))
	lo, hi := math.MaxInt, math.MinInt
	for k, ln := range lines {
		boxes[k] = lineBox(ln, anchorEnd)
		lo, hi = min(lo, boxes[k].Y), max(hi, boxes[k].Y+boxes[k].H)
	}
	n, scored := 0, 0
	byY.each(lo, hi, func(i int) bool {
		scored++
		s := arrows[i]
		for _, b := range boxes {
			if s.hits(b) {
				n++
				if abs(s.X2-x) <= dotR+2 && abs(s.Y2-y) <= dotR+2 {
					n += 2
				}
				break
			}
		}
		return scored < maxBeside
	})
	return n
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// notesTop is the first note's baseline below its step's line; a step
// whose message is received in the same step keeps the space under its
// horizontal arrow for the arrow's label.
func notesTop(sameStep bool) int {
	if sameStep {
		return 22 + labelH + 2
	}
	return 22
}

// columnWidth is the distance between lanes: wide enough for the longest
// action beside a lane and for each label between the lanes its arrow
// spans, within [minColW, maxColW]. Notes widen lanes only up to
// maxNoteColW and wrap beyond: they are rarer, and one long note (a
// latency spike's) should not widen every lane.
func columnWidth(t *Trace, l *layout) int {
	need := minColW
	for _, s := range t.Steps {
		if s.Actor != "" {
			need = max(need, textGap+textWidth(s.Action)+textRoom)
		}
	}
	for _, n := range t.Notes {
		need = max(need, min(textGap+markW+textWidth(n.Text)+textRoom, maxNoteColW))
	}
	for _, a := range t.Arrows {
		span := l.laneIdx[a.From] - l.laneIdx[a.To]
		if span < 0 {
			span = -span
		}
		if span > 0 {
			need = max(need, (textWidth(a.Label)+2*labelPad+2*(dotR+textGap)+span-1)/span)
		}
	}
	return min(need, maxColW)
}

// shorten moves (x2,y2) by d towards (x1,y1). math.Sqrt and one division
// are correctly rounded everywhere, so the result is the same on every
// platform.
func shorten(x1, y1, x2, y2, d int) (int, int) {
	dx, dy := x2-x1, y2-y1
	n := math.Sqrt(float64(dx*dx + dy*dy))
	if n <= float64(2*d) {
		return x2, y2
	}
	return x2 - int(math.Round(float64(dx*d)/n)), y2 - int(math.Round(float64(dy*d)/n))
}
