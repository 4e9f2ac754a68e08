// Package story derives a live fault's scripted story from the models:
// the shortest counterexample the explorer finds for a design row and a
// property the row violates (Derive), mapped onto a live schedule
// (FromTrace, Story.Schedule) — which client is stopped after which of
// its steps, until what, and what of its own lands after — and told in
// words (Story.Text). The mapping is pure; only Derive runs the explorer
// (in-process, two clients, one section, the search stopped at the first
// violation of that one property: milliseconds).
package story

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fencelab/fencelab/explore"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/nemesis"
	"github.com/fencelab/fencelab/trace"
	"github.com/fencelab/fencelab/verdict"
)

// Point is where the live story stops the stale holder: after which of
// its steps.
type Point string

// The points of a story.
const (
	AfterGrant Point = "after its grant, before its read"
	AfterRead  Point = "after its accepted read, while it thinks"
	// AtWriteGate and AtReadGate: after the validity check of its write
	// (read) passed and its call was recorded, before it is sent — the
	// models' pause, which comes after the client's check.
	AtWriteGate Point = "after its write's validity check, before the write is sent"
	AtReadGate  Point = "after its read's validity check, before the read is sent"
)

// The model's actions the mapping reads (impl's event names, as the
// explorer's traces print them).
const (
	actLeaseExpired = "lease timer fired"
	actRestart      = "restart after a crash"
	actCheck        = "think timer fired"
	resourceLane    = "resource"
)

// Story is a counterexample mapped onto a live run.
type Story struct {
	Design   impl.Design
	Property string
	// Steps are the model's counterexample, its actions in order (the
	// initial state left out); Violation says what its last state breaks.
	Steps     []Step
	Violation string
	// Stale is the model's client whose grant is lost (its lease expired
	// or the service restarted while it held it); Other the other client
	// ("" when the trace has only one).
	Stale, Other string
	// Loss is the trace's step at which the stale holder's grant is lost;
	// Restart says it is a restart of the service, not a lease's end.
	Loss    int
	Restart bool
	// Point is where the stale holder is stopped.
	Point Point
	// Until is what its stop lasts until (nemesis.UntilOtherGrant,
	// nemesis.UntilOtherRead; "" when nothing of the other's comes
	// between the loss and the violation).
	Until string
	// Lands is the stale holder's operation that lands after the other's
	// progress (history.OpWrite, history.OpRead; "" when the violation
	// needs none: two beliefs, a token handed out again).
	Lands string
	// Fault is the live fault the loss maps to.
	Fault history.Fault
}

// Preference is the order in which a row's violated properties give a
// fault its story: the one that shows the most of the stale holder (an
// update lost, then a stale operation) first.
func Preference() []string {
	return []string{impl.NoLostUpdate, impl.TokenIsMonotonical, impl.TokensAreUnique, impl.AtMostOneClientHoldLock, impl.TokensIncreaseInGrantOrder}
}

// Step is one action of the model's counterexample: its number in the
// trace, the process that acted and the action.
type Step struct {
	N             int
	Actor, Action string
}

// step is one action of the trace, what the mapping reads of it.
type step struct {
	n             int
	actor, action string
	changes       []trace.Change
}

func stepsOf(t *trace.Trace) []step {
	var ss []step
	for _, s := range t.Steps {
		if s.Actor == "" { // the initial state
			continue
		}
		ss = append(ss, step{n: s.Number, actor: s.Actor, action: s.Action, changes: s.Changes})
	}
	return ss
}

// lostHolder is the client whose grant step s takes away (a lease's end
// or a restart at a lock node), or "".
func (s step) lostHolder() string {
	if s.action != actLeaseExpired && s.action != actRestart {
		return ""
	}
	for _, c := range s.changes {
		if strings.HasSuffix(c.Path, ".lock.holder") && isClient(c.Old) {
			return c.Old
		}
	}
	return ""
}

func isClient(lane string) bool {
	return len(lane) > 1 && lane[0] == 'c' && strings.Trim(lane[1:], "0123456789") == ""
}

// Milestones of a client's section, in the order they come.
const (
	mGrant     = "grant"
	mReadLands = "read lands"
	mRead      = "read"
	mCheck     = "check"
	mWrite     = "write lands"
)

