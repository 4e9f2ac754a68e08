package report

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/check"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/run"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/fencelab/fencelab/sim"
	"github.com/fencelab/fencelab/verdict"
)

// The simulator's version of a live run: a fault schedule that
// `fencelab sim --schedule` reads, telling the run's story in the
// simulator (sim/faults.go's fault model), and the command that runs it.
const (
	SimScheduleFile = "sim-schedule.json"
	SimCommandFile  = "sim-command.txt"
)

// SimStory is a live run's story told to the simulator.
type SimStory struct {
	// Config is the simulator's configuration the command line gives:
	// sim.DefaultConfig with the row's design and the run's clients and
	// sections.
	Config   sim.Config
	Schedule *sim.Schedule
	// Command is the fencelab command line that runs it, with the
	// schedule's file name relative to the saved run's folder.
	Command string
	// Result is the simulator's run of it.
	Result sim.Result
	// Mapped says, fault by fault, where each went.
	Mapped []string
}

// simSeeds bounds the search for a seed whose run without faults lets the
// same client read first as in the live run.
const simSeeds = 256

// TellSim maps a live run's faults onto the simulator's fault model: each
// fault at the point of the story where it struck, not at its wall time —
// a live section (a real think time, real round trips) and a simulated
// one (20 ms of think, a millisecond a message) take different times, and
// what makes the story is where in a client's section a fault lands. A
// fault that struck during client c's think after its k-th accepted read
// lands, in the simulator, in the middle of c's think after its k-th
// accepted read (found by running the simulator on the faults placed so
// far); its length is scaled by the simulator's TTL over the live TTL
// (a pause of 3 live TTLs is a pause of 3 simulated TTLs). A client pause
// is a pause of that client; a clock step of the service a jump of the
// service's clock; a kill and restart a crash of the service in the rows
// whose service restarts. The seed is the first (from 1) whose run
// without faults has the live run's first reader read first, so that
// the story's holder is the same client.
//
// A run whose faults do not map gets an error saying why (a fault that is
// not one of those, a fault outside a think window, a run with no fault);
// nothing is written for it then.
func TellSim(rc run.Config, res *run.Result) (*SimStory, error) {
	h := res.History
	if h == nil || len(h.Faults) == 0 {
		return nil, errors.New("no fault was injected")
	}
	scheduled := len(res.Schedule.Events)
	for _, e := range res.Schedule.Events {
		if e.Isolate > 0 {
			scheduled++ // the reader's cut links, a blackhole of their own
		}
	}
	if scheduled != len(h.Faults) {
		return nil, fmt.Errorf("%d faults logged of %d scheduled (the run ended before the rest)", len(h.Faults), scheduled)
	}
	scale := func(d time.Duration) time.Duration { return simScale(d, rc.Setup.TTL) }
	runner, err := simRunner(rc.Setup.Design, rc.Clients, rc.Sections, simThink(rc.Think, rc.Setup.TTL))
	if err != nil {
		return nil, err
	}
	c := runner.Config()

	type placed struct {
		anchor thinkAnchor
		fault  sim.Fault
		what   string
		// into is how far into the think the fault lands in the
		// simulator; -1: the middle.
		into time.Duration
	}
	var story []placed
	for i, f := range h.Faults {
		if f.Error != "" {
			return nil, fmt.Errorf("fault %d (%s) failed: %s", i+1, f.Fault, f.Error)
		}
		ev := res.Schedule.Events[i]
		p := placed{into: -1}
		var ok bool
		switch f.Fault {
		case history.FaultClientPause:
			client := clientIndex(f.Target, h.Clients)
			if client < 0 {
				return nil, fmt.Errorf("fault %d: no client %.20q", i+1, f.Target)
			}
			if p.anchor, ok = thinkAt(h, f.Start, client); !ok {
				return nil, fmt.Errorf("fault %d: %s was paused outside its think time (a pause there has no place in the simulated section)", i+1, f.Target)
			}
			p.fault = sim.Fault{Kind: sim.FaultPause, Node: impl.ClientNode(client), Duration: scale(time.Duration(f.End - f.Start))}
		case history.FaultClockStep:
			if p.anchor, ok = thinkAt(h, f.Start, -1); !ok {
				return nil, fmt.Errorf("fault %d: the clock stepped while no client thought", i+1)
			}
			p.fault = sim.Fault{Kind: sim.FaultJump, Node: impl.ServiceNode, By: scale(ev.For)}
		case history.FaultRestartKeep, history.FaultRestartWipe:
			if c.Design.Restart() == impl.NoRestart {
				return nil, fmt.Errorf("fault %d: row %s's service never restarts in the simulator (only the restart rows' does)", i+1, c.Design)
			}
			if p.anchor, ok = thinkAt(h, f.Start, -1); !ok {
				return nil, fmt.Errorf("fault %d: the service restarted while no client thought", i+1)
			}
			// Where the restart falls in the holder's think, and whether
			// the service is back before the think ends, is its story.
			p.into = scale(time.Duration(f.Start - p.anchor.since))
			p.fault = sim.Fault{Kind: sim.FaultCrash, Node: impl.ServiceNode, Duration: scale(time.Duration(f.End - f.Start))}
		default:
			return nil, fmt.Errorf("fault %d: %s", i+1, unmappedWhy(f.Fault))
		}
		p.what = fmt.Sprintf("live %s of %s in %s's think after its read %d (%v after the start)",
			f.Fault, f.Target, history.ClientName(p.anchor.client), p.anchor.read+1, time.Duration(f.Start-h.Start).Round(time.Millisecond))
		story = append(story, p)
	}

	// The seed: the live run's first reader reads first in the simulator
	// too.
	seed := uint64(1)
	if first := firstAcceptedRead(h); first >= 0 {
		for s := uint64(1); s <= simSeeds; s++ {
			runner.Run(&sim.Schedule{Version: sim.ScheduleVersion, Seed: s})
			if r, ok := simRead(runner.History(), -1, 0); ok && r.Client == first {
				seed = s
				break
			}
		}
	}
	sched := &sim.Schedule{Version: sim.ScheduleVersion, Seed: seed, Faults: []sim.Fault{}}
	st := &SimStory{Config: c}
	for i, p := range story {
		runner.Run(sched)
		r, ok := simRead(runner.History(), p.anchor.client, p.anchor.read)
		if !ok {
			return nil, fmt.Errorf("fault %d: in the simulator %s never reads a %d. time", i+1, history.ClientName(p.anchor.client), p.anchor.read+1)
		}
		into := p.into
		if into < 0 {
			into = c.Think / 2
		}
		p.fault.At = time.Duration(r.Return) + into
		sched.Faults = append(sched.Faults, p.fault)
		st.Mapped = append(st.Mapped, fmt.Sprintf("%s -> sim: %s at %v", p.what, p.fault, p.fault.At))
	}
	if err := sched.Validate(c); err != nil {
		return nil, fmt.Errorf("the simulator's schedule: %w", err)
	}
	st.Schedule = sched
	st.Result = runner.Run(sched)
	st.Command = fmt.Sprintf("fencelab sim --design %s --clients %d --sections %d --think %v --schedule %s", c.Design, c.Clients, c.Sections, c.Think, SimScheduleFile)
	return st, nil
}

