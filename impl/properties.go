package impl

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/verdict"
)

// The properties, each named as the operator of specs/*.tla that TLC
// checks. A witness ("sometimes") is named by the invariant that negates
// its goal: TLC checks that invariant and is expected to find it violated,
// which is the goal reached.
const (
	// The invariants of DESIGN.md's verdict table.
	AtMostOneClientHoldLock = "AtMostOneClientHoldLock"
	TokenIsMonotonical      = "TokenIsMonotonical"
	NoLostUpdate            = "NoLostUpdate"
	// The service-side token properties of the table: what the service
	// hands out, whatever the resource does with it. TokensAreUnique: no
	// two clients are given one token. TokensIncreaseInGrantOrder: the
	// token the service grants next is larger than every token in use.
	TokensAreUnique            = "TokensAreUnique"
	TokensIncreaseInGrantOrder = "TokensIncreaseInGrantOrder"
	// NoActionPastValidity, the client-side invariant every design keeps
	// (ClientInvariants): a client never acts on a belief past its
	// validity window.
	NoActionPastValidity = "NoActionPastValidity"
	// The witnesses.
	NoSectionCommits              = "NoSectionCommits"
	NotEveryClientCommits         = "NotEveryClientCommits"
	NoSectionCommitsAcrossRestart = "NoSectionCommitsAcrossRestart"
	NoSectionCommitsAfterRenewal  = "NoSectionCommitsAfterRenewal"
	// The liveness properties (TLC's temporal PROPERTY, under fairness).
	AllClientsFinish   = "AllClientsFinish"
	EveryClientCommits = "EveryClientCommits"
	// LockFreedAfterHolderDeath: a lock held by a client that died (no
	// release sent) is taken from it. TLC checks it on
	// specs/DistLockCrash.tla (the victim without fairness: it may stop for
	// ever); the live harness measures how soon, against the bound the
	// service documents (a lease's TTL + ε, a session's timeout + ε, ε
	// where the connection's close frees the lock: fencelab-live --fault
	// holder-death). Not a column of DESIGN.md's table.
	LockFreedAfterHolderDeath = "LockFreedAfterHolderDeath"
)

// Breach says why an invariant does not hold in a state.
type Breach struct {
	Involved    []NodeID
	Explanation string
}

// Expectation is what a property claims of the reachable states, as in
// stateright's properties: always, sometimes or eventually.
type Expectation uint8

// Expectations.
const (
	// Always: every reachable state satisfies the property (an invariant;
	// Check says why a state does not).
	Always Expectation = iota
	// Sometimes: some reachable state reaches the property's goal (a
	// witness). A verdict that an invariant holds means nothing if nothing
	// ever happens in the model — a resource that refuses every operation,
	// or a service that never grants, keeps every invariant — so a holds
	// counts only once the design's witnesses are reached. TLC checks the
	// goal's negation, the property's Name, as an invariant expected
	// violated.
	Sometimes
	// Eventually: every behaviour reaches the property's goal (a liveness
	// property; TLC checks it under the specs' fairness). No Go runtime
	// searches for it; conform's replay checks a TLC counterexample's end.
	Eventually
)

// Property is one property of the model, named as in the specs.
type Property struct {
	Name        string
	Expectation Expectation
	// What says in words what the property is about: the state it keeps
	// out (Always), the goal's state (Sometimes, Eventually).
	What string
	// Check, of an Always property, returns nil when it holds in s.
	Check func(s *System) *Breach
	// CheckTimers, of an Always property about the clients' beliefs and
	// their validity windows (NoActionPastValidity), is Check with the
	// runtime's pending timers (the world's, the simulator's queue): a
	// window is open while its timer is pending, which the client alone
	// cannot vouch for. Exactly one of Check and CheckTimers is set.
	CheckTimers func(s *System, timers TimerView) *Breach
	// Goal, of a Sometimes or Eventually property, reports whether w is a
	// goal state. SystemGoal is the same goal for a property about the
	// actors' states alone (nil for one about the messages in flight or
	// the restarts): what a runtime without a World (the simulator) can
	// check.
	Goal       func(w *World) bool
	SystemGoal func(s *System) bool
	// table marks the invariants of DESIGN.md's verdict table, which
	// every runtime checks in every state (Invariants).
	table bool
	// client marks the client-side invariants every design must keep,
	// which every runtime checks in every state besides the table's
	// (ClientInvariants; Expected: Holds in every row).
	client bool
	// designs, when set, are the only designs the property applies to
	// (else: every design, or the table's for an invariant of it).
	designs func(Design) bool
	// unreachable, when set, says why design d never reaches the goal of
	// a witness by design ("" when it should).
	unreachable func(Design) string
}

