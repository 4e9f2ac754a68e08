package report

import (
	"testing"

	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/trace"
	"github.com/stretchr/testify/assert"
)

// TestExpireInTheTrace: a checked client's expire reads as its validity
// ending — the belief's end, not a refusal by a service.
func TestExpireInTheTrace(t *testing.T) {
	r := &history.Record{Client: 0, Op: history.OpExpire, Ev: history.Return, Token: 7}
	assert.Equal(t, "validity ended (token 7): section given up", returnLabel(r))
	assert.Equal(t, []trace.Change{{Path: "c1.holds", Old: "true", New: "false"}}, returnChanges(r))
	release := &history.Record{Client: 0, Op: history.OpRelease, Ev: history.Return}
	assert.Equal(t, "release failed", returnLabel(release), "a refused release is still one")
}

// TestLabelsNameOnlyRealTokens: a setup without tokens records token 0
// (omitted from the history), and no label of its trace says "token 0";
// a setup with tokens has each call and return name its token.
func TestLabelsNameOnlyRealTokens(t *testing.T) {
	for _, tc := range []struct {
		op, ev     string
		none, with string
	}{
		{history.OpRead, history.Call, "Read", "Read(token 5)"},
		{history.OpWrite, history.Call, "Write(3)", "Write(3, token 5)"},
		{history.OpRelease, history.Call, "Release", "Release(token 5)"},
		{history.OpAcquire, history.Call, "Acquire", "Acquire"},
		{history.OpAcquire, history.Return, "granted", "granted (token 5)"},
		{history.OpExpire, history.Return, "validity ended: section given up", "validity ended (token 5): section given up"},
	} {
		label := returnLabel
		if tc.ev == history.Call {
			label = callLabel
		}
		r := history.Record{Op: tc.op, Ev: tc.ev, Value: 3, OK: true}
		assert.Equal(t, tc.none, label(&r), "%s %s without a token", tc.op, tc.ev)
		r.Token = 5
		assert.Equal(t, tc.with, label(&r), "%s %s with token 5", tc.op, tc.ev)
	}
}
