package history

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRecordValidate: the operations and phases the judge relies on, an
// expire (a return) and a validity only on a granted acquire's return.
func TestRecordValidate(t *testing.T) {
	granted := Record{Op: OpAcquire, Ev: Return, OK: true, Validity: 1e8, ValidUntil: 2e9}
	tests := []struct {
		name string
		r    Record
		want string // "" for valid
	}{
		{"a read call", Record{Op: OpRead, Ev: Call}, ""},
		{"a granted acquire with its validity", granted, ""},
		{"a granted acquire without one (a session lock, an old history)", Record{Op: OpAcquire, Ev: Return, OK: true}, ""},
		{"an expire", Record{Op: OpExpire, Ev: Return, Token: 3}, ""},
		{"an expire called", Record{Op: OpExpire, Ev: Call}, "an expire is a return"},
		{"unknown operation", Record{Op: "steal", Ev: Call}, "unknown operation"},
		{"unknown phase", Record{Op: OpRead, Ev: "maybe"}, "unknown phase"},
		{"client out of range", Record{Client: 2, Op: OpRead, Ev: Call}, "out of range"},
		{"validity on a refused acquire", Record{Op: OpAcquire, Ev: Return, ValidUntil: 5}, "only a granted acquire's return"},
		{"validity on a write", Record{Op: OpWrite, Ev: Call, Validity: 5}, "only a granted acquire's return"},
		{"validity on an acquire's call", Record{Op: OpAcquire, Ev: Call, OK: true, ValidUntil: 5}, "only a granted acquire's return"},
		{"negative validity", Record{Op: OpAcquire, Ev: Return, OK: true, Validity: -1}, "negative validity"},
		{"negative valid-until", Record{Op: OpAcquire, Ev: Return, OK: true, ValidUntil: -1}, "negative validity"},
	}
	for _, tc := range tests {
		err := tc.r.Validate(2)
		if tc.want == "" {
			assert.NoError(t, err, tc.name)
			continue
		}
		if assert.Error(t, err, tc.name) {
			assert.Contains(t, err.Error(), tc.want, tc.name)
		}
	}
}

// TestValidityRoundTrip: the client line and a grant's validity survive
// the saved history (history.jsonl), as the audit reads it back.
func TestValidityRoundTrip(t *testing.T) {
	h := &History{Start: 1, End: 9e9, Clients: 1, Unchecked: true, Records: []Record{
		{Op: OpAcquire, Ev: Call, Wall: 2},
		{Op: OpAcquire, Ev: Return, Wall: 3, Token: 1, OK: true, Validity: 5e8, ValidUntil: 5e8 + 2},
		{Op: OpExpire, Ev: Return, Wall: 6e8, Token: 1},
	}}
	var buf bytes.Buffer
	assert.NoError(t, h.WriteJSONL(&buf))
	got, err := ReadJSONL(&buf)
	if assert.NoError(t, err) {
		assert.True(t, got.Unchecked)
		assert.Equal(t, h.Records, got.Records)
	}
}