// milestone is what step s is in client c's section ("": nothing).
func (s step) milestone(c string) string {
	switch {
	case s.actor == c && strings.HasPrefix(s.action, "recv Grant"):
		return mGrant
	case s.actor == c && strings.HasPrefix(s.action, "recv ReadReply"):
		return mRead
	case s.actor == c && s.action == actCheck && slices.ContainsFunc(s.changes, func(ch trace.Change) bool {
		return ch.Path == c+".phase" && ch.New == impl.Writing.String()
	}):
		return mCheck
	case s.actor == resourceLane && strings.HasPrefix(s.action, "recv Read") && strings.HasSuffix(s.action, " from "+c):
		return mReadLands
	case s.actor == resourceLane && strings.HasPrefix(s.action, "recv Write") && strings.HasSuffix(s.action, " from "+c):
		return mWrite
	case s.actor != c && !isClient(s.actor) && s.actor != resourceLane && s.action == "recv Acquire from "+c:
		// A lock node granting (or about to): the grant's arrival may
		// be past the trace's end.
		return mGrant
	}
	return ""
}

// FromTrace maps counterexample t of property on design d onto a live
// story. It fails on a trace in which no client's grant is lost (no
// lease's end, no restart taking a holder's lock): nothing to stop.
func FromTrace(d impl.Design, property string, t *trace.Trace) (Story, error) {
	if t == nil {
		return Story{}, errors.New("no counterexample")
	}
	ss := stepsOf(t)
	st := Story{Design: d, Property: property}
	for _, s := range ss {
		st.Steps = append(st.Steps, Step{N: s.n, Actor: s.actor, Action: s.action})
	}
	if t.Violation != nil {
		st.Violation = t.Violation.Explanation
	}
	loss := slices.IndexFunc(ss, func(s step) bool { return s.lostHolder() != "" })
	if loss < 0 {
		return Story{}, fmt.Errorf("%s's counterexample for %s loses no holder's grant (no lease ends, no restart): no live story", d, property)
	}
	st.Stale, st.Loss, st.Restart = ss[loss].lostHolder(), ss[loss].n, ss[loss].action == actRestart
	for _, l := range t.Lanes {
		if isClient(l) && l != st.Stale {
			st.Other = l
			break
		}
	}
	st.Fault = history.FaultClientPause
	if st.Restart {
		st.Fault = history.FaultRestartKeep
		if d.Restart() == impl.RestartVolatile {
			st.Fault = history.FaultRestartWipe
		}
	}
	// What of the stale holder's lands after the loss: the first of its
	// operations to reach the resource; the violation's end otherwise.
	resume := len(ss)
	for i := loss + 1; i < len(ss); i++ {
		if m := ss[i].milestone(st.Stale); m == mWrite || m == mReadLands {
			resume, st.Lands = i, map[string]string{mWrite: history.OpWrite, mReadLands: history.OpRead}[m]
			break
		}
	}
	switch st.Lands {
	case history.OpWrite:
		st.Point = AtWriteGate
	case history.OpRead:
		st.Point = AtReadGate
	default:
		// Stopped after its last step before the loss.
		for i := loss - 1; i >= 0 && st.Point == ""; i-- {
			st.Point = map[string]Point{mGrant: AfterGrant, mRead: AfterRead, mCheck: AtWriteGate}[ss[i].milestone(st.Stale)]
		}
		if st.Point == "" {
			return Story{}, fmt.Errorf("%s's counterexample for %s: %s loses a grant it never received", d, property, st.Stale)
		}
	}
	// Until the other's last progress before the stale holder resumes.
	if st.Other != "" {
		for i := resume - 1; i > loss && st.Until == ""; i-- {
			switch ss[i].milestone(st.Other) {
			case mGrant:
				st.Until = nemesis.UntilOtherGrant
			case mRead, mReadLands:
				st.Until = nemesis.UntilOtherRead
			}
		}
	}
	return st, nil
}

