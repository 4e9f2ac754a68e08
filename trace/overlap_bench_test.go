package trace

import (
	"fmt"
	"io"
	"testing"
)

// overlappingArrows is a hostile trace.json's shape: n steps and n
// messages, each sent at its own step and all received at the last, so
// every message is in flight beside every other.
func overlappingArrows(n int) *Trace {
	t := &Trace{Title: "overlap", Lanes: []string{"c1", "service", "c2"}}
	for i := 1; i <= n; i++ {
		actor := "c1"
		if i == 1 {
			actor = ""
		}
		t.Steps = append(t.Steps, Step{Number: i, Actor: actor, Action: fmt.Sprintf("send %d", i)})
	}
	for i := 1; i < n; i++ {
		t.Arrows = append(t.Arrows, Arrow{From: "c1", To: "c2", Sent: i, Received: n, Label: fmt.Sprintf("m%d", i)})
	}
	return t
}

// BenchmarkWriteHTMLOverlappingArrows: the picture of n messages all in
// flight at once.
func BenchmarkWriteHTMLOverlappingArrows(b *testing.B) {
	for _, n := range []int{1000, 2000, 4000, 10000} {
		t := overlappingArrows(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if err := WriteHTML(io.Discard, t); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
