package setup

import (
	"slices"
	"testing"
	"time"

	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/nemesis"
	"github.com/stretchr/testify/assert"
)

// TestStoriesOverrideTheFaultsStory: a setup's Story replaces exactly the
// parts it sets of the fault's scripted story — think, sections, the
// fault's length, the reader's isolation — and a fault without one keeps
// the fault's own.
func TestStoriesOverrideTheFaultsStory(t *testing.T) {
	p := nemesis.ScheduleParams{Clients: 2, TTL: time.Second}
	s := Setup{TTL: time.Second, Stories: map[history.Fault]Story{
		history.FaultServerPause: {Think: 5 * time.Second, Sections: 1, Isolate: 2 * time.Second},
		history.FaultClientPause: {For: 7 * time.Second, Isolate: time.Second}, // a client fault is never isolated
	}}

	assert.Equal(t, 5*time.Second, s.ScriptedThink(history.FaultServerPause))
	_, sections := s.ScriptedWorkload(history.FaultServerPause)
	assert.Equal(t, 1, sections)
	sched := s.ScriptedSchedule(history.FaultServerPause, p)
	want := nemesis.ScriptedSchedule(history.FaultServerPause, p)
	want.Events[0].Isolate = 2 * time.Second
	assert.Equal(t, want, sched, "the fault's own length, the reader cut off")

	sched = s.ScriptedSchedule(history.FaultClientPause, p)
	assert.Equal(t, 7*time.Second, sched.Events[0].For)
	assert.Zero(t, sched.Events[0].Isolate)
	assert.Equal(t, Setup{TTL: s.TTL}.ScriptedThink(history.FaultClientPause), s.ScriptedThink(history.FaultClientPause), "no think set: the fault's")

	for _, f := range []history.Fault{history.FaultRestartKeep, history.FaultBlackhole} {
		assert.Equal(t, nemesis.ScriptedSchedule(f, p), s.ScriptedSchedule(f, p), f)
		c1, s1 := nemesis.ScriptedWorkload(f)
		c2, s2 := s.ScriptedWorkload(f)
		assert.Equal(t, [2]int{c1, s1}, [2]int{c2, s2}, f)
		assert.Equal(t, Setup{TTL: s.TTL}.ScriptedThink(f), s.ScriptedThink(f), f)
	}
}

// TestRegisteredStoriesAndClaims: every story and every claim of safety
// of the registry is about a fault the setup runs, a Leased setup's story
// keeps its section inside its lease, a claim is for a fault whose
// witness the judge can read (a restart, a server pause, a delay or a
// blackhole of the holder's links).
func TestRegisteredStoriesAndClaims(t *testing.T) {
	witnessed := []history.Fault{history.FaultRestartKeep, history.FaultRestartWipe, history.FaultServerPause, history.FaultDelay, history.FaultBlackhole}
	for _, s := range All() {
		for f, st := range s.Stories {
			assert.True(t, s.Applies(f), "%s: a story for %s, which it does not run", s.ID(), f)
			if s.Leased {
				assert.Less(t, s.ScriptedThink(f), s.TTL, "%s: a section outlasting the lease", s.ID())
			}
			assert.NotEmpty(t, st.Why, "%s under %s: the story says why", s.ID(), f)
			if st.Isolate > 0 {
				assert.False(t, nemesis.IsClientFault(f), "%s: isolation is for a fault of the service", s.ID())
			}
		}
		for f, why := range s.Safe {
			assert.True(t, slices.Contains(s.Faults, f), "%s: safe against %s, which the matrix does not run", s.ID(), f)
			assert.Contains(t, witnessed, f, "%s: no witness of safety against %s", s.ID(), f)
			assert.NotEmpty(t, why)
		}
	}
}
