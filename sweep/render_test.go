package sweep

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/bounds"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
)

// synthetic is a result of s with made-up outcomes (no run taken): cell
// (i, j) of design k gets outcome pick(k, i, j, property index).
func synthetic(t *testing.T, s *Sweep, pick func(k, i, j, q int) Outcome) *Result {
	t.Helper()
	res := &Result{Sweep: s}
	for k, d := range s.Designs {
		for j := range s.Y.Cells {
			for i := range s.X.Cells {
				b := s.cellBounds(i, j)
				vs, err := bounds.Check(b)
				require.NoError(t, err)
				c := Cell{Design: d, I: i, J: j, Bounds: b, Runs: s.Runs}
				for q, v := range vs {
					o := pick(k, i, j, q)
					o.Derived = v
					c.Outcomes = append(c.Outcomes, o)
				}
				res.Cells = append(res.Cells, c)
			}
		}
	}
	return res
}

// svgElement is a drawn element of the picture: its name, attributes and
// (for text) its words.
type svgElement struct {
	name  string
	attr  map[string]string
	text  string
	inTip bool
}

func parseSVG(t *testing.T, data []byte) (viewBox [4]float64, els []svgElement) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	var stack []*svgElement
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "the SVG is well-formed XML")
		switch tok := tok.(type) {
		case xml.StartElement:
			e := &svgElement{name: tok.Name.Local, attr: map[string]string{}}
			for _, a := range tok.Attr {
				e.attr[a.Name.Local] = a.Value
			}
			if e.name == "svg" {
				for n, f := range strings.Fields(e.attr["viewBox"]) {
					viewBox[n], err = strconv.ParseFloat(f, 64)
					require.NoError(t, err)
				}
			}
			stack = append(stack, e)
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text += string(tok)
			}
		case xml.EndElement:
			e := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			// A <title> is a tooltip, not drawn.
			if e.name != "title" && e.name != "svg" {
				els = append(els, *e)
			}
		}
	}
	return viewBox, els
}

type box struct{ x0, y0, x1, y1 float64 }

func (b box) overlaps(o box) bool {
	return b.x0 < o.x1 && o.x0 < b.x1 && b.y0 < o.y1 && o.y0 < b.y1
}

func num(t *testing.T, e svgElement, name string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(e.attr[name], 64)
	require.NoError(t, err, "%s %s=%q", e.name, name, e.attr[name])
	return f
}

// textBox is the estimated box of a text element: textWidth wide (the
// browser test checks the estimate is an upper bound), from 0.8 em above
// its baseline to 0.25 em below, anchored and rotated as drawn.
func textBox(t *testing.T, e svgElement) box {
	size := float64(fontSize)
	if s, ok := e.attr["font-size"]; ok {
		size, _ = strconv.ParseFloat(s, 64)
	}
	w := float64(textWidth(e.text, int(size), e.attr["font-weight"] == "bold"))
	x, y := num(t, e, "x"), num(t, e, "y")
	x0 := x
	switch e.attr["text-anchor"] {
	case "middle":
		x0 = x - w/2
	case "end":
		x0 = x - w
	}
	b := box{x0, y - 0.8*size, x0 + w, y + 0.25*size}
	if tr := e.attr["transform"]; tr != "" {
		require.Regexp(t, `^rotate\(-90 `, tr)
		// Turned a quarter left about (x, y): along the text is up.
		b = box{x - 0.8*size, y - (b.x1 - x), x + 0.25*size, y + (x - b.x0)}
	}
	return b
}

