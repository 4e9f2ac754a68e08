package trace

import (
	"fmt"
	"html/template"
	"io"
)

// Geometry of the HTML page's sequence picture, in SVG user units.
const (
	svgColW    = 170 // distance between lanes
	svgRowH    = 38  // distance between steps
	svgTop     = 64  // below the lane headers
	svgLeft    = 110 // room for step numbers and times
	svgBottom  = 30
	svgHeaderH = 28
)

// WriteHTML renders t as one self-contained HTML page (no scripts, no
// external files): an inline SVG sequence picture — one vertical lane per
// process, each message an arrow from the row it was sent to the row it was
// received, expiry, rejection and fault notes marked on their lane, the
// violation's row and lanes highlighted, step times when the trace is
// timed — and the step table below it.
func WriteHTML(w io.Writer, t *Trace) error {
	return pageTemplate.Execute(w, buildPage(t))
}

type page struct {
	Title     string
	Timed     bool
	Width     int
	Height    int
	Lanes     []svgLane
	Rows      []svgRow
	Arrows    []svgArrow
	Notes     []svgNote
	Violation string
	Table     []tableRow
}

type svgLane struct {
	Name             string
	X, BoxX, Y1, Y2  int
	Involved         bool
	HeaderW, HeaderY int
}

type svgRow struct {
	Number   int
	Time     string
	Y, BandY int
	Violated bool
	Actor    bool
	ActorX   int
	Action   string
	Marks    []int // x of the lanes marked violated in this row
}

type svgArrow struct {
	X1, Y1, X2, Y2 int
	LabelX, LabelY int
	Label          string
	InFlight       bool
	Title          string
}

type svgNote struct {
	X, Y  int
	Kind  string
	Mark  string
	Text  string
	Title string
}

type tableRow struct {
	Number   int
	Time     string
	Actor    string
	Action   string
	Changes  []string
	Notes    []string
	Violated bool
}