// Properties is the one list of the properties of the model: the
// invariants ("always"), the witnesses ("sometimes") and the liveness
// properties ("eventually"), each named as the specs' operator. The
// explorer, the simulator, conform's replay and the TLC judge read it.
func Properties() []Property {
	return []Property{
		{Name: AtMostOneClientHoldLock, Expectation: Always, table: true, Check: atMostOneClientHoldsLock,
			What: "two clients believe they hold the lock at once"},
		{Name: TokenIsMonotonical, Expectation: Always, table: true, Check: tokenIsMonotonical,
			What: "the resource accepts a smaller token after a larger one"},
		{Name: NoLostUpdate, Expectation: Always, table: true, Check: noLostUpdate,
			What: "an accepted write is based on a stale read"},
		{Name: TokensAreUnique, Expectation: Always, table: true, Check: tokensAreUnique,
			What: "the service gave two clients one token"},
		{Name: TokensIncreaseInGrantOrder, Expectation: Always, table: true, Check: tokensIncreaseInGrantOrder,
			What: "the service's next grant would carry a token no larger than one in use"},
		{Name: NoActionPastValidity, Expectation: Always, client: true, CheckTimers: noActionPastValidity,
			What: "a client believes it holds the lock (and may read or write on it) after its validity window closed"},
		systemWitness(NoSectionCommits, "some client has committed a section", someSectionCommits),
		{Name: NotEveryClientCommits, Expectation: Sometimes, What: "every client has committed all its sections",
			Goal: func(w *World) bool { return everyClientCommits(w.Sys) }, SystemGoal: everyClientCommits,
			unreachable: Design.Starves},
		{Name: NoSectionCommitsAcrossRestart, Expectation: Sometimes,
			What:    "a client held the lock when the service restarted, and every client has committed all its sections (that one's too)",
			Goal:    func(w *World) bool { return w.HeldAtRestart != 0 && everyClientCommits(w.Sys) },
			designs: func(d Design) bool { return d.Restart() != NoRestart }},
		{Name: NoSectionCommitsAfterRenewal, Expectation: Sometimes,
			What: "a client's renewal was granted and extended its belief, and the resource accepted that section's write (its accepting reply in flight)",
			Goal: (*World).SectionCommitsAfterRenewal, designs: Design.Renews},
		{Name: AllClientsFinish, Expectation: Eventually, What: "every client has finished",
			Goal: (*World).Done, SystemGoal: (*System).AllDone},
		{Name: EveryClientCommits, Expectation: Eventually, What: "every client has committed all its sections",
			Goal: func(w *World) bool { return everyClientCommits(w.Sys) }, SystemGoal: everyClientCommits},
		{Name: LockFreedAfterHolderDeath, Expectation: Eventually, What: "the lock was granted and the first client (the spec's Victim) does not hold it",
			Goal: func(w *World) bool { return victimFreed(w.Sys) }, SystemGoal: victimFreed},
	}
}

// victimFreed is LockFreedAfterHolderDeath's goal: the lock has been
// granted, and the first client — DistLockCrash.tla's Victim, the one TLC
// lets stop for ever (CHOOSE takes c1) — does not hold it. A lasso that
// violates the property loops with the victim holding the lock; the
// leads-to itself is TLC's to check.
func victimFreed(s *System) bool {
	l := s.Service.Lock()
	return l.LastLease > 0 && !(l.Status == Acquired && l.Holder == ClientNode(0))
}

// systemWitness is a witness whose goal is about the actors' states alone.
func systemWitness(name, what string, goal func(*System) bool) Property {
	return Property{Name: name, Expectation: Sometimes, What: what, SystemGoal: goal,
		Goal: func(w *World) bool { return goal(w.Sys) }}
}

// AppliesTo reports whether p is meaningful for design d: for an invariant
// of the table, DESIGN.md's table does not show "—" for it
// (NotApplicableWhy says why it does); for another property, d is one of
// the designs it is about.
func (p Property) AppliesTo(d Design) bool {
	if p.table || p.client {
		return Expected(d, p.Name) != verdict.NotApplicable
	}
	return p.designs == nil || p.designs(d)
}

// Unreachable says why design d is expected never to reach the goal of
// witness p ("" when it is expected to): its not being reached is then
// the row's finding, and reaching it a contradiction.
func (p Property) Unreachable(d Design) string {
	if p.unreachable == nil {
		return ""
	}
	return p.unreachable(d)
}