// TestSweepSVGLayout draws small and large grids, with short and long
// design names, and checks that every text and rectangle lies inside the
// viewBox and that no two texts' boxes overlap, nor a text a cell.
func TestSweepSVGLayout(t *testing.T) {
	testbuild.SkipUnderRace(t) // deterministic drawing: the -short pass runs it
	grids := []string{"pause:100ms..100ms/1,lock-delay:0..0/1", "pause:100ms..100ms/1,lock-delay:0..800ms/2",
		"pause:0..400ms/2,lock-delay:400ms..400ms/1", "pause:0..400ms/2,lock-delay:0..800ms/2",
		"drift:0..0.2/3,margin:0..400ms/17", "pause:0..400ms/17,lock-delay:0..800ms/17", "ttl:1s..24h/9,margin:0..999ms/3"}
	for _, grid := range grids {
		for _, designs := range [][]impl.Design{{impl.DesignNoFencing}, {impl.DesignNoFencing, impl.DesignFenceAll, impl.DesignRenewal}} {
			t.Run(fmt.Sprintf("%s/%d designs", grid, len(designs)), func(t *testing.T) {
				s := small(t, grid, 10, 1)
				s.Designs = designs
				res := synthetic(t, s, func(k, i, j, q int) Outcome { return Outcome{Worst: "held", Random: (i + j) % 3} })
				var out bytes.Buffer
				require.NoError(t, res.WriteSVG(&out))
				vb, els := parseSVG(t, out.Bytes())
				canvas := box{vb[0], vb[1], vb[0] + vb[2], vb[1] + vb[3]}
				var texts, cells []box
				var words []string
				for _, e := range els {
					switch e.name {
					case "text":
						b := textBox(t, e)
						texts, words = append(texts, b), append(words, e.text)
					case "rect":
						if e.attr["width"] == "100%" {
							continue
						}
						x, y := num(t, e, "x"), num(t, e, "y")
						b := box{x, y, x + num(t, e, "width"), y + num(t, e, "height")}
						assert.True(t, inside(b, canvas), "rect %+v outside the canvas %+v", b, canvas)
						if e.attr["data-class"] != "" {
							cells = append(cells, b)
						}
					}
				}
				require.NotEmpty(t, texts)
				for n, b := range texts {
					assert.True(t, inside(b, canvas), "text %q %+v outside the canvas %+v", words[n], b, canvas)
					for m := n + 1; m < len(texts); m++ {
						assert.False(t, b.overlaps(texts[m]), "texts %q and %q overlap", words[n], words[m])
					}
					for _, c := range cells {
						assert.False(t, b.overlaps(c), "text %q overlaps a cell %+v", words[n], c)
					}
				}
			})
		}
	}
}

func inside(b, canvas box) bool {
	return b.x0 >= canvas.x0 && b.y0 >= canvas.y0 && b.x1 <= canvas.x1 && b.y1 <= canvas.y1
}

// TestSweepLegendMatchesCells: a cell whose worst case violated and whose
// random runs did not is coloured as the legend line that says so, and so
// on for every kind of cell — read from the picture, not from Classify.
func TestSweepLegendMatchesCells(t *testing.T) {
	s := small(t, "pause:0..400ms/4,lock-delay:0..800ms/2", 10, 1)
	s.Designs = []impl.Design{impl.DesignNoFencing}
	// x index: 0 nothing, 1 worst case only, 2 three of ten random runs
	// (and the worst case), 3 every random run.
	kinds := []Outcome{{Worst: "held"}, {Worst: "violated"}, {Worst: "violated", Random: 3}, {Worst: "held", Random: 10}}
	res := synthetic(t, s, func(k, i, j, q int) Outcome { return kinds[i] })
	var out bytes.Buffer
	require.NoError(t, res.WriteSVG(&out))
	_, els := parseSVG(t, out.Bytes())
	// The legend: a swatch followed by its words.
	legend := map[string]string{}
	var cellFills []string
	for n, e := range els {
		if e.name != "rect" || e.attr["data-class"] == "" {
			continue
		}
		if n+1 < len(els) && els[n+1].name == "text" && e.attr["width"] == "12" {
			legend[e.attr["fill"]] = els[n+1].text
			continue
		}
		if e.attr["x"] != "" && len(cellFills) < 4 {
			cellFills = append(cellFills, e.attr["fill"])
		}
	}
	require.Len(t, cellFills, 4, "the first row's four cells")
	want := []*regexp.Regexp{regexp.MustCompile(`^nothing violated$`), regexp.MustCompile(`worst case violated, no random run`),
		regexp.MustCompile(`some random runs violated`), regexp.MustCompile(`every random run violated`)}
	for i, f := range cellFills {
		if i == 2 {
			// A share between none and all: a shade of the "some" swatch's
			// colour, not one of the others'.
			for fill, words := range legend {
				if fill == f {
					assert.Regexp(t, want[2], words)
				}
			}
			assert.NotEqual(t, legendFill(legend, want[0]), f)
			assert.NotEqual(t, legendFill(legend, want[1]), f)
			continue
		}
		words, ok := legend[f]
		if assert.True(t, ok, "cell %d's colour %s is in the legend %v", i, f, legend) {
			assert.Regexp(t, want[i], words, "cell %d", i)
		}
	}
	assert.NotContains(t, out.String(), "all random runs violated (lighter", "the old legend line that contradicted the pink cells")
}

func legendFill(legend map[string]string, re *regexp.Regexp) string {
	for f, w := range legend {
		if re.MatchString(w) {
			return f
		}
	}
	return ""
}
