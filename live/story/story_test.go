package story

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/nemesis"
	"github.com/fencelab/fencelab/trace"
	"github.com/fencelab/fencelab/verdict"
)

// TestTableCoversEveryViolation: every row has a story for every
// property its model violates, and for none it does not.
func TestTableCoversEveryViolation(t *testing.T) {
	for _, d := range impl.Designs() {
		for _, p := range impl.InvariantNames() {
			_, ok := Lookup(d, p)
			assert.Equal(t, impl.Expected(d, p) == verdict.Violated, ok, "%s %s", d, p)
		}
	}
}

// TestStoryClasses: what every row's counterexample maps to, by class
// rather than by example: a lost update or a stale operation is the
// stale holder stopped after its check, at the gate of the operation
// that lands, until the other's progress; a lost grant with nothing of
// its own landing stops it after its last step; a restart is a restart
// fault of the row's durability; a lease's end a client pause.
func TestStoryClasses(t *testing.T) {
	for _, st := range Table() {
		name := st.Design.String() + "/" + st.Property
		assert.NotEqual(t, st.Stale, st.Other, name)
		assert.True(t, isClient(st.Stale), name)
		switch st.Lands {
		case history.OpWrite:
			assert.Equal(t, AtWriteGate, st.Point, "%s: a stale write waits at its gate, its check in time", name)
			assert.NotEmpty(t, st.Until, "%s: it lands after the other's progress", name)
		case history.OpRead:
			assert.Equal(t, AtReadGate, st.Point, name)
			assert.Equal(t, nemesis.UntilOtherRead, st.Until, "%s: the stale read lands after the newer one", name)
		case "":
			assert.Contains(t, []Point{AfterGrant, AfterRead, AtWriteGate}, st.Point, name)
		default:
			t.Errorf("%s: lands %q", name, st.Lands)
		}
		if st.Property == impl.NoLostUpdate {
			assert.Equal(t, history.OpWrite, st.Lands, "%s: an update is lost by a stale write", name)
		}
		if st.Property == impl.AtMostOneClientHoldLock {
			assert.Empty(t, st.Lands, name)
			assert.Equal(t, nemesis.UntilOtherGrant, st.Until, "%s: two beliefs once the other is granted", name)
		}
		switch {
		case !st.Restart:
			assert.Equal(t, history.FaultClientPause, st.Fault, name)
		case st.Design.Restart() == impl.RestartVolatile:
			assert.Equal(t, history.FaultRestartWipe, st.Fault, name)
		default:
			assert.Equal(t, history.FaultRestartKeep, st.Fault, name)
		}
	}
	// Kleppmann's pause: the rows without a fence at the store lose the
	// update after a check in time, once the newer holder has read.
	for _, d := range []impl.Design{impl.DesignNoFencing, impl.DesignFenceNone, impl.DesignFenceWrites, impl.DesignRenewal, impl.DesignRedlock} {
		st, ok := Lookup(d, impl.NoLostUpdate)
		require.True(t, ok, d)
		assert.Equal(t, AtWriteGate, st.Point, d)
		assert.Equal(t, nemesis.UntilOtherRead, st.Until, d)
		assert.Equal(t, history.FaultClientPause, st.Fault, d)
	}
	// The volatile restart's lost update: the restart falls while the
	// stale write waits at its gate.
	st, ok := Lookup(impl.DesignRestartVolatile, impl.NoLostUpdate)
	require.True(t, ok)
	assert.Equal(t, history.FaultRestartWipe, st.Fault)
	assert.Equal(t, AtWriteGate, st.Point)
}

// tr builds a trace of two clients from (actor, action) pairs; a step
// whose action is a loss takes holder's grant.
func tr(steps ...[2]string) *trace.Trace {
	t := &trace.Trace{Lanes: []string{"service", "c1", "c2", "resource"}, Steps: []trace.Step{{Number: 1, Action: "Init"}}}
	for i, s := range steps {
		st := trace.Step{Number: i + 2, Actor: s[0], Action: s[1]}
		if s[1] == actLeaseExpired || s[1] == actRestart {
			st.Changes = []trace.Change{{Path: s[0] + ".lock.holder", Old: "c1", New: "—"}}
		}
		if s[1] == actCheck {
			st.Changes = []trace.Change{{Path: s[0] + ".phase", Old: "Thinking", New: "Writing"}}
		}
		t.Steps = append(t.Steps, st)
	}
	return t
}

