package conform

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
)

// TestCounterexamplesStopWhenCancelled: the explorer's search behind
// Counterexamples — Redlock with 3 clients, tens of millions of states —
// ends soon after its context is cancelled (here from its first progress
// report, a chunk of states in), with the context's error. The bound is
// generous: this is about not ignoring the cancellation, not about speed.
func TestCounterexamplesStopWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var cancelled time.Time
	calls := 0
	_, err := Counterexamples(ctx, impl.DesignRedlock, 3, func(depth, distinct, queued int) {
		calls++
		if cancelled.IsZero() && distinct > 0 {
			cancelled = time.Now()
			cancel()
		}
	})
	require.False(t, cancelled.IsZero(), "the search never reported progress")
	assert.ErrorIs(t, err, context.Canceled)
	assert.Less(t, time.Since(cancelled), 5*time.Second, "the search outlived its context")
	assert.Equal(t, 1, calls, "no progress after the cancellation")
}

// TestCounterexamplesAreBounded: a search of more states than its bound
// stops there and says so (Group.Bounded), and what it found within the
// bound is what the complete search finds: the same properties' shortest
// counterexamples, step for step (breadth-first, the first found are the
// shortest). The 2-client searches end within CounterexampleStates.
func TestCounterexamplesAreBounded(t *testing.T) {
	full, err := Counterexamples(t.Context(), impl.DesignNonAtomic, 2, nil)
	require.NoError(t, err)
	assert.False(t, full.Bounded, "2 clients: complete within CounterexampleStates")
	byName := map[string]*Trace{}
	for _, tr := range full.Traces {
		byName[tr.Name] = tr
	}
	require.GreaterOrEqual(t, len(byName), 3, "the non-atomic resource violates three properties")
	for _, bound := range []int{1, 50, 200, 1000} {
		part, err := counterexamples(t.Context(), impl.DesignNonAtomic, 2, bound, nil)
		require.NoError(t, err)
		assert.True(t, part.Bounded, "bound %d", bound)
		assert.Less(t, len(part.Traces), len(full.Traces), "bound %d: fewer counterexamples within it", bound)
		for _, tr := range part.Traces {
			want, ok := byName[tr.Name]
			if assert.True(t, ok, "bound %d: %s is no counterexample of the complete search", bound, tr.Name) {
				assert.Equal(t, want.Path, tr.Path, "bound %d: %s", bound, tr.Name)
			}
		}
	}
}
