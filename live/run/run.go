// Package run is one live run: fresh servers, the resource, the client
// processes (Run), the client role they play (ServeClient, RunClient),
// the nemesis beside them, and the judge's verdicts on their history.
package run

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/jsonline"
	"github.com/fencelab/fencelab/live/check"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/nemesis"
	"github.com/fencelab/fencelab/live/server"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/fencelab/fencelab/live/store"
	"github.com/fencelab/fencelab/live/story"
)

// Config is one run's configuration.
type Config struct {
	Setup   setup.Setup
	Fault   history.Fault
	Nemesis string // Scripted or Random
	Seed    uint64
	// Clients, Sections and Think shape the workload: each client runs
	// Sections sections, thinking Think between its read and its write.
	Clients  int
	Sections int
	Think    time.Duration
	// StoryThink derives the think from the servers' start-up, measured
	// before the clients start (setup.Setup.StoryThink of Fault): Think
	// is then the story's before any start-up (ScriptedThink), the value
	// Validate checks, and the clients' deadline moves by what the
	// derived think adds to their sections.
	StoryThink bool
	// Timeout bounds the run: the clients' deadline; the harness kills
	// what is left a little after it.
	Timeout time.Duration
	// Self is the command line that runs this binary as a client (the
	// role reads a ClientConfig on its standard input); Env is added to
	// the client's environment.
	Self []string
	Env  []string
	// TempRoot is where the run's data folder is made ("": the system's
	// temporary folder).
	TempRoot string
	// CheckTimeout bounds each Porcupine check.
	CheckTimeout time.Duration
	// Classic keeps a scripted run on the fault's classic story
	// (nemesis.ScriptedSchedule) where the row's model has a story of
	// its own (story.ForFault), which scripted runs otherwise follow.
	Classic bool
	// Script, if set, is the story a scripted run follows instead of its
	// row's own: a test tells row all the story of row writes.
	Script *story.Story
	// Judge decides the run; nil is check.Judge. Only a test sets it: a
	// judge with a planted bug, which check.SelfCheck must catch.
	Judge func(h *history.History, d impl.Design, ttl time.Duration, res *impl.Resource, timeout time.Duration) (*check.Judgement, error)
}

// DefaultCheckTimeout is the bound of each Porcupine check that
// fencelab-live's run and matrix give (Config.CheckTimeout), and so the
// one a run saved before its timeouts were is judged again with.
const DefaultCheckTimeout = 10 * time.Second

// Validate checks a configuration before anything starts.
func (c Config) Validate() error {
	switch {
	case c.Setup.Start == nil || c.Setup.Locker == nil || c.Setup.TTL <= 0 || (c.Setup.Store != nil && c.Setup.Audit == nil):
		return fmt.Errorf("setup %s is incomplete (it needs Start, Locker, a TTL, and an Audit with a Store)", c.Setup.ID())
	case c.Nemesis != nemesis.Scripted && c.Nemesis != nemesis.Random:
		return fmt.Errorf("nemesis %.20q (want %s or %s)", c.Nemesis, nemesis.Scripted, nemesis.Random)
	case c.Clients < 2 || c.Clients > 8:
		return fmt.Errorf("clients %d (want 2 to 8)", c.Clients)
	case c.Sections < 1 || c.Sections > 100:
		return fmt.Errorf("sections %d (want 1 to 100)", c.Sections)
	case c.Think < 0 || c.Think > time.Minute:
		return fmt.Errorf("think %v (want 0 to 1m)", c.Think)
	case c.Setup.Leased && c.Think >= c.Setup.TTL:
		// A section longer than its lease makes two holders without any
		// fault: the fault's effect could not be told apart.
		return fmt.Errorf("think %v (want less than %s's lease, %v)", c.Think, c.Setup.ID(), c.Setup.TTL)
	case c.Timeout <= 0 || c.Timeout > 10*time.Minute:
		return fmt.Errorf("timeout %v (want up to 10m)", c.Timeout)
	case len(c.Self) == 0:
		return errors.New("no client command")
	}
	if c.Script != nil && c.Script.Fault != c.Fault {
		return fmt.Errorf("story of fault %s told in a run of fault %s", c.Script.Fault, c.Fault)
	}
	if !c.Setup.Applies(c.Fault) {
		return fmt.Errorf("fault %s does not apply to %s (it takes %s)", c.Fault, c.Setup.ID(), faultList(slices.Concat(c.Setup.Faults, c.Setup.MoreFaults)))
	}
	return nil
}

