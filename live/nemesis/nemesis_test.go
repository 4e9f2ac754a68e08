package nemesis

import (
	"context"
	"fmt"
	"io"
	stdnet "net"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fencelab/fencelab/live/history"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRandomScheduleIsAFunctionOfTheSeed(t *testing.T) {
	p := ScheduleParams{Clients: 3, TTL: 200 * time.Millisecond, Window: 2 * time.Second}
	for _, f := range []history.Fault{history.FaultClientPause, history.FaultServerPause, history.FaultRestartWipe, history.FaultDelay} {
		a, err := MarshalSchedule(RandomSchedule(42, f, p))
		require.NoError(t, err)
		b, err := MarshalSchedule(RandomSchedule(42, f, p))
		require.NoError(t, err)
		assert.Equal(t, string(a), string(b), "%s: one seed, one schedule, byte for byte", f)
		distinct := false
		for seed := uint64(43); seed < 53 && !distinct; seed++ {
			c, err := MarshalSchedule(RandomSchedule(seed, f, p))
			require.NoError(t, err)
			distinct = string(c) != string(a)
		}
		assert.True(t, distinct, "%s: other seeds draw other schedules", f)
	}
}

func TestRandomScheduleBounds(t *testing.T) {
	p := ScheduleParams{Clients: 3, TTL: 200 * time.Millisecond, Window: time.Second}
	clients := map[int]bool{}
	for seed := range uint64(200) {
		s := RandomSchedule(seed, history.FaultClientPause, p)
		require.NotEmpty(t, s.Events)
		require.LessOrEqual(t, len(s.Events), 3)
		for i, e := range s.Events {
			assert.Equal(t, TriggerAt, e.Trigger)
			assert.GreaterOrEqual(t, e.At, time.Duration(0))
			assert.Less(t, e.At, p.Window)
			assert.GreaterOrEqual(t, e.For, p.TTL/2)
			assert.LessOrEqual(t, e.For, 3*p.TTL)
			if i > 0 {
				assert.GreaterOrEqual(t, e.At, s.Events[i-1].At, "in time order")
			}
			clients[e.Client] = true
		}
	}
	assert.Equal(t, map[int]bool{0: true, 1: true, 2: true}, clients, "every client is a target")
	assert.Empty(t, RandomSchedule(1, history.FaultNone, p).Events)
	for _, e := range RandomSchedule(7, history.FaultServerPause, p).Events {
		assert.Equal(t, -1, e.Client, "a server fault has no client")
	}
}

func TestScriptedSchedules(t *testing.T) {
	p := ScheduleParams{Clients: 2, TTL: 200 * time.Millisecond}
	s := ScriptedSchedule(history.FaultClientPause, p)
	require.Len(t, s.Events, 1)
	e := s.Events[0]
	assert.Equal(t, TriggerAfterRead, e.Trigger)
	assert.Equal(t, -1, e.Client, "aimed at the first reader")
	assert.Greater(t, e.For, p.TTL, "longer than the TTL")
	assert.Empty(t, ScriptedSchedule(history.FaultNone, p).Events)
}

// fakeGroup records the signals a client process group gets.
type fakeGroup struct {
	mu   sync.Mutex
	sigs []syscall.Signal
}

func (g *fakeGroup) Signal(sig syscall.Signal) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.sigs = append(g.sigs, sig)
	return nil
}

func (g *fakeGroup) got() []syscall.Signal {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]syscall.Signal(nil), g.sigs...)
}

func TestNemesisPausesTheFirstReader(t *testing.T) {
	groups := []*fakeGroup{{}, {}}
	var logged []history.FaultRecord
	n := &Nemesis{target: Target{}, clients: []ProcessGroup{groups[0], groups[1]}, log: func(f history.FaultRecord) { logged = append(logged, f) }}
	reads := make(chan Event, 4)
	reads <- Event{Client: 1, Kind: EventRead} // c2 read first
	sched := ScriptedSchedule(history.FaultClientPause, ScheduleParams{Clients: 2, TTL: 10 * time.Millisecond})
	n.Run(context.Background(), sched, time.Now(), reads)
	assert.Empty(t, groups[0].got())
	assert.Equal(t, []syscall.Signal{syscall.SIGSTOP, syscall.SIGCONT}, groups[1].got())
	require.Len(t, logged, 1)
	assert.Equal(t, "c2", logged[0].Target)
	assert.GreaterOrEqual(t, logged[0].End-logged[0].Start, int64(30*time.Millisecond))
	assert.Empty(t, logged[0].Error)
}