// TestFromTraceSynthetic: the mapping's rules on traces made for them.
func TestFromTraceSynthetic(t *testing.T) {
	grant := [2]string{"c1", "recv Grant(lease 1) from service"}
	read := [2]string{"resource", "recv Read from c1"}
	reply := [2]string{"c1", "recv ReadReply(0) from resource"}
	check := [2]string{"c1", actCheck}
	lease := [2]string{"service", actLeaseExpired}
	restart := [2]string{"service", actRestart}
	g2 := [2]string{"c2", "recv Grant(lease 2) from service"}
	r2 := [2]string{"resource", "recv Read from c2"}
	w1 := [2]string{"resource", "recv Write(1) from c1"}
	for _, tc := range []struct {
		name   string
		d      impl.Design
		t      *trace.Trace
		point  Point
		until  string
		lands  string
		fault  history.Fault
		errSub string
	}{
		{"paused after its read, nothing lands", impl.DesignFenceAll, tr(grant, read, reply, lease, g2), AfterRead, nemesis.UntilOtherGrant, "", history.FaultClientPause, ""},
		{"checked before the loss, the write lands after the other's grant", impl.DesignFenceAll, tr(grant, read, reply, check, lease, g2, w1), AtWriteGate, nemesis.UntilOtherGrant, history.OpWrite, history.FaultClientPause, ""},
		{"the write lands after the other's read", impl.DesignFenceNone, tr(grant, read, reply, lease, g2, r2, check, w1), AtWriteGate, nemesis.UntilOtherRead, history.OpWrite, history.FaultClientPause, ""},
		{"the stale read lands after the other's", impl.DesignFenceNone, tr(grant, lease, g2, r2, read), AtReadGate, nemesis.UntilOtherRead, history.OpRead, history.FaultClientPause, ""},
		{"a restart with nothing after", impl.DesignRestartVolatile, tr(grant, restart), AfterGrant, "", "", history.FaultRestartWipe, ""},
		{"a durable restart", impl.DesignRestartDurable, tr(grant, restart, g2), AfterGrant, nemesis.UntilOtherGrant, "", history.FaultRestartKeep, ""},
		{"no loss", impl.DesignFenceAll, tr(grant, g2), "", "", "", "", "loses no holder's grant"},
		{"a loss of a grant never received", impl.DesignFenceAll, tr(lease, g2), "", "", "", "", "never received"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := FromTrace(tc.d, "P", tc.t)
			if tc.errSub != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.errSub)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.point, st.Point)
			assert.Equal(t, tc.until, st.Until)
			assert.Equal(t, tc.lands, st.Lands)
			assert.Equal(t, tc.fault, st.Fault)
			assert.Equal(t, "c1", st.Stale)
			assert.Equal(t, "c2", st.Other)
		})
	}
	_, err := FromTrace(impl.DesignFenceAll, "P", nil)
	assert.Error(t, err)
}

// TestSchedules: each point's trigger, and a stop that lasts until the
// other's progress, bounded.
func TestSchedules(t *testing.T) {
	ttl := 200 * time.Millisecond
	p := nemesis.ScheduleParams{Clients: 2, TTL: ttl}
	for _, tc := range []struct {
		st      Story
		trigger string
		for_    time.Duration
		hold    time.Duration
	}{
		{Story{Point: AtWriteGate, Until: nemesis.UntilOtherRead, Lands: history.OpWrite, Fault: history.FaultClientPause}, nemesis.TriggerAtWriteGate, 4 * ttl, 0},
		{Story{Point: AtReadGate, Until: nemesis.UntilOtherRead, Lands: history.OpRead, Fault: history.FaultClientPause}, nemesis.TriggerAtReadGate, 4 * ttl, 0},
		{Story{Point: AfterGrant, Until: nemesis.UntilOtherGrant, Fault: history.FaultClientPause}, nemesis.TriggerAtReadGate, 3 * ttl, 0},
		{Story{Point: AfterRead, Fault: history.FaultClientPause}, nemesis.TriggerAfterRead, 3 * ttl, 0},
		{Story{Point: AtWriteGate, Until: nemesis.UntilOtherRead, Lands: history.OpWrite, Fault: history.FaultRestartWipe}, nemesis.TriggerAtWriteGate, 0, 4 * ttl},
		{Story{Point: AfterGrant, Fault: history.FaultRestartWipe}, nemesis.TriggerAtReadGate, 0, 0},
	} {
		s := tc.st.Schedule(p)
		require.Len(t, s.Events, 1)
		e := s.Events[0]
		assert.Equal(t, nemesis.Scripted, s.Mode)
		assert.Equal(t, tc.st.Fault, s.Fault)
		assert.Equal(t, tc.trigger, e.Trigger, tc.st.Point)
		assert.Equal(t, -1, e.Client, "aimed at the first client to reach the point")
		if tc.st.Lands != "" {
			assert.Equal(t, tc.st.Until, e.Until, "the stop lasts until the other's progress")
		} else {
			assert.Empty(t, e.Until, "nothing of its own lands: the classic length")
		}
		assert.Equal(t, tc.for_, e.For)
		assert.Equal(t, tc.hold, e.Hold)
	}
}

// TestForFault: a fault gets the story of the first violated property,
// in Preference order, whose counterexample uses it; none for a fault no
// counterexample of the row uses.
func TestForFault(t *testing.T) {
	for _, tc := range []struct {
		d        impl.Design
		f        history.Fault
		property string
	}{
		{impl.DesignFenceNone, history.FaultClientPause, impl.NoLostUpdate},
		{impl.DesignFenceAll, history.FaultClientPause, impl.AtMostOneClientHoldLock},
		{impl.DesignRestartVolatile, history.FaultRestartWipe, impl.NoLostUpdate},
		{impl.DesignRestartVolatile, history.FaultClientPause, impl.AtMostOneClientHoldLock},
		{impl.DesignRestartDurable, history.FaultRestartKeep, ""},
		{impl.DesignFenceAll, history.FaultClockStep, ""},
		{impl.DesignNoFencing, history.FaultServerPause, ""},
	} {
		st, ok := ForFault(tc.d, tc.f)
		assert.Equal(t, tc.property != "", ok, "%s %s", tc.d, tc.f)
		assert.Equal(t, tc.property, st.Property, "%s %s", tc.d, tc.f)
	}
}

// TestText: the derivation told names the model's steps, the loss, and
// the live schedule.
func TestText(t *testing.T) {
	st, err := Derive(impl.DesignFenceWrites, impl.NoLostUpdate)
	require.NoError(t, err)
	txt := st.Text(200 * time.Millisecond)
	for _, want := range []string{"Model trace:", "lease timer fired   <- c1's grant is lost", "NoLostUpdate violated", "Live schedule:", "write's validity check", "SIGSTOP", "accepted", "800ms"} {
		assert.Contains(t, txt, want)
	}
	assert.Less(t, strings.Index(txt, "Model trace:"), strings.Index(txt, "Live schedule:"))
	_, err = Derive(impl.DesignFenceAll, impl.NoLostUpdate)
	assert.ErrorContains(t, err, "does not violate")
}
