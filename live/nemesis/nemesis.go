package nemesis

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/internal/wait"
	"github.com/fencelab/fencelab/live/server"
)

// Nemesis modes.
const (
	Scripted = "scripted"
	Random   = "random"
)

// Trigger is what starts a scripted fault.
const (
	// TriggerAt starts the fault At after the run's start.
	TriggerAt = "at"
	// TriggerAfterRead starts the fault as soon as the run's first
	// accepted read returns: its client holds the lock, and every other
	// client waits for it with all its sections before it. A client
	// fault with Client -1 is aimed at that reader.
	TriggerAfterRead = "after-first-read"
)

// FaultEvent is one fault of a schedule.
type FaultEvent struct {
	Fault   history.Fault `json:"fault"`
	Trigger string        `json:"trigger"`
	At      time.Duration `json:"at,omitempty"`
	// Client is the client a client fault stops (0-based); -1 for a
	// fault of the service.
	Client int `json:"client"`
	// For is how long the fault lasts (a pause, a delay, the time a
	// killed service stays down) or, for a clock step, how far it steps.
	For time.Duration `json:"for"`
}

// Schedule is the faults of one run.
type Schedule struct {
	Mode   string        `json:"mode"`
	Seed   uint64        `json:"seed"`
	Fault  history.Fault `json:"fault"`
	Events []FaultEvent  `json:"events"`
}

// ScheduleParams are what a schedule is drawn for.
type ScheduleParams struct {
	Clients int
	TTL     time.Duration
	// Window is the part of the run faults start in.
	Window time.Duration
}

// IsClientFault reports whether f is aimed at one client: its process,
// or its links to the lock service.
func IsClientFault(f history.Fault) bool {
	return f == history.FaultClientPause || f == history.FaultDelay || f == history.FaultBlackhole
}

// networkDelay is how long a delay fault lasting d holds each byte: two
// thirds of it (the scripted story's 3 TTL give 2 TTL, past the lease).
func networkDelay(d time.Duration) time.Duration { return d * 2 / 3 }

// ScriptedSchedule is the classic story of fault f: one fault right after
// the run's first accepted read, while its client believes it holds the
// lock (a client fault stops that client).
func ScriptedSchedule(f history.Fault, p ScheduleParams) Schedule {
	s := Schedule{Mode: Scripted, Fault: f}
	if f == history.FaultNone {
		return s
	}
	e := FaultEvent{Fault: f, Trigger: TriggerAfterRead, Client: -1}
	switch f {
	case history.FaultClientPause:
		// The first reader, past the TTL, with room for another client to
		// acquire, read, think and write.
		e.For = 3 * p.TTL
	case history.FaultRestartKeep, history.FaultRestartWipe:
		e.For = 0 // restarted at once: c1 is still thinking
	case history.FaultClockStep:
		e.For = 2 * p.TTL
	default:
		e.For = 3 * p.TTL
	}
	s.Events = []FaultEvent{e}
	return s
}

// ScriptedWorkload is the clients and sections per client of fault f's
// scripted story in the matrix: two clients of three sections, but for a
// network fault, whose sections last 2.5 TTL each (ScriptedThink), three
// clients of one section: the holder's, another granted while its link
// is cut, and a third, so that a fenced row commits two sections besides
// the refused one, in a third of the time.
func ScriptedWorkload(f history.Fault) (clients, sections int) {
	if f == history.FaultDelay || f == history.FaultBlackhole {
		return 3, 1
	}
	return 2, 3
}

// RandomSchedule draws the faults of one run from seed: one to three
// faults of kind f, each at a uniform time of the window, on a uniform
// client (client faults), lasting a uniform time between TTL/2 and 3 TTL
// (a restart's downtime: up to one TTL). It is a pure function of its
// arguments. The nemesis carries the events out one after another: an
// event whose time came while the one before still lasted starts when
// that one ends, so two pauses of one client can follow each other with
// only a moment between them.
func RandomSchedule(seed uint64, f history.Fault, p ScheduleParams) Schedule {
	s := Schedule{Mode: Random, Seed: seed, Fault: f}
	if f == history.FaultNone {
		return s
	}
	rng := rand.New(rand.NewPCG(seed, 0x6e656d65736973)) // "nemesis"
	n := 1 + rng.IntN(3)
	window := max(p.Window, time.Millisecond)
	for range n {
		e := FaultEvent{Fault: f, Trigger: TriggerAt, Client: -1}
		e.At = time.Duration(rng.Int64N(int64(window)))
		if IsClientFault(f) {
			e.Client = rng.IntN(max(p.Clients, 1))
		}
		lo, hi := p.TTL/2, 3*p.TTL
		if f == history.FaultRestartKeep || f == history.FaultRestartWipe {
			lo, hi = 0, p.TTL
		}
		e.For = lo + time.Duration(rng.Int64N(int64(hi-lo)+1))
		s.Events = append(s.Events, e)
	}
	slices.SortStableFunc(s.Events, func(a, b FaultEvent) int { return cmp.Compare(a.At, b.At) })
	return s
}

