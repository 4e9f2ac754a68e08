package run

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/lock"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWindowOf: a grant's window is impl's send rule from the granted
// attempt's send (the Acquire call when the recipe does not say), only
// for a lease with a fixed end.
func TestWindowOf(t *testing.T) {
	call := time.Unix(100, 0)
	sent := call.Add(40 * time.Millisecond) // a retried attempt, after the call
	arrived := sent.Add(5 * time.Millisecond)
	leased := setup.Setup{Leased: true}
	tests := []struct {
		name  string
		s     setup.Setup
		g     lock.Grant
		until time.Time
	}{
		{"from the granted attempt's send", leased, lock.Grant{Validity: time.Second, Sent: sent}, impl.ValidUntil(impl.ValiditySend, sent, arrived, time.Second)},
		{"from the call when the recipe does not say", leased, lock.Grant{Validity: time.Second}, call.Add(time.Second)},
		{"a send before the call is kept (an earlier end)", leased, lock.Grant{Validity: time.Second, Sent: call.Add(-time.Second)}, call},
		{"no validity: held until released", leased, lock.Grant{Sent: sent}, time.Time{}},
		{"a session lock: no end the client checks", setup.Setup{}, lock.Grant{Validity: time.Second, Sent: sent}, time.Time{}},
	}
	for _, tc := range tests {
		w := windowOf(tc.s, tc.g, call, arrived)
		assert.True(t, tc.until.Equal(w.until), "%s: until %v, want %v", tc.name, w.until, tc.until)
		assert.True(t, w.checked, tc.name)
		assert.Equal(t, tc.g.Validity, w.validity, tc.name)
	}
	assert.False(t, windowOf(leased.WithUncheckedClient(), lock.Grant{Validity: time.Second}, call, arrived).checked)
}

// TestWindowAct: the checked client acts strictly before its window's
// end and, past it, records an expire instead; the unchecked client and
// a window without an end always act.
func TestWindowAct(t *testing.T) {
	now := time.Now()
	tests := []struct {
		name string
		w    window
		acts bool
	}{
		{"checked, open", window{checked: true, until: now.Add(time.Hour)}, true},
		{"checked, ended", window{checked: true, until: now.Add(-time.Nanosecond)}, false},
		{"checked, no end", window{checked: true}, true},
		{"unchecked, ended", window{until: now.Add(-time.Hour)}, true},
	}
	for _, tc := range tests {
		var buf bytes.Buffer
		r := &recorder{client: 1, enc: json.NewEncoder(&buf)}
		assert.Equal(t, tc.acts, tc.w.act(r, history.OpWrite, 4, 9), tc.name)
		var rec history.Record
		require.NoError(t, json.Unmarshal(buf.Bytes(), &rec), tc.name)
		require.NoError(t, rec.Validate(2), tc.name)
		want := history.Record{Client: 1, Op: history.OpWrite, Ev: history.Call, Token: 4, Value: 9, Wall: rec.Wall}
		if !tc.acts {
			want = history.Record{Client: 1, Op: history.OpExpire, Ev: history.Return, Token: 4, Wall: rec.Wall}
			assert.GreaterOrEqual(t, rec.Wall, tc.w.until.UnixNano(), tc.name)
		}
		assert.Equal(t, want, rec, tc.name)
	}
}
