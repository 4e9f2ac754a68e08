package sim

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/trace"
)

// gcPause is README's run: seed 14 with pauses only, where c3 is paused
// between its read and its write, c2 is granted the expired lease, and
// c3's write arrives after c2's read.
func gcPause(t *testing.T, d impl.Design) *Replay {
	t.Helper()
	c := DefaultConfig()
	c.Design, c.Faults = d, PauseFaults
	rp, err := NewReplay(c, Generate(14, c), 0)
	require.NoError(t, err)
	return rp
}

// TestRecordGoesOnToTheDecision: the trace of a violation of
// AtMostOneClientHoldLock does not stop at the violation but goes on until
// the resource has decided on the stale holder's operation — under fencing
// all, the rejected stale write, the fix itself, is in the picture.
func TestRecordGoesOnToTheDecision(t *testing.T) {
	rp := gcPause(t, impl.DesignFenceAll)
	require.Equal(t, impl.AtMostOneClientHoldLock, rp.Target)
	v := rp.Trace.Violation
	require.NotNil(t, v)
	last := rp.Trace.Steps[len(rp.Trace.Steps)-1]
	assert.Greater(t, last.Number, v.Step, "the trace goes on past the violation")
	rejected := false
	for _, n := range rp.Trace.Notes {
		if n.Lane == "resource" && n.Kind == trace.NoteRejection && n.Step > v.Step && strings.Contains(n.Text, "c3") {
			rejected = true
		}
	}
	assert.True(t, rejected, "the resource's rejection of c3's stale write is drawn")
	assert.Equal(t, "c3", last.Actor, "it ends when c3 learns the answer")
	assert.Less(t, last.Number, rp.Result.Steps+1, "and not at the end of the run")

	// Where the resource's acceptance is itself the violation, the trace
	// ends there.
	off := gcPause(t, impl.DesignNoFencing)
	require.Equal(t, impl.NoLostUpdate, off.Target)
	assert.Equal(t, off.Trace.Violation.Step, off.Full.Steps[len(off.Full.Steps)-1].Number)
}

// TestFocusElidesAndSaysSo: the picture keeps the lanes and steps of the
// story, marks every run of elided steps as such, keeps every step's
// number from the run, and names the lanes it leaves out.
func TestFocusElidesAndSaysSo(t *testing.T) {
	rp := gcPause(t, impl.DesignFenceAll)
	full, tr := rp.Full, rp.Trace
	assert.Equal(t, []string{"service", "c2", "c3", "resource"}, tr.Lanes, "c1 is not involved")
	assert.Contains(t, tr.Title, "not involved, not shown: c1")
	assert.Less(t, len(tr.Steps), len(full.Steps)/4, "a picture, not the run")
	byNumber := map[int]trace.Step{}
	for _, s := range full.Steps {
		byNumber[s.Number] = s
	}
	elided, prev := 0, 0
	for i, s := range tr.Steps {
		assert.Greater(t, s.Number, prev, "numbers keep the run's order")
		prev = s.Number
		if strings.HasPrefix(s.Action, "… ") {
			assert.Empty(t, s.Actor)
			next := full.Steps[len(full.Steps)-1].Number + 1
			if i+1 < len(tr.Steps) {
				next = tr.Steps[i+1].Number
			}
			assert.Contains(t, s.Action, "elided", "marked as elided")
			n := next - s.Number
			word := "steps"
			if n == 1 {
				word = "step"
			}
			assert.Equal(t, "… "+strconv.Itoa(n)+" "+word+" elided …", s.Action, "the count is exact")
			elided += n
			continue
		}
		orig, ok := byNumber[s.Number]
		require.True(t, ok)
		assert.Equal(t, orig.Action, s.Action, "step %d keeps its number", s.Number)
		assert.NotEqual(t, "c1", s.Actor)
		for _, c := range s.Changes {
			assert.False(t, strings.HasPrefix(c.Path, "c1."), "no change of c1 shown: %s", c.Path)
		}
	}
	assert.Equal(t, len(full.Steps), len(tr.Steps)-countMarkers(tr)+elided, "every step is shown or counted as elided")
	assert.Contains(t, tr.Title, strconv.Itoa(elided)+" of "+strconv.Itoa(len(full.Steps))+" steps elided")
	for _, a := range tr.Arrows {
		assert.NotEqual(t, "c1", a.From)
		assert.NotEqual(t, "c1", a.To)
	}
	// The story: c3's grant, its pause, the expiry, c2's grant (the
	// violation), c3's resume and its rejected write.
	var story []string
	for _, s := range tr.Steps {
		story = append(story, s.Action)
	}
	text := strings.Join(story, "\n")
	for _, want := range []string{"recv Grant(lease 9, token 9) from service", "paused (fault)", "lease timer fired",
		"recv Grant(lease 10, token 10) from service", "resumed", "recv Write(9, token 9) from c3"} {
		assert.Contains(t, text, want)
	}
}

func countMarkers(t *trace.Trace) int {
	n := 0
	for _, s := range t.Steps {
		if strings.HasPrefix(s.Action, "… ") {
			n++
		}
	}
	return n
}
