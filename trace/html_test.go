package trace

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pictureText is one piece of text of a built page and the box it covers.
type pictureText struct {
	what string
	box  box
}

// pictureTexts lists every text of the picture beside the lanes: actions,
// note lines and arrow labels.
func pictureTexts(p page) []pictureText {
	var out []pictureText
	for _, r := range p.Rows {
		if !r.Actor {
			continue
		}
		for _, ln := range r.Action {
			out = append(out, pictureText{fmt.Sprintf("step %d action %q", r.Number, ln.Text), lineBox(ln, r.ActionEnd)})
		}
	}
	for _, n := range p.Notes {
		for _, ln := range n.Lines {
			out = append(out, pictureText{fmt.Sprintf("note %q", ln.Text), lineBox(ln, false)})
		}
	}
	for _, a := range p.Arrows {
		out = append(out, pictureText{fmt.Sprintf("label %q", a.Label), a.Box})
	}
	return out
}

// overlaps lists the pairs of texts that share more than a sliver (two
// pixels: boxes include the halo around the letters).
func overlaps(p page) []string {
	texts := pictureTexts(p)
	var out []string
	for i := range texts {
		for j := i + 1; j < len(texts); j++ {
			a, b := texts[i].box, texts[j].box
			shrunk := box{a.X + 2, a.Y + 2, a.W - 4, a.H - 4}
			if shrunk.overlap(b) > 0 {
				out = append(out, texts[i].what+" / "+texts[j].what)
			}
		}
	}
	return out
}

func TestWriteHTMLTextsDoNotOverlap(t *testing.T) {
	for _, fixture := range []string{"tlc_distlock_2c_atmostone", "tlc_fencing_writes_2c_nolostupdate", "timed", "explorer_writes_2c_nolostupdate"} {
		t.Run(fixture, func(t *testing.T) {
			p := buildPage(loadTrace(t, fixture+".json"))
			assert.Empty(t, overlaps(p))
		})
	}
}

func TestWriteHTMLCrossingLabels(t *testing.T) {
	// Steps 4–7 of TLC's NoLostUpdate counterexample: c2's acquire crosses
	// both grants, which run close together; once their labels shared a box.
	p := buildPage(loadTrace(t, "tlc_fencing_writes_2c_nolostupdate.json"))
	boxes := map[string]box{}
	for _, a := range p.Arrows {
		boxes[a.Label] = a.Box
	}
	tests := []struct{ a, b string }{
		{"granted (token 1)", "granted (token 2)"},
		{"granted (token 1)", "acquire"},
		{"granted (token 2)", "acquire"},
	}
	for _, tc := range tests {
		t.Run(tc.a+" and "+tc.b, func(t *testing.T) {
			require.Contains(t, boxes, tc.a)
			require.Contains(t, boxes, tc.b)
			assert.Zero(t, boxes[tc.a].overlap(boxes[tc.b]))
		})
	}
	// Each label sits on its own arrow, or under it when the message is
	// received in the step it is sent (the action is written above).
	for i, a := range p.Arrows {
		if a.Y1 == a.Y2 {
			assert.True(t, a.Box.Y > a.Y1 && a.Box.Y < a.Y1+labelH, "label %d %q is under its arrow", i, a.Label)
			assert.True(t, a.Box.X >= min(a.X1, a.X2) && a.Box.X+a.Box.W <= max(a.X1, a.X2), "label %d %q is under its arrow", i, a.Label)
			continue
		}
		s := segment{a.X1, a.Y1, a.X2, a.Y2}
		assert.True(t, s.hits(a.Box), "label %d %q is on its arrow", i, a.Label)
	}
}