// Schedule is the run's fault schedule: the one drawn from the seed, or
// the scripted story — the row's model's own (Story), or the fault's
// classic one where the row has none.
func (c Config) Schedule() nemesis.Schedule {
	p := nemesis.ScheduleParams{Clients: c.Clients, TTL: c.Setup.TTL, Window: c.window()}
	if c.Nemesis == nemesis.Random {
		return nemesis.RandomSchedule(c.Seed, c.Fault, p)
	}
	if st, ok := c.Story(); ok {
		return c.Setup.Tune(st.Schedule(p))
	}
	return c.Setup.ScriptedSchedule(c.Fault, p)
}

// Story is the story a scripted run follows: the row's shortest
// counterexample that uses the run's fault (story.ForFault); false when
// the run keeps the classic story (random, Classic, no such
// counterexample, or the unchecked client: the models' client checks,
// so their stories are the checked client's, and the unchecked line
// keeps the classic pause after its read, where it acts past its
// validity).
func (c Config) Story() (story.Story, bool) {
	if c.Nemesis != nemesis.Scripted || c.Classic {
		return story.Story{}, false
	}
	if c.Script != nil {
		return *c.Script, true
	}
	if c.Setup.Unchecked {
		return story.Story{}, false
	}
	return story.ForFault(c.Setup.Design, c.Fault)
}

// window is about how long the clients' sections take without faults:
// the time random faults start in.
func (c Config) window() time.Duration {
	return time.Duration(c.Clients*c.Sections) * (c.Think + 10*time.Millisecond)
}

// StartError is a service that would not start: bad environment, not a
// verdict (exit 2).
type StartError struct{ Err error }

func (e *StartError) Error() string { return e.Err.Error() }
func (e *StartError) Unwrap() error { return e.Err }

// Result is one run: what happened and what the judge made of it.
type Result struct {
	Seed      uint64
	Schedule  nemesis.Schedule
	History   *history.History
	Judgement *check.Judgement
	Resource  *impl.Resource
	// Versions names the servers' versions; Library the client library's.
	Versions, Library string
	// StartUp is how long the service took to start; Duration the whole
	// run, start-up and teardown included.
	StartUp, Duration time.Duration
	// Think is the clients' think time and why (Config.StoryThink: derived
	// from StartUp; else as given).
	Think setup.Think
}

// ClientThink is the think the clients had: Think, derived or given, or
// cfg.Think for a result made without it.
func (r *Result) ClientThink(cfg Config) time.Duration {
	if r.Think.Why != "" {
		return r.Think.Time
	}
	return cfg.Think
}

// killGrace is how long after the clients' deadline the harness waits
// before it kills what is left.
const killGrace = 3 * time.Second

