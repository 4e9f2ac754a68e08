// Package setup is the registry of live setups: each a service, a lock
// recipe, a store and the design row of impl.Designs they instantiate
// (Setup), how one starts for a run (Deployment), and All, the five
// services' setups a command line takes. A Go user's own lock is one more
// Setup appended to All.
package setup

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/lock"
	"github.com/fencelab/fencelab/live/nemesis"
	"github.com/fencelab/fencelab/live/server"
	"github.com/fencelab/fencelab/live/store"
)

// Setup is one live configuration: a service, a lock recipe, a store, and
// the design row they instantiate.
type Setup struct {
	// Name is the --design value within its service ("setnx-all").
	Name string
	// Service is the --service value ("redis").
	Service string
	// Design is the row of impl.Designs the setup instantiates: its
	// expected verdicts are impl.Expected(Design, property), and the
	// register (when Store is nil) applies Design.Mode().
	Design impl.Design
	// Why says in one line why the setup is that row.
	Why string
	// Package is the Debian package that provides the server ("" when
	// fencelab starts it from its own code).
	Package string
	// Library is the module path of the client library, whose version
	// comes from the binary's build information.
	Library string
	// TTL is the lease a grant lasts.
	TTL time.Duration
	// Leased says that a grant ends TTL after it was made whatever its
	// holder does (Redis's PX: nothing renews it), so a section longer
	// than the TTL makes two holders with no fault at all. RunConfig
	// refuses such a think time for these setups: the overlap a fault
	// causes must not be confused with the one a long section causes.
	// Session locks (ZooKeeper's, GET_LOCK) and renewed leases are held
	// while the holder lives, and leave it false.
	Leased bool
	// Renewed says that the lock lives on a session the client library
	// keeps alive (etcd's concurrency.Session, ZooKeeper's session): a
	// restart stops the renewals until the client reconnects, so a story's
	// section must not grow past what it was (StoryThink). Leased, a lease
	// nobody renews, wins over it.
	Renewed bool
	// Faults are the setup's classic faults, whose scripted stories take
	// effect against it: make live (fencelab-live matrix) runs the setup
	// under every one of them.
	Faults []history.Fault
	// MoreFaults apply too, but their scripted stories do not take effect
	// against this service (the runs come out inconclusive): run them with
	// --fault, or with --nemesis random; the matrix leaves them out.
	MoreFaults []history.Fault
	// Probe reports the server's version without starting it, or an
	// error naming what is missing (the Debian package).
	Probe func(ctx context.Context) (string, error)
	// Start starts the service's servers for one run, in folders under
	// env.Dir, and says how clients reach them.
	Start func(ctx context.Context, env StartEnv) (*Deployment, error)
	// Locker builds one client's lock handle (in the client process).
	Locker func(ctx context.Context, cfg lock.Config) (lock.Locker, error)
	// Store builds one client's connection to a real store; nil means
	// fencelab's register (store.DialRegister) in Design.Mode().
	Store func(ctx context.Context, cfg StoreConfig) (store.Store, error)
	// Audit reads a real store's accepted operations in the order they
	// took effect, and its counter, after a run (the register's come from
	// the register itself); nil when Store is nil.
	Audit func(ctx context.Context, d *Deployment) (ops []impl.Op, counter int64, err error)
	// ClientCommand, when set, is a command (run with sh -c) whose
	// process takes the lock over the lock-client protocol
	// (docs/protocol.md): the user's own lock in any language. Locker is
	// then lock.NewCommand over it (WithClientCommand).
	ClientCommand string
	// StoreCommand, when set, is a command (run with sh -c) whose process
	// is the run's resource over the resource protocol
	// (docs/store-protocol.md): the user's own fenced store, claiming
	// Design.Mode()'s fencing, in place of fencelab's register
	// (WithStoreCommand).
	StoreCommand string
	// ClientVersion reports the version of a client command's library
	// (Library), a Debian or npm package: Go modules' versions come from
	// the build information instead.
	ClientVersion func() (string, error)
	// Stories tune a fault's scripted story for this setup where the
	// fault's own (nemesis.ScriptedSchedule, ScriptedWorkload,
	// ScriptedThink) cannot take effect against the service: its
	// section outlasting a server pause, a link cut past a session
	// timeout. A fault absent from the map keeps the fault's story.
	Stories map[history.Fault]Story
	// Safe names, by fault, the service's mechanism that keeps it safe
	// against that fault ("leases survive a restart"): its scripted
	// story cannot take effect, and a run that shows the mechanism at
	// work (check.Judgement.Safe, its witness) says so instead of
	// "inconclusive". A claim the run does not witness stays
	// inconclusive.
	Safe map[history.Fault]string
	// Unchecked makes the clients skip the validity check before each
	// read and write (the unchecked client behaviour: application code
	// that believes until it releases). false is the checked client, the
	// models' client. Unchecked returns such a setup; its Name carries
	// UncheckedSuffix, so its runs, summaries and README rows are a line
	// of their own.
	Unchecked bool
	// Deployed, when set, says why the deployment itself is a fault: it
	// makes two holders with no fault injected (PgBouncer's transaction
	// pooling under a session lock). Each run's fault log then holds a
	// history.FaultDeployment over the whole run, so that the judge reads
	// an overlap as the deployment's, not as the harness's error.
	Deployed string
}