func TestWriteHTMLNotesStack(t *testing.T) {
	// Three notes on one lane and step, as a simulator run makes them (a
	// rejection, then a latency spike of the reply), and a message whose
	// label falls in the same row.
	tr := &Trace{
		Lanes: []string{"service", "c1", "c2", "c3"},
		Timed: true,
		Steps: []Step{
			{Number: 1, Action: "Init"},
			{Number: 2, At: time.Millisecond, Actor: "c3", Action: "backoff timer fired"},
			{Number: 3, At: 2 * time.Millisecond, Actor: "service", Action: "recv Acquire from c3"},
			{Number: 4, At: 3 * time.Millisecond, Actor: "c3", Action: "recv Reject from service"},
		},
		Arrows: []Arrow{
			{From: "c3", To: "service", Sent: 2, Received: 3, Label: "Acquire"},
			{From: "service", To: "c3", Sent: 3, Received: 4, Label: "Reject"},
		},
		Notes: []Note{
			{Lane: "service", Step: 3, Kind: NoteRejection, Text: "rejected c3's acquire"},
			{Lane: "service", Step: 3, Kind: NoteFault, Text: "Reject to c3 delayed by 49.526862ms (spike)"},
			{Lane: "service", Step: 3, Kind: NoteExpiry, Text: "expired lease 18 of c1"},
		},
	}
	p := buildPage(tr)
	assert.Empty(t, overlaps(p))
	require.Len(t, p.Notes, 3)
	for i := 1; i < len(p.Notes); i++ {
		prev, cur := p.Notes[i-1], p.Notes[i]
		assert.Greater(t, cur.Mark.Y, prev.Lines[len(prev.Lines)-1].Y, "note %d is under note %d", i, i-1)
	}
	assert.Greater(t, len(p.Notes[1].Lines), 1, "a long note wraps rather than running into the next lane")
	last := p.Notes[2].Lines[len(p.Notes[2].Lines)-1]
	assert.Less(t, last.Y, p.Rows[3].Action[0].Y-lineH, "the next row leaves room for the notes")
}

func TestWriteHTMLLanesFitLabels(t *testing.T) {
	tests := []struct {
		name, label, action string
		actionLines         int
	}{
		{"short", "acquire", "Receive", 1},
		{"simulator grant", "Grant(lease 10, token 10)", "recv Grant(lease 10, token 10)", 1},
		{"long action wraps", "Grant(lease 10, token 10)", "recv Grant(lease 10, token 10) from service", 2},
		{"very long label", "a label far longer than any lane could ever be made wide", "Receive", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := &Trace{
				Lanes: []string{"service", "c1", "resource"},
				Steps: []Step{
					{Number: 1, Action: "Init"},
					{Number: 2, Actor: "service", Action: "Serve"},
					{Number: 3, Actor: "c1", Action: tc.action},
				},
				Arrows: []Arrow{{From: "service", To: "c1", Sent: 2, Received: 3, Label: tc.label}},
			}
			p := buildPage(tr)
			require.Len(t, p.Lanes, 3)
			require.Len(t, p.Arrows, 1)
			lb := p.Arrows[0].Box
			if textWidth(tc.label)+2*labelPad < maxColW-2*(dotR+textGap) {
				assert.Greater(t, lb.X, p.Lanes[0].X, "the label fits between its lanes")
				assert.Less(t, lb.X+lb.W, p.Lanes[1].X, "the label fits between its lanes")
			}
			assert.GreaterOrEqual(t, lb.X, p.StepX, "the label is clear of the step numbers")
			assert.LessOrEqual(t, lb.X+lb.W, p.Width, "the label is inside the picture")
			row := p.Rows[2]
			require.Len(t, row.Action, tc.actionLines)
			for _, ln := range row.Action {
				b := lineBox(ln, row.ActionEnd)
				assert.True(t, b.X > p.Lanes[0].X && b.X+b.W < p.Lanes[2].X, "%q stays between the neighbouring lanes", ln.Text)
			}
		})
	}
}

// longTrace is a timed trace of n steps shaped like a simulator run: a
// client retries its acquire, the service rejects it, now and then a fault.
func longTrace(n int) *Trace {
	tr := &Trace{Title: "long", Source: SourceSimulator, Timed: true, Lanes: []string{"service", "c1", "c2", "c3", "resource"}}
	tr.Steps = append(tr.Steps, Step{Number: 1, Action: "Init"})
	for i := 2; i <= n; i++ {
		c := fmt.Sprintf("c%d", 1+i%3)
		s := Step{Number: i, At: time.Duration(i) * 1700 * time.Microsecond}
		switch i % 3 {
		case 2:
			s.Actor, s.Action = c, "backoff timer fired"
			tr.Arrows = append(tr.Arrows, Arrow{From: c, To: "service", Sent: i, Received: i + 1, Label: "Acquire"})
		case 0:
			s.Actor, s.Action = "service", "recv Acquire from "+c
			tr.Arrows = append(tr.Arrows, Arrow{From: "service", To: c, Sent: i, Received: i + 1, Label: "Reject"})
			tr.Notes = append(tr.Notes, Note{Lane: "service", Step: i, Kind: NoteRejection, Text: "rejected " + c + "'s acquire"})
		default:
			s.Actor, s.Action = c, "recv Reject from service"
			if i%7 == 0 {
				tr.Notes = append(tr.Notes, Note{Lane: c, Step: i, Kind: NoteFault, Text: c + "'s clock steps forward 818.138181ms"})
			}
		}
		tr.Steps = append(tr.Steps, s)
	}
	tr.Arrows[len(tr.Arrows)-1].Received = 0 // the last message is still in flight
	tr.Violation = &Violation{Property: "NoLostUpdate", Step: n, Involved: []string{"c1", "c2"}}
	return tr
}