// MarshalSchedule is the schedule's JSON, indented: the bytes a seed
// determines.
func MarshalSchedule(s Schedule) ([]byte, error) { return json.MarshalIndent(s, "", "  ") }

// ErrEnded is a client process that has ended: a fault aimed at it
// has nothing to act on, which is not an error of the harness.
var ErrEnded = errors.New("the client has ended")

// ProcessGroup is what the nemesis signals to pause a client: the
// client's process group, which the harness created.
type ProcessGroup interface {
	Signal(sig syscall.Signal) error
}

// Target is what every fault acts on: the service's servers, its
// per-client links (nil without proxies), its clock (nil where the
// service cannot get a clock fault).
type Target struct {
	Servers []server.Server
	Network Network
	Clock   Stepper
}

// Nemesis carries out a schedule against one run's clients and servers,
// logging every fault with its wall times.
type Nemesis struct {
	target  Target
	clients []ProcessGroup
	log     func(history.FaultRecord)

	mu       sync.Mutex
	stopped  []ProcessGroup  // clients paused and not yet resumed
	stoppedS []server.Server // servers paused and not yet resumed
	undo     []func()        // a network fault to take back
	down     bool            // servers killed by a restart the run's end cut short
}

// New is a nemesis against target and the clients' process groups (by
// client index), logging each fault it injected with log.
func New(target Target, clients []ProcessGroup, log func(history.FaultRecord)) *Nemesis {
	return &Nemesis{target: target, clients: clients, log: log}
}

// RestartDown starts again, data kept, the servers a restart left killed
// when the run ended during its downtime: a real store's log is read
// from them after the run.
func (n *Nemesis) RestartDown(ctx context.Context) error {
	n.mu.Lock()
	down := n.down
	n.down = false
	n.mu.Unlock()
	if !down {
		return nil
	}
	for _, s := range n.target.Servers {
		if len(s.Pids()) > 0 {
			continue
		}
		if err := s.Restart(ctx, false); err != nil {
			return fmt.Errorf("restarting %s, killed when the run ended: %w", s.Name(), err)
		}
	}
	return nil
}

// Run executes sched from t0 until done, or until ctx ends. reads
// delivers the index of every client whose read was accepted, in order.
// Whatever it leaves undone when ctx ends is undone by ResumeAll.
func (n *Nemesis) Run(ctx context.Context, sched Schedule, t0 time.Time, reads <-chan int) {
	for _, e := range sched.Events {
		switch e.Trigger {
		case TriggerAfterRead:
			// The first reader holds the lock (or believes it does) and
			// has all its sections before it; the others wait for it.
			select {
			case c, ok := <-reads:
				if !ok {
					return
				}
				if IsClientFault(e.Fault) && e.Client < 0 {
					e.Client = c
				}
			case <-ctx.Done():
				return
			}
		default:
			if !wait.Until(ctx, t0.Add(e.At)) {
				return
			}
		}
		n.inject(ctx, e)
		if ctx.Err() != nil {
			return
		}
	}
}