// UncheckedSuffix ends the name of a setup's unchecked client line
// ("setnx-none+unchecked").
const UncheckedSuffix = "+unchecked"

// WithUncheckedClient is s run by the unchecked client: a line of its
// own, named s.Name+UncheckedSuffix.
func (s Setup) WithUncheckedClient() Setup {
	if !s.Unchecked {
		s.Name, s.Unchecked = s.Name+UncheckedSuffix, true
	}
	return s
}

// ID is "service/name", how listings and output folders name a setup.
func (s Setup) ID() string { return s.Service + "/" + s.Name }

// Applies reports whether fault f applies to the setup (FaultNone always
// does).
//
// A holder's death applies to every setup: every client is a process the
// harness can kill, and every lock must be freed after it somehow.
func (s Setup) Applies(f history.Fault) bool {
	return f == history.FaultNone || f == history.FaultHolderDeath || slices.Contains(s.Faults, f) || slices.Contains(s.MoreFaults, f)
}

// UsesRegister reports whether the setup's resource is fencelab's register.
func (s Setup) UsesRegister() bool { return s.Store == nil }

// Token is the fencing token a client sends with its operations for a
// grant: the grant's token, or 0 in a row without tokens ("off": the
// register then ignores tokens, mode none).
func (s Setup) Token(g lock.Grant) uint64 {
	if !s.Design.Tokens() {
		return 0
	}
	return g.Token
}

// WithClientCommand is s with its lock taken by a client command
// speaking the lock-client protocol instead of its Go library: the same
// servers, TTL, faults, resource and row.
func (s Setup) WithClientCommand(command string) Setup {
	service := s.Service
	s.ClientCommand, s.Library, s.ClientVersion = command, "", nil
	s.Locker = func(ctx context.Context, cfg lock.Config) (lock.Locker, error) {
		// The command's stderr is the client process's, which the
		// harness keeps for the error of a run that fails.
		return lock.NewCommand(ctx, cfg, lock.CommandOptions{Command: command, Service: service, Stderr: os.Stderr})
	}
	return s
}

// WithStoreCommand is s with its resource a store command speaking the
// resource protocol instead of fencelab's register: the same servers,
// lock, faults and row, the row's fencing what the store claims. Only a
// setup whose resource is the register takes one, and not a row whose
// resource asks the lock service (sequencer).
func (s Setup) WithStoreCommand(command string) (Setup, error) {
	switch {
	case !s.UsesRegister():
		return Setup{}, fmt.Errorf("%s has a real store already (its own resource): --store-cmd replaces fencelab's register only", s.ID())
	case s.Design.Mode() == impl.FenceSequencer:
		return Setup{}, fmt.Errorf("%s's row %s checks tokens with the lock service (sequencer): a store command cannot", s.ID(), s.Design)
	}
	s.StoreCommand = command
	return s, nil
}

