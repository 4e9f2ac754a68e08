package steptrace

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/trace"
)

func TestRecorderGrantAndExpiry(t *testing.T) {
	sys, err := impl.NewSystem(impl.Config{Design: impl.DesignFenceAll, Clients: 2, Sections: 1, TTL: 10 * time.Second, Margin: time.Second})
	require.NoError(t, err)
	rec := New("grant then expiry", trace.SourceSimulator, sys, true)
	var out impl.Effects
	c1 := impl.ClientNode(0)
	step := func(n impl.NodeID, in impl.Input, at time.Duration) []impl.Message {
		out.Reset()
		sys.Step(n, &in, &out)
		rec.Step(n, in, at, sys, &out)
		return append([]impl.Message(nil), out.Send...)
	}
	acquire := step(c1, impl.Input{Kind: impl.InputStart}, 0)
	grant := step(impl.ServiceNode, impl.Input{Kind: impl.InputMessage, Msg: acquire[0]}, time.Millisecond)
	step(impl.ServiceNode, impl.Input{Kind: impl.InputTimer, Timer: impl.Timer{Kind: impl.TimerLease}}, 10*time.Second)
	step(c1, impl.Input{Kind: impl.InputMessage, Msg: grant[0]}, 11*time.Second)

	tr := rec.Trace()
	require.Len(t, tr.Steps, 5)
	assert.Equal(t, []string{"service", "c1", "c2", "resource"}, tr.Lanes)
	assert.Equal(t, "recv Grant(lease 1, token 1) from service", tr.Steps[4].Action)
	assert.Equal(t, 11*time.Second, tr.Steps[4].At)
	assert.Contains(t, tr.Steps[4].Changes, trace.Change{Path: "c1.holds", Old: "false", New: "true"})
	assert.Equal(t, []trace.Arrow{
		{From: "c1", To: "service", Sent: 2, Received: 3, Label: "Acquire"},
		{From: "service", To: "c1", Sent: 3, Received: 5, Label: "Grant(lease 1, token 1)"},
		{From: "c1", To: "resource", Sent: 5, Label: "Read(token 1)"},
	}, tr.Arrows)
	assert.Equal(t, []trace.Note{{Lane: "service", Step: 4, Kind: trace.NoteExpiry, Text: "expired lease 1 of c1"}}, tr.Notes)

	rec.Violate(impl.AtMostOneClientHoldLock, &impl.Breach{Involved: []impl.NodeID{c1}, Explanation: "x"})
	assert.Equal(t, &trace.Violation{Property: impl.AtMostOneClientHoldLock, Step: 5, Involved: []string{"c1"}, Explanation: "x"}, tr.Violation)
}

func TestRecorderFault(t *testing.T) {
	sys, err := impl.NewSystem(impl.Config{Design: impl.DesignFenceAll, Clients: 1, Sections: 1, TTL: 10 * time.Second, Margin: time.Second})
	require.NoError(t, err)
	rec := New("a pause", trace.SourceSimulator, sys, true)
	rec.Fault("c1", 3*time.Second, "paused (fault)", "c1 paused for 2s")
	tr := rec.Trace()
	require.Len(t, tr.Steps, 2)
	assert.Equal(t, trace.Step{Number: 2, At: 3 * time.Second, Actor: "c1", Action: "paused (fault)"}, tr.Steps[1])
	assert.Equal(t, []trace.Note{{Lane: "c1", Step: 2, Kind: trace.NoteFault, Text: "c1 paused for 2s"}}, tr.Notes)
}

// TestRecorderWithoutTokens: in a row without tokens, no label, action,
// note or variable of the trace says "token 0" — there is no token, and a
// picture that names one misleads; a row with tokens keeps them.
func TestRecorderWithoutTokens(t *testing.T) {
	for _, tc := range []struct {
		design   impl.Design
		read     string
		logEntry string
	}{
		{impl.DesignNoFencing, "Read", "c1 read 0 accepted"},
		{impl.DesignFenceAll, "Read(token 1)", "c1 read 0 (token 1) accepted"},
	} {
		t.Run(tc.design.String(), func(t *testing.T) {
			sys, err := impl.NewSystem(impl.Config{Design: tc.design, Clients: 2, Sections: 1, TTL: 10 * time.Second, Margin: time.Second})
			require.NoError(t, err)
			rec := New("read", trace.SourceSimulator, sys, false)
			var out impl.Effects
			c1 := impl.ClientNode(0)
			step := func(n impl.NodeID, in impl.Input) []impl.Message {
				out.Reset()
				sys.Step(n, &in, &out)
				rec.Step(n, in, 0, sys, &out)
				return append([]impl.Message(nil), out.Send...)
			}
			acquire := step(c1, impl.Input{Kind: impl.InputStart})
			grant := step(impl.ServiceNode, impl.Input{Kind: impl.InputMessage, Msg: acquire[0]})
			read := step(c1, impl.Input{Kind: impl.InputMessage, Msg: grant[0]})
			step(impl.ResourceNode, impl.Input{Kind: impl.InputMessage, Msg: read[0]})
			rec.Note("c1", trace.NoteFault, read[0].String()+" to resource delayed by 1s (spike)")

			tr := rec.Trace()
			assert.Equal(t, tc.read, tr.Arrows[2].Label)
			assert.Equal(t, "recv "+tc.read+" from c1", tr.Steps[len(tr.Steps)-1].Action)
			assert.Contains(t, tr.Steps[len(tr.Steps)-1].Changes, trace.Change{Path: "resource.log[1]", New: tc.logEntry})
			assert.Equal(t, tc.read+" to resource delayed by 1s (spike)", tr.Notes[len(tr.Notes)-1].Text)
		})
	}
}