// TestNemesisStopResumes: a run that ends mid-pause leaves no client
// stopped.
func TestNemesisStopResumes(t *testing.T) {
	g := &fakeGroup{}
	n := &Nemesis{target: Target{}, clients: []ProcessGroup{g}, log: func(history.FaultRecord) {}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		n.Run(ctx, Schedule{Events: []FaultEvent{{Fault: history.FaultClientPause, Trigger: TriggerAt, Client: 0, For: time.Hour}}}, time.Now(), nil)
	}()
	require.Eventually(t, func() bool { return len(g.got()) == 1 }, 5*time.Second, time.Millisecond)
	cancel()
	<-done
	n.ResumeAll()
	assert.Equal(t, []syscall.Signal{syscall.SIGSTOP, syscall.SIGCONT}, g.got())
}

// TestNemesisHooksMissing: a fault whose hook the setup lacks is logged
// as an error, which makes the run a harness error — never a silent
// pass.
func TestNemesisHooksMissing(t *testing.T) {
	for _, f := range []history.Fault{history.FaultDelay, history.FaultBlackhole, history.FaultClockStep} {
		var logged []history.FaultRecord
		n := &Nemesis{target: Target{}, log: func(r history.FaultRecord) { logged = append(logged, r) }}
		n.inject(context.Background(), FaultEvent{Fault: f, Client: -1, For: time.Millisecond})
		require.Len(t, logged, 1)
		assert.NotEmpty(t, logged[0].Error, f)
	}
}

// fakeNet records what the proxy hook was asked.
type fakeNet struct{ calls []string }

func (n *fakeNet) LockAddrs(client int) ([]string, error) { return nil, nil }
func (n *fakeNet) Delay(client int, d time.Duration) error {
	n.calls = append(n.calls, fmt.Sprintf("c%d delay %v", client+1, d))
	return nil
}
func (n *fakeNet) Blackhole(client int, on bool) error {
	n.calls = append(n.calls, fmt.Sprintf("c%d blackhole %v", client+1, on))
	return nil
}

// TestNemesisNetworkHooks: a network fault is aimed at one client's
// links, and the scripted story aims it at the first reader.
func TestNemesisNetworkHooks(t *testing.T) {
	net := &fakeNet{}
	var logged []history.FaultRecord
	n := &Nemesis{target: Target{Network: net}, log: func(r history.FaultRecord) { logged = append(logged, r) }}
	n.inject(context.Background(), FaultEvent{Fault: history.FaultBlackhole, Client: 1, For: time.Millisecond})
	n.inject(context.Background(), FaultEvent{Fault: history.FaultDelay, Client: 0, For: 30 * time.Millisecond})
	assert.Equal(t, []string{"c2 blackhole true", "c2 blackhole false", "c1 delay 20ms", "c1 delay 0s"}, net.calls)
	require.Len(t, logged, 2)
	assert.Equal(t, "c2", logged[0].Target)
	assert.Contains(t, logged[1].Detail, "c1's links to the lock service by 20ms")

	net.calls, logged = nil, nil
	reads := make(chan Event, 1)
	reads <- Event{Client: 1, Kind: EventRead} // c2 read first
	sched := ScriptedSchedule(history.FaultBlackhole, ScheduleParams{Clients: 2, TTL: 10 * time.Millisecond})
	n.Run(context.Background(), sched, time.Now(), reads)
	assert.Equal(t, []string{"c2 blackhole true", "c2 blackhole false"}, net.calls)
}

// TestClientLinks: each client gets its own proxy in front of the
// server; a blackhole of one client's links leaves the other's healthy.
func TestClientLinks(t *testing.T) {
	ln, err := stdnet.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() { // an echo server
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); io.Copy(c, c) }()
		}
	}()
	links := NewClientLinks([]string{ln.Addr().String()})
	defer links.Close()
	a0, err := links.LockAddrs(0)
	require.NoError(t, err)
	a1, err := links.LockAddrs(1)
	require.NoError(t, err)
	again, err := links.LockAddrs(0)
	require.NoError(t, err)
	assert.Equal(t, a0, again, "one proxy per client")
	require.Len(t, a0, 1)
	assert.NotEqual(t, a0[0], a1[0])
	assert.Error(t, links.Blackhole(5, true), "no such client")

	echo := func(addr string) error {
		c, err := stdnet.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return err
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(200 * time.Millisecond))
		if _, err := c.Write([]byte("x")); err != nil {
			return err
		}
		b := make([]byte, 1)
		_, err = io.ReadFull(c, b)
		return err
	}
	require.NoError(t, links.Blackhole(0, true))
	assert.Error(t, echo(a0[0]), "c1's link is cut")
	assert.NoError(t, echo(a1[0]), "c2's link is healthy")
	require.NoError(t, links.Blackhole(0, false))
	assert.NoError(t, echo(a0[0]), "c1's link healed")
}

