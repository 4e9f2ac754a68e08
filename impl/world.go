package impl

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
)

// World is the untimed world of DESIGN.md, exported once for every runtime
// that has no clock: the explorer enumerates it, a seeded random walk
// samples it, and the tests drive it step by step. A World is every
// actor's state (System) plus the messages in flight (a multiset, kept
// sorted, so equal worlds are equal values) plus the pending timers (a set,
// kept sorted). Timer durations are not part of it: in the asynchronous
// model any pending timer may fire at any moment, so a lease can expire
// while its grant is still in flight and a client's validity can end
// before or after anything.
//
// Its actions, in the order Action numbers them, are:
//
//  1. start client i, for each client still Idle (like the first step of
//     the specs' client process, a client begins whenever it is
//     scheduled, so starts interleave with everything else);
//  2. deliver a message in flight to its addressee, once per distinct
//     message (delivering either of two equal messages leads to the same
//     world); the network neither loses nor duplicates messages but may
//     reorder them arbitrarily;
//  3. fire a pending timer at its node;
//  4. in a design whose service restarts (Design.Restart), crash and
//     restart a lock node (the service, or in a Redlock row any of its
//     nodes, in LockNode order), at most UntimedRestarts times in a run
//     and only while some client has not finished. Untimed, the time it
//     is down does not matter: requests wait for it as for a paused node.
//
// A backoff is always 0: its length only matters to a timed runtime.
type World struct {
	Sys      *System
	InFlight []Message
	Timers   []PendingTimer
	// Restarts counts the service's restarts so far, and HeldAtRestart
	// has bit i set when client i believed it held the lock at a restart
	// (for the witness NoSectionCommitsAcrossRestart: a section under
	// way at a restart can still commit). Both are part of the encoding only in a design
	// whose service restarts; HeldAtRestart names clients 0 to 63.
	Restarts      int
	HeldAtRestart uint64
	out           Effects
	// maxRestarts is UntimedRestarts in a design whose service restarts,
	// else 0.
	maxRestarts int
}

// UntimedRestarts bounds the service's restarts in one run of the untimed
// world: one restart is enough to hand a token out twice, and a bound
// keeps a stuck state stuck (with restarts always enabled no state would
// be a deadlock).
const UntimedRestarts = 1

// SectionCommitsAfterRenewal reports whether some client whose belief a
// granted renewal extended is told its section's write was accepted (its
// accepting reply in flight): the witness of the renewing rows that a
// renewal works at all: the goal of the witness
// NoSectionCommitsAfterRenewal (impl.Properties).
func (w *World) SectionCommitsAfterRenewal() bool {
	for _, m := range w.InFlight {
		if m.Kind != MsgWriteReply || !m.OK || !m.To.IsClient() || m.To.ClientIndex() >= len(w.Sys.Clients) {
			continue
		}
		if c := &w.Sys.Clients[m.To.ClientIndex()]; c.Extended() && c.Phase() == Writing {
			return true
		}
	}
	return false
}

// UntimedRenewals bounds a renewing client's renewals per section in the
// untimed world, so that its state space stays finite (a renewal timer
// always pending would let a section renew forever). One is enough:
// untimed, a lease timer may fire at any moment, renewed or not — setting
// a pending timer again changes nothing the world keeps — so a second
// renewal adds states (the counter, and under the send rule the window
// switching back) but no story the first cannot tell: a renewal granted,
// refused, or answered after the section or the belief ended.
const UntimedRenewals = 1

// PendingTimer is a timer one node has set and not yet seen fire.
type PendingTimer struct {
	Node  NodeID
	Timer Timer
}

// Action is one thing that can happen in a world: Node handles Input.
type Action struct {
	Node  NodeID
	Input Input
}

// NewWorld returns the initial world of c: every actor fresh, nothing in
// flight, no timer pending.
func NewWorld(c Config) (*World, error) {
	sys, err := NewSystem(c)
	if err != nil {
		return nil, err
	}
	w := &World{Sys: sys}
	if c.Design.Restart() != NoRestart {
		w.maxRestarts = UntimedRestarts
	}
	if c.Design.Renews() {
		for i := range sys.Clients {
			sys.Clients[i].cfg.Renewals = min(sys.Clients[i].cfg.Renewals, UntimedRenewals)
		}
	}
	return w, nil
}

