package sim

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
)

// TestShrinkDropsUninvolvedClientsFaults: a failing schedule plus faults
// on a client that takes no part in the violation shrinks to one that
// faults only the clients the violation involves.
func TestShrinkDropsUninvolvedClientsFaults(t *testing.T) {
	c := DefaultConfig()
	c.Design = impl.DesignFenceWrites
	r, err := NewRunner(c)
	require.NoError(t, err)
	// A run that fails, shrunk: its faults and the clients it involves.
	var base *Schedule
	var prop string
	for seed := uint64(1); seed < 200 && base == nil; seed++ {
		s := Generate(seed, c)
		res := r.Run(s)
		if prop = Headline(&res); prop != "" {
			small, _ := r.Shrink(s, Violates(prop))
			if len(r.Uninvolved(small)) == 0 {
				base = small
			}
		}
	}
	require.NotNil(t, base, "a failing seed whose shrink is focused")
	res := r.Run(base)
	v, ok := res.Violation(prop)
	require.True(t, ok)
	var bystander impl.NodeID
	found := false
	for i := range c.Clients {
		if n := impl.ClientNode(i); !slices.Contains(v.Involved, n) {
			bystander, found = n, true
		}
	}
	require.True(t, found, "3 clients, at most 2 involved")
	// The bystander is paused and its clock steps: faults that change
	// when it competes for the lock, on no client of the story. The
	// first such pair (in time) after which the run still fails.
	var s *Schedule
	for at := time.Duration(0); at < time.Second && s == nil; at += 10 * time.Millisecond {
		try := base.Clone()
		try.Faults = append(try.Faults,
			Fault{Kind: FaultPause, Node: bystander, At: at, Duration: 30 * time.Millisecond},
			Fault{Kind: FaultJump, Node: bystander, At: at + time.Millisecond, By: 3 * time.Millisecond})
		try.Sort()
		require.NoError(t, try.Validate(c))
		if res := r.Run(try); res.Violated(prop) && slices.Equal(r.Uninvolved(try), []impl.NodeID{bystander}) {
			s = try
		}
	}
	require.NotNil(t, s, "a time for the bystander's faults at which the run still fails")
	small, _ := r.Shrink(s, Violates(prop))
	assert.Empty(t, r.Uninvolved(small), "shrunk: %v", small.Faults)
	for _, f := range small.Faults {
		assert.NotEqual(t, bystander, f.Node, "%s kept", f)
	}
	after := r.Run(small)
	assert.True(t, after.Violated(prop), "the shrunk schedule still fails")
}

// TestUninvolvedNeedsAViolation: a run that violates nothing has no story
// to keep clients out of: Uninvolved names none.
func TestUninvolvedNeedsAViolation(t *testing.T) {
	c := DefaultConfig()
	r, err := NewRunner(c)
	require.NoError(t, err)
	s := &Schedule{Version: ScheduleVersion, Seed: 1, Faults: []Fault{{Kind: FaultPause, Node: impl.ClientNode(1), At: time.Millisecond, Duration: time.Millisecond}}}
	res := r.Run(s)
	require.Empty(t, Headline(&res))
	assert.Empty(t, r.Uninvolved(s))
}