// simScale is a live length d in the simulator's time: scaled by its TTL
// over the live one (a pause of 3 live TTLs is a pause of 3 simulated
// TTLs), to the millisecond, within the simulator's bounds of a fault.
func simScale(d, liveTTL time.Duration) time.Duration {
	s := time.Duration(float64(d) * float64(sim.DefaultConfig().TTL) / float64(liveTTL)).Round(time.Millisecond)
	return min(max(s, time.Millisecond), sim.MaxFaultLength)
}

// simThink is the simulator's think for a live run's: it keeps its share
// of the TTL, for where a fault falls in a think, and whether another
// client is granted before it ends, is the story. 0 (the simulator's
// default) where the live think or TTL is not known.
func simThink(liveThink, liveTTL time.Duration) time.Duration {
	if liveThink <= 0 || liveTTL <= 0 {
		return 0
	}
	return simScale(liveThink, liveTTL)
}

// simRunner is the simulator the story is told to: sim.DefaultConfig
// with the row's design, the run's clients and sections and think (0:
// the default's), what sim-command.txt's command line gives.
func simRunner(d impl.Design, clients, sections int, think time.Duration) (*sim.Runner, error) {
	c := sim.DefaultConfig()
	c.Design, c.Clients, c.Sections = d, clients, sections
	if think > 0 {
		c.Think = think
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("the simulator's configuration: %w", err)
	}
	return sim.NewRunner(c)
}

// ModelProperties are the properties the simulator's story gives the
// model's word on: the verdict table's invariants the live judge decides
// (impl.Invariants). The others keep the row's word: the Porcupine checks
// are run on a simulated history only on request, and
// NoActionPastValidity is about the live client itself (the unchecked
// client is not the models' client there).
func ModelProperties(judged []string) []string {
	var ps []string
	for _, inv := range impl.Invariants() {
		if slices.Contains(judged, inv.Name) {
			ps = append(ps, inv.Name)
		}
	}
	return ps
}

