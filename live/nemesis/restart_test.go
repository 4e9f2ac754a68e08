package nemesis

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// meetingServer is a server.Server whose Restart returns only once every
// server of its group has begun its own (or ctx ends): restarted one
// after another, the first would never return.
type meetingServer struct {
	server.Server
	name string
	all  *sync.WaitGroup
}

func (m *meetingServer) Name() string { return m.name }
func (m *meetingServer) Kill() error  { return nil }
func (m *meetingServer) Restart(ctx context.Context, _ bool) error {
	m.all.Done()
	met := make(chan struct{})
	go func() {
		m.all.Wait()
		close(met)
	}()
	select {
	case <-met:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TestRestartStartsServersSideBySide: a restart starts the killed
// servers again at once, as they started for the run (Redlock's five),
// so that it lasts about one start-up — what the story's margin is
// derived from — not five.
func TestRestartStartsServersSideBySide(t *testing.T) {
	var all sync.WaitGroup
	var servers []server.Server
	for _, name := range []string{"redlock-1", "redlock-2", "redlock-3", "redlock-4", "redlock-5"} {
		all.Add(1)
		servers = append(servers, &meetingServer{name: name, all: &all})
	}
	var logged []history.FaultRecord
	n := New(Target{Servers: servers}, nil, func(r history.FaultRecord) { logged = append(logged, r) })
	// A bound, not a wait: side by side, the restarts meet at once.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	n.inject(ctx, FaultEvent{Fault: history.FaultRestartWipe, Client: -1})
	require.Len(t, logged, 1)
	assert.Empty(t, logged[0].Error, "every server restarted")
	assert.NoError(t, ctx.Err(), "the restarts met before the bound")
	assert.False(t, n.down, "none left down")
}