// canRestart reports whether the restart action is enabled.
func (w *World) canRestart() bool { return w.Restarts < w.maxRestarts && !w.Sys.AllDone() }

// Clone returns an independent copy of w, from the same Config (a World
// assembled by hand from a System has no restart action: its bound comes
// from NewWorld).
func (w *World) Clone() *World {
	c := &World{Sys: w.Sys.Clone(), maxRestarts: w.maxRestarts}
	c.CopyFrom(w)
	return c
}

// CopyFrom sets w to src, reusing w's memory; w and src must come from the
// same Config.
func (w *World) CopyFrom(src *World) {
	w.Sys.CopyFrom(src.Sys)
	w.InFlight = append(w.InFlight[:0], src.InFlight...)
	w.Timers = append(w.Timers[:0], src.Timers...)
	w.Restarts, w.HeldAtRestart = src.Restarts, src.HeldAtRestart
}

// Actions is the number of actions enabled in w; none means every client
// has finished (Done) or the world is deadlocked.
func (w *World) Actions() int {
	n := len(w.Timers)
	for i := range w.Sys.Clients {
		if w.Sys.Clients[i].Phase() == Idle {
			n++
		}
	}
	for i := range w.InFlight {
		if i == 0 || w.InFlight[i] != w.InFlight[i-1] {
			n++
		}
	}
	if w.canRestart() {
		n += w.Sys.NumLockNodes()
	}
	return n
}

// Action returns what action i of w does; i must be below Actions().
func (w *World) Action(i int) Action {
	for c := range w.Sys.Clients {
		if w.Sys.Clients[c].Phase() == Idle {
			if i == 0 {
				return Action{Node: ClientNode(c), Input: Input{Kind: InputStart}}
			}
			i--
		}
	}
	for k, msg := range w.InFlight {
		if k > 0 && msg == w.InFlight[k-1] {
			continue
		}
		if i == 0 {
			return Action{Node: msg.To, Input: Input{Kind: InputMessage, Msg: msg}}
		}
		i--
	}
	if i < len(w.Timers) {
		t := w.Timers[i]
		return Action{Node: t.Node, Input: Input{Kind: InputTimer, Timer: t.Timer}}
	}
	if k := i - len(w.Timers); k < w.Sys.NumLockNodes() && w.canRestart() {
		return Action{Node: LockNode(k), Input: Input{Kind: InputRestart}}
	}
	panic(fmt.Sprintf("impl: action %d out of range", i))
}

// Apply takes action i of w and returns it with the effects the acting
// node asked for (valid until the next Apply), for a trace to record.
func (w *World) Apply(i int) (Action, *Effects) {
	a := w.Action(i)
	switch a.Input.Kind {
	case InputMessage:
		if k := slices.Index(w.InFlight, a.Input.Msg); k >= 0 {
			w.InFlight = slices.Delete(w.InFlight, k, k+1)
		}
	case InputTimer:
		w.removeTimer(PendingTimer{Node: a.Node, Timer: a.Input.Timer})
	case InputRestart:
		w.Restarts++
		for i := range min(len(w.Sys.Clients), 64) {
			if w.Sys.Clients[i].Holds() {
				w.HeldAtRestart |= 1 << i
			}
		}
	}
	w.out.Reset()
	w.Sys.Step(a.Node, &a.Input, &w.out)
	w.out.CarryOut(a.Node, (*worldEffects)(w))
	return a, &w.out
}

// worldEffects carries out effects in the untimed world.
type worldEffects World

func (w *worldEffects) Cancel(n NodeID, t Timer) {
	(*World)(w).removeTimer(PendingTimer{Node: n, Timer: t})
}

