package impl

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestValidUntilAndMayAct: the window's end by each rule, and acting at
// its edge: 1 ns before the end may act, at the end and after it may not.
func TestValidUntilAndMayAct(t *testing.T) {
	sent := time.Unix(100, 0)
	arrived := sent.Add(300 * time.Millisecond) // the grant travelled 300 ms
	const validity = time.Second
	tests := []struct {
		rule ValidityRule
		end  time.Time
	}{
		{ValiditySend, sent.Add(validity)},
		{ValidityArrival, arrived.Add(validity)},
	}
	for _, tt := range tests {
		t.Run(tt.rule.String(), func(t *testing.T) {
			end := ValidUntil(tt.rule, sent, arrived, validity)
			require.Equal(t, tt.end, end)
			for _, c := range []struct {
				at  time.Time
				may bool
			}{
				{sent, true},
				{arrived, true},
				{end.Add(-time.Nanosecond), true},
				{end, false},
				{end.Add(time.Nanosecond), false},
				{end.Add(time.Hour), false},
			} {
				assert.Equal(t, c.may, MayAct(c.at, end), "at end%+v", c.at.Sub(end))
			}
		})
	}
	// A zero validity leaves no moment to act in.
	assert.False(t, MayAct(sent, ValidUntil(ValiditySend, sent, sent, 0)))
}

// TestClientTimerIsValidUntil: impl's client sets its validity timer so
// that it fires at ValidUntil — at the send step plus Validity under the
// send rule, at the grant's step plus Validity under the arrival rule —
// so the live client, which reads ValidUntil, keeps the models' rule.
func TestClientTimerIsValidUntil(t *testing.T) {
	sent := time.Unix(100, 0)
	arrived := sent.Add(300 * time.Millisecond)
	for _, rule := range ValidityRules() {
		t.Run(rule.String(), func(t *testing.T) {
			d := newClientDriver(t, ClientConfig{Sections: 1, MaxRetries: 1, Validity: time.Second, Think: time.Millisecond, Rule: rule})
			var fires []time.Time
			collect := func(at time.Time, out *Effects) {
				for _, s := range out.Set {
					if s.Kind == TimerValidity {
						fires = append(fires, at.Add(s.After))
					}
				}
			}
			collect(sent, d.start())
			collect(arrived, d.grant(1, 1))
			require.Len(t, fires, 1, "one validity timer per grant")
			assert.Equal(t, ValidUntil(rule, sent, arrived, time.Second), fires[0])
		})
	}
}
