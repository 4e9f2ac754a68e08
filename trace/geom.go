package trace

import (
	"strings"
	"unicode/utf8"
)

// Text metrics of the HTML sequence picture. Its text is 11px monospace,
// and every common monospace font advances about 0.6em per character
// (DejaVu Sans Mono and Menlo 0.602, SF Mono 0.6, Consolas 0.55), so the
// layout estimates a text's width from its rune count and needs no font.
// Integer arithmetic throughout keeps the output byte-for-byte the same on
// every platform (floating point may be fused differently by the compiler).
const (
	charW10 = 67 // a character's advance in tenths of a pixel (0.61em of 11px)
	lineH   = 14 // distance between the baselines of wrapped lines
)

// textWidth is the estimated width of s in pixels.
func textWidth(s string) int {
	return (utf8.RuneCountInString(s)*charW10 + 9) / 10
}

// charsIn is how many characters fit in w pixels.
func charsIn(w int) int {
	if n := w * 10 / charW10; n > 1 {
		return n
	}
	return 1
}

// wrap breaks s at spaces into lines of at most n runes; a word longer
// than n is cut. Runs of spaces collapse, as they would in SVG text.
func wrap(s string, n int) []string {
	words := strings.Fields(s)
	if len(words) == 0 {
		return []string{""}
	}
	var lines []string
	var cur []rune
	for _, w := range words {
		r := []rune(w)
		if len(cur) > 0 && len(cur)+1+len(r) <= n {
			cur = append(append(cur, ' '), r...)
			continue
		}
		if len(cur) > 0 {
			lines = append(lines, string(cur))
		}
		for len(r) > n {
			lines = append(lines, string(r[:n]))
			r = r[n:]
		}
		cur = r
	}
	return append(lines, string(cur))
}

// box is an axis-aligned rectangle in SVG user units.
type box struct{ X, Y, W, H int }

// overlap is the area two boxes share.
func (b box) overlap(c box) int {
	w := min(b.X+b.W, c.X+c.W) - max(b.X, c.X)
	h := min(b.Y+b.H, c.Y+c.H) - max(b.Y, c.Y)
	if w <= 0 || h <= 0 {
		return 0
	}
	return w * h
}

func (b box) contains(x, y int) bool {
	return x >= b.X && x <= b.X+b.W && y >= b.Y && y <= b.Y+b.H
}

// segment is a straight line, such as an arrow's.
type segment struct{ X1, Y1, X2, Y2 int }

// hits reports whether s passes through b.
func (s segment) hits(b box) bool {
	if max(s.X1, s.X2) < b.X || min(s.X1, s.X2) > b.X+b.W || max(s.Y1, s.Y2) < b.Y || min(s.Y1, s.Y2) > b.Y+b.H {
		return false
	}
	if b.contains(s.X1, s.Y1) || b.contains(s.X2, s.Y2) {
		return true
	}
	x2, y2 := b.X+b.W, b.Y+b.H
	edges := [4]segment{{b.X, b.Y, x2, b.Y}, {x2, b.Y, x2, y2}, {b.X, y2, x2, y2}, {b.X, b.Y, b.X, y2}}
	for _, e := range edges {
		if s.crosses(e) {
			return true
		}
	}
	return false
}

// crosses reports whether two segments share a point.
func (s segment) crosses(e segment) bool {
	d1 := orient(e.X1, e.Y1, e.X2, e.Y2, s.X1, s.Y1)
	d2 := orient(e.X1, e.Y1, e.X2, e.Y2, s.X2, s.Y2)
	d3 := orient(s.X1, s.Y1, s.X2, s.Y2, e.X1, e.Y1)
	d4 := orient(s.X1, s.Y1, s.X2, s.Y2, e.X2, e.Y2)
	if d1*d2 < 0 && d3*d4 < 0 {
		return true
	}
	// Touching or collinear: the bounding boxes decide.
	on := func(d int64, a, b segment, px, py int) bool {
		return d == 0 && px >= min(a.X1, a.X2) && px <= max(a.X1, a.X2) && py >= min(a.Y1, a.Y2) && py <= max(a.Y1, a.Y2)
	}
	return on(d1, e, s, s.X1, s.Y1) || on(d2, e, s, s.X2, s.Y2) || on(d3, s, e, e.X1, e.Y1) || on(d4, s, e, e.X2, e.Y2)
}

