package story

import (
	"fmt"
	"strings"
	"time"

	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/nemesis"
)

// Text tells the derivation for a person: the model's trace, step by
// step, then the live schedule each part maps to, with ttl the setup's
// lease (for the lengths).
func (s Story) Text(ttl time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Story of %s in row %s: the explorer's shortest counterexample (2 clients, 1 section), mapped onto a live run.\n\n", s.Property, s.Design)
	b.WriteString("Model trace:\n")
	for i, st := range s.Steps {
		var marks []string
		if st.N == s.Loss {
			marks = append(marks, s.Stale+"'s grant is lost")
		}
		if i == len(s.Steps)-1 {
			marks = append(marks, s.Property+" violated")
		}
		mark := ""
		if len(marks) > 0 {
			mark = "   <- " + strings.Join(marks, "; ")
		}
		fmt.Fprintf(&b, "  %3d  %-9s %s%s\n", st.N, st.Actor, st.Action, mark)
	}
	if s.Violation != "" {
		fmt.Fprintf(&b, "  %s\n", s.Violation)
	}
	b.WriteString("\nLive schedule:\n")
	for i, line := range s.liveLines(ttl) {
		fmt.Fprintf(&b, "  %d. %s\n", i+1, line)
	}
	return b.String()
}

// liveLines is the live schedule in words.
func (s Story) liveLines(ttl time.Duration) []string {
	var ls []string
	ls = append(ls, fmt.Sprintf("Trigger: the stale holder (the model's %s: the run's first client to get there) is stopped %s.", s.Stale, s.Point))
	sc := s.Schedule(nemesis.ScheduleParams{Clients: 2, TTL: ttl})
	e := sc.Events[0]
	if op := nemesis.GateOf(e.Trigger); op != "" {
		ls = append(ls, fmt.Sprintf("The clients wait at a gate after their %s's validity check, its call recorded; the nemesis holds this one's gate shut. Its check was in time: NoActionPastValidity holds.", op))
	}
	until := "for " + e.For.String() + " (3 TTL: the other is granted meanwhile)"
	if e.Until != "" {
		until = fmt.Sprintf("until %s (at most %v, 4 TTL)", untilWords(s.Until, s.Other), limit(ttl))
	}
	switch s.Fault {
	case history.FaultClientPause:
		ls = append(ls, fmt.Sprintf("Fault %s: SIGSTOP its process group %s — its lease (TTL %v) ends at the service while it is stopped (the model's step %d: %s).", s.Fault, until, ttl, s.Loss, actLeaseExpired))
		ls = append(ls, "Then SIGCONT"+gateWords(e.Trigger)+".")
	default:
		ls = append(ls, fmt.Sprintf("Fault %s: the service is killed and restarted at once (the model's step %d: %s)%s.", s.Fault, s.Loss, actRestart, restartWords(s.Fault)))
		if nemesis.GateOf(e.Trigger) != "" {
			ls = append(ls, fmt.Sprintf("Its gate stays shut %s; then it opens.", strings.Replace(until, "(at most", "(at most", 1)))
		}
	}
	switch s.Lands {
	case history.OpWrite:
		ls = append(ls, fmt.Sprintf("Its stale write lands after %s; then %s writes what it read: %s.", untilWords(s.Until, s.Other), orOther(s.Other), s.Property+" is what the row's model says is violated"))
	case history.OpRead:
		ls = append(ls, fmt.Sprintf("Its stale read lands after %s: %s.", untilWords(s.Until, s.Other), s.Property+" is what the row's model says is violated"))
	default:
		ls = append(ls, fmt.Sprintf("Nothing of its own needs to land: %s is violated once %s.", s.Property, afterWords(s)))
	}
	return ls
}

func untilWords(until, other string) string {
	switch until {
	case nemesis.UntilOtherRead:
		return orOther(other) + " had a read accepted"
	case nemesis.UntilOtherGrant:
		return orOther(other) + " was granted"
	}
	return "the fault"
}

func orOther(other string) string {
	if other == "" {
		return "the other client"
	}
	return "the other client (the model's " + other + ")"
}

func gateWords(trigger string) string {
	if op := nemesis.GateOf(trigger); op != "" {
		return ", then the nemesis opens its gate: its " + op + " is sent"
	}
	return ": it goes on where it stopped"
}

func restartWords(f history.Fault) string {
	if f == history.FaultRestartWipe {
		return ", its data wiped: it forgets the holder and its token counter"
	}
	return ", its data kept: it forgets the holder"
}

func afterWords(s Story) string {
	if s.Until == "" {
		return "the grant is lost"
	}
	return untilWords(s.Until, s.Other)
}

// Classic is the text of a scripted run that keeps fault f's classic
// story, and why.
func Classic(f history.Fault, why string) string {
	return fmt.Sprintf("The classic story of %s: one %s right after the run's first accepted read, aimed at its reader (nemesis.ScriptedSchedule), because %s.\n", f, f, why)
}
