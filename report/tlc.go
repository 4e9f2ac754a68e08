package report

import (
	"fmt"
	"io"

	"github.com/fencelab/fencelab/tlc"
)

// TLCTable writes TLC's one table: model, expected, got, distinct states,
// depth, wall time ("(cached)" after it for a result read from the
// cache), and whether the row matches the manifest.
func TLCTable(w io.Writer, outcomes []tlc.Outcome) error {
	t := NewTable("model", "expected", "got", "distinct states", "depth", "wall time", "match")
	for _, o := range outcomes {
		distinct, depth := "—", "—"
		if o.Distinct >= 0 {
			distinct = fmt.Sprint(o.Distinct)
		}
		if o.Depth >= 0 {
			depth = fmt.Sprint(o.Depth)
		}
		match := "✓"
		if o.Mismatch != "" {
			match = "✗ " + o.Mismatch
		}
		wall := fmt.Sprintf("%.1fs", o.Wall.Seconds())
		if o.Cached {
			// As go test says it: the result is an earlier run's,
			// whose time this is.
			wall += " (cached)"
		}
		t.Add(o.Model.Name, o.Model.ExpectedText(), o.Got, distinct, depth, wall, match)
	}
	return t.WriteText(w)
}
