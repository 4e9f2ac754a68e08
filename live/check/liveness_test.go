package check

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/bounds"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/history"
)

// killedHolder is a history of c1 granted at 0 ms and killed at killMS
// (the kill returned then; the harness saw its exit at exitMS), c2
// asking at 1 ms and, if grantMS >= 0, granted at grantMS.
func killedHolder(killMS, exitMS, grantMS int) *history.History {
	b := newHB(2)
	b.add(0, 0, history.OpAcquire, history.Call, 0, 0, false).add(1, 0, history.OpAcquire, history.Return, 1, 0, true)
	b.add(2, 0, history.OpRead, history.Call, 1, 0, false).add(3, 0, history.OpRead, history.Return, 1, 0, true)
	b.add(1, 1, history.OpAcquire, history.Call, 0, 0, false)
	if grantMS >= 0 {
		b.add(grantMS, 1, history.OpAcquire, history.Return, 2, 0, true)
		b.add(grantMS+1, 1, history.OpRelease, history.Call, 2, 0, false).add(grantMS+2, 1, history.OpRelease, history.Return, 2, 0, true)
	}
	b.fault(history.FaultHolderDeath, "c1", killMS-1, killMS)
	b.h.Exits = []history.ClientExit{{Client: 0, Wall: int64(exitMS) * int64(time.Millisecond), Status: "killed by the nemesis"}}
	b.h.Sort()
	return b.h
}

func ms(n int) int64 { return int64(n) * int64(time.Millisecond) }

// TestMeasureKillToGrant: kill→grant is the kill's end to the next
// grant to another client, judged against the bound; a waiter never
// granted violates it; nobody asking leaves it unknown.
func TestMeasureKillToGrant(t *testing.T) {
	free := Freedom{Bound: 150 * time.Millisecond, Why: "test"}
	for _, tc := range []struct {
		name              string
		kill, exit, grant int
		want              string
		k2g               time.Duration
		measured          bool
	}{
		{"within the bound", 10, 12, 160, bounds.FreedHolds, 150 * time.Millisecond, true},
		{"one ms late", 10, 12, 161, bounds.FreedViolated, 151 * time.Millisecond, true},
		{"freed at the connection's close, before the harness saw the exit", 10, 30, 11, bounds.FreedHolds, time.Millisecond, true},
		{"never granted", 10, 12, -1, bounds.FreedViolated, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := killedHolder(tc.kill, tc.exit, tc.grant)
			j, err := Judge(h, 0, testTTL, emptyResource(), time.Second)
			require.NoError(t, err, "a kill never explains an overlap: the killed client believes no longer")
			m := MeasureLiveness(h, j.Beliefs, testTTL, true, free)
			assert.Equal(t, tc.want, m.Freed, m.Detail)
			if !tc.measured {
				assert.Nil(t, m.KillToGrant)
				assert.Contains(t, m.Detail, "never granted")
				return
			}
			require.NotNil(t, m.KillToGrant)
			assert.Equal(t, tc.k2g, time.Duration(*m.KillToGrant))
			assert.True(t, j.TookEffect, j.Effect)
		})
	}
}

// TestMeasureNobodyWaits: a holder killed after every other client had
// finished leaves LockFreedAfterHolderDeath unknown; a killed client that
// held nothing measures nothing.
func TestMeasureNobodyWaits(t *testing.T) {
	b := newHB(2)
	b.section(0, 1, 1, 0, true, true, 5)
	b.add(20, 0, history.OpAcquire, history.Call, 0, 0, false).add(21, 0, history.OpAcquire, history.Return, 2, 0, true)
	b.fault(history.FaultHolderDeath, "c1", 30, 31)
	b.h.Sort()
	j, err := Judge(b.h, 0, testTTL, emptyResource(), time.Second)
	require.NoError(t, err)
	m := MeasureLiveness(b.h, j.Beliefs, testTTL, true, Freedom{Bound: time.Second})
	assert.Equal(t, bounds.FreedUnknown, m.Freed)
	assert.Nil(t, m.KillToGrant)

	b = newHB(2)
	b.section(0, 1, 1, 0, true, true, 5)
	b.fault(history.FaultHolderDeath, "c1", 30, 31) // c1 never held it
	j, err = Judge(b.h, 0, testTTL, emptyResource(), time.Second)
	require.NoError(t, err)
	m = MeasureLiveness(b.h, j.Beliefs, testTTL, true, Freedom{Bound: time.Second})
	assert.Empty(t, m.Freed)
	assert.False(t, j.TookEffect, "killing a client that held nothing frees nothing")
}

// TestMeasureBlindWindow: the blind window is the paused holder's
// belief's end less the latest moment the service can have let go: the
// next grant, or for a fixed lease the TTL after the holder's grant if
// that came first.
func TestMeasureBlindWindow(t *testing.T) {
	// c1 granted at 1 ms, paused 5 to 400 ms, releases at 406 ms (an
	// unchecked client: its belief lasts to its release); c2 granted at
	// 300 ms.
	b := newHB(2)
	b.add(0, 0, history.OpAcquire, history.Call, 0, 0, false).add(1, 0, history.OpAcquire, history.Return, 1, 0, true)
	b.add(2, 0, history.OpRead, history.Call, 1, 0, false).add(3, 0, history.OpRead, history.Return, 1, 0, true)
	b.add(2, 1, history.OpAcquire, history.Call, 0, 0, false).add(300, 1, history.OpAcquire, history.Return, 2, 0, true)
	b.add(301, 1, history.OpRelease, history.Call, 2, 0, false).add(302, 1, history.OpRelease, history.Return, 2, 0, true)
	b.add(405, 0, history.OpWrite, history.Call, 1, 1, false).add(406, 0, history.OpWrite, history.Return, 1, 1, true)
	b.add(406, 0, history.OpRelease, history.Call, 1, 0, false).add(407, 0, history.OpRelease, history.Return, 1, 0, false)
	b.pause(0, 5, 400)
	b.h.Unchecked = true
	b.h.Sort()
	bs := beliefs(b.h, testTTL)
	for _, tc := range []struct {
		name   string
		leased bool
		blind  time.Duration
	}{
		// A session (not leased): let go by c2's grant at 300 ms; c1
		// believed to 406 ms.
		{"session", false, 106 * time.Millisecond},
		// A 100 ms lease granted by 1 ms ended by 101 ms: 406 − 101.
		{"lease", true, 305 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := MeasureLiveness(b.h, bs, testTTL, tc.leased, Freedom{})
			require.NotNil(t, m.Blind, m.Detail)
			assert.Equal(t, tc.blind, time.Duration(*m.Blind), m.Detail)
			assert.Equal(t, []int64{ms(395)}, m.Pauses)
		})
	}
}

// TestKillEndsTheBelief: a killed client's belief ends at the kill, not
// when the harness saw its exit: a grant in between is no overlap.
func TestKillEndsTheBelief(t *testing.T) {
	h := killedHolder(10, 30, 11)
	bs := beliefs(h, testTTL)
	require.Len(t, bs, 2)
	for _, b := range bs {
		if b.Client == 0 {
			assert.Equal(t, ms(10), b.End, "c1 believed until it was killed")
		}
	}
	ok, why := overlap(bs, h.Start)
	assert.False(t, ok, why)
}

// emptyResource is a resource that saw nothing: the liveness tests'
// histories judge beliefs, not the data.
func emptyResource() *impl.Resource {
	r := impl.NewResource(impl.FenceNone)
	return &r
}
