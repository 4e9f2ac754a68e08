package sim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/words"
	"github.com/fencelab/fencelab/trace"
)

// Focus returns the part of a recorded run's trace that tells its
// violation: the lanes that matter — the service, the resource and the
// clients the violation involves — from the moment the first of those
// clients asked for the lease it held when the violation happened, to the
// end of the trace (the resource's decision on the stale operation, see
// Runner.Record). The initial state (with the clock rates), every fault on
// a lane shown, and the violation itself are always kept. Everything else
// is elided, and marked so: each run of consecutive elided steps becomes
// one step "… n steps elided …" numbered as the first of them, so that
// every step keeps its number in the run; the clients not shown are named
// in the title. A trace without a violation (a stall) is returned whole.
func Focus(t *trace.Trace) *trace.Trace {
	v := t.Violation
	if v == nil || len(t.Steps) == 0 {
		return t
	}
	kept := map[string]bool{}
	for _, lane := range t.Lanes {
		if !isClientLane(lane) || slices.Contains(v.Involved, lane) {
			kept[lane] = true
		}
	}
	var dropped []string
	for _, lane := range t.Lanes {
		if !kept[lane] {
			dropped = append(dropped, lane)
		}
	}
	// Each shown client's part of the story: from the acquire that won it
	// the lease it held at the violation, to its release after the
	// violation (the stale holder's goes on to the end: its operation is
	// what the trace continues for).
	from, to := storyBounds(t, v)
	start := v.Step
	for _, s := range from {
		start = min(start, s)
	}
	// Every involved client's part starts with the story: the later
	// holder's sections while the earlier one is paused are what the
	// stale operation overwrites. Its asks that were refused are not.
	for lane := range from {
		from[lane] = start
	}
	refused := refusedAsks(t)
	// The clients a step touches: the one that acted, and those it sent
	// to or received from.
	touches := map[int][]string{}
	for _, a := range t.Arrows {
		for _, lane := range []string{a.From, a.To} {
			if isClientLane(lane) {
				touches[a.Sent] = append(touches[a.Sent], lane)
				if a.Received > 0 {
					touches[a.Received] = append(touches[a.Received], lane)
				}
			}
		}
	}
	keep := func(s trace.Step) bool {
		switch {
		case s.Number == 1 || s.Number == v.Step:
			return true
		case !kept[s.Actor]:
			return false
		case strings.HasSuffix(s.Action, "(fault)") || s.Action == "resumed":
			return true
		case s.Number < start, refused[s.Number]:
			return false
		}
		lanes := touches[s.Number]
		if isClientLane(s.Actor) {
			lanes = append(lanes, s.Actor)
		}
		for _, lane := range lanes {
			if !kept[lane] || s.Number < from[lane] || s.Number > to[lane] {
				return false
			}
		}
		return true
	}
	out := &trace.Trace{Title: t.Title, Source: t.Source, Timed: t.Timed, Violation: v}
	for _, lane := range t.Lanes {
		if kept[lane] {
			out.Lanes = append(out.Lanes, lane)
		}
	}
	shown := map[int]bool{}
	elided := 0
	flush := func(first, n int, at trace.Step) {
		if n == 0 {
			return
		}
		word := "steps"
		if n == 1 {
			word = "step"
		}
		out.Steps = append(out.Steps, trace.Step{Number: first, At: at.At, Action: fmt.Sprintf("… %d %s elided …", n, word)})
	}
	first, run := 0, 0
	var firstStep trace.Step
	for _, s := range t.Steps {
		if !keep(s) {
			if run == 0 {
				first, firstStep = s.Number, s
			}
			run++
			elided++
			continue
		}
		flush(first, run, firstStep)
		run = 0
		s.Changes = slices.DeleteFunc(slices.Clone(s.Changes), func(c trace.Change) bool {
			lane, _, _ := strings.Cut(c.Path, ".")
			return isClientLane(lane) && !kept[lane]
		})
		out.Steps = append(out.Steps, s)
		shown[s.Number] = true
	}
	flush(first, run, firstStep)
	for _, a := range t.Arrows {
		if kept[a.From] && kept[a.To] && shown[a.Sent] && (a.Received == 0 || shown[a.Received]) {
			out.Arrows = append(out.Arrows, a)
		}
	}
	for _, n := range t.Notes {
		if kept[n.Lane] && shown[n.Step] {
			out.Notes = append(out.Notes, n)
		}
	}
	var what []string
	if elided > 0 {
		what = append(what, fmt.Sprintf("%d of %s elided", elided, words.Count(len(t.Steps), "step")))
	}
	if len(dropped) > 0 {
		what = append(what, "not involved, not shown: "+strings.Join(dropped, ", "))
	}
	if len(what) > 0 {
		out.Title += " (" + strings.Join(what, "; ") + ")"
	}
	return out
}