func buildPage(t *Trace) page {
	l := newLayout(t)
	p := page{Title: t.Title, Timed: t.Timed}
	if p.Title == "" {
		p.Title = "fencelab trace"
	}
	laneX := func(name string) int { return svgLeft + svgColW/2 + l.laneIdx[name]*svgColW }
	rowY := func(step int) int { return svgTop + svgRowH/2 + l.row[step]*svgRowH }
	bottom := svgTop + len(t.Steps)*svgRowH
	p.Width = svgLeft + len(l.lanes)*svgColW + 20
	p.Height = bottom + svgBottom
	for _, name := range l.lanes {
		x := laneX(name)
		p.Lanes = append(p.Lanes, svgLane{Name: name, X: x, BoxX: x - svgColW/2 + 10, Y1: svgTop - 8, Y2: bottom,
			Involved: involved(t.Violation, name), HeaderW: svgColW - 20, HeaderY: svgTop - 8 - svgHeaderH})
	}
	for _, s := range t.Steps {
		r := svgRow{Number: s.Number, Y: rowY(s.Number), BandY: rowY(s.Number) - svgRowH/2, Action: s.Action}
		if t.Timed {
			r.Time = FormatTime(s.At)
		}
		if s.Actor != "" {
			r.Actor, r.ActorX = true, laneX(s.Actor)
		}
		if v := t.Violation; v != nil && v.Step == s.Number {
			r.Violated = true
			for _, name := range v.Involved {
				r.Marks = append(r.Marks, laneX(name))
			}
		}
		p.Rows = append(p.Rows, r)
	}
	for _, a := range t.Arrows {
		if _, ok := l.row[a.Sent]; !ok {
			continue
		}
		ar := svgArrow{X1: laneX(a.From), Y1: rowY(a.Sent), X2: laneX(a.To), Label: a.Label, Title: arrowText(a)}
		if _, ok := l.row[a.Received]; ok && a.Received > 0 {
			ar.Y2 = rowY(a.Received)
		} else {
			ar.Y2, ar.InFlight = bottom-4, true
		}
		ar.LabelX, ar.LabelY = (ar.X1+ar.X2)/2, (ar.Y1+ar.Y2)/2-4
		if ar.Y1 == ar.Y2 {
			// A same-step operation: its label goes under the line, clear
			// of the actor's action written above it.
			ar.LabelY = ar.Y1 + 13
		}
		p.Arrows = append(p.Arrows, ar)
	}
	for _, n := range t.Notes {
		if _, ok := l.row[n.Step]; !ok {
			continue
		}
		p.Notes = append(p.Notes, svgNote{X: laneX(n.Lane) + 8, Y: rowY(n.Step) + 14, Kind: string(n.Kind),
			Mark: noteMark(n.Kind), Text: n.Text, Title: fmt.Sprintf("step %d, %s: %s", n.Step, n.Lane, n.Text)})
	}
	if t.Violation != nil {
		p.Violation = ViolationLine(t.Violation)
	}
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
			tr.Notes = append(tr.Notes, fmt.Sprintf("%s %s: %s", noteMark(n.Kind), n.Lane, n.Text))
		}
		tr.Violated = t.Violation != nil && t.Violation.Step == s.Number
		p.Table = append(p.Table, tr)
	}
	return p
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.3em; }
.violation { color: #b00020; font-weight: bold; }
svg text { font-family: ui-monospace, monospace; font-size: 11px; }
svg .lane-name { font-size: 13px; font-weight: bold; }
svg .step { fill: #666; }
svg .label { fill: #123; }
svg .expiry { fill: #b35c00; }
svg .rejection { fill: #b00020; }
svg .fault { fill: #6a1b9a; }
svg .info { fill: #555; }
svg .label, svg .expiry, svg .rejection, svg .fault, svg .info, svg .action { paint-order: stroke; stroke: #fff; stroke-width: 3px; stroke-linejoin: round; }
table { border-collapse: collapse; margin-top: 1.5em; font-family: ui-monospace, monospace; font-size: 12px; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; vertical-align: top; }
tr.violated td { background: #fde2e2; }
td div { white-space: pre; }
.legend { font-size: 0.9em; color: #555; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{if .Violation}}<p class="violation">{{.Violation}}</p>{{end}}
<p class="legend">● the process that acts in a step · arrows are messages, from the step they were sent to the step they were received (dashed: still in flight) · ⏱ expiry · ⊘ rejection · ⚡ fault · ✗ violation</p>
<svg xmlns="http://www.w3.org/2000/svg" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="sequence picture">
<defs>
<marker id="head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#1f4e79"/></marker>
</defs>
{{range .Rows}}{{if .Violated}}<rect x="0" y="{{.BandY}}" width="{{$.Width}}" height="38" fill="#fde2e2"/>
{{end}}{{end}}{{range .Lanes}}<rect x="{{.BoxX}}" y="{{.HeaderY}}" width="{{.HeaderW}}" height="28" rx="4" fill="{{if .Involved}}#fde2e2{{else}}#eef3f8{{end}}" stroke="{{if .Involved}}#b00020{{else}}#1f4e79{{end}}"/>
<text class="lane-name" x="{{.X}}" y="{{.HeaderY}}" dy="19" text-anchor="middle">{{.Name}}</text>
<line x1="{{.X}}" y1="{{.Y1}}" x2="{{.X}}" y2="{{.Y2}}" stroke="#9aa" stroke-dasharray="2 3"/>
{{end}}{{range $r := .Rows}}<text class="step" x="8" y="{{.Y}}" dy="4">{{.Number}}{{if .Time}}  {{.Time}}{{end}}</text>
{{if .Actor}}<circle cx="{{.ActorX}}" cy="{{.Y}}" r="5" fill="#1f4e79"/>
<text class="action" x="{{.ActorX}}" y="{{.Y}}" dx="8" dy="-6">{{.Action}}</text>
{{else}}<text x="{{$.Width}}" y="{{.Y}}" dx="-8" dy="4" text-anchor="end" class="info">{{.Action}}</text>
{{end}}{{range .Marks}}<text x="{{.}}" y="{{$r.Y}}" dx="-16" dy="5" class="rejection" text-anchor="middle" font-size="15">✗</text>
{{end}}{{end}}{{range .Arrows}}<g><title>{{.Title}}</title>
<line x1="{{.X1}}" y1="{{.Y1}}" x2="{{.X2}}" y2="{{.Y2}}" stroke="#1f4e79" stroke-width="1.5" marker-end="url(#head)"{{if .InFlight}} stroke-dasharray="5 4"{{end}}/>
<text class="label" x="{{.LabelX}}" y="{{.LabelY}}" text-anchor="middle">{{.Label}}</text></g>
{{end}}{{range .Notes}}<g><title>{{.Title}}</title><text class="{{.Kind}}" x="{{.X}}" y="{{.Y}}">{{.Mark}} {{.Text}}</text></g>
{{end}}</svg>
<table>
<tr><th>step</th>{{if .Timed}}<th>time</th>{{end}}<th>process</th><th>action</th><th>changes</th></tr>
{{range .Table}}<tr{{if .Violated}} class="violated"{{end}}><td>{{.Number}}</td>{{if $.Timed}}<td>{{.Time}}</td>{{end}}<td>{{.Actor}}</td><td>{{.Action}}</td><td>{{range .Changes}}<div>{{.}}</div>{{end}}{{range .Notes}}<div>{{.}}</div>{{end}}{{if not .Changes}}{{if not .Notes}}(no variable changed){{end}}{{end}}</td></tr>
{{end}}</table>
{{if .Violation}}<p class="violation">{{.Violation}}</p>{{end}}
</body>
</html>
`))