// Run runs once: fresh servers, the resource, the clients, the nemesis,
// then the judge. Everything it started is stopped and its data folder
// removed on every path, ctx's end included. The error is the harness's
// (a service that would not start is a *StartError); a run's verdicts are
// in the result.
func Run(ctx context.Context, cfg Config) (res *Result, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	begin := time.Now()
	res = &Result{Seed: cfg.Seed, Schedule: cfg.Schedule(), Library: cfg.Setup.LibraryVersion()}
	tmp, err := makeRunDir(cfg.TempRoot)
	if err != nil {
		return nil, err
	}
	defer func() {
		if rerr := os.RemoveAll(tmp); rerr != nil && err == nil {
			err = fmt.Errorf("removing %s: %w", tmp, rerr)
		}
	}()
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("own binary: %w", err)
	}
	dep, err := cfg.Setup.Start(ctx, setup.StartEnv{Dir: tmp, Self: self, Fault: cfg.Fault})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &StartError{Err: fmt.Errorf("%s would not start: %w", cfg.Setup.Service, err)}
	}
	defer func() {
		if serr := dep.Stop(); serr != nil && err == nil {
			err = serr
		}
	}()
	res.StartUp = time.Since(begin)
	res.Versions = dep.Versions()
	res.Think = thinkOf(cfg, res.StartUp)

	var reg *store.Register
	var storeCmd *store.StoreCommand
	switch {
	case cfg.Setup.StoreCommand != "":
		// The user's store, one process for the run; the register's
		// protocol in front of it, so that the clients dial as ever.
		if storeCmd, err = store.StartStoreCommand(cfg.Setup.StoreCommand, cfg.Setup.Design.Mode(), cfg.Setup.Design.String()); err != nil {
			return nil, err
		}
		defer func() {
			if cerr := storeCmd.Close(); cerr != nil && err == nil {
				err = cerr
			}
		}()
		if reg, err = store.ServeStoreCommand(storeCmd); err != nil {
			return nil, err
		}
		defer reg.Close()
		res.Versions += "; store command: " + storeCmd.Store
	case cfg.Setup.UsesRegister():
		if reg, err = store.ServeRegister(cfg.Setup.Design.Mode()); err != nil {
			return nil, err
		}
		defer reg.Close()
	}

	t0 := time.Now()
	h := &history.History{Start: t0.UnixNano(), Clients: cfg.Clients, Unchecked: cfg.Setup.Unchecked}
	deadline := t0.Add(cfg.Timeout + time.Duration(cfg.Clients*cfg.Sections)*max(0, res.Think.Time-cfg.Think))
	records := make(chan history.Record, 64)
	exits := make(chan history.ClientExit, cfg.Clients)
	var clients []*clientProc
	quit := make(chan struct{})
	defer func() {
		close(quit)
		for _, c := range clients {
			c.kill()
		}
		for _, c := range clients {
			<-c.done // reaped: no process left behind
		}
	}()
	for i := range cfg.Clients {
		cc := ClientConfig{
			Service: cfg.Setup.Service, Setup: cfg.Setup.Name, Client: i, Clients: cfg.Clients,
			Key: "fencelab-live", LockAddrs: dep.LockAddrs, StoreAddrs: dep.StoreAddrs, Credentials: dep.Credentials,
			TTL: cfg.Setup.TTL, Think: res.Think.Time, Sections: cfg.Sections,
			Deadline: deadline.UnixNano(), MaxErrors: 10, Gate: gateOf(res.Schedule), ClientCmd: cfg.Setup.ClientCommand,
		}
		if reg != nil {
			cc.Register = reg.Addr()
		}
		if dep.Network != nil {
			if cc.LockAddrs, err = dep.Network.LockAddrs(i); err != nil {
				return nil, fmt.Errorf("%s's links: %w", history.ClientName(i), err)
			}
		}
		c, err := startClient(cfg, cc, records, exits, quit)
		if err != nil {
			return nil, err
		}
		clients = append(clients, c)
	}

	// The nemesis runs beside the collection of records, and everything it
	// did is taken back before the clients are killed.
	var faultsMu sync.Mutex
	var groups []nemesis.ProcessGroup
	for _, c := range clients {
		groups = append(groups, c)
	}
	n := nemesis.New(nemesis.Target{Servers: dep.Servers, Network: dep.Network, Clock: dep.Clock}, groups, func(f history.FaultRecord) {
		faultsMu.Lock()
		h.Faults = append(h.Faults, f)
		faultsMu.Unlock()
	})
	events := make(chan nemesis.Event, 4*cfg.Clients*cfg.Sections+8)
	nctx, stopNemesis := context.WithCancel(ctx)
	var nwg sync.WaitGroup
	nwg.Add(1)
	sched := res.Schedule
	go func() {
		defer nwg.Done()
		n.Run(nctx, sched, t0, events)
	}()
	gate := gateOf(sched)
	gateSent := false
	readsWait := readsWaitForOthers(cfg.Setup, sched)
	waiting := map[int]bool{} // the clients whose acquire is called and not yet returned
	grants := map[int]int{}   // the grants each client had
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			stopNemesis()
			nwg.Wait()
			n.ResumeAll()
		}
	}
	defer stop()

	hard := time.NewTimer(time.Until(deadline.Add(killGrace)))
	defer hard.Stop()
	var harnessErr error
	for running := cfg.Clients; running > 0; {
		select {
		case r := <-records:
			if err := r.Validate(cfg.Clients); err != nil {
				harnessErr = errors.Join(harnessErr, fmt.Errorf("%s sent a bad record: %w", history.ClientName(r.Client), err))
				continue
			}
			h.Records = append(h.Records, r)
			if gate != "" && r.Op == gate && r.Ev == history.Call {
				// The client waits at its gate: the first is the
				// nemesis's to open, after its fault; every other opens
				// at once.
				c := clients[r.Client]
				c.gateWaits()
				if gateSent || !tell(events, nemesis.Event{Client: r.Client, Kind: nemesis.GateEvent(gate)}) {
					c.OpenGate()
				}
				gateSent = true
			}
			if r.Op == history.OpAcquire {
				waiting[r.Client] = r.Ev == history.Call
				if r.Ev == history.Return && r.OK {
					grants[r.Client]++
				}
			}
			others := 0
			for c, w := range waiting {
				if w && c != r.Client {
					others++
				}
			}
			if kind := progress(r); kind != "" && othersWait(kind, readsWait, others, grants[r.Client] >= cfg.Sections, cfg.Clients) {
				tell(events, nemesis.Event{Client: r.Client, Kind: kind})
			}
		case e := <-exits:
			running--
			h.Exits = append(h.Exits, e)
			if e.Status != exitedCleanly && e.Status != killedByHarness && e.Status != killedByNemesis {
				// A client that crashed or was killed from outside ends
				// the run: the others are stopped at once.
				harnessErr = errors.Join(harnessErr, fmt.Errorf("client %s ended with %s%s", history.ClientName(e.Client), e.Status, stderrNote(e.Stderr)))
				for _, c := range clients {
					c.kill()
				}
			}
		case <-hard.C:
			for _, c := range clients {
				c.kill()
			}
			harnessErr = errors.Join(harnessErr, fmt.Errorf("clients still running %v after their deadline: killed", killGrace))
			hard.Reset(time.Hour) // the exits follow the kills
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	// Every client's stdout is drained before its exit is sent.
	for {
		select {
		case r := <-records:
			h.Records = append(h.Records, r)
			continue
		default:
		}
		break
	}
	stop()
	h.End = time.Now().UnixNano()
	if cfg.Setup.Deployed != "" && len(dep.Servers) > 0 {
		// The deployment is the fault: its first server names it.
		h.Faults = append(h.Faults, history.DeploymentFault(dep.Servers[0].Name(), cfg.Setup.Deployed, h.Start, h.End))
	}
	h.Sort()
	res.History = h
	for _, f := range h.Faults {
		if f.Error != "" {
			harnessErr = errors.Join(harnessErr, fmt.Errorf("fault %s on %s: %s", f.Fault, f.Target, f.Error))
		}
	}
	if storeCmd != nil {
		// A store that broke the protocol is the harness's error, whatever
		// its clients made of its ERR answers.
		harnessErr = errors.Join(harnessErr, storeCmd.Err())
	}
	if harnessErr != nil {
		return res, harnessErr
	}
	if !anyGrant(h) {
		// Nothing ran: no history to judge, whatever the tally would make
		// of it ("not observed" counted 0 sections as a run).
		return res, fmt.Errorf("no client was granted the lock within the run's %v (start-up of %v before it): nothing ran, which is no verdict; give the run a longer timeout", cfg.Timeout, res.StartUp.Round(time.Millisecond))
	}

	switch {
	case storeCmd != nil:
		// The store's log, checked against what it answered, judged as a
		// real store's audit is.
		reg.Close()
		ops, err := storeCmd.Log()
		if err == nil {
			err = storeCmd.Close() // its exit is the protocol's too
		}
		if err != nil {
			return res, err
		}
		if res.Resource, err = replay(ops, lastWrite(ops)); err != nil {
			return res, err
		}
	case reg != nil:
		res.Resource = reg.Resource()
	default:
		if err := n.RestartDown(ctx); err != nil {
			return res, err
		}
		if err := serversUp(dep.Servers); err != nil {
			return res, err
		}
		actx, cancel := context.WithTimeout(ctx, auditTimeout)
		ops, counter, err := cfg.Setup.Audit(actx, dep)
		cancel()
		if err != nil {
			return res, fmt.Errorf("reading the store's log (at most %v): %w", auditTimeout, err)
		}
		if res.Resource, err = replay(ops, counter); err != nil {
			return res, err
		}
	}
	judge := cfg.Judge
	if judge == nil {
		judge = check.Judge
	}
	// An overlap no fault explains is the harness's error (*check.
	// UnexplainedOverlap): the run is returned with its judgement, to be
	// saved and looked at.
	res.Judgement, err = judge(h, cfg.Setup.Design, cfg.Setup.TTL, res.Resource, cfg.CheckTimeout)
	res.Duration = time.Since(begin)
	if err != nil {
		return res, err
	}
	// A judge that contradicts itself is the harness's error: exit 2, the
	// run saved with its verdicts and error.txt, never a plausible table.
	if err := check.SelfCheck(res.Judgement); err != nil {
		return res, err
	}
	return res, nil
}

// gateOf is the operation the run's clients wait at a gate before
// sending ("": none), by sched's triggers.
func gateOf(sched nemesis.Schedule) string {
	for _, e := range sched.Events {
		if op := nemesis.GateOf(e.Trigger); op != "" {
			return op
		}
	}
	return ""
}

// readsWaitForOthers says whether a read fires sched's story, triggered
// by the run's first read, only while another client waits in its acquire
// (othersWait): the story needs someone to grant the lock to when its
// fault acts. A client's first acquire call comes only once its process
// has started, and under load that can be a whole section after the
// other's (a client command's interpreter answering hello, at load 13 to
// 24, up to 1.9 s late). A fault of the service that acts at once (a
// restart, a clock step) leaves the other client only the holder's think
// to be granted in: with nobody waiting it cannot take effect (on an idle
// machine a Go setup's second client called its acquire 15 ms after the
// first's read; at load 6 to 8, four campaigns at once, a clock step took
// effect in neither run of one campaign). So a read waits for the others
// in a run of client commands, and before any fault of the service. A
// fault of the reader itself (a pause, its link cut) lasts three leases,
// time enough for a late client to be granted: the Go setups keep its
// first read.
func readsWaitForOthers(s setup.Setup, sched nemesis.Schedule) bool {
	return slices.ContainsFunc(sched.Events, func(e nemesis.FaultEvent) bool {
		return e.Trigger == nemesis.TriggerAfterRead && (s.ClientCommand != "" || !nemesis.IsClientFault(e.Fault))
	})
}

// othersWait reports whether the nemesis hears of a progress event of
// kind: every kind but a read at once; a read, when the schedule waits
// for the run's first read (readsWait), only while others (of clients)
// wait in their acquire, in the reader's last section (no later read of
// its own is to come: a story of one section per client, a network
// fault's, keeps its first reader), or in a run of one client.
func othersWait(kind string, readsWait bool, others int, last bool, clients int) bool {
	return kind != nemesis.EventRead || !readsWait || others > 0 || last || clients < 2
}

// progress is the nemesis's event record r makes ("": none).
func progress(r history.Record) string {
	switch {
	case r.Ev != history.Return || !r.OK:
		return ""
	case r.Op == history.OpAcquire:
		return nemesis.EventGrant
	case r.Op == history.OpRead:
		return nemesis.EventRead
	}
	return ""
}

// tell sends ev to the nemesis unless its queue is full: the run's loop
// never waits for the nemesis. false when it was dropped.
func tell(events chan<- nemesis.Event, ev nemesis.Event) bool {
	select {
	case events <- ev:
		return true
	default:
		return false
	}
}

// thinkOf is the run's think time: the story's, derived from the
// servers' measured start-up (Config.StoryThink), or the one given.
func thinkOf(cfg Config, startUp time.Duration) setup.Think {
	if cfg.StoryThink {
		return cfg.Setup.StoryThink(cfg.Fault, startUp)
	}
	return setup.Think{Time: cfg.Think, Why: fmt.Sprintf("%v: given", cfg.Think)}
}

// anyGrant says whether some client was granted the lock: a section
// began.
func anyGrant(h *history.History) bool {
	return slices.ContainsFunc(h.Records, func(r history.Record) bool {
		return r.Op == history.OpAcquire && r.Ev == history.Return && r.OK
	})
}

// replay rebuilds a resource from a real store's accepted operations in
// the order they took effect: an impl.Resource that accepts everything
// (mode none) given only those operations has the same log of accepted
// operations, which is all TokenIsMonotonical and NoLostUpdate read.
func replay(ops []impl.Op, counter int64) (*impl.Resource, error) {
	var accepted []impl.Op
	for _, op := range ops {
		if op.Accepted {
			accepted = append(accepted, op)
		}
	}
	r, err := store.Replay(impl.FenceNone, accepted)
	if err != nil {
		return nil, err
	}
	if r.Counter() != counter {
		return nil, fmt.Errorf("the store's counter is %d, its last accepted write %d: its audit is incomplete", counter, r.Counter())
	}
	return r, nil
}

// lastWrite is the counter after ops: the value of the last accepted
// write, 0 without one.
func lastWrite(ops []impl.Op) int64 {
	for i := len(ops) - 1; i >= 0; i-- {
		if ops[i].Accepted && ops[i].Kind == impl.OpWrite {
			return ops[i].Value
		}
	}
	return 0
}

func stderrNote(s string) string {
	if s == "" {
		return ""
	}
	return ": " + history.OneLine(s, 200)
}

// clientProc is one client process, in a process group of its own.
type clientProc struct {
	index int
	cmd   *exec.Cmd

	done chan struct{} // closed once the process is reaped

	mu     sync.Mutex
	reaped bool
	killed bool
	slain  bool // killed by the nemesis (history.FaultHolderDeath)
	// stdin carries the configuration, then one line per gate opened;
	// waiting counts the gates the client waits at, not yet opened.
	stdin   io.WriteCloser
	waiting int
}

// gateWaits notes that the client waits at its gate.
func (c *clientProc) gateWaits() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waiting++
}