// Set makes t pending; setting a pending timer again only moves its
// deadline, which the untimed world does not have.
func (w *worldEffects) Set(n NodeID, ts TimerSet) {
	p := PendingTimer{Node: n, Timer: ts.Timer}
	k, found := slices.BinarySearchFunc(w.Timers, p, comparePendingTimers)
	if !found {
		w.Timers = slices.Insert(w.Timers, k, p)
	}
}

func (w *worldEffects) Send(_ NodeID, m *Message) {
	k, _ := slices.BinarySearchFunc(w.InFlight, *m, compareMessages)
	w.InFlight = slices.Insert(w.InFlight, k, *m)
}

func (w *World) removeTimer(t PendingTimer) {
	if k, found := slices.BinarySearchFunc(w.Timers, t, comparePendingTimers); found {
		w.Timers = slices.Delete(w.Timers, k, k+1)
	}
}

// Pending reports whether node n's timer of kind k is pending (TimerView).
func (w *World) Pending(n NodeID, k TimerKind) bool {
	for _, t := range w.Timers {
		if t.Node == n && t.Timer.Kind == k {
			return true
		}
	}
	return false
}

// Done reports whether every client ran all its sections.
func (w *World) Done() bool { return w.Sys.AllDone() }

// Encode appends w's canonical encoding to b: equal worlds, and only equal
// worlds, encode to equal bytes.
func (w *World) Encode(b []byte) []byte {
	b = w.Sys.Encode(b)
	b = binary.AppendUvarint(b, uint64(len(w.InFlight)))
	for _, msg := range w.InFlight {
		b = msg.Encode(b)
	}
	b = append(b, byte(len(w.Timers)))
	for _, t := range w.Timers {
		b = append(b, byte(t.Node), byte(t.Timer.Kind))
	}
	if w.maxRestarts > 0 {
		b = append(b, byte(w.Restarts))
		b = binary.AppendUvarint(b, w.HeldAtRestart)
	}
	return b
}

// Decode sets w to the world Encode wrote into b, for a world built from
// the same Config.
func (w *World) Decode(b []byte) error {
	b, err := w.Sys.Decode(b)
	if err != nil {
		return err
	}
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return fmt.Errorf("decode messages in flight: %w", errTruncated)
	}
	b = b[k:]
	w.InFlight = w.InFlight[:0]
	for range n {
		var msg Message
		if msg, b, err = DecodeMessage(b); err != nil {
			return err
		}
		w.InFlight = append(w.InFlight, msg)
	}
	if len(b) < 1 || len(b) < 1+2*int(b[0]) {
		return fmt.Errorf("decode pending timers: %w", errTruncated)
	}
	timers := b
	b = b[1+2*int(b[0]):]
	if w.maxRestarts > 0 {
		// The restart count and who held the lock at a restart.
		if len(b) < 2 {
			return fmt.Errorf("decode restarts: %w", errTruncated)
		}
		w.Restarts = int(b[0])
		held, k := binary.Uvarint(b[1:])
		if k <= 0 {
			return fmt.Errorf("decode restarts: %w", errTruncated)
		}
		w.HeldAtRestart, b = held, b[1+k:]
	}
	if len(b) != 0 {
		return fmt.Errorf("decode pending timers: %w", errTruncated)
	}
	b = timers
	w.Timers = w.Timers[:0]
	for i := range int(b[0]) {
		t := b[1+2*i:]
		w.Timers = append(w.Timers, PendingTimer{Node: NodeID(t[0]), Timer: Timer{Kind: TimerKind(t[1])}})
	}
	return nil
}

// PermuteClients renames client i to perm[i] everywhere in w — the actors,
// the messages in flight and the pending timers — and restores the
// canonical order (see System.PermuteClients).
func (w *World) PermuteClients(perm []int) {
	w.Sys.PermuteClients(perm)
	for i := range w.InFlight {
		w.permuteMessage(&w.InFlight[i], perm)
	}
	for i := range w.Timers {
		w.Timers[i].Node = w.Timers[i].Node.permuted(perm)
	}
	if held := w.HeldAtRestart; held != 0 {
		w.HeldAtRestart = 0
		for i, to := range perm {
			if held&(1<<i) != 0 {
				w.HeldAtRestart |= 1 << to
			}
		}
	}
	w.Canonicalize()
}