// Violated reports whether w is a state TLC reports when it finds p
// violated: an invariant's breach; a witness's goal reached (TLC's
// invariant, its negation, violated); for a liveness property, a state
// short of its goal.
func (p Property) Violated(w *World) bool {
	switch p.Expectation {
	case Sometimes:
		return p.Goal(w)
	case Eventually:
		return !p.Goal(w)
	}
	return p.Breach(w.Sys, w) != nil
}

// TimerView tells whether a timer is pending in a runtime: impl.World's
// timers, the simulator's queue.
type TimerView interface {
	Pending(n NodeID, k TimerKind) bool
}

// Breach is the Always property p's check of s, whose runtime's pending
// timers are timers (read only by CheckTimers): nil when it holds.
func (p Property) Breach(s *System, timers TimerView) *Breach {
	if p.CheckTimers != nil {
		return p.CheckTimers(s, timers)
	}
	return p.Check(s)
}

// ClientInvariants lists the client-side invariants every design must
// keep (NoActionPastValidity), which every runtime checks in every state
// besides the table's; Expected is Holds for every row.
func ClientInvariants() []Property {
	return filter(func(p Property) bool { return p.client })
}

// Checked lists the invariants every runtime checks in every state: the
// table's (Invariants), then the client-side ones (ClientInvariants).
func Checked() []Property {
	return append(Invariants(), ClientInvariants()...)
}

// Invariants lists the invariants of DESIGN.md's verdict table, which
// every runtime checks in every state, in the table's order.
func Invariants() []Property {
	return filter(func(p Property) bool { return p.table })
}

// Witnesses lists the witnesses of design d, in Properties order: every
// design's, then the restart rows' and the renewing rows' own.
func Witnesses(d Design) []Property {
	return filter(func(p Property) bool { return p.Expectation == Sometimes && p.AppliesTo(d) })
}

func filter(keep func(Property) bool) []Property {
	var ps []Property
	for _, p := range Properties() {
		if keep(p) {
			ps = append(ps, p)
		}
	}
	return ps
}

// invariantIndex is the index of the named property in Invariants, -1 if
// there is none.
func invariantIndex(name string) int {
	for k, inv := range Invariants() {
		if inv.Name == name {
			return k
		}
	}
	return -1
}

// InvariantNames lists the names of the table's invariants.
func InvariantNames() []string {
	var names []string
	for _, inv := range Invariants() {
		names = append(names, inv.Name)
	}
	return names
}

// LookupInvariant finds an invariant every runtime checks (Checked) by
// name.
func LookupInvariant(name string) (Property, error) {
	var names []string
	for _, inv := range Checked() {
		if inv.Name == name {
			return inv, nil
		}
		names = append(names, inv.Name)
	}
	return Property{}, fmt.Errorf("unknown invariant %s (want one of %s)", quote.Q(name), strings.Join(names, ", "))
}