// orient is the sign of the turn from a→b to a→c.
func orient(ax, ay, bx, by, cx, cy int) int64 {
	v := int64(bx-ax)*int64(cy-ay) - int64(by-ay)*int64(cx-ax)
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// Weights of place's score. Hiding text or another label behind a label
// is worst (per pixel of overlap: a one-pixel sliver costs little, half a
// line of text a lot), sitting on another arrow's line makes a reader
// wonder which arrow the label belongs to, straddling a lane hides a bit
// of it, and among equally clear places the earlier candidate (nearer the
// sender) wins.
const (
	costOverlap = 8   // per pixel² shared with text, a dot or a mark
	costLabel   = 20  // per pixel² shared with a label placed before
	costLine    = 500 // per other arrow through the label
	costLane    = 150 // per lane line the label straddles
	costRank    = 3   // per position further down the candidate list
)

// labelPlacer puts arrow labels where they hide nothing, deterministically:
// arrows are placed in order, each at the best-scoring of a fixed list of
// candidate positions given the obstacles (texts, dots, marks) and the
// labels placed before it.
type labelPlacer struct {
	obstacles []box
	labels    []box
	lines     []segment // every arrow, by index
	lanes     []int     // the x of every lane's line
	minX      int       // the picture's drawable width, left and right
	maxX      int
	reach     int // how far below its sender a label may go

	// The obstacles, labels and lines by their y (yIndex), built at the
	// first place: a label is scored only against what lies beside it.
	indexed                     bool
	byObstacle, byLabel, byLine yIndex
}

// index lists the obstacles and lines (the labels are listed as placed).
func (p *labelPlacer) index() {
	p.indexed = true
	for i, o := range p.obstacles {
		p.byObstacle.add(i, o.Y, o.Y+o.H)
	}
	for i, o := range p.labels {
		p.byLabel.add(i, o.Y, o.Y+o.H)
	}
	for i, s := range p.lines {
		p.byLine.add(i, min(s.Y1, s.Y2), max(s.Y1, s.Y2))
	}
}

// place returns the box of a w×h label for arrow i, drawn from (x1,y1) to
// (x2,y2). A same-step arrow is horizontal; its label goes below the line
// (the actor's action is written above it), on one of a few tiers.
func (p *labelPlacer) place(i, w, h int) box {
	if !p.indexed {
		p.index()
	}
	s := p.lines[i]
	lo, hi := min(s.Y1, s.Y2)-3*h, max(s.Y1, s.Y2)+4*h
	// Candidate positions along the arrow, in twentieths of its length from
	// the sender, in order of preference: a label near its sender reads with
	// the row where the message was sent, but not so near that it covers the
	// sender's dot and action. Same-step arrows prefer the middle.
	slopedRanks := [...]int{7, 5, 9, 6, 8, 10, 4, 11, 12, 13, 14, 3, 15, 16, 17}
	horizontalRanks := [...]int{10, 8, 12, 6, 14, 4, 16}
	var cands []box
	if s.Y1 == s.Y2 {
		for tier := range 3 {
			for _, k := range horizontalRanks {
				cx := s.X1 + (s.X2-s.X1)*k/20
				cands = append(cands, box{cx - w/2, s.Y1 + 4 + tier*(h+2), w, h})
			}
		}
	} else {
		// A message in transit for many steps keeps its label within the
		// first few rows after it was sent, where a reader looks for it.
		dy := max(s.Y2-s.Y1, s.Y1-s.Y2)
		reach := min(dy, p.reach)
		for _, k := range slopedRanks {
			cx, cy := s.X1+(s.X2-s.X1)*k*reach/(20*dy), s.Y1+(s.Y2-s.Y1)*k*reach/(20*dy)
			cands = append(cands, box{cx - w/2, cy - h/2, w, h})
		}
	}
	// What lies within [lo, hi] and meets a candidate's rows: nothing else
	// can overlap or cross a candidate, so the scores are those of
	// everything within [lo, hi], found without looking at all of it.
	candLo, candHi := hi, lo
	for _, c := range cands {
		candLo, candHi = min(candLo, c.Y), max(candHi, c.Y+c.H)
	}
	qlo, qhi := max(lo, candLo), min(hi, candHi)
	var near, nearLabels []box
	var nearLines []segment
	if qlo <= qhi {
		p.byObstacle.each(qlo, qhi, func(j int) bool {
			if o := p.obstacles[j]; o.Y+o.H >= lo && o.Y <= hi {
				near = append(near, o)
			}
			return true
		})
		p.byLabel.each(qlo, qhi, func(j int) bool {
			if o := p.labels[j]; o.Y+o.H >= lo && o.Y <= hi {
				nearLabels = append(nearLabels, o)
			}
			return true
		})
		p.byLine.each(qlo, qhi, func(j int) bool {
			if o := p.lines[j]; j != i && max(o.Y1, o.Y2) >= lo && min(o.Y1, o.Y2) <= hi {
				nearLines = append(nearLines, o)
			}
			return len(nearLines) < maxBeside
		})
	}
	best, bestScore := box{}, -1
	for rank, c := range cands {
		// Keep the label inside the picture, off the step numbers.
		c.X = max(p.minX, min(c.X, p.maxX-c.W))
		score := rank * costRank
		for _, o := range near {
			score += costOverlap * c.overlap(o)
		}
		for _, o := range nearLabels {
			score += costLabel * c.overlap(o)
		}
		for _, o := range nearLines {
			if o.hits(c) {
				score += costLine
			}
		}
		for _, x := range p.lanes {
			if x > c.X && x < c.X+c.W {
				score += costLane
			}
		}
		if bestScore < 0 || score < bestScore {
			best, bestScore = c, score
		}
	}
	p.byLabel.add(len(p.labels), best.Y, best.Y+best.H)
	p.labels = append(p.labels, best)
	return best
}

// bandH is the height of one band of a yIndex.
const bandH = 64

// longBands is the most bands an item is listed in; a longer item (a
// message in flight over many rows) is kept in one list of long items
// instead, so that n messages all in flight at once cost n entries, not n
// times the picture's height.
const longBands = 32

// maxBeside bounds the arrows a label or an action is scored against:
// with more than that many messages in flight beside it, a reader cannot
// follow them anyway, and scoring each against all of the others made a
// picture of 10,000 overlapping arrows take 110 s (quadratic). A picture
// with fewer arrows beside each text is laid out exactly as before.
const maxBeside = 64

// yIndex finds the items whose vertical extent meets a band of y, so that
// laying out a picture costs what lies near each item instead of every
// item for every item (which made a 22,000-step trace's picture take
// seconds). An item is listed in every band of bandH its extent meets, or
// in the list of long items when that is more than longBands bands; a
// query visits the bands of its range, each item in them once, and the
// long items that meet its range. Callers test each item exactly as
// before, so what is drawn is the same.
type yIndex struct {
	bands [][]int32 // band → items meeting it, in the order added
	long  []longItem
	seen  []uint32 // item → the last query that visited it
	query uint32
}

// longItem is an item of a yIndex that spans more than longBands bands.
type longItem struct {
	i      int32
	y0, y1 int
}

// add lists item i, whose extent is [y0, y1].
func (x *yIndex) add(i, y0, y1 int) {
	for len(x.seen) <= i {
		x.seen = append(x.seen, 0)
	}
	if band(y1)-band(y0) >= longBands {
		x.long = append(x.long, longItem{int32(i), y0, y1})
		return
	}
	for b := band(y0); b <= band(y1); b++ {
		for len(x.bands) <= b {
			x.bands = append(x.bands, nil)
		}
		x.bands[b] = append(x.bands[b], int32(i))
	}
}

// band is the band of y; everything above the picture's top is band 0.
func band(y int) int { return max(y, 0) / bandH }

// each calls f once for every item whose extent may meet [y0, y1] (a
// superset: those in the bands the range meets, and the long items that
// meet the bands), the banded items first, each in the order added, until
// f returns false.
func (x *yIndex) each(y0, y1 int, f func(i int) bool) {
	x.query++
	if x.query == 0 { // wrapped: forget every earlier visit
		clear(x.seen)
		x.query = 1
	}
	for b := band(y0); b <= band(y1) && b < len(x.bands); b++ {
		for _, i := range x.bands[b] {
			if x.seen[i] != x.query {
				x.seen[i] = x.query
				if !f(int(i)) {
					return
				}
			}
		}
	}
	for _, l := range x.long {
		if band(l.y1) >= band(y0) && band(l.y0) <= band(y1) && !f(int(l.i)) {
			return
		}
	}
}
