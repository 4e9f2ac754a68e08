package impl

import (
	"fmt"
	"strings"

	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/verdict"
)

// The properties of DESIGN.md, each written once over the global state and
// used by every runtime.
const (
	AtMostOneClientHoldLock = "AtMostOneClientHoldLock"
	TokenIsMonotonical      = "TokenIsMonotonical"
	NoLostUpdate            = "NoLostUpdate"
)

// Breach says why an invariant does not hold in a state.
type Breach struct {
	Involved    []NodeID
	Explanation string
}

// Invariant is a property that must hold in every state.
type Invariant struct {
	Name string
	// Check returns nil when the property holds in s.
	Check func(s *System) *Breach
}

// AppliesTo reports whether inv is meaningful for design d: DESIGN.md's
// table does not show "—" for it (NotApplicableWhy says why it does).
func (inv Invariant) AppliesTo(d Design) bool { return Expected(d, inv.Name) != verdict.NotApplicable }

// Invariants lists every property in DESIGN.md's order.
func Invariants() []Invariant {
	return []Invariant{
		{Name: AtMostOneClientHoldLock, Check: atMostOneClientHoldsLock},
		{Name: TokenIsMonotonical, Check: tokenIsMonotonical},
		{Name: NoLostUpdate, Check: noLostUpdate},
	}
}

// invariantIndex is the index of the named property in Invariants, -1 if
// there is none.
func invariantIndex(name string) int {
	switch name {
	case AtMostOneClientHoldLock:
		return 0
	case TokenIsMonotonical:
		return 1
	case NoLostUpdate:
		return 2
	}
	return -1
}

// InvariantNames lists the properties' names.
func InvariantNames() []string {
	var names []string
	for _, inv := range Invariants() {
		names = append(names, inv.Name)
	}
	return names
}

// LookupInvariant finds a property by name.
func LookupInvariant(name string) (Invariant, error) {
	for _, inv := range Invariants() {
		if inv.Name == name {
			return inv, nil
		}
	}
	return Invariant{}, fmt.Errorf("unknown invariant %s (want one of %s)", quote.Q(name), strings.Join(InvariantNames(), ", "))
}

// atMostOneClientHoldsLock: no two distinct clients believe they hold the
// lock at once. It is about beliefs, which fencing does not change.
func atMostOneClientHoldsLock(s *System) *Breach {
	// Counted first: the check runs after every step that makes a holder,
	// and a single holder needs no list.
	n := 0
	for i := range s.Clients {
		if s.Clients[i].holds {
			n++
		}
	}
	if n < 2 {
		return nil
	}
	holders := make([]NodeID, 0, n)
	for i := range s.Clients {
		if s.Clients[i].holds {
			holders = append(holders, s.Clients[i].id)
		}
	}
	names := make([]string, len(holders))
	for i, h := range holders {
		names[i] = h.String()
	}
	all := "both"
	if len(names) > 2 {
		all = "all"
	}
	return &Breach{Involved: holders, Explanation: fmt.Sprintf("%s %s believe they hold the lock", strings.Join(names, " and "), all)}
}

// tokenIsMonotonical: the tokens of the operations the resource accepted,
// in acceptance order, never decrease. Unlike seed 000's version, which
// only the client's own check could falsify, this is about what the
// resource accepted, so a resource that ignores tokens breaks it.
func tokenIsMonotonical(s *System) *Breach {
	var last Op
	seen := false
	for _, op := range s.Resource.log {
		if !op.Accepted {
			continue
		}
		if seen && op.Token < last.Token {
			return &Breach{
				Involved:    distinct(last.Client, op.Client),
				Explanation: fmt.Sprintf("the resource accepted %s after %s", op, last),
			}
		}
		last, seen = op, true
	}
	return nil
}

// noLostUpdate: the counter always equals the number of writes the resource
// accepted. Checked in every state, this means the k-th accepted write wrote
// k, i.e. no critical section's write was based on a stale read.
func noLostUpdate(s *System) *Breach {
	var writes int64
	var prev *Op
	var stale *Op
	for i := range s.Resource.log {
		op := &s.Resource.log[i]
		if !op.Accepted || op.Kind != OpWrite {
			continue
		}
		writes++
		if stale == nil && op.Value != writes {
			stale = op
			break
		}
		prev = op
	}
	if stale == nil && s.Resource.counter == writes {
		return nil
	}
	if stale == nil { // the counter changed other than by an accepted write: impossible by construction
		return &Breach{Explanation: fmt.Sprintf("the counter is %d after %d accepted writes", s.Resource.counter, writes)}
	}
	b := &Breach{Involved: []NodeID{stale.Client}}
	if prev != nil {
		b.Involved = distinct(prev.Client, stale.Client)
		b.Explanation = fmt.Sprintf("%s wrote %d over %s's %d: an update was lost", stale.Client, stale.Value, prev.Client, prev.Value)
	} else {
		b.Explanation = fmt.Sprintf("%s wrote %d as the first write: an update was lost", stale.Client, stale.Value)
	}
	return b
}

func distinct(a, b NodeID) []NodeID {
	if a == b {
		return []NodeID{a}
	}
	return []NodeID{a, b}
}