func TestWriteHTMLLongTimedTrace(t *testing.T) {
	tr := longTrace(500)
	p := buildPage(tr)
	require.Len(t, p.Rows, 500)
	for i := 1; i < len(p.Rows); i++ {
		assert.GreaterOrEqual(t, p.Rows[i].Y-p.Rows[i-1].Y, minRowH, "rows keep their distance")
	}
	assert.Greater(t, p.Height, p.Rows[499].Y)
	assert.Empty(t, overlaps(p))

	var b bytes.Buffer
	require.NoError(t, WriteHTML(&b, tr))
	page := b.String()
	assert.Contains(t, page, ">500</text>")
	assert.Contains(t, page, ">0.850s</text>", "each step's time is beside its number")
	assert.Contains(t, page, `class="lanes-head"`, "the lane names stay in view")
	assert.NotContains(t, page, "<script")
}

func TestWriteHTMLMarksNeedNoEmojiFont(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteHTML(&b, loadTrace(t, "timed.json")))
	page := b.String()
	for _, glyph := range []string{"⏱", "⚡"} {
		assert.NotContains(t, page, glyph, "%s draws as a box without an emoji font", glyph)
	}
	defined := map[string]bool{}
	for _, m := range regexp.MustCompile(`<symbol id="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		defined[m[1]] = true
	}
	for _, kind := range []string{"expiry", "rejection", "fault", "violation"} {
		assert.True(t, defined["m-"+kind], "a mark for %s", kind)
		assert.Contains(t, page, `<span><svg class="mark"><use href="#m-`+kind+`"/></svg> `+kind+`</span>`, "the legend shows the %s mark", kind)
	}
	for _, m := range regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		require.True(t, strings.HasPrefix(m[1], "#"), "only references inside the page: %s", m[1])
		assert.True(t, defined[m[1][1:]], "%s is defined", m[1])
	}
	for _, m := range regexp.MustCompile(`url\(#([^)]*)\)`).FindAllStringSubmatch(page, -1) {
		assert.True(t, strings.Contains(page, `id="`+m[1]+`"`), "%s is defined", m[1])
	}
}

func TestWriteHTMLUnknownNoteKind(t *testing.T) {
	tr := &Trace{
		Lanes: []string{"a"},
		Steps: []Step{{Number: 1, Actor: "a", Action: "x"}},
		Notes: []Note{{Lane: "a", Step: 1, Kind: `" onload="x`, Text: "odd"}},
	}
	var b bytes.Buffer
	require.NoError(t, WriteHTML(&b, tr))
	assert.Contains(t, b.String(), `<use href="#m-info"`, "a kind the renderer does not know is drawn as info")
	assert.NotContains(t, b.String(), "onload")
}

func TestWriteHTMLConcurrentAndDeterministic(t *testing.T) {
	tr := longTrace(120)
	var want bytes.Buffer
	require.NoError(t, WriteHTML(&want, tr))
	var wg sync.WaitGroup
	pages := make([]string, 8)
	for i := range pages {
		wg.Go(func() {
			var b bytes.Buffer
			if err := WriteHTML(&b, tr); err == nil {
				pages[i] = b.String()
			}
		})
	}
	wg.Wait()
	for _, p := range pages {
		assert.Equal(t, want.String(), p, "same trace, same bytes, from any goroutine")
	}
}

// BenchmarkBuildPage lays out longTrace's picture at growing sizes (about
// two arrows per three steps): the time per step stays about flat (the
// layout's searches are by rows, yIndex), where it grew with the number of
// steps before (every text and label scored against every arrow).
//
//	go test ./trace -run '^$' -bench BuildPage -benchmem
func BenchmarkBuildPage(b *testing.B) {
	for _, n := range []int{1000, 4000, 16000} {
		tr := longTrace(n)
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			for b.Loop() {
				buildPage(tr)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/step")
		})
	}
}
