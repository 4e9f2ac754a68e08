package report

import (
	"fmt"
	"io"
	"time"

	"github.com/fencelab/fencelab/bounds"
	"github.com/fencelab/fencelab/impl"
)

// BoundsTable is DESIGN.md's condition for one set of bounds, one row per
// property: whether an unfenced lease lock keeps it, its slack, and the
// smallest safe margin and lock-delay (each with the other bounds as given).
func BoundsTable(w io.Writer, b bounds.Bounds, vs []bounds.Verdict) error {
	t := NewTable("property", "X", "without fencing", "slack", "margin must exceed", "lock-delay must exceed")
	for _, v := range vs {
		x := "2P+D"
		if v.Property == impl.AtMostOneClientHoldLock {
			x = "P"
		}
		safe := "holds"
		if !v.Safe {
			safe = "can be violated"
		}
		t.Add(v.Property, fmt.Sprintf("%s = %v", x, v.X), safe, v.Slack.String(), marginText(b, v.MarginAbove), atLeastText(v.LockDelayAbove))
	}
	return t.WriteText(w)
}

func marginText(b bounds.Bounds, above time.Duration) string {
	if above+1 >= b.TTL {
		return fmt.Sprintf("%v: none below the ttl", above)
	}
	return atLeastText(above)
}

func atLeastText(above time.Duration) string {
	if above < 0 {
		return "any (≥ 0)"
	}
	return above.String()
}
