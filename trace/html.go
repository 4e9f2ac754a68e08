package trace

import (
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
	return pageTemplate.Execute(w, buildPage(t))
}

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

type tableRow struct {
	Number   int
	Time     string
	Actor    string
	Action   string
	Changes  []string
	Notes    []tableNote
	Violated bool
}

type tableNote struct {
	Symbol string
	Text   string
}

// noteClass maps a note's kind to its CSS class and the id of its mark's
// symbol; a kind the renderer does not know is drawn as info.
func noteClass(k NoteKind) string {
	switch k {
	case NoteExpiry, NoteRejection, NoteFault, NoteViolation:
		return string(k)
	}
	return string(NoteInfo)
}

// rowText is what a step writes into the picture, wrapped to fit.
type rowText struct {
	action []string   // beside the actor's dot, or under the step number
	left   bool       // the action is written left of the dot
	notes  [][]string // in layout.notes order
	below  int        // room the notes (or the gutter's action) take under the step's line
	same   bool       // the step sends a message received in the same step
}

func buildPage(t *Trace) page {
	l := newLayout(t)
	p := page{Title: t.Title, Timed: t.Timed, HeaderH: headerH}
	if p.Title == "" {
		p.Title = "fencelab trace"
	}
	colW := columnWidth(t, l)

	// The gutter: step numbers right-aligned, the time after them, and the
	// action of a step no process takes (Init, Stuttering) under its number.
	numW, timeW, unactedW := textWidth("step"), 0, 0
	for _, s := range t.Steps {
		numW = max(numW, textWidth(strconv.Itoa(s.Number)))
		if t.Timed {
			timeW = max(timeW, textWidth(FormatTime(s.At))+8)
		}
		if s.Actor == "" {
			unactedW = max(unactedW, min(textWidth(s.Action), maxGutterW))
		}
	}
	gutterW := max(numW+timeW, unactedW)
	p.StepX, p.TimeX = gutterPad+numW, gutterPad+numW+8
	gutterEnd := gutterPad + gutterW + 8

	texts := rowTexts(t, l, colW, gutterW)
	ys := rowPositions(t, texts)
	p.Height = tailH
	if n := len(ys); n > 0 {
		p.Height = ys[n-1] + max(texts[n-1].below, 10) + tailH
	}
	rowY := func(step int) int { return ys[l.row[step]] }

	// Arrows are laid out first with the lanes at a provisional position;
	// which side of its dot each action goes depends on them, and how far
	// the left-most action reaches decides where the lanes finally are.
	left := gutterEnd + 6
	laneX := func(name string) int { return left + colW/2 + l.laneIdx[name]*colW }
	var lines []segment
	for _, a := range t.Arrows {
		if _, ok := l.row[a.Sent]; !ok {
			continue
		}
		ar := svgArrow{X1: laneX(a.From), Y1: rowY(a.Sent), X2: laneX(a.To), Label: a.Label, Title: arrowText(a)}
		if i, ok := l.row[a.Received]; ok && a.Received > 0 {
			ar.Y2 = rowY(a.Received)
			if t.Steps[i].Actor == a.To {
				// The head touches the receiver's dot instead of hiding in it.
				ar.X2, ar.Y2 = shorten(ar.X1, ar.Y1, ar.X2, ar.Y2, dotR+2)
			}
		} else {
			ar.Y2, ar.InFlight = p.Height-14, true
		}
		lines = append(lines, segment{ar.X1, ar.Y1, ar.X2, ar.Y2})
		p.Arrows = append(p.Arrows, ar)
	}
	shift := 0
	for i, s := range t.Steps {
		if s.Actor == "" {
			continue
		}
		x, y := laneX(s.Actor), ys[i]
		rightBoxes := actionLines(texts[i].action, x, y, false)
		leftBoxes := actionLines(texts[i].action, x, y, true)
		if crossings(leftBoxes, true, lines, x, y) < crossings(rightBoxes, false, lines, x, y) {
			texts[i].left = true
			for _, ln := range leftBoxes {
				shift = max(shift, gutterEnd-lineBox(ln, true).X)
			}
		}
	}
	left += shift
	for i := range p.Arrows {
		p.Arrows[i].X1 += shift
		p.Arrows[i].X2 += shift
		lines[i].X1 += shift
		lines[i].X2 += shift
	}

	// Everything drawn before the labels is an obstacle they avoid.
	var obstacles []box
	right := left + len(l.lanes)*colW
	addText := func(lines []svgLine, anchorEnd bool) {
		for _, ln := range lines {
			b := lineBox(ln, anchorEnd)
			obstacles = append(obstacles, b)
			right = max(right, b.X+b.W+8)
		}
	}
	for i, s := range t.Steps {
		y := ys[i]
		r := svgRow{Number: s.Number, Y: y, Shade: i%2 == 1}
		if t.Timed {
			r.Time = FormatTime(s.At)
		}
		if i > 0 {
			r.BandY = (ys[i-1] + y) / 2
		}
		if i+1 < len(ys) {
			r.BandH = (y+ys[i+1])/2 - r.BandY
		} else {
			r.BandH = p.Height - r.BandY
		}
		if s.Actor != "" {
			r.Actor, r.ActorX, r.ActionEnd = true, laneX(s.Actor), texts[i].left
			r.Action = actionLines(texts[i].action, r.ActorX, y, r.ActionEnd)
			addText(r.Action, r.ActionEnd)
			obstacles = append(obstacles, box{r.ActorX - dotR - 1, y - dotR - 1, 2*dotR + 2, 2*dotR + 2})
		} else {
			for k, text := range texts[i].action {
				r.Action = append(r.Action, svgLine{X: gutterPad, Y: y + 18 + k*lineH, Text: text})
			}
		}
		if v := t.Violation; v != nil && v.Step == s.Number {
			r.Violated = true
			for _, name := range v.Involved {
				// Left of the lane, just under the row: arrows arrive at the
				// dot from above, the action is above, notes are to the right.
				m := svgMark{X: laneX(name) - markSize - 3, Y: y + 8, Symbol: "violation"}
				r.Marks = append(r.Marks, m)
				obstacles = append(obstacles, box{m.X, m.Y, markSize, markSize})
			}
		}
		p.Rows = append(p.Rows, r)

		// A lane's notes stack downwards, each under the one before.
		next := map[string]int{}
		for k, n := range l.notes[s.Number] {
			x := laneX(n.Lane) + textGap
			base, ok := next[n.Lane]
			if !ok {
				base = y + notesTop(texts[i].same)
			}
			class := noteClass(n.Kind)
			sn := svgNote{Class: class, Mark: svgMark{X: x, Y: base - 10, Symbol: class},
				Title: fmt.Sprintf("step %d, %s: %s", n.Step, n.Lane, n.Text)}
			for j, text := range texts[i].notes[k] {
				sn.Lines = append(sn.Lines, svgLine{X: x + markW, Y: base + j*lineH, Text: text})
			}
			obstacles = append(obstacles, box{x, base - 10, markSize, markSize})
			addText(sn.Lines, false)
			next[n.Lane] = base + len(sn.Lines)*lineH + 3
			p.Notes = append(p.Notes, sn)
		}
	}
	p.Width = right + 12
	for _, name := range l.lanes {
		x := laneX(name)
		p.Lanes = append(p.Lanes, svgLane{Name: name, X: x, BoxX: x - colW/2 + 10, BoxW: colW - 20,
			Involved: involved(t.Violation, name), LineY2: p.Height - 8})
	}

	// Labels last, each where it hides the least.
	for _, ar := range p.Arrows {
		obstacles = append(obstacles, box{ar.X2 - 6, ar.Y2 - 6, 12, 12})
	}
	pl := &labelPlacer{obstacles: obstacles, lines: lines, minX: gutterEnd, maxX: p.Width - 4, reach: 5 * minRowH}
	for _, ln := range p.Lanes {
		pl.lanes = append(pl.lanes, ln.X)
	}
	for i := range p.Arrows {
		ar := &p.Arrows[i]
		ar.Box = pl.place(i, textWidth(ar.Label)+2*labelPad, labelH)
		ar.TextX, ar.TextY = ar.Box.X+ar.Box.W/2, ar.Box.Y+12
	}

	if t.Violation != nil {
		p.Violation = ViolationLine(t.Violation)
	}
	p.Table = htmlTable(t)
	return p
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
// the text would hide its head.
func crossings(lines []svgLine, anchorEnd bool, arrows []segment, x, y int) int {
	n := 0
	for _, s := range arrows {
		for _, ln := range lines {
			if s.hits(lineBox(ln, anchorEnd)) {
				n++
				if abs(s.X2-x) <= dotR+2 && abs(s.Y2-y) <= dotR+2 {
					n += 2
				}
				break
			}
		}
	}
	return n
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// htmlTable is the step table under the picture.
func htmlTable(t *Trace) []tableRow {
	var rows []tableRow
	notes := notesByStep(t.Notes)
	for _, s := range t.Steps {
		tr := tableRow{Number: s.Number, Actor: s.Actor, Action: s.Action}
		if tr.Actor == "" {
			tr.Actor = "—"
		}
		if t.Timed {
			tr.Time = FormatTime(s.At)
		}
		for _, c := range s.Changes {
			tr.Changes = append(tr.Changes, FormatChange(c))
		}
		for _, n := range notes[s.Number] {
			tr.Notes = append(tr.Notes, tableNote{Symbol: noteClass(n.Kind), Text: n.Lane + ": " + n.Text})
		}
		tr.Violated = t.Violation != nil && t.Violation.Step == s.Number
		rows = append(rows, tr)
	}
	return rows
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

// The marks of notes and violations are SVG symbols rather than characters:
// ⏱ and ⚡ need an emoji font, which many browsers lack, and draw as boxes.
// The legend, the picture and the table all use these.
const markSymbols = `<svg width="0" height="0" style="position:absolute" aria-hidden="true"><defs>
<marker id="head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#1f4e79"/></marker>
<symbol id="m-expiry" viewBox="0 0 16 16"><circle cx="8" cy="8" r="6.5" fill="#fff" stroke="#b35c00" stroke-width="1.6"/><path d="M8 4.2V8l2.8 1.8" fill="none" stroke="#b35c00" stroke-width="1.6" stroke-linecap="round"/></symbol>
<symbol id="m-rejection" viewBox="0 0 16 16"><circle cx="8" cy="8" r="6.5" fill="#fff" stroke="#b00020" stroke-width="1.6"/><path d="M3.5 12.5l9-9" stroke="#b00020" stroke-width="1.6"/></symbol>
<symbol id="m-fault" viewBox="0 0 16 16"><path d="M11 0.5L2 9.5h5l-2 6 9-9.5H9l2-5.5z" fill="#6a1b9a" stroke="#6a1b9a" stroke-width="0.6" stroke-linejoin="round"/></symbol>
<symbol id="m-violation" viewBox="0 0 16 16"><path d="M3 3l10 10M13 3L3 13" stroke="#fff" stroke-width="5" stroke-linecap="round"/><path d="M3 3l10 10M13 3L3 13" stroke="#b00020" stroke-width="2.4" stroke-linecap="round"/></symbol>
<symbol id="m-info" viewBox="0 0 16 16"><circle cx="8" cy="8" r="3.5" fill="#555"/></symbol>
</defs></svg>`

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"symbols": func() template.HTML { return template.HTML(markSymbols) },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.3em; }
.violation { color: #b00020; font-weight: bold; }
.legend { font-size: 0.9em; color: #444; line-height: 1.8; }
.legend span { white-space: nowrap; margin-right: 1.2em; }
svg.mark { width: 12px; height: 12px; vertical-align: -1px; }
svg.key { vertical-align: middle; }
.picture { display: inline-block; }
.lanes-head { position: sticky; top: 0; z-index: 1; background: #fff; border-bottom: 1px solid #dde3ea; }
.lanes-head svg, .steps { display: block; }
svg text { font-family: "DejaVu Sans Mono", Menlo, Consolas, ui-monospace, monospace; font-size: 11px; }
svg .lane-name { font-size: 13px; font-weight: bold; }
svg .step { fill: #555; }
svg .time { fill: #888; }
svg .head { fill: #888; font-style: italic; }
svg .label { fill: #123; }
svg .action { fill: #111; }
svg .expiry { fill: #8a4700; }
svg .rejection { fill: #b00020; }
svg .fault { fill: #6a1b9a; }
svg .info, svg .unacted { fill: #555; }
svg .violation { fill: #b00020; }
svg .unacted { font-style: italic; }
svg .action, svg .expiry, svg .rejection, svg .fault, svg .info, svg .violation { paint-order: stroke; stroke: #fff; stroke-width: 4px; stroke-linejoin: round; }
svg rect.label-bg { fill: #fff; stroke: #b8c7d8; }
table { border-collapse: collapse; margin-top: 1.5em; font-family: ui-monospace, monospace; font-size: 12px; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; vertical-align: top; }
tr.violated td { background: #fde2e2; }
td div { white-space: pre; }
</style>
</head>
<body>
{{symbols}}
<h1>{{.Title}}</h1>
{{if .Violation}}<p class="violation">{{.Violation}}</p>{{end}}
<p class="legend"><span><svg class="key" width="14" height="12"><circle cx="7" cy="6" r="5" fill="#1f4e79"/></svg> the process that acts in a step</span>
<span><svg class="key" width="34" height="12"><line x1="2" y1="6" x2="30" y2="6" stroke="#1f4e79" stroke-width="1.5" marker-end="url(#head)"/></svg> a message, from the step it was sent to the step it was received</span>
<span><svg class="key" width="34" height="12"><line x1="2" y1="6" x2="30" y2="6" stroke="#1f4e79" stroke-width="1.5" stroke-dasharray="5 4" marker-end="url(#head)"/></svg> still in flight at the end</span>
<span><svg class="mark"><use href="#m-expiry"/></svg> expiry</span>
<span><svg class="mark"><use href="#m-rejection"/></svg> rejection</span>
<span><svg class="mark"><use href="#m-fault"/></svg> fault</span>
<span><svg class="mark"><use href="#m-violation"/></svg> violation</span></p>
<div class="picture">
<div class="lanes-head"><svg xmlns="http://www.w3.org/2000/svg" width="{{.Width}}" height="{{.HeaderH}}" viewBox="0 0 {{.Width}} {{.HeaderH}}" aria-hidden="true">
<text class="head" x="{{.StepX}}" y="27" text-anchor="end">step</text>{{if .Timed}}<text class="head" x="{{.TimeX}}" y="27">time</text>{{end}}
{{range .Lanes}}<rect x="{{.BoxX}}" y="8" width="{{.BoxW}}" height="28" rx="4" fill="{{if .Involved}}#fde2e2{{else}}#eef3f8{{end}}" stroke="{{if .Involved}}#b00020{{else}}#1f4e79{{end}}"/>
<text class="lane-name" x="{{.X}}" y="27" text-anchor="middle">{{.Name}}</text>
{{end}}</svg></div>
<svg class="steps" xmlns="http://www.w3.org/2000/svg" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="sequence picture">
{{range .Rows}}{{if .Violated}}<rect x="0" y="{{.BandY}}" width="{{$.Width}}" height="{{.BandH}}" fill="#fde2e2"/>
{{else if .Shade}}<rect x="0" y="{{.BandY}}" width="{{$.Width}}" height="{{.BandH}}" fill="#f5f7fa"/>
{{end}}{{end}}{{range .Lanes}}<line x1="{{.X}}" y1="0" x2="{{.X}}" y2="{{.LineY2}}" stroke="#9aa" stroke-dasharray="2 3"/>
{{end}}{{range .Arrows}}<g><title>{{.Title}}</title><line x1="{{.X1}}" y1="{{.Y1}}" x2="{{.X2}}" y2="{{.Y2}}" stroke="#1f4e79" stroke-width="1.5" marker-end="url(#head)"{{if .InFlight}} stroke-dasharray="5 4"{{end}}/></g>
{{end}}{{range $r := .Rows}}<text class="step" x="{{$.StepX}}" y="{{.Y}}" dy="4" text-anchor="end">{{.Number}}</text>{{if .Time}}<text class="time" x="{{$.TimeX}}" y="{{.Y}}" dy="4">{{.Time}}</text>{{end}}
{{if .Actor}}<circle cx="{{.ActorX}}" cy="{{.Y}}" r="5" fill="#1f4e79"/>
{{$end := .ActionEnd}}{{range .Action}}<text class="action" x="{{.X}}" y="{{.Y}}"{{if $end}} text-anchor="end"{{end}}>{{.Text}}</text>
{{end}}{{else}}{{range .Action}}<text class="unacted" x="{{.X}}" y="{{.Y}}">{{.Text}}</text>
{{end}}{{end}}{{range .Marks}}<use href="#m-{{.Symbol}}" x="{{.X}}" y="{{.Y}}" width="12" height="12"/>
{{end}}{{end}}{{range .Notes}}<g><title>{{.Title}}</title><use href="#m-{{.Mark.Symbol}}" x="{{.Mark.X}}" y="{{.Mark.Y}}" width="12" height="12"/>{{$c := .Class}}{{range .Lines}}<text class="{{$c}}" x="{{.X}}" y="{{.Y}}">{{.Text}}</text>{{end}}</g>
{{end}}{{range .Arrows}}<g><title>{{.Title}}</title><rect class="label-bg" x="{{.Box.X}}" y="{{.Box.Y}}" width="{{.Box.W}}" height="{{.Box.H}}" rx="3"/><text class="label" x="{{.TextX}}" y="{{.TextY}}" text-anchor="middle">{{.Label}}</text></g>
{{end}}</svg>
</div>
<table>
<tr><th>step</th>{{if .Timed}}<th>time</th>{{end}}<th>process</th><th>action</th><th>changes</th></tr>
{{range .Table}}<tr{{if .Violated}} class="violated"{{end}}><td>{{.Number}}</td>{{if $.Timed}}<td>{{.Time}}</td>{{end}}<td>{{.Actor}}</td><td>{{.Action}}</td><td>{{range .Changes}}<div>{{.}}</div>{{end}}{{range .Notes}}<div><svg class="mark"><use href="#m-{{.Symbol}}"/></svg> {{.Text}}</div>{{end}}{{if not .Changes}}{{if not .Notes}}(no variable changed){{end}}{{end}}</td></tr>
{{end}}</table>
{{if .Violation}}<p class="violation">{{.Violation}}</p>{{end}}
</body>
</html>
`))
