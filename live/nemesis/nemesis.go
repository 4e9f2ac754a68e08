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

	"github.com/fencelab/fencelab/internal/wait"
	"github.com/fencelab/fencelab/live/history"
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
	// TriggerAtWriteGate and TriggerAtReadGate start the fault when the
	// run's first client to pass its validity check for a write (a read)
	// has recorded the call and waits at its gate before sending it (the
	// models' pause after the check, Kleppmann's GC pause): the nemesis
	// opens that gate when the fault ends, so the operation lands after
	// it, with a check that was in time. The run's clients are gated only
	// under such a trigger (GateOf).
	TriggerAtWriteGate = "at-write-gate"
	TriggerAtReadGate  = "at-read-gate"
)

// What a fault waits for (FaultEvent.Until): another client than the
// one the trigger named was granted, or had a read accepted.
const (
	UntilOtherGrant = "other-grant"
	UntilOtherRead  = "other-read"
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
	// killed service stays down) or, for a clock step, how far it steps;
	// with Until, a pause lasts until that event, For at most.
	For time.Duration `json:"for"`
	// Isolate, for a fault of the service triggered after the first
	// read, also cuts that reader's links to the lock service from the
	// fault's start until Isolate after its end (fault_isolate.go): a
	// holder the service would keep across the fault cannot reach it
	// once it is back, and its session ends while it still thinks.
	Isolate time.Duration `json:"isolate,omitempty"`
	// Until, if set, is the event that ends a client pause, or that
	// opens the gate of the trigger's client after any other fault
	// (UntilOtherGrant, UntilOtherRead); Hold bounds that gate's wait
	// after a fault that is not a pause.
	Until string        `json:"until,omitempty"`
	Hold  time.Duration `json:"hold,omitempty"`
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
	return f == history.FaultClientPause || f == history.FaultDelay || f == history.FaultBlackhole || f == history.FaultHolderDeath
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
	case history.FaultHolderDeath:
		e.For = 0 // a kill is a point in time: the client never comes back
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

	// events and subject are Run's: the clients' progress, and the client
	// the current event's trigger named (-1 for a timed one).
	events  <-chan Event
	subject int

	mu       sync.Mutex
	stopped  []ProcessGroup  // clients paused and not yet resumed
	stoppedS []server.Server // servers paused and not yet resumed
	gated    []int           // clients held at their gate by the nemesis
	undo     []func()        // a network fault to take back
	down     bool            // servers killed by a restart the run's end cut short
}

// New is a nemesis against target and the clients' process groups (by
// client index), logging each fault it injected with log.
func New(target Target, clients []ProcessGroup, log func(history.FaultRecord)) *Nemesis {
	return &Nemesis{target: target, clients: clients, log: log}
}

// Run executes sched from t0 until done, or until ctx ends. events
// delivers the clients' progress as it is recorded (Event), in order.
// Whatever it leaves undone when ctx ends is undone by ResumeAll.
func (n *Nemesis) Run(ctx context.Context, sched Schedule, t0 time.Time, events <-chan Event) {
	n.events = events
	for _, e := range sched.Events {
		n.subject = -1
		isolate := -1 // the client whose links are cut around e (FaultEvent.Isolate)
		if want, ok := triggerEvent(e.Trigger); ok {
			// The trigger's client holds the lock (or believes it does)
			// and has all its sections before it; the others wait for it.
			c, ok := n.await(ctx, func(ev Event) bool { return ev.Kind == want })
			if !ok {
				return
			}
			n.subject = c
			if IsClientFault(e.Fault) && e.Client < 0 {
				e.Client = c
			}
			if GateOf(e.Trigger) != "" {
				n.mu.Lock()
				n.gated = append(n.gated, c)
				n.mu.Unlock()
			}
			if e.Isolate > 0 && !IsClientFault(e.Fault) {
				isolate = c
			}
		} else if !wait.Until(ctx, t0.Add(e.At)) {
			return
		}
		if isolate >= 0 {
			n.isolated(ctx, e, isolate)
		} else {
			n.inject(ctx, e)
		}
		if ctx.Err() != nil {
			return
		}
		if GateOf(e.Trigger) != "" {
			if e.Fault != history.FaultClientPause {
				n.hold(ctx, e, e.Hold) // the gate holds the client until e.Until
			}
			n.openGates()
		}
	}
}

// fault carries out one fault event against the nemesis's target, its
// record's Detail and End filled in; fail records why it could not be
// done or undone. Each fault's is a file of its own (fault_*.go).
type fault func(n *Nemesis, ctx context.Context, e FaultEvent, rec *history.FaultRecord, fail func(error))

// faults is every fault's injector, by its history name: adding a fault
// is its name in history and its file here.
func faults() map[history.Fault]fault {
	return map[history.Fault]fault{
		history.FaultClientPause: (*Nemesis).clientPause,
		history.FaultServerPause: (*Nemesis).serverPause,
		history.FaultRestartKeep: (*Nemesis).restart,
		history.FaultRestartWipe: (*Nemesis).restart,
		history.FaultDelay:       (*Nemesis).links,
		history.FaultBlackhole:   (*Nemesis).links,
		history.FaultClockStep:   (*Nemesis).clockStep,
		history.FaultHolderDeath: (*Nemesis).holderDeath,
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
	do, ok := faults()[e.Fault]
	if !ok {
		fail(fmt.Errorf("unknown fault %.20q", e.Fault))
		return
	}
	do(n, ctx, e, &rec, fail)
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

// ResumeAll takes back every fault still in effect: on every path out of
// a run, so nothing is left stopped.
func (n *Nemesis) ResumeAll() {
	n.resumeClients()
	n.openGates()
	n.resumeServers()
	n.undoNetwork()
}