// permuted is n with client i renamed to perm[i].
func (n NodeID) permuted(perm []int) NodeID {
	if n.IsClient() {
		return ClientNode(perm[n.ClientIndex()])
	}
	return n
}

// permuteMessage renames client i to perm[i] in m: its ends and, in a
// Redlock row, its value, which names its client too.
func (w *World) permuteMessage(m *Message, perm []int) {
	m.From, m.To = m.From.permuted(perm), m.To.permuted(perm)
	if w.Sys.Redlock() {
		rename := func(n NodeID) NodeID { return n.permuted(perm) }
		m.Lease, m.Token = renameValue(m.Lease, rename), renameValue(m.Token, rename)
	}
}

// PermuteAction is action a of w with client i renamed to perm[i], as
// World.PermuteClients renames w.
func (w *World) PermuteAction(a Action, perm []int) Action {
	a.Node = a.Node.permuted(perm)
	if a.Input.Kind == InputMessage {
		w.permuteMessage(&a.Input.Msg, perm)
	}
	return a
}

// Encode appends an encoding of a to b: equal actions, and only equal
// actions, encode to equal bytes.
func (a Action) Encode(b []byte) []byte {
	b = append(b, byte(a.Node), byte(a.Input.Kind), byte(a.Input.Timer.Kind))
	if a.Input.Kind == InputMessage {
		b = a.Input.Msg.Encode(b)
	}
	return b
}

// Commute reports whether actions a and b, both enabled in one world, are
// independent: taken in either order they lead to the same world, and
// neither disables the other. That is the relation partial-order
// reduction rests on (the explorer's sleep sets). Actions of different
// nodes commute: a node's step reads and changes its own state only,
// consumes only its own input (a message to it, a timer of its own, its
// start), sets and cancels only its own timers, and adds messages to a
// multiset, which does not care about order. A restart commutes with
// nothing: whether it is enabled reads every client (the run must not be
// over) and it records which clients hold the lock.
func Commute(a, b Action) bool {
	return a.Node != b.Node && a.Input.Kind != InputRestart && b.Input.Kind != InputRestart
}

// Canonicalize restores the canonical form after InFlight or Timers were
// changed by hand: messages sorted, timers sorted and each pending once.
func (w *World) Canonicalize() {
	slices.SortFunc(w.InFlight, compareMessages)
	slices.SortFunc(w.Timers, comparePendingTimers)
	w.Timers = slices.Compact(w.Timers)
}

// Walk takes up to maxSteps actions, each chosen by choose from the
// actions enabled (choose(n) returns a number in [0, n)), calling visit
// after each; it stops early when no action is enabled or visit returns
// false. It is the untimed world sampled instead of enumerated: rapid's
// draws, or SeededChooser, make the choices.
func (w *World) Walk(choose func(n int) int, maxSteps int, visit func(a Action, out *Effects) bool) {
	for range maxSteps {
		n := w.Actions()
		if n == 0 {
			return
		}
		a, out := w.Apply(choose(n))
		if !visit(a, out) {
			return
		}
	}
}

// SeededChooser returns a chooser for Walk that draws uniformly from one
// PCG seeded with seed: one seed, one walk.
func SeededChooser(seed uint64) func(n int) int {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	return func(n int) int { return rng.IntN(n) }
}

// compareMessages orders messages field by field, so that a sorted slice is
// the canonical form of the multiset of messages in flight.
func compareMessages(a, b Message) int {
	return cmp.Or(
		cmp.Compare(a.Kind, b.Kind),
		cmp.Compare(a.From, b.From),
		cmp.Compare(a.To, b.To),
		cmp.Compare(a.Lease, b.Lease),
		cmp.Compare(a.Token, b.Token),
		cmp.Compare(a.Value, b.Value),
		cmp.Compare(boolByte(a.OK), boolByte(b.OK)),
	)
}

func comparePendingTimers(a, b PendingTimer) int {
	return cmp.Or(cmp.Compare(a.Node, b.Node), cmp.Compare(a.Timer.Kind, b.Timer.Kind))
}
