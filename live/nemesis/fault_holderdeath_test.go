package nemesis

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/live/history"
)

// TestHolderDeathKillsTheFirstReader: the scripted holder death is one
// SIGKILL of the first reader's group, never a SIGCONT after it (the
// client is dead for good), logged with the kill's moment as its end.
func TestHolderDeathKillsTheFirstReader(t *testing.T) {
	groups := []*fakeGroup{{}, {}}
	var logged []history.FaultRecord
	n := &Nemesis{target: Target{}, clients: []ProcessGroup{groups[0], groups[1]}, log: func(f history.FaultRecord) { logged = append(logged, f) }}
	reads := make(chan Event, 4)
	reads <- Event{Client: 1, Kind: EventRead}
	sched := ScriptedSchedule(history.FaultHolderDeath, ScheduleParams{Clients: 2, TTL: time.Hour})
	require.Len(t, sched.Events, 1)
	assert.Zero(t, sched.Events[0].For, "a kill lasts no time")
	before := time.Now().UnixNano()
	n.Run(context.Background(), sched, time.Now(), reads)
	n.ResumeAll()
	assert.Empty(t, groups[0].got())
	assert.Equal(t, []syscall.Signal{syscall.SIGKILL}, groups[1].got())
	require.Len(t, logged, 1)
	assert.Equal(t, "c2", logged[0].Target)
	assert.Empty(t, logged[0].Error)
	assert.Contains(t, logged[0].Detail, "SIGKILL")
	assert.GreaterOrEqual(t, logged[0].End, logged[0].Start)
	assert.GreaterOrEqual(t, logged[0].Start, before)
}

// TestHolderDeathOfAnEndedClient: a client that had ended leaves
// nothing to kill, which is no harness error; a client out of range is.
func TestHolderDeathOfAnEndedClient(t *testing.T) {
	var logged []history.FaultRecord
	n := &Nemesis{clients: []ProcessGroup{endedGroup{}}, log: func(r history.FaultRecord) { logged = append(logged, r) }}
	n.inject(context.Background(), FaultEvent{Fault: history.FaultHolderDeath, Client: 0})
	n.inject(context.Background(), FaultEvent{Fault: history.FaultHolderDeath, Client: 3})
	require.Len(t, logged, 2)
	assert.Empty(t, logged[0].Error)
	assert.Contains(t, logged[0].Detail, "nothing to kill")
	assert.Contains(t, logged[1].Error, "no client 3")
}

type endedGroup struct{}

func (endedGroup) Signal(syscall.Signal) error { return ErrEnded }