// Violated are the properties of ModelProperties(judged) the simulator
// violated on the story.
func (st *SimStory) Violated(judged []string) []string {
	return violatedOf(&st.Result, judged)
}

func violatedOf(r *sim.Result, judged []string) []string {
	vs := []string{}
	for _, p := range ModelProperties(judged) {
		if r.Violated(p) {
			vs = append(vs, p)
		}
	}
	return vs
}

// RetellSim runs the simulator on a saved story (the schedule TellSim
// made, for a run of row d with that many clients, sections and think)
// and
// returns the properties of ModelProperties(judged) it violates: the
// model's word recomputed, never read from a file. A schedule the
// simulator would refuse is an error.
func RetellSim(d impl.Design, clients, sections int, think time.Duration, sched *sim.Schedule, judged []string) ([]string, error) {
	if sched == nil {
		return nil, errors.New("no schedule")
	}
	runner, err := simRunner(d, clients, sections, think)
	if err != nil {
		return nil, err
	}
	if err := sched.Validate(runner.Config()); err != nil {
		return nil, fmt.Errorf("the simulator's schedule: %w", err)
	}
	r := runner.Run(sched)
	return violatedOf(&r, judged), nil
}

// StoryCaveat says why the simulator's story of a run of s under f is
// not the live client's own, "" when it is. The simulator's client pause
// is Kleppmann's, after the client's check: its validity timer waits out
// the pause with it, so it acts on resuming, as the unchecked live client
// does. The checked client of a lease with a fixed end checks its own
// clock on resuming and gives the section up: the story's violations are
// the unchecked client's, an upper bound for this one, never its
// expected verdict.
func StoryCaveat(s setup.Setup, f history.Fault) string {
	if f == history.FaultClientPause && s.Leased && !s.Unchecked {
		return "the simulator's paused client is the unchecked one (its validity timer waits out the pause); this client checks its clock on resuming"
	}
	return ""
}

// unmappedWhy says why a fault has no counterpart in the simulator.
func unmappedWhy(f history.Fault) string {
	switch f {
	case history.FaultServerPause:
		return "a server pause does not map: a stopped live server also stops its clients' connections, which the libraries time out and redial, and how long a live lease outlives the pause depends on the server's own expiry loop; the simulator's paused service only queues messages"
	case history.FaultDelay, history.FaultBlackhole:
		return "a delay or blackhole of a client's links does not map: it holds every message of a connection for a while (and a blackhole breaks it), while the simulator's spike delays one message"
	case history.FaultNone:
		return "no fault"
	}
	return fmt.Sprintf("%s has no counterpart in the simulator", f)
}

// thinkAnchor is a point of a live story: client's think after its
// read-th accepted read (0-based), which returned at since (wall).
type thinkAnchor struct {
	client, read int
	since        int64
}

// thinkAt finds the client thinking at wall: between an accepted read's
// return and the following write's call (client < 0: any client; the
// latest read wins).
func thinkAt(h *history.History, wall int64, client int) (thinkAnchor, bool) {
	best, bestWall := thinkAnchor{}, int64(-1)
	reads := make([]int, h.Clients)
	lastRead := make([]int64, h.Clients) // the open think's read return, or -1
	for i := range lastRead {
		lastRead[i] = -1
	}
	check := func(c int) {
		if lastRead[c] >= 0 && lastRead[c] <= wall && (client < 0 || client == c) && lastRead[c] > bestWall {
			best, bestWall = thinkAnchor{client: c, read: reads[c] - 1, since: lastRead[c]}, lastRead[c]
		}
	}
	for _, r := range h.Records {
		if r.Client < 0 || r.Client >= h.Clients {
			continue
		}
		switch {
		case r.Op == history.OpRead && r.Ev == history.Return && r.OK:
			if r.Wall > wall {
				continue
			}
			reads[r.Client]++
			lastRead[r.Client] = r.Wall
		case r.Op == history.OpWrite && r.Ev == history.Call && lastRead[r.Client] >= 0:
			if r.Wall > wall { // the think was still on at wall
				check(r.Client)
			}
			lastRead[r.Client] = -1
		}
	}
	for c := range h.Clients {
		check(c) // a think that never ended in a write
	}
	return best, bestWall >= 0
}

