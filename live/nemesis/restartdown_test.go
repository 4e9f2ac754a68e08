package nemesis

import (
	"context"
	"testing"

	"github.com/fencelab/fencelab/live/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// killedServer is a server.Server that is down until Restart.
type killedServer struct {
	server.Server
	running  bool
	restarts []bool // the wipe of each Restart
}

func (k *killedServer) Name() string { return "store" }
func (k *killedServer) Pids() []int {
	if k.running {
		return []int{1}
	}
	return nil
}
func (k *killedServer) Restart(_ context.Context, wipe bool) error {
	k.restarts = append(k.restarts, wipe)
	k.running = true
	return nil
}

// TestRestartDownStartsWhatTheRunsEndLeftKilled: a restart the run's end
// cut short leaves the store's server down; RestartDown starts it again,
// data kept, once, and only it (MariaDB's audit failed with "connection
// refused" in 1 of 8 random restart-keep runs before).
func TestRestartDownStartsWhatTheRunsEndLeftKilled(t *testing.T) {
	down, up := &killedServer{}, &killedServer{running: true}
	n := &Nemesis{target: Target{Servers: []server.Server{down, up}}}

	require.NoError(t, n.RestartDown(context.Background()))
	assert.Empty(t, down.restarts, "no restart was cut short: nothing to do")

	n.down = true
	require.NoError(t, n.RestartDown(context.Background()))
	assert.Equal(t, []bool{false}, down.restarts, "restarted once, its data kept")
	assert.Empty(t, up.restarts, "a running server is left alone")
	require.NoError(t, n.RestartDown(context.Background()))
	assert.Len(t, down.restarts, 1, "once")
}