// storyBounds is, for each client violation v involves, the steps its
// part of the story spans: from the acquire that won it the lease it held
// at v (or the grant, or the belief, where the trace lacks the earlier
// step; 1 if it held no lease) to the release it sent after v (the end of
// the trace if none: the stale holder's operation comes after).
func storyBounds(t *trace.Trace, v *trace.Violation) (from, to map[string]int) {
	from, to = map[string]int{}, map[string]int{}
	last := t.Steps[len(t.Steps)-1].Number
	for _, lane := range v.Involved {
		if !isClientLane(lane) {
			continue
		}
		from[lane], to[lane] = 1, last
		believed := 0
		for _, s := range t.Steps {
			if s.Number > v.Step {
				break
			}
			for _, c := range s.Changes {
				if c.Path == lane+".holds" && c.New == "true" {
					believed = s.Number
				}
			}
		}
		if believed > 0 {
			from[lane] = believed
			if g, ok := sentTo(t, lane, believed); ok {
				from[lane] = g
				if a, ok := sentFrom(t, lane, g); ok {
					from[lane] = a
				}
			}
		}
		for _, a := range t.Arrows {
			if a.From == lane && a.Sent > v.Step && strings.HasPrefix(a.Label, "Release") {
				to[lane] = min(to[lane], a.Sent)
			}
		}
	}
	return from, to
}

// refusedAsks are the steps of acquires the service refused: the backoff
// timer that sent one, the service's refusal, and the client's receipt of
// it — a client waiting its turn, which a picture need not show.
func refusedAsks(t *trace.Trace) map[int]bool {
	refused := map[int]bool{}
	action := map[int]string{}
	for _, s := range t.Steps {
		action[s.Number] = s.Action
	}
	for _, a := range t.Arrows {
		if !strings.HasPrefix(a.Label, "Acquire") || a.Received == 0 {
			continue
		}
		for _, b := range t.Arrows {
			if b.Sent == a.Received && b.From == a.To && b.To == a.From && strings.HasPrefix(b.Label, "Reject") {
				refused[a.Received] = true
				if b.Received > 0 {
					refused[b.Received] = true
				}
				if strings.HasPrefix(action[a.Sent], "backoff timer fired") {
					refused[a.Sent] = true
				}
			}
		}
	}
	return refused
}

// sentTo is the step that sent the message lane received at step.
func sentTo(t *trace.Trace, lane string, step int) (int, bool) {
	for _, a := range t.Arrows {
		if a.To == lane && a.Received == step {
			return a.Sent, true
		}
	}
	return 0, false
}

// sentFrom is the step at which lane sent the message received at step.
func sentFrom(t *trace.Trace, lane string, step int) (int, bool) {
	for _, a := range t.Arrows {
		if a.From == lane && a.Received == step {
			return a.Sent, true
		}
	}
	return 0, false
}

// isClientLane reports whether a lane is a client's: c1, c2, ...
func isClientLane(lane string) bool {
	n, err := impl.ParseNodeID(lane)
	return err == nil && n.IsClient()
}