// LookupProperty finds a property of the list by name.
func LookupProperty(name string) (Property, bool) {
	for _, p := range Properties() {
		if p.Name == name {
			return p, true
		}
	}
	return Property{}, false
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

// someSectionCommits: some client has committed a section.
func someSectionCommits(s *System) bool {
	for i := range s.Clients {
		if s.Clients[i].committed > 0 {
			return true
		}
	}
	return false
}

// everyClientCommits: every client has committed all its sections (the
// specs' committed[c] = Sections for every c).
func everyClientCommits(s *System) bool {
	for i := range s.Clients {
		if c := &s.Clients[i]; int(c.committed) != c.cfg.Sections {
			return false
		}
	}
	return true
}

// A tokenUse is a token some actor holds or used: a client's current
// grant, the service's current grant, or an operation the resource
// accepted (the specs' TokensInUse).
type tokenUse struct {
	client NodeID
	token  uint64
	op     *Op // the accepted operation; nil for a grant
	held   bool
}

// String says where the token is in use (only for a breach's explanation:
// the checks run on every step, and formatting is not free).
func (u tokenUse) String() string {
	switch {
	case u.op != nil:
		return "the resource accepted " + u.op.String()
	case u.held:
		return fmt.Sprintf("%s holds token %s", u.client, FormatLease(u.token))
	}
	return fmt.Sprintf("the service granted %s token %s", u.client, FormatLease(u.token))
}

// tokenUseAt is the k-th slot of the tokens in use in s, 0 ≤ k <
// tokenSlots(s): each client's while it uses a grant, the service's
// current grant's, and every accepted operation's (ok false for a slot
// with no token in use). A finished client's token lives on in the log if
// the resource accepted it. Grants still in flight are not in use yet: the
// client's state holds them once they arrive. Slots, not a slice: the
// simulator checks the token properties after most steps and a run
// allocates nothing (sim's TestSteadyStateAllocations).
func tokenUseAt(s *System, k int) (u tokenUse, ok bool) {
	if k <= len(s.Clients) {
		client, token, ok := grantAt(s, k)
		return tokenUse{client: client, token: token, held: k < len(s.Clients)}, ok
	}
	op := &s.Resource.log[k-len(s.Clients)-1]
	return tokenUse{client: op.Client, token: op.Token, op: op}, op.Accepted
}

// grantAt is tokenUseAt's k-th slot for k ≤ len(s.Clients), the grants in
// use: client k's while it uses one, then the service's current grant.
func grantAt(s *System, k int) (client NodeID, token uint64, ok bool) {
	if k < len(s.Clients) {
		c := &s.Clients[k]
		return c.id, c.token, c.usesGrant()
	}
	return s.Service.grantInUse()
}

// usesGrant reports whether c uses a grant: its token is in use.
func (c *Client) usesGrant() bool { return c.lease != 0 }

// grantInUse is the service's current grant's holder and token, ok false
// when the lock is free.
func (s *Service) grantInUse() (holder NodeID, token uint64, ok bool) {
	l := &s.lock
	if l.Status != Acquired {
		return 0, 0, false
	}
	return l.Holder, s.token(l.Lease), true
}

// tokenSlots is the number of tokenUseAt's slots in s.
func tokenSlots(s *System) int { return len(s.Clients) + 1 + len(s.Resource.log) }

// tokensAreUnique: no two clients use one token (the specs'
// TokensAreUnique). A service that restarts with a volatile counter
// breaks it: it hands token 1 out again while an old holder still uses it,
// or the resource's log remembers it.
func tokensAreUnique(s *System) *Breach {
	n := tokenSlots(s)
	for j := range n {
		uj, ok := tokenUseAt(s, j)
		if !ok {
			continue
		}
		for i := range j {
			if ui, ok := tokenUseAt(s, i); ok && ui.token == uj.token && ui.client != uj.client {
				return &Breach{Involved: distinct(ui.client, uj.client),
					Explanation: fmt.Sprintf("%s, and %s: one token, two clients", ui, uj)}
			}
		}
	}
	return nil
}

// tokensIncreaseInGrantOrder: the token the service hands out next is
// larger than every token in use (the specs' TokensIncreaseInGrantOrder).
// Checked in every state, each grant's token is then larger than every
// earlier grant's still in use: tokens increase in grant order. A volatile
// counter breaks it at the restart (the next token is 1 again), and so does
// a service whose tokens go down.
func tokensIncreaseInGrantOrder(s *System) *Breach {
	next := s.Service.NextToken()
	for k := range tokenSlots(s) {
		if u, ok := tokenUseAt(s, k); ok && u.token >= next {
			return &Breach{Involved: []NodeID{u.client},
				Explanation: fmt.Sprintf("%s, and the service's next token is %s", u, FormatLease(next))}
		}
	}
	return nil
}

func distinct(a, b NodeID) []NodeID {
	if a == b {
		return []NodeID{a}
	}
	return []NodeID{a, b}
}

// noActionPastValidity: a client never acts on a belief past its validity
// window — a client that believes it holds the lock (and so may send its
// read or its write) has the validity timer of that belief pending
// (Client.BeliefTimer; under the send rule it was set at the acquire's
// send, under the arrival rule at the grant's arrival). A client whose
// window closes stops believing in the same step; one that holds on a
// majority that came after its window closed (Redlock's rule broken) has
// none pending.
func noActionPastValidity(s *System, timers TimerView) *Breach {
	for i := range s.Clients {
		c := &s.Clients[i]
		if c.PastValidity(timers) {
			return &Breach{Involved: []NodeID{c.id},
				Explanation: fmt.Sprintf("%s believes it holds the lock (lease %s) with its validity window closed: no %s timer pending", c.id, FormatLease(c.lease), c.beliefTimer())}
		}
	}
	return nil
}

// PastValidity reports whether c believes it holds the lock with its
// belief's validity timer not pending: NoActionPastValidity's breach, for
// one client (a checker that knows which client stepped asks only it).
func (c *Client) PastValidity(timers TimerView) bool {
	return c.holds && !timers.Pending(c.id, c.beliefTimer())
}

// A TokenWatch follows the tokens in use through one run, for a checker
// that checks after every step: TokensAreUnique and
// TokensIncreaseInGrantOrder read every accepted operation, and the
// resource's log grows by one per resource step, so checking them in full
// after every step reads the log quadratically often, and even the grants
// alone cost a simulator a fifth of its time. The watch reads, after each
// step, only the uses of tokens that step can have begun, and says when the
// state may breach one of the properties; the property's own check then
// decides and explains.
//
// It remembers every token used in the run (by a grant or an accepted
// operation), with its first client and whether another client used it
// too. A breach of TokensAreUnique has two clients use one token at once:
// when the later of the two uses began, the token was already remembered
// for another client, or as shared. A breach of
// TokensIncreaseInGrantOrder has a token in use at or above the service's
// next token: the largest token used in the run is at or above it too.
//
// The zero value is ready for a run's first state.
type TokenWatch struct {
	logRead int // operations of the log read so far
	// used holds each token used in the run once, sorted by token: tokens
	// mostly come in increasing order, so most are appended, and a run
	// reuses the memory of the one before.
	used []tokenOwner
	// grants is the grant slots' uses as last read (grantAt's order).
	grants []grantUse
	next   uint64 // the service's next token, as last read
}

type tokenOwner struct {
	token  uint64
	client NodeID
	shared bool // another client used it too
}

type grantUse struct {
	client NodeID
	token  uint64
	ok     bool
}

// Reset readies w for a run from s, keeping its memory.
func (w *TokenWatch) Reset(s *System) {
	w.logRead, w.used, w.grants = 0, w.used[:0], w.grants[:0]
	for range len(s.Clients) + 1 {
		w.grants = append(w.grants, grantUse{})
	}
	w.next = s.Service.NextToken()
	for k := range w.grants {
		w.readGrant(s, k)
	}
	w.readLog(s)
}

// Stepped reports whether s, after a step of node n, may breach
// TokensAreUnique (unique) and TokensIncreaseInGrantOrder (increase): at
// every state that breaches one where the state before did not, it says
// so (TestTokenWatchSeesEveryFirstBreach), which is all a checker that keeps
// a run's first violation needs. Only n's state changed since the state w
// read last: a client's step changes its grant, the resource's its log,
// and any other node's (the service, Redlock's lock nodes) the service's
// grant and next token.
func (w *TokenWatch) Stepped(s *System, n NodeID) (unique, increase bool) {
	switch {
	case n.IsClient():
		unique = w.readGrant(s, n.ClientIndex())
	case n == ResourceNode:
		unique = w.readLog(s)
	default:
		w.next = s.Service.NextToken()
		unique = w.readGrant(s, len(s.Clients))
	}
	return unique, len(w.used) > 0 && w.used[len(w.used)-1].token >= w.next
}

// GrantChanged reports whether client k's grant in use is not the one w
// read last: after a client's step, Stepped has nothing to read otherwise.
func (w *TokenWatch) GrantChanged(s *System, k int) bool {
	c, g := &s.Clients[k], &w.grants[k]
	return c.usesGrant() != g.ok || c.token != g.token
}

// readGrant reads grant slot k, reporting whether a use that began shares
// its token with another client's.
func (w *TokenWatch) readGrant(s *System, k int) (shared bool) {
	client, token, ok := grantAt(s, k)
	if g := (grantUse{client, token, ok}); g != w.grants[k] {
		w.grants[k] = g
		return ok && w.use(client, token)
	}
	return false
}

// readLog reads the operations appended since the last read, reporting
// whether an accepted one shares its token with another client's use.
func (w *TokenWatch) readLog(s *System) (shared bool) {
	log := s.Resource.log
	for i := w.logRead; i < len(log); i++ {
		if op := &log[i]; op.Accepted && w.use(op.Client, op.Token) {
			shared = true
		}
	}
	w.logRead = len(log)
	return shared
}

// use records a use of token by client, reporting whether another client
// used it too.
func (w *TokenWatch) use(client NodeID, token uint64) (shared bool) {
	n := len(w.used)
	if n == 0 || token > w.used[n-1].token {
		w.used = append(w.used, tokenOwner{token: token, client: client})
		return false
	}
	// Most uses are of the newest token: its grant's, then its operations'.
	i, found := n-1, token == w.used[n-1].token
	if !found {
		i, found = slices.BinarySearchFunc(w.used, token, func(o tokenOwner, t uint64) int { return cmp.Compare(o.token, t) })
	}
	if !found {
		w.used = slices.Insert(w.used, i, tokenOwner{token: token, client: client})
		return false
	}
	o := &w.used[i]
	o.shared = o.shared || o.client != client
	return o.shared
}
