package report

import (
	"fmt"
	"io"

	"github.com/fencelab/fencelab/tlc"
)

// TLCTable writes TLC's one table: model, expected, got, distinct states,
// depth, wall time, and whether the row matches the manifest.
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
		t.Add(o.Model.Name, o.Model.ExpectedText(), o.Got, distinct, depth, fmt.Sprintf("%.1fs", o.Wall.Seconds()), match)
	}
	return t.WriteText(w)
}
