package explore

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/words"
)

// goals are the witnesses a run of design d looks for
// (impl.Witnesses, "sometimes" properties), in report order: every
// design's two, then the restart rows' and the renewing rows' own. A goal
// is a state the search looks for, like a violation, but whose reaching is
// good news; each is named as TLC's invariant that negates it, which a
// witness model is expected to violate. Every run looks for its goals, and
// a holds verdict counts only once they are reached. They are symmetric
// in the clients, so a search under symmetry finds them at the same depth.
func goals(d impl.Design) []impl.Property { return impl.Witnesses(d) }

// RoutineClients is the largest model of design d that the demo and
// fencelab conform explore routinely. The renewing rows stop at 2 clients:
// their renewal timer, renewal and answer in flight multiply each client's
// states (about 23 times off's with 2 clients), and with 3 clients the
// search is 30 million states, nine minutes where the whole demo has three
// (renewal, measured once on 2 shared cores: 30,176,039 states, off's
// verdicts and shortest traces). fencelab explore --clients 3 still runs
// them.
func RoutineClients(d impl.Design) int {
	if d.Renews() {
		return 2
	}
	return impl.MaxClients
}

// GoalNames lists the witnesses the runs of any design look for, each
// once, in report order.
func GoalNames() []string {
	var names []string
	for _, d := range impl.Designs() {
		for _, g := range goals(d) {
			if !slices.Contains(names, g.Name) {
				names = append(names, g.Name)
			}
		}
	}
	return names
}

// Witness is what a run found about one goal: Reached, with the shortest
// path to a first state that reaches it; or not, over the whole state
// space (Complete) or over the part of it a stopped search explored.
type Witness struct {
	Goal string
	// What says in words what the goal's state is.
	What    string
	Reached bool
	// Complete is true when the search explored every reachable state: a
	// goal not reached is then unreachable.
	Complete bool
	// Unreachable, when set, says why the design is expected never to
	// reach the goal (impl.Design.Starves).
	Unreachable string
	// Shortest is the number of actions of the shortest path to the goal
	// when Reached; Path is that path's action indices.
	Shortest int
	Path     []int
}

// Steps is the length of the path to the goal as the tables count steps
// (verdict.Verdict.Steps): the initial state is step 1. 0 when not Reached.
func (w Witness) Steps() int {
	if !w.Reached {
		return 0
	}
	return w.Shortest + 1
}

// Vacuous is true when a complete search did not reach a goal the design
// is meant to reach: every invariant then holds of a model in which that
// goal never happens.
func (w Witness) Vacuous() bool { return !w.Reached && w.Complete && w.Unreachable == "" }

// Contradicts is true when the design reached a goal it is expected never
// to reach.
func (w Witness) Contradicts() bool { return w.Reached && w.Unreachable != "" }

func (w Witness) String() string {
	switch {
	case w.Contradicts():
		return fmt.Sprintf("reached (shortest %s), expected unreachable", words.Count(w.Steps(), "step"))
	case w.Reached:
		return fmt.Sprintf("reached (shortest %s)", words.Count(w.Steps(), "step"))
	case w.Complete && w.Unreachable != "":
		return "not reached, as expected"
	case w.Complete:
		return "not reached"
	}
	return "unknown (the search stopped early)"
}

// Unreached names the goals a complete search did not reach ("" when
// every goal was reached or the search stopped early).
func (r *Result) Unreached() string {
	var names []string
	for _, w := range r.Witnesses {
		if w.Vacuous() {
			names = append(names, w.Goal)
		}
	}
	return strings.Join(names, " and ")
}

// checkWitness replays path from the initial state and checks that its
// last state reaches g: a witness the Go system does not reach would be a
// lie.
func checkWitness(m *sysModel, g impl.Property, path []int) error {
	s := m.New()
	for _, i := range path {
		m.apply(s, i)
	}
	if !g.Goal(s) {
		return fmt.Errorf("replayed %s witness ends in a state that does not reach it: %s", g.Name, s.Sys)
	}
	return nil
}