// firstAcceptedRead is the client whose read was accepted first (-1: none).
func firstAcceptedRead(h *history.History) int {
	for _, r := range h.Records {
		if r.Op == history.OpRead && r.Ev == history.Return && r.OK {
			return r.Client
		}
	}
	return -1
}

// simReadAt is an accepted read in a simulated run: its client and when
// its reply reached the client (virtual nanoseconds).
type simReadAt struct {
	Client int
	Return int64
}

// simRead finds client's n-th accepted read (0-based) in a simulated run,
// in the order the reads returned (client < 0: any client's).
func simRead(h *sim.History, client, n int) (simReadAt, bool) {
	var reads []simReadAt
	for _, o := range h.Ops {
		if o.Kind == impl.OpRead && o.Accepted && o.Return > 0 && (client < 0 || o.Client == client) {
			reads = append(reads, simReadAt{Client: o.Client, Return: o.Return})
		}
	}
	slices.SortStableFunc(reads, func(a, b simReadAt) int { return cmp.Compare(a.Return, b.Return) })
	if n >= len(reads) {
		return simReadAt{}, false
	}
	return reads[n], true
}

func clientIndex(name string, clients int) int {
	for c := range clients {
		if history.ClientName(c) == name {
			return c
		}
	}
	return -1
}

// writeSimCommand writes sim-command.txt: what the saved schedule is and
// the command that runs it.
func (st *SimStory) writeSimCommand(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# The simulator's version of this run's story (%s), placed at the same\n", SimScheduleFile)
	b.WriteString("# points of the clients' sections on the simulator's own timing, lengths\n")
	b.WriteString("# and the think scaled by its TTL over the live one. Run it from this folder:\n")
	fmt.Fprintf(&b, "%s\n", st.Command)
	for _, m := range st.Mapped {
		fmt.Fprintf(&b, "# %s\n", m)
	}
	var vs []string
	for _, inv := range impl.Invariants() {
		status := "holds"
		if !inv.AppliesTo(st.Config.Design) {
			status = "does not apply"
		} else if st.Result.Violated(inv.Name) {
			status = "violated"
		}
		vs = append(vs, inv.Name+" "+status)
	}
	fmt.Fprintf(&b, "# the simulator's verdicts: %s\n", strings.Join(vs, "; "))
	_, err := io.WriteString(w, b.String())
	return err
}

// PageVerdict is one property of a saved run as the run's page shows it:
// the row's verdict, the run's, and the simulator's on the run's own
// story ("" where the run has no story or the simulator does not decide
// the property).
type PageVerdict struct {
	Property, Expected, Live, Model string
}

// PageVerdicts reads a saved run's verdicts (the bytes of VerdictsFile)
// and, where the run has them, JudgedFile and SimScheduleFile, and gives
// each property's verdicts for the run's page. The simulator's are
// recomputed by running it on the saved schedule (RetellSim), never read
// from a file; a schedule it refuses is an error.
func PageVerdicts(verdicts, judged, schedule []byte) ([]PageVerdict, error) {
	var sv savedVerdicts
	if err := json.Unmarshal(verdicts, &sv); err != nil {
		return nil, fmt.Errorf("%s: not a run's verdicts: %w", VerdictsFile, err)
	}
	var model []string
	told := false
	if judged != nil && schedule != nil && sv.Row != "" {
		d, err := impl.ParseDesign(sv.Row)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", VerdictsFile, err)
		}
		var sj savedJudged
		if err := json.Unmarshal(judged, &sj); err != nil {
			return nil, fmt.Errorf("%s: not a run's judged file: %w", JudgedFile, err)
		}
		think := simThink(sj.Think, sj.TTL)
		runner, err := simRunner(d, sj.Clients, sj.Sections, think)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", JudgedFile, err)
		}
		sched, err := sim.ReadSchedule(bytes.NewReader(schedule), runner.Config())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", SimScheduleFile, err)
		}
		if model, err = RetellSim(d, sj.Clients, sj.Sections, think, sched, check.Properties()); err != nil {
			return nil, fmt.Errorf("%s: %w", SimScheduleFile, err)
		}
		told = true
	}
	decides := ModelProperties(check.Properties())
	var pvs []PageVerdict
	for _, v := range sv.Verdicts {
		pv := PageVerdict{Property: v.Property, Expected: v.Expected, Live: v.Status}
		if told && slices.Contains(decides, v.Property) && v.Expected != verdict.NotApplicable.String() {
			pv.Model = verdict.Holds.String()
			if slices.Contains(model, v.Property) {
				pv.Model = verdict.Violated.String()
			}
		}
		pvs = append(pvs, pv)
	}
	return pvs, nil
}