// OpenGate opens the gate the client waits at, if any (once per gate:
// a line too many would open its next gate early).
func (c *clientProc) OpenGate() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reaped || c.waiting == 0 {
		return nil
	}
	c.waiting--
	_, err := io.WriteString(c.stdin, "open\n")
	return err
}

// Signal signals the client's process group while the process is not
// yet reaped (after that its pid may be another's). A SIGKILL is the
// nemesis's holder death: the client's end is then its fault, not an
// error.
func (c *clientProc) Signal(sig syscall.Signal) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reaped {
		return fmt.Errorf("%s: %w", history.ClientName(c.index), nemesis.ErrEnded)
	}
	if sig == syscall.SIGKILL {
		c.slain = true
	}
	return syscall.Kill(-c.cmd.Process.Pid, sig)
}

// kill ends the client's group (a stopped one too) if it still runs.
func (c *clientProc) kill() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reaped {
		return
	}
	c.killed = true
	syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	syscall.Kill(-c.cmd.Process.Pid, syscall.SIGCONT)
}

// The statuses of a client's end that are not errors of their own: it
// ended by itself, or the harness ended it (after its deadline, or
// because another client failed: that is the error).
const (
	exitedCleanly   = "exit status 0"
	killedByHarness = "killed by the harness"
	// killedByNemesis is a client the nemesis killed (a holder's death):
	// the run goes on without it.
	killedByNemesis = "killed by the nemesis"
)