// TestEveryFaultHasAnInjector: every history name but none has its
// injector (a fault_*.go file), and nothing else has one.
func TestEveryFaultHasAnInjector(t *testing.T) {
	fs := faults()
	for _, f := range history.AllFaults() {
		_, ok := fs[f]
		assert.Equal(t, f != history.FaultNone, ok, f)
	}
	assert.Len(t, fs, len(history.AllFaults())-1)
}

// gatedGroup is a fake client with a gate: it records signals and the
// gate's opening, in one sequence.
type gatedGroup struct {
	fakeGroup
	opened chan struct{}
}

func (g *gatedGroup) OpenGate() error {
	g.mu.Lock()
	g.sigs = append(g.sigs, 0) // 0: the gate opened
	g.mu.Unlock()
	close(g.opened)
	return nil
}

// TestNemesisWriteGate: the story at the write gate pauses the first
// client to reach its gate, keeps it stopped until another client's read
// (not its own, not a grant), then resumes it and only then opens its
// gate; a pause that never sees that read ends at its bound.
func TestNemesisWriteGate(t *testing.T) {
	groups := []*gatedGroup{{opened: make(chan struct{})}, {opened: make(chan struct{})}}
	var logged []history.FaultRecord
	n := &Nemesis{clients: []ProcessGroup{groups[0], groups[1]}, log: func(f history.FaultRecord) { logged = append(logged, f) }}
	events := make(chan Event, 8)
	events <- Event{Client: 1, Kind: EventRead}      // before the trigger: no matter
	events <- Event{Client: 0, Kind: EventWriteGate} // c1 at its gate
	sched := Schedule{Mode: Scripted, Fault: history.FaultClientPause, Events: []FaultEvent{{
		Fault: history.FaultClientPause, Trigger: TriggerAtWriteGate, Client: -1, For: time.Minute, Until: UntilOtherRead,
	}}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		n.Run(context.Background(), sched, time.Now(), events)
	}()
	require.Eventually(t, func() bool { return len(groups[0].got()) == 1 }, 5*time.Second, time.Millisecond)
	events <- Event{Client: 0, Kind: EventRead}  // its own read: not the other's
	events <- Event{Client: 1, Kind: EventGrant} // the other's grant: not its read
	select {
	case <-done:
		t.Fatal("resumed before the other's read")
	case <-time.After(50 * time.Millisecond):
	}
	assert.Equal(t, []syscall.Signal{syscall.SIGSTOP}, groups[0].got(), "still stopped, gate shut")
	readAt := time.Now()
	events <- Event{Client: 1, Kind: EventRead}
	<-done
	assert.Equal(t, []syscall.Signal{syscall.SIGSTOP, syscall.SIGCONT, 0}, groups[0].got(), "resumed, then the gate opened")
	assert.Empty(t, groups[1].got())
	require.Len(t, logged, 1)
	assert.GreaterOrEqual(t, logged[0].End, readAt.UnixNano(), "the pause ended after the other's read")
	assert.Contains(t, logged[0].Detail, "until another client's accepted read")

	// Bounded: no such read, the pause ends at For and the gate opens.
	g := &gatedGroup{opened: make(chan struct{})}
	n = &Nemesis{clients: []ProcessGroup{g}, log: func(history.FaultRecord) {}}
	events = make(chan Event, 1)
	events <- Event{Client: 0, Kind: EventWriteGate}
	sched.Events[0].For = 20 * time.Millisecond
	n.Run(context.Background(), sched, time.Now(), events)
	assert.Equal(t, []syscall.Signal{syscall.SIGSTOP, syscall.SIGCONT, 0}, g.got())
}

// TestNemesisGateOpenedOnStop: ResumeAll resumes the client and opens
// the gate a run's end cut short: no client waits at its gate to its
// deadline.
func TestNemesisGateOpenedOnStop(t *testing.T) {
	g := &gatedGroup{opened: make(chan struct{})}
	n := &Nemesis{clients: []ProcessGroup{g}, log: func(history.FaultRecord) {}}
	events := make(chan Event, 1)
	events <- Event{Client: 0, Kind: EventWriteGate}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		n.Run(ctx, Schedule{Events: []FaultEvent{{Fault: history.FaultClientPause, Trigger: TriggerAtWriteGate, Client: -1, For: time.Hour, Until: UntilOtherRead}}}, time.Now(), events)
	}()
	require.Eventually(t, func() bool { return len(g.got()) == 1 }, 5*time.Second, time.Millisecond)
	cancel()
	<-done
	n.ResumeAll()
	assert.Equal(t, []syscall.Signal{syscall.SIGSTOP, syscall.SIGCONT, 0}, g.got(), "resumed and its gate opened")
}
