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