// auditTimeout bounds the read of a real store's log after a run: the
// clients' libraries retry a server that does not answer without end,
// and a run must end.
const auditTimeout = 30 * time.Second

// serversUp is an error naming each server that is not running when the
// run ends although the nemesis brought back every one it killed: a
// server that exited by itself is a fault nobody injected, and its store
// cannot be read.
func serversUp(servers []server.Server) error {
	var down []string
	for _, s := range servers {
		if r, ok := s.(server.Runner); ok && !r.Running() {
			down = append(down, s.Name())
		}
	}
	if len(down) > 0 {
		return fmt.Errorf("%s not running when the run ended (the nemesis killed none it did not bring back): it exited by itself, which is no fault of the story", strings.Join(down, ", "))
	}
	return nil
}

// maxStderr bounds what the harness keeps of a client's stderr.
const maxStderr = 4 << 10

// startClient starts one client process and the goroutine that reads its
// records and reports its end on exits (after its last record).
func startClient(cfg Config, cc ClientConfig, records chan<- history.Record, exits chan<- history.ClientExit, quit <-chan struct{}) (*clientProc, error) {
	in, err := json.Marshal(cc)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(cfg.Self[0], cfg.Self[1:]...)
	var stdin io.WriteCloser = nopWriteCloser{}
	if cc.Gate == "" {
		cmd.Stdin = bytes.NewReader(in)
	} else if stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	cmd.Env = append(os.Environ(), cfg.Env...)
	stderr := jsonline.HeadBuffer{Max: maxStderr}
	cmd.Stderr = &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting client %s: %w", history.ClientName(cc.Client), err)
	}
	c := &clientProc{index: cc.Client, cmd: cmd, done: make(chan struct{}), stdin: stdin}
	if cc.Gate != "" {
		// The configuration, then the gates' lines: the pipe stays open
		// until the client ends (a pipe holds far more than a config).
		if _, err := stdin.Write(append(in, '\n')); err != nil {
			c.kill()
			cmd.Wait()
			return nil, fmt.Errorf("configuring client %s: %w", history.ClientName(cc.Client), err)
		}
	}
	go func() {
		defer close(c.done)
		defer stdin.Close()
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 4096), 64<<10)
		var bad error
		for sc.Scan() {
			var r history.Record
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				bad = fmt.Errorf("unreadable record %.60q", sc.Text())
				continue
			}
			if r.Client != cc.Client {
				bad = fmt.Errorf("a record of client %d on %s's output", r.Client, history.ClientName(cc.Client))
				continue
			}
			select {
			case records <- r:
			case <-quit:
				// The run is over: the rest is drained and dropped, so
				// that the process can end and be reaped.
			}
		}
		if err := sc.Err(); err != nil && bad == nil {
			bad = err
		}
		werr := cmd.Wait()
		c.mu.Lock()
		c.reaped = true
		killed, slain := c.killed, c.slain
		c.mu.Unlock()
		e := history.ClientExit{Client: cc.Client, Wall: time.Now().UnixNano(), Status: exitedCleanly, Stderr: stderr.String()}
		switch {
		case werr != nil && slain:
			// Killed mid-line, its last record can be cut short: the
			// kill is the story, not a client breaking the format.
			e.Status = killedByNemesis
		case bad != nil:
			e.Status = bad.Error()
		case werr != nil && killed:
			e.Status = killedByHarness
		case werr != nil:
			e.Status = werr.Error()
		}
		exits <- e
	}()
	return c, nil
}

// nopWriteCloser is the stdin of a client without gates: its
// configuration is all it reads.
type nopWriteCloser struct{}

func (nopWriteCloser) Write(p []byte) (int, error) { return len(p), nil }
func (nopWriteCloser) Close() error                { return nil }

func faultList(fs []history.Fault) string {
	if len(fs) == 0 {
		return "none"
	}
	var b bytes.Buffer
	for i, f := range fs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(string(f))
	}
	return b.String()
}