// inject carries out one fault and waits it out (except a clock step,
// which is a point in time).
func (n *Nemesis) inject(ctx context.Context, e FaultEvent) {
	rec := history.FaultRecord{Fault: e.Fault, Target: n.targetName(e), Start: time.Now().UnixNano()}
	defer func() {
		if rec.End == 0 {
			rec.End = time.Now().UnixNano()
		}
		n.log(rec)
	}()
	fail := func(err error) { rec.Error = history.OneLine(err.Error(), 200) }
	switch e.Fault {
	case history.FaultClientPause:
		if e.Client < 0 || e.Client >= len(n.clients) {
			fail(fmt.Errorf("no client %d", e.Client))
			return
		}
		p := n.clients[e.Client]
		if err := p.Signal(syscall.SIGSTOP); errors.Is(err, ErrEnded) {
			rec.Detail = fmt.Sprintf("%s had ended: nothing to pause", rec.Target)
			return
		} else if err != nil {
			fail(err)
			return
		}
		n.mu.Lock()
		n.stopped = append(n.stopped, p)
		n.mu.Unlock()
		rec.Detail = fmt.Sprintf("SIGSTOP %s for %v", rec.Target, e.For)
		wait.Sleep(ctx, e.For)
		rec.End = time.Now().UnixNano()
		n.resumeClients()
	case history.FaultServerPause:
		var pids []int
		for _, s := range n.target.Servers {
			pids = append(pids, s.Pids()...)
			if err := n.pauseServer(s); err != nil {
				fail(fmt.Errorf("pause %s: %w", s.Name(), err))
			}
		}
		rec.Detail = fmt.Sprintf("SIGSTOP pids %v for %v", pids, e.For)
		wait.Sleep(ctx, e.For)
		rec.End = time.Now().UnixNano()
		n.resumeServers()
	case history.FaultRestartKeep, history.FaultRestartWipe:
		wipe := e.Fault == history.FaultRestartWipe
		rec.Detail = fmt.Sprintf("SIGKILL, down %v, restart with data %s", e.For, map[bool]string{true: "wiped", false: "kept"}[wipe])
		for _, s := range n.target.Servers {
			if err := s.Kill(); err != nil {
				fail(fmt.Errorf("kill %s: %w", s.Name(), err))
				return
			}
		}
		wait.Sleep(ctx, e.For)
		// The run may end during the downtime or the restart: Stop then
		// ends what is left, or restartDown starts it again for the
		// store's audit; a restart cut short is no fault of the service.
		leftDown := func() {
			n.mu.Lock()
			n.down = true
			n.mu.Unlock()
		}
		if ctx.Err() != nil {
			leftDown()
			return
		}
		for _, s := range n.target.Servers {
			if err := s.Restart(ctx, wipe); err != nil {
				if ctx.Err() != nil {
					leftDown()
					return
				}
				fail(fmt.Errorf("restart %s: %w", s.Name(), err))
				return
			}
		}
		rec.End = time.Now().UnixNano()
	case history.FaultDelay, history.FaultBlackhole:
		if n.target.Network == nil {
			fail(errors.New("this setup has no proxy between clients and service"))
			return
		}
		net, c := n.target.Network, e.Client
		var err error
		if e.Fault == history.FaultDelay {
			d := networkDelay(e.For)
			rec.Detail = fmt.Sprintf("delay every byte of %s's links to the lock service by %v for %v", rec.Target, d, e.For)
			err = n.network(func() error { return net.Delay(c, d) }, func() error { return net.Delay(c, 0) })
		} else {
			rec.Detail = fmt.Sprintf("drop every byte of %s's links to the lock service for %v", rec.Target, e.For)
			err = n.network(func() error { return net.Blackhole(c, true) }, func() error { return net.Blackhole(c, false) })
		}
		if err != nil {
			fail(err)
			return
		}
		wait.Sleep(ctx, e.For)
		rec.End = time.Now().UnixNano()
		n.undoNetwork()
	case history.FaultClockStep:
		if n.target.Clock == nil {
			fail(errors.New("this setup's service cannot get a clock fault"))
			return
		}
		rec.Detail = fmt.Sprintf("step the service's clock forward by %v", e.For)
		if err := n.target.Clock.Step(e.For); err != nil {
			fail(err)
		}
		rec.End = rec.Start
	default:
		fail(fmt.Errorf("unknown fault %.20q", e.Fault))
	}
}

func (n *Nemesis) targetName(e FaultEvent) string {
	if IsClientFault(e.Fault) {
		return history.ClientName(e.Client)
	}
	var names []string
	for _, s := range n.target.Servers {
		names = append(names, s.Name())
	}
	if len(names) == 0 {
		return "service"
	}
	if len(names) > 2 {
		return names[0] + "…" + names[len(names)-1]
	}
	return strings.Join(names, ",")
}

// network applies a network fault and remembers how to take it back.
func (n *Nemesis) network(do, undo func() error) error {
	if err := do(); err != nil {
		return err
	}
	n.mu.Lock()
	n.undo = append(n.undo, func() { undo() })
	n.mu.Unlock()
	return nil
}

func (n *Nemesis) resumeClients() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, p := range n.stopped {
		p.Signal(syscall.SIGCONT)
	}
	n.stopped = nil
}

// pauser is a server that pauses and resumes itself, waiting until the
// kernel agrees (live/server's processes do); others get SIGSTOP and
// SIGCONT on their Pids.
type pauser interface {
	Pause() error
	Resume() error
}

func (n *Nemesis) pauseServer(s server.Server) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.stoppedS = append(n.stoppedS, s) // resumed even if the pause half failed
	if p, ok := s.(pauser); ok {
		return p.Pause()
	}
	var errs []error
	for _, pid := range s.Pids() {
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			errs = append(errs, fmt.Errorf("SIGSTOP %d: %w", pid, err))
		}
	}
	return errors.Join(errs...)
}

func (n *Nemesis) resumeServers() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, s := range n.stoppedS {
		if p, ok := s.(pauser); ok {
			p.Resume()
			continue
		}
		for _, pid := range s.Pids() {
			syscall.Kill(pid, syscall.SIGCONT)
		}
	}
	n.stoppedS = nil
}

func (n *Nemesis) undoNetwork() {
	n.mu.Lock()
	undo := n.undo
	n.undo = nil
	n.mu.Unlock()
	for _, u := range undo {
		u()
	}
}

// ResumeAll takes back every fault still in effect: on every path out of
// a run, so nothing is left stopped.
func (n *Nemesis) ResumeAll() {
	n.resumeClients()
	n.resumeServers()
	n.undoNetwork()
}
