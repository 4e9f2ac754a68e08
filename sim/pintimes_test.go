package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/linearizability"
	"github.com/fencelab/fencelab/trace"
)

// Tests that pin what a mutation of the code once changed unnoticed: the
// direction of clock drift, and the times the recorded history gives
// operations and critical sections.

// stepAt is the time of the first step of actor whose action starts with
// action, after step from.
func stepAt(t *testing.T, tr *trace.Trace, from int, actor, action string) (time.Duration, int) {
	t.Helper()
	for _, s := range tr.Steps {
		if s.Number > from && s.Actor == actor && strings.HasPrefix(s.Action, action) {
			return s.At, s.Number
		}
	}
	require.Failf(t, "no such step", "%s %q after step %d", actor, action, from)
	return 0, 0
}

// lonely is one client, one section, thinking far longer than its lease:
// the service expires the lease, and the client stops believing in it, by
// their own clocks.
func lonely(t *testing.T, drift ...Fault) *trace.Trace {
	t.Helper()
	return alone(t, 3*time.Second, drift...)
}

// alone is one client, one section, thinking think.
func alone(t *testing.T, think time.Duration, drift ...Fault) *trace.Trace {
	t.Helper()
	c := DefaultConfig()
	c.Design, c.Clients, c.Sections, c.Think, c.Faults = impl.DesignFenceAll, 1, 1, think, NoFaults
	r, err := NewRunner(c)
	require.NoError(t, err)
	_, tr, _ := r.Record(&Schedule{Version: ScheduleVersion, Seed: 1, Faults: drift}, "lonely", "")
	return tr
}

// TestDriftDirection: a fast service clock expires a lease early, a slow
// one late; a slow client clock believes in its lease late (longer than
// ttl−margin of real time), a fast one stops early. Each by the rate
// exactly: 1s of a clock at 1.1× is 1s/1.1 of real time.
func TestDriftDirection(t *testing.T) {
	// The client believes in its lease for ttl−margin of its own clock,
	// counted from the moment it sent its acquire (Redlock's rule).
	def := DefaultConfig()
	ttl, validity := def.TTL, def.TTL-def.Margin
	scaled := func(d time.Duration, ppm int64) time.Duration {
		return time.Duration(mulDivCeil(int64(d), 1e6, 1e6+ppm))
	}
	for _, tc := range []struct {
		name string
		node impl.NodeID
		ppm  int64
	}{
		{"no drift", impl.ServiceNode, 0},
		{"fast service", impl.ServiceNode, 100_000},
		{"slow service", impl.ServiceNode, -100_000},
		{"fast client", impl.ClientNode(0), 100_000},
		{"slow client", impl.ClientNode(0), -100_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var faults []Fault
			if tc.ppm != 0 {
				faults = []Fault{{Kind: FaultDrift, Node: tc.node, PPM: tc.ppm}}
			}
			tr := lonely(t, faults...)
			granted, g := stepAt(t, tr, 0, "service", "recv Acquire")
			expired, _ := stepAt(t, tr, g, "service", "lease timer fired")
			believed, b := stepAt(t, tr, 0, "c1", "start")
			lost, _ := stepAt(t, tr, b, "c1", "validity timer fired")
			lease, belief := expired-granted, lost-believed
			servicePPM, clientPPM := int64(0), int64(0)
			if tc.node == impl.ServiceNode {
				servicePPM = tc.ppm
			} else {
				clientPPM = tc.ppm
			}
			// Within a nanosecond or two: the step times are rounded.
			assert.InDelta(t, int64(scaled(ttl, servicePPM)), int64(lease), 2, "the service's lease in real time")
			assert.InDelta(t, int64(scaled(validity, clientPPM)), int64(belief), 2, "the client's belief in real time")
			switch {
			case servicePPM > 0:
				assert.Less(t, lease, ttl, "a fast service clock expires the lease early")
			case servicePPM < 0:
				assert.Greater(t, lease, ttl, "a slow service clock expires the lease late")
			case clientPPM > 0:
				assert.Less(t, belief, validity, "a fast client clock stops believing early")
			case clientPPM < 0:
				assert.Greater(t, belief, validity, "a slow client clock believes late")
			}
		})
	}
	// The clock itself, both ways.
	fast, slow := clock{ppm: 100_000}, clock{ppm: -100_000}
	assert.Equal(t, int64(1_100_000_000), fast.local(1e9), "a fast clock reads more than real time")
	assert.Equal(t, int64(900_000_000), slow.local(1e9), "a slow clock reads less")
	assert.Equal(t, int64(909_090_910), fast.global(1e9), "a fast clock reaches a reading early")
	assert.Equal(t, int64(1_111_111_112), slow.global(1e9), "a slow clock reaches it late")
}

// TestHistoryTimes: the history gives an operation the time its client
// sent it (call) and the time the client received the reply (return),
// and a critical section the time its read was sent (call) and the time
// its client learned the outcome — the write's reply, or the rejection
// that aborted it (return).
func TestHistoryTimes(t *testing.T) {
	tr := alone(t, 20*time.Millisecond)
	c := DefaultConfig()
	c.Design, c.Clients, c.Sections, c.Think, c.Faults = impl.DesignFenceAll, 1, 1, 20*time.Millisecond, NoFaults
	r, err := NewRunner(c)
	require.NoError(t, err)
	r.Run(&Schedule{Version: ScheduleVersion, Seed: 1})
	h := r.History()
	read, n := stepAt(t, tr, 0, "c1", "recv Grant")
	readReply, n := stepAt(t, tr, n, "c1", "recv ReadReply")
	write, n := stepAt(t, tr, n, "c1", "think timer fired")
	writeReply, _ := stepAt(t, tr, n, "c1", "recv WriteReply")
	require.Len(t, h.Ops, 2)
	assert.Equal(t, linearizability.ResourceOp{Client: 0, Kind: impl.OpRead, Token: 1, Value: 0, Accepted: true,
		Call: int64(read), Return: int64(readReply)}, h.Ops[0])
	assert.Equal(t, linearizability.ResourceOp{Client: 0, Kind: impl.OpWrite, Token: 1, Value: 1, Accepted: true,
		Call: int64(write), Return: int64(writeReply)}, h.Ops[1])
	require.Len(t, h.Sections, 1)
	assert.Equal(t, linearizability.Section{Client: 0, Token: 1, Read: 0, Committed: true,
		Call: int64(read), Return: int64(writeReply)}, h.Sections[0])

	// An aborted section returns when its client learns of the rejection.
	rp := gcPause(t, impl.DesignFenceAll)
	full := rp.Full
	grant, n := stepAt(t, full, 0, "c3", "recv Grant(lease 9,")
	sent, n := stepAt(t, full, n, "c3", "think timer fired")
	rejected, _ := stepAt(t, full, n, "c3", "recv WriteReply(rejected)")
	var aborted []linearizability.Section
	for _, s := range rp.Runner.History().Sections {
		if !s.Committed {
			aborted = append(aborted, s)
		}
	}
	require.Len(t, aborted, 1)
	assert.Equal(t, linearizability.Section{Client: 2, Token: 9, Read: 8, Committed: false,
		Call: int64(grant), Return: int64(rejected)}, aborted[0])
	var stale *linearizability.ResourceOp
	for i, op := range rp.Runner.History().Ops {
		if !op.Accepted {
			stale = &rp.Runner.History().Ops[i]
		}
	}
	require.NotNil(t, stale)
	assert.Equal(t, linearizability.ResourceOp{Client: 2, Kind: impl.OpWrite, Token: 9, Value: 9, Accepted: false,
		Call: int64(sent), Return: int64(rejected)}, *stale)
}
