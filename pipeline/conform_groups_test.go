package pipeline

import (
	"context"
	"errors"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/conform"
)

// TestCheckGroupsOverlapsAndKeepsOrder: the groups are made (and checked)
// modelsAtOnce at a time — the first maker here waits for the second to
// have run, which one at a time never would — and come back in the
// makers' order; a maker's error is a groupNotMade, no TLC run. A stopped
// context starts nothing and says so for every group.
func TestCheckGroupsOverlapsAndKeepsOrder(t *testing.T) {
	if modelsAtOnce() < 2 {
		t.Skip("one core: groups are checked one at a time")
	}
	errFirst, errSecond := errors.New("first"), errors.New("second")
	second := make(chan struct{})
	makers := []func() (conform.Group, error){
		func() (conform.Group, error) { <-second; return conform.Group{}, errFirst },
		func() (conform.Group, error) { close(second); return conform.Group{}, errSecond },
	}
	var steps []string
	gs, runs, errs := checkGroups(t.Context(), nil, "walk", makers, func(s string) { steps = append(steps, s) })
	require.Len(t, gs, 2)
	require.Len(t, runs, 2)
	var notMade *groupNotMade
	require.ErrorAs(t, errs[0], &notMade)
	assert.ErrorIs(t, notMade.err, errFirst)
	require.ErrorAs(t, errs[1], &notMade)
	assert.ErrorIs(t, notMade.err, errSecond)
	assert.Empty(t, steps, "no group was checked")

	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(interrupted{syscall.SIGTERM})
	var made atomic.Int32
	stopped := []func() (conform.Group, error){
		func() (conform.Group, error) { made.Add(1); return conform.Group{}, errFirst },
	}
	stopped = append(stopped, stopped[0], stopped[0])
	_, _, errs = checkGroups(ctx, nil, "walk", stopped, func(string) {})
	for i, err := range errs {
		var ee *ExitError
		if assert.ErrorAs(t, err, &ee, "group %d", i) {
			assert.Equal(t, 128+int(syscall.SIGTERM), ee.Code, "a stop, not a finding")
		}
	}
	assert.Zero(t, made.Load(), "nothing started after the stop")
}