// Derive is the story of design d for property: the explorer's shortest
// counterexample (two clients, one section, the search stopped at the
// first violation of property alone), mapped by FromTrace. It fails when
// the row's model does not call property violated.
func Derive(d impl.Design, property string) (Story, error) {
	if got := impl.Expected(d, property); got != verdict.Violated {
		return Story{}, fmt.Errorf("row %s's model does not violate %s (it %s)", d, property, got)
	}
	cfg := explore.DefaultConfig(d, 2)
	cfg.First, cfg.Invariants, cfg.Symmetry, cfg.SleepSets, cfg.Workers = true, []string{property}, true, true, 1
	cfg.MaxStates = maxStates
	res, err := explore.Run(cfg)
	if err != nil {
		return Story{}, fmt.Errorf("exploring %s for %s: %w", d, property, err)
	}
	f, ok := res.Verdict(property)
	if !ok || f.Status != verdict.Violated || f.Trace == nil {
		return Story{}, fmt.Errorf("the explorer found no counterexample of %s in row %s within %d states", property, d, maxStates)
	}
	return FromTrace(d, property, f.Trace)
}

// maxStates bounds Derive's search: every row's shortest counterexample
// for two clients is found within a few thousand states.
const maxStates = 2_000_000

// ForFault is design d's story of fault f: the first of its violated
// properties, in Preference order, whose counterexample maps onto f
// (from Table, the derivations written down); false when none does (the
// fault keeps its classic story).
func ForFault(d impl.Design, f history.Fault) (Story, bool) {
	for _, p := range Preference() {
		if st, ok := Lookup(d, p); ok && st.Fault == f {
			return st, true
		}
	}
	return Story{}, false
}

// Lookup is the story of design d for property from Table; false when the row's model does not violate it.
func Lookup(d impl.Design, property string) (Story, bool) {
	for _, st := range Table() {
		if st.Design == d && st.Property == property {
			return st, true
		}
	}
	return Story{}, false
}

// trigger is the nemesis trigger of a point.
func (p Point) trigger() string {
	switch p {
	case AtWriteGate:
		return nemesis.TriggerAtWriteGate
	case AfterGrant, AtReadGate:
		// After its grant is before its read is sent: at the read's gate,
		// where nothing is in flight. (A stop triggered by the grant's
		// record would land at a moment the harness cannot choose, often
		// inside the read, whose timeout the stop then outlasts.)
		return nemesis.TriggerAtReadGate
	}
	return nemesis.TriggerAfterRead
}

// limit bounds a stop that waits for the other's progress: the other is
// granted once the stale lease ends (a TTL at most) and reads at once;
// past four TTL the service is safe against the story (the stop ends
// anyway, the run goes on).
func limit(ttl time.Duration) time.Duration { return 4 * ttl }

// Schedule is the story's live schedule: one fault, triggered at the
// story's point on the first client to reach it (the live stale holder),
// lasting until the other's progress the story waits for.
func (s Story) Schedule(p nemesis.ScheduleParams) nemesis.Schedule {
	e := nemesis.FaultEvent{Fault: s.Fault, Trigger: s.Point.trigger(), Client: -1}
	if s.Lands != "" {
		// Its own operation must land after the other's progress, not
		// before: the stop lasts until then.
		e.Until = s.Until
	}
	switch {
	case s.Fault == history.FaultClientPause && e.Until != "":
		e.For = limit(p.TTL)
	case s.Fault == history.FaultClientPause:
		// Nothing of its own lands: the violation is the other's grant
		// while it still believes. The classic pause's length, past the
		// lease with room for the other's whole section: resuming at the
		// other's grant would race the other's first write (a store that
		// keeps the first writer's version refuses the newer holder).
		e.For = 3 * p.TTL
	default:
		// A fault of the service as long (a restart at once, a clock step
		// as far) as in its classic story; the gate holds the stale holder
		// until the other's progress when its operation must land after
		// it, and opens at once otherwise.
		if classic := nemesis.ScriptedSchedule(s.Fault, p).Events; len(classic) == 1 {
			e.For = classic[0].For
		}
		if e.Until != "" {
			e.Hold = limit(p.TTL)
		}
	}
	return nemesis.Schedule{Mode: nemesis.Scripted, Fault: s.Fault, Events: []nemesis.FaultEvent{e}}
}
