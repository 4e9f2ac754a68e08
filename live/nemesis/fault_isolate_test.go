package nemesis

import (
	"context"
	"testing"
	"time"

	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pausedServer is a server.Server that pauses itself (the pauser the
// server pause asks of live/server's processes), writing down each call
// among the network hook's.
type pausedServer struct {
	server.Server
	net *fakeNet
}

func (p *pausedServer) Name() string  { return "toy" }
func (p *pausedServer) Pids() []int   { return []int{1} }
func (p *pausedServer) Pause() error  { p.net.calls = append(p.net.calls, "pause"); return nil }
func (p *pausedServer) Resume() error { p.net.calls = append(p.net.calls, "resume"); return nil }

// TestIsolatedServerPause: a fault of the service with Isolate cuts the
// first reader's links before the fault and heals them Isolate after it
// ends, logging the cut as a blackhole of its own beside the fault; the
// other client's links are never touched.
func TestIsolatedServerPause(t *testing.T) {
	net := &fakeNet{}
	var logged []history.FaultRecord
	n := &Nemesis{target: Target{Servers: []server.Server{&pausedServer{net: net}}, Network: net}, log: func(r history.FaultRecord) { logged = append(logged, r) }}
	reads := make(chan Event, 1)
	reads <- Event{Client: 1, Kind: EventRead} // c2 read first
	sched := Schedule{Events: []FaultEvent{{Fault: history.FaultServerPause, Trigger: TriggerAfterRead, Client: -1, For: 20 * time.Millisecond, Isolate: 30 * time.Millisecond}}}
	n.Run(context.Background(), sched, time.Now(), reads)

	assert.Equal(t, []string{"c2 blackhole true", "pause", "resume", "c2 blackhole false"}, net.calls)
	require.Len(t, logged, 2)
	pause, cut := logged[0], logged[1]
	assert.Equal(t, history.FaultServerPause, pause.Fault)
	assert.Equal(t, history.FaultBlackhole, cut.Fault)
	assert.Equal(t, "c2", cut.Target)
	assert.Empty(t, cut.Error)
	assert.LessOrEqual(t, cut.Start, pause.Start, "cut before the pause")
	assert.GreaterOrEqual(t, cut.End-pause.End, int64(30*time.Millisecond), "healed Isolate after the pause's end")
	assert.Contains(t, cut.Detail, "during the server-pause and 30ms after it")
}

// TestIsolatedWithoutProxies: a setup without per-client links cannot cut
// the reader off: the cut is logged as a failed fault (a harness error,
// never a silent story without its cut), and the fault of the service
// still happens.
func TestIsolatedWithoutProxies(t *testing.T) {
	net := &fakeNet{}
	var logged []history.FaultRecord
	n := &Nemesis{target: Target{Servers: []server.Server{&pausedServer{net: net}}}, log: func(r history.FaultRecord) { logged = append(logged, r) }}
	reads := make(chan Event, 1)
	reads <- Event{Client: 0, Kind: EventRead}
	sched := Schedule{Events: []FaultEvent{{Fault: history.FaultServerPause, Trigger: TriggerAfterRead, Client: -1, For: time.Millisecond, Isolate: time.Millisecond}}}
	n.Run(context.Background(), sched, time.Now(), reads)
	assert.Equal(t, []string{"pause", "resume"}, net.calls)
	require.Len(t, logged, 2)
	assert.Equal(t, history.FaultBlackhole, logged[0].Fault)
	assert.NotEmpty(t, logged[0].Error)
	assert.Empty(t, logged[1].Error)
}