// LibraryVersion is the client library's module version as built into
// this binary ("(not built in)" when it is not a dependency); a client
// command's library and its version (ClientVersion), or the command
// itself when it does not say.
func (s Setup) LibraryVersion() string {
	if s.ClientCommand != "" {
		if s.Library == "" || s.ClientVersion == nil {
			return "client command: " + history.OneLine(s.ClientCommand, 100)
		}
		v, err := s.ClientVersion()
		if err != nil {
			return s.Library + " (" + history.OneLine(err.Error(), 100) + ")"
		}
		return s.Library + " " + v
	}
	if s.Library == "" {
		return "fencelab"
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == s.Library {
				if m.Replace != nil {
					m = m.Replace
				}
				return m.Path + " " + m.Version
			}
		}
	}
	return s.Library + " (not built in)"
}

// StartEnv is what a setup's Start may use.
type StartEnv struct {
	// Dir is a folder the harness created for this run and removes after
	// it: servers make their data folders inside it.
	Dir string
	// Self is the harness's own binary, for services it runs as a role of
	// itself (etcd).
	Self string
	// Fault is the run's fault: a setup prepares what only that fault
	// needs (the clock shim for a clock step).
	Fault history.Fault
}

// Deployment is a started service: its servers, the addresses clients
// dial, and the hooks of the faults that need more than a signal.
type Deployment struct {
	Servers []server.Server
	// LockAddrs are what a client's Locker dials when the setup puts no
	// proxy in front of the servers (nil when Network gives each client
	// its own addresses).
	LockAddrs []string
	// StoreAddrs are what a real store's clients dial.
	StoreAddrs []string
	// Credentials is a folder of the files the lock's clients
	// authenticate with (lock.Config.Credentials; kube-apiserver's client
	// certificate), "" for services that need none.
	Credentials string
	// Network is the per-client proxy between clients and the lock's
	// servers; nil without one.
	Network nemesis.Network
	// Clock steps a server's wall clock; nil where the service cannot get
	// a clock fault.
	Clock nemesis.Stepper
	// Close releases what Start made besides the servers (a proxy); nil
	// when there is nothing.
	Close func() error
}

