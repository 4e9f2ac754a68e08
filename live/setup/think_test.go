package setup

import (
	"testing"
	"time"

	"github.com/fencelab/fencelab/live/history"
	"github.com/stretchr/testify/assert"
)

// TestStoryThink: a restart's or a clock step's story's think grows with the servers'
// measured start-up (2 × start-up + an acquire round), never below the
// floor the stories took effect with on an idle machine, never above its
// bound, and for a lease with a fixed end always under the lease; the
// other faults' thinks do not move with the start-up. Why says the
// start-up and any bound it met.
func TestStoryThink(t *testing.T) {
	session := Setup{Service: "s", Name: "session", TTL: time.Second}
	leased := Setup{Service: "s", Name: "leased", TTL: time.Second, Leased: true}
	short := Setup{Service: "s", Name: "short", TTL: 200 * time.Millisecond, Leased: true}
	renewed := Setup{Service: "s", Name: "renewed", TTL: time.Second, Renewed: true}
	ms := time.Millisecond
	cases := []struct {
		name    string
		s       Setup
		f       history.Fault
		startUp time.Duration
		want    time.Duration
		why     []string
	}{
		{"restart, idle: the floor", session, history.FaultRestartKeep, 30 * ms, 400 * ms, []string{"start-up 30ms", "at least 400ms"}},
		{"restart, slow start: scaled", session, history.FaultRestartKeep, 300 * ms, 700 * ms, []string{"700ms: 2 × start-up 300ms + an acquire round 100ms"}},
		{"restart-wipe scales alike", session, history.FaultRestartWipe, 500 * ms, 1100 * ms, []string{"start-up 500ms"}},
		{"restart, very slow start: bounded", session, history.FaultRestartKeep, 1900 * ms, 2 * time.Second, []string{"at most 2s"}},
		{"restart, renewed session: the floor", renewed, history.FaultRestartKeep, 300 * ms, 400 * ms, []string{"at most 400ms", "a session its client renews"}},
		{"restart, leased wins over renewed", Setup{TTL: time.Second, Leased: true, Renewed: true}, history.FaultRestartKeep, 400 * ms, 750 * ms, []string{"at most 750ms"}},
		{"restart, leased: under its lease", leased, history.FaultRestartWipe, 400 * ms, 750 * ms, []string{"at most 750ms", "3/4 of the 1s lease"}},
		{"restart, short lease: under it even idle", short, history.FaultRestartWipe, 0, 150 * ms, []string{"at most 150ms"}},
		{"clock step, idle: its floor", leased, history.FaultClockStep, 20 * ms, 150 * ms, []string{"at least 150ms"}},
		{"clock step, loaded: scaled", leased, history.FaultClockStep, 200 * ms, 500 * ms, []string{"start-up 200ms"}},
		{"clock step, short lease: under it", short, history.FaultClockStep, 200 * ms, 150 * ms, []string{"at most 150ms"}},
		{"the setup's own story wins", Setup{TTL: time.Second, Renewed: true, Stories: map[history.Fault]Story{history.FaultRestartKeep: {Think: 800 * ms, Why: "sized by hand"}}},
			history.FaultRestartKeep, 3 * time.Second, 800 * ms, []string{"the setup's story (sized by hand)"}},
		{"client pause: fixed", session, history.FaultClientPause, 5 * time.Second, 150 * ms, nil},
		{"server pause: fixed", leased, history.FaultServerPause, 5 * time.Second, 150 * ms, nil},
		{"delay, session: 2.5 TTL", session, history.FaultDelay, 5 * time.Second, 2500 * ms, nil},
		{"blackhole, leased: the default", leased, history.FaultBlackhole, 0, 150 * ms, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.s.StoryThink(tc.f, tc.startUp)
			assert.Equal(t, tc.want, got.Time)
			assert.Contains(t, got.Why, tc.want.String()+":", "why starts with the think")
			for _, w := range tc.why {
				assert.Contains(t, got.Why, w)
			}
		})
	}
}

// TestStoryThinkFitsEverySetup: for every registered setup, fault and
// start-up, a leased setup's story thinks less than its lease (RunConfig
// refuses more), a setup's own story keeps its think, and a restart's or
// a clock step's think otherwise covers twice the start-up and a round
// wherever its bound allows, and ScriptedThink is StoryThink before
// any start-up.
func TestStoryThinkFitsEverySetup(t *testing.T) {
	for _, s := range All() {
		for _, f := range append(append([]history.Fault{}, s.Faults...), s.MoreFaults...) {
			assert.Equal(t, s.StoryThink(f, 0).Time, s.ScriptedThink(f), "%s %s", s.ID(), f)
			for _, up := range []time.Duration{0, 50 * time.Millisecond, 700 * time.Millisecond, 3 * time.Second} {
				th := s.StoryThink(f, up).Time
				if s.Leased {
					assert.Less(t, th, s.TTL, "%s %s start-up %v", s.ID(), f, up)
				}
				if st := s.Stories[f]; st.Think > 0 {
					assert.Equal(t, st.Think, th, "%s %s: the setup's own story's think", s.ID(), f)
					continue
				}
				floor := map[history.Fault]time.Duration{history.FaultRestartKeep: restartThinkFloor, history.FaultRestartWipe: restartThinkFloor, history.FaultClockStep: defaultThink}
				if fl, ok := floor[f]; ok {
					bound := storyThinkMax
					if s.Leased {
						bound = min(bound, s.TTL*3/4)
					} else if s.Renewed {
						bound = fl
					}
					assert.Equal(t, min(bound, max(fl, 2*up+acquireRound)), th, "%s %s start-up %v", s.ID(), f, up)
				}
			}
		}
	}
}
