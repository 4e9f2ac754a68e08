package pipeline

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestStepProgressOnAPipe: a slow stage (TLC's models, conformance
// groups) prints a line per step on a pipe, at most one a second, each
// naming the step; the steps a gap held back are said by the last line;
// a stage whose count is not known counts up without a total.
func TestStepProgressOnAPipe(t *testing.T) {
	clock := time.Unix(0, 0)
	var b strings.Builder
	p := newStepProgressTo(&b, false, 40, "tlc", "model", func() time.Time { return clock })
	for i := range 40 {
		// Ten models in the first second, then one every two seconds.
		if i < 10 {
			clock = clock.Add(100 * time.Millisecond)
		} else {
			clock = clock.Add(2 * time.Second)
		}
		p.step("Model" + string(rune('A'+i%26)))
	}
	p.finish()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	assert.Equal(t, "tlc: 10 of 40 models (25%), 1s; last: ModelJ", lines[0], "nothing in the first second")
	assert.Len(t, lines, 1+30, "the first line after a second, then one per step (two seconds apart)")
	assert.Equal(t, "tlc: 40 of 40 models (100%), 61s; last: ModelN", lines[len(lines)-1])
	for _, l := range lines {
		assert.Regexp(t, `^tlc: [0-9]+ of 40 models \([0-9]+%\), [0-9]+s; last: Model[A-Z]$`, l)
	}

	b.Reset()
	p = newStepProgressTo(&b, false, 0, "conform", "group", func() time.Time { return clock })
	p.step("walk off, 2 clients × 1 section")
	p.finish()
	assert.Empty(t, b.String(), "a stage that ends within a second says nothing")
	start := clock
	p = newStepProgressTo(&b, false, 0, "conform", "group", func() time.Time { return clock })
	clock = start.Add(1500 * time.Millisecond)
	p.step("walk off, 2 clients × 1 section")
	clock = clock.Add(100 * time.Millisecond)
	p.step("walk off, 2 clients × 2 sections")
	p.finish()
	assert.Equal(t, "conform: 1 group, 2s; last: walk off, 2 clients × 1 section\nconform: 2 groups, 2s; last: walk off, 2 clients × 2 sections\n", b.String(),
		"the held-back step is said by finish")
}

// TestStepProgressOnATerminal draws the bar (schollz/progressbar) with the
// step's name, and no plain lines.
func TestStepProgressOnATerminal(t *testing.T) {
	var b strings.Builder
	p := newStepProgressTo(&b, true, 3, "tlc", "model", time.Now)
	for _, m := range []string{"A", "B", "C"} {
		p.step(m)
	}
	p.finish()
	assert.NotContains(t, b.String(), "last:")
	assert.Contains(t, b.String(), "\r", "a bar redraws its line")
}