// Stop stops every server and the rest of the deployment, returning the
// first error.
func (d *Deployment) Stop() error {
	var first error
	for _, s := range d.Servers {
		if err := s.Stop(); err != nil && first == nil {
			first = fmt.Errorf("stopping %s: %w", s.Name(), err)
		}
	}
	if d.Close != nil {
		if err := d.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Versions names every server and its version.
func (d *Deployment) Versions() string {
	var vs []string
	for _, s := range d.Servers {
		if v := s.Version(); !slices.Contains(vs, v) {
			vs = append(vs, v)
		}
	}
	return strings.Join(vs, ", ")
}

// StoreConfig is what a real store's client needs.
type StoreConfig struct {
	Addrs  []string
	Client int    // 0-based index
	Key    string // the lock's name (lock.Config.Key), for a store that asks the lock
}

// All lists every live setup, grouped by service: the registry a
// command line takes (a Go user appends its own).
func All() []Setup {
	var all []Setup
	all = append(all, etcdSetups()...)
	all = append(all, redisSetups()...)
	all = append(all, zooKeeperSetups()...)
	all = append(all, mariadbSetups()...)
	all = append(all, postgresSetups()...)
	all = append(all, postgresEpochSetups()...)
	all = append(all, redlockSetups()...)
	all = append(all, kubeSetups()...)
	return append(all, clientCommandSetups(all)...)
}

// Find finds the setup of service and name among setups; a name that
// ends in UncheckedSuffix is that setup's unchecked client line.
func Find(setups []Setup, service, name string) (Setup, error) {
	if base, ok := strings.CutSuffix(name, UncheckedSuffix); ok && base != "" && !strings.HasSuffix(base, UncheckedSuffix) {
		s, err := Find(setups, service, base)
		return s.WithUncheckedClient(), err
	}
	var services, names []string
	for _, s := range setups {
		if !slices.Contains(services, s.Service) {
			services = append(services, s.Service)
		}
		if s.Service != service {
			continue
		}
		if s.Name == name {
			return s, nil
		}
		names = append(names, s.Name)
	}
	if len(names) == 0 {
		return Setup{}, fmt.Errorf("unknown service %.40q (want one of %s)", service, strings.Join(services, ", "))
	}
	return Setup{}, fmt.Errorf("unknown design %.40q for service %s (want one of %s)", name, service, strings.Join(names, ", "))
}

// OfRow finds the setup of service that instantiates row d with the
// service's own Go client: the setup a client command claiming row d
// runs in (--client-cmd with --design ROW).
func OfRow(setups []Setup, service string, d impl.Design) (Setup, error) {
	var rows []string
	for _, s := range setups {
		if s.Service != service || s.ClientCommand != "" || s.Unchecked {
			continue
		}
		if s.Design == d {
			return s, nil
		}
		rows = append(rows, s.Design.String())
	}
	if len(rows) == 0 {
		return Setup{}, fmt.Errorf("unknown service %.40q", service)
	}
	return Setup{}, fmt.Errorf("service %s has no setup of row %s (its rows: %s)", service, d, strings.Join(rows, ", "))
}

// Story is one setup's tuning of a fault's scripted story; a zero field
// keeps the fault's own.
type Story struct {
	// Think is the think time between a section's read and its write;
	// Sections the sections per client.
	Think    time.Duration
	Sections int
	// For is how long the fault lasts (nemesis.FaultEvent.For).
	For time.Duration
	// Isolate cuts the first reader's links to the lock service from the
	// start of a fault of the service until Isolate after its end
	// (nemesis.FaultEvent.Isolate): a holder whose session the service
	// would keep across the fault loses it while it still thinks.
	Isolate time.Duration
	// Why says in one line why the story needs the tuning.
	Why string
}

// ScriptedWorkload is the clients and sections per client of fault f's
// scripted story against the setup: the fault's (nemesis.ScriptedWorkload)
// but for the sections its Story sets.
func (s Setup) ScriptedWorkload(f history.Fault) (clients, sections int) {
	clients, sections = nemesis.ScriptedWorkload(f)
	if st := s.Stories[f]; st.Sections > 0 {
		sections = st.Sections
	}
	return clients, sections
}

// ScriptedSchedule is fault f's scripted schedule against the setup: the
// fault's story (nemesis.ScriptedSchedule) with the length and the
// isolation its Story sets.
func (s Setup) ScriptedSchedule(f history.Fault, p nemesis.ScheduleParams) nemesis.Schedule {
	return s.Tune(nemesis.ScriptedSchedule(f, p))
}

// Tune applies the setup's story for sched's fault (Stories) to sched,
// the classic story or one derived from the model: its length, where a
// pause does not end on an event of its own (Until: then For is only its
// cap, and the event, not the setup, ends it), and its isolation.
func (s Setup) Tune(sched nemesis.Schedule) nemesis.Schedule {
	st := s.Stories[sched.Fault]
	for i := range sched.Events {
		if st.For > 0 && sched.Events[i].Until == "" {
			sched.Events[i].For = st.For
		}
		if st.Isolate > 0 && !nemesis.IsClientFault(sched.Events[i].Fault) {
			sched.Events[i].Isolate = st.Isolate
		}
	}
	return sched
}

// ScriptedThink is the think time of fault f's scripted story before the
// run's servers have started: StoryThink with no start-up measured.
func (s Setup) ScriptedThink(f history.Fault) time.Duration {
	return s.StoryThink(f, 0).Time
}

// Think is a story's think time and, in words, why it is that long: a
// run records both (run.Result.Think), so that a reader of a saved run
// sees the margin its story had.
type Think struct {
	Time time.Duration
	Why  string
}

// The margins of the stories whose second client must be granted while
// the first still thinks (StoryThink).
const (
	// restartThinkFloor is the least a restart story thinks: the margin
	// its stories took effect with on an idle machine.
	restartThinkFloor = 400 * time.Millisecond
	// defaultThink is the think of the stories whose fault acts at once,
	// and the least a clock step's thinks.
	defaultThink = 150 * time.Millisecond
	// acquireRound is a waiting client's grant once the lock is free: its
	// next attempt (a backoff of at most 50 ms, 20 ms after an error)
	// and a round trip, with room.
	acquireRound = 100 * time.Millisecond
	// storyThinkMax bounds a margin's think, so that a story's sections
	// (two clients of three) end well within the run's 20 s: a service
	// slower to start than that gets this much.
	storyThinkMax = 2 * time.Second
)

// StoryThink is the think time a scripted story of fault f needs against
// the setup, given startUp, how long the run's servers took to start (0
// when not yet known): the window in which the first reader still
// believes while the fault acts.
//
// Within it, after a restart or a clock step, a second client must be
// granted (and a restart must finish first): the think is 2 × the
// measured start-up (a restart starts the same servers again, on a
// machine as loaded as a moment before, and the factor 2 covers a slower
// second start; on a loaded machine everything, a grant too, is as much
// slower) plus an acquire round — at least the story's floor (400ms for a
// restart, 150ms for a clock step), at most storyThinkMax, for a Leased
// setup less than its lease (3/4 of it: a section that outlives a fixed
// lease makes two holders with no fault), and for a Renewed one the floor
// (in make live at load 20 a longer section outlived etcd's session
// after a restart: an overlap of two grants both after it).
//
// A network fault leaves the holder running: only a section that
// outlasts the lease (its renewals lost on the cut link) writes after
// another client was granted, so its think is 2.5 TTL; a Leased setup
// refuses a think as long as its lease, so there the network faults
// cannot take effect and keep the default. The other faults act at once.
// A setup's own Story for f, when it sets a Think, wins over all this.
func (s Setup) StoryThink(f history.Fault, startUp time.Duration) Think {
	if st := s.Stories[f]; st.Think > 0 {
		// The setup's own story: a think chosen for this service.
		return Think{st.Think, fmt.Sprintf("%v: the setup's story (%s)", st.Think, st.Why)}
	}
	switch f {
	case history.FaultRestartKeep, history.FaultRestartWipe:
		return s.margin(startUp, restartThinkFloor)
	case history.FaultClockStep:
		return s.margin(startUp, defaultThink)
	case history.FaultDelay, history.FaultBlackhole:
		if !s.Leased {
			return Think{s.TTL * 5 / 2, fmt.Sprintf("%v: 2.5 × the %v TTL, the holder's section outlasts its lease while its link is cut", s.TTL*5/2, s.TTL)}
		}
	}
	return Think{defaultThink, fmt.Sprintf("%v: the story's default", defaultThink)}
}

// margin is StoryThink's rule for the stories whose second client must be
// granted within the first one's think: the one place it is written.
func (s Setup) margin(startUp, floor time.Duration) Think {
	want := 2*startUp + acquireRound
	t := max(floor, want)
	why := fmt.Sprintf("2 × start-up %v + an acquire round %v", startUp.Round(time.Millisecond), acquireRound)
	if t > want {
		why += fmt.Sprintf(", at least %v", floor)
	}
	hi, bound := storyThinkMax, "the story's bound, within the run's timeout"
	switch lease := s.TTL * 3 / 4; {
	case s.Leased && lease < hi:
		hi, bound = lease, fmt.Sprintf("3/4 of the %v lease: a longer section outlives it with no fault", s.TTL)
	case !s.Leased && s.Renewed:
		hi, bound = floor, "a session its client renews: after a restart the renewals wait for the client to reconnect, and a longer section outlives the lease with the restart before the grant"
	}
	if t > hi {
		t = hi
		why += fmt.Sprintf(", at most %v (%s)", hi, bound)
	}
	return Think{t, fmt.Sprintf("%v: %s", t, why)}
}

// behindProxies puts d's servers behind per-client proxies: each client
// dials its own (Network.LockAddrs), and the deployment gets the delay
// and blackhole faults. The store's links (StoreAddrs, the register) stay
// direct: the stale write must reach the resource. d.Close, if any, is
// kept and runs after the proxies close.
func behindProxies(d *Deployment) *Deployment {
	var ups []string
	for _, s := range d.Servers {
		ups = append(ups, s.Addr())
	}
	links := nemesis.NewClientLinks(ups)
	before := d.Close
	d.LockAddrs = nil
	d.Network = links
	d.Close = func() error {
		err := links.Close()
		if before != nil {
			err = errors.Join(err, before())
		}
		return err
	}
	return d
}
