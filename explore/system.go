package explore

import (
	"encoding/binary"
	"fmt"

	"github.com/fencelab/fencelab/impl"
)

// pendingTimer is a timer one node has set and not yet seen fire.
type pendingTimer struct {
	Node  impl.NodeID
	Timer impl.Timer
}

func timerLess(a, b pendingTimer) bool {
	if a.Node != b.Node {
		return a.Node < b.Node
	}
	if a.Timer.Kind != b.Timer.Kind {
		return a.Timer.Kind < b.Timer.Kind
	}
	return a.Timer.Lock < b.Timer.Lock
}

// msgLess orders messages field by field, so that a sorted slice is the
// canonical form of the multiset of messages in flight.
func msgLess(a, b impl.Message) bool {
	switch {
	case a.Kind != b.Kind:
		return a.Kind < b.Kind
	case a.From != b.From:
		return a.From < b.From
	case a.To != b.To:
		return a.To < b.To
	case a.Lock != b.Lock:
		return a.Lock < b.Lock
	case a.Lease != b.Lease:
		return a.Lease < b.Lease
	case a.Token != b.Token:
		return a.Token < b.Token
	case a.Value != b.Value:
		return a.Value < b.Value
	}
	return !a.OK && b.OK
}

// sysState is a global state of the untimed model: every actor, the
// messages in flight (a multiset, kept sorted) and the pending timers (a
// set, kept sorted). Timer durations are not part of it: in the
// asynchronous model any pending timer may fire at any moment.
type sysState struct {
	sys      *impl.System
	inflight []impl.Message
	timers   []pendingTimer
}

// sysModel is the reference implementation as a Model. Its actions, in
// the order Actions numbers them, are:
//
//  1. start client i, for each client still Idle (like the first step of
//     the specs' client process, a client begins whenever it is
//     scheduled, so starts interleave with everything else);
//  2. deliver a message in flight to its addressee, once per distinct
//     message (delivering either of two equal messages leads to the same
//     state); the network neither loses nor duplicates messages but may
//     reorder them arbitrarily;
//  3. fire a pending timer at its node: lease expiry at the service can
//     overtake a grant in flight, a client's validity timer can fire
//     before or after anything — the asynchronous model of the specs,
//     where clocks may jump arbitrarily.
//
// A backoff is always 0: the choice only matters to a timed runtime.
type sysModel struct {
	cfg  impl.Config
	invs []impl.Invariant
	out  impl.Effects
	// sym, when set, makes Encode canonical under renamings of clients.
	sym *symmetry
}

func (m *sysModel) New() *sysState {
	sys, err := impl.NewSystem(m.cfg)
	if err != nil {
		panic(fmt.Sprintf("explore: config validated before use: %v", err))
	}
	return &sysState{sys: sys}
}

func (m *sysModel) Init(s *sysState) {
	fresh := m.New()
	*s = *fresh
}

func (m *sysModel) Encode(b []byte, s *sysState) []byte {
	if m.sym != nil {
		return m.sym.canonical(m, b, s)
	}
	return m.encode(b, s)
}

// encode is the plain encoding of s, under its clients' own names.
func (m *sysModel) encode(b []byte, s *sysState) []byte {
	b = s.sys.Encode(b)
	b = binary.AppendUvarint(b, uint64(len(s.inflight)))
	for _, msg := range s.inflight {
		b = msg.Encode(b)
	}
	b = append(b, byte(len(s.timers)))
	for _, t := range s.timers {
		b = append(b, byte(t.Node), byte(t.Timer.Kind), t.Timer.Lock)
	}
	return b
}

func (m *sysModel) Decode(s *sysState, b []byte) error {
	b, err := s.sys.Decode(b)
	if err != nil {
		return err
	}
	n, k := binary.Uvarint(b)
	if k <= 0 {
		return fmt.Errorf("decode messages in flight: %w", errTruncated)
	}
	b = b[k:]
	s.inflight = s.inflight[:0]
	for range n {
		var msg impl.Message
		if msg, b, err = impl.DecodeMessage(b); err != nil {
			return err
		}
		s.inflight = append(s.inflight, msg)
	}
	if len(b) < 1 || len(b) != 1+3*int(b[0]) {
		return fmt.Errorf("decode pending timers: %w", errTruncated)
	}
	s.timers = s.timers[:0]
	for i := range int(b[0]) {
		t := b[1+3*i:]
		s.timers = append(s.timers, pendingTimer{Node: impl.NodeID(t[0]), Timer: impl.Timer{Kind: impl.TimerKind(t[1]), Lock: t[2]}})
	}
	return nil
}

func (m *sysModel) Copy(dst, src *sysState) {
	dst.sys.CopyFrom(src.sys)
	dst.inflight = append(dst.inflight[:0], src.inflight...)
	dst.timers = append(dst.timers[:0], src.timers...)
}

func (m *sysModel) Actions(s *sysState) int {
	n := len(s.timers)
	for i := range s.sys.Clients {
		if s.sys.Clients[i].Phase() == impl.Idle {
			n++
		}
	}
	for i := range s.inflight {
		if i == 0 || s.inflight[i] != s.inflight[i-1] {
			n++
		}
	}
	return n
}

// action returns what action i of s does: which node handles which input.
func (m *sysModel) action(s *sysState, i int) (impl.NodeID, impl.Input) {
	for c := range s.sys.Clients {
		if s.sys.Clients[c].Phase() == impl.Idle {
			if i == 0 {
				return impl.ClientNode(c), impl.Input{Kind: impl.InputStart}
			}
			i--
		}
	}
	for k, msg := range s.inflight {
		if k > 0 && msg == s.inflight[k-1] {
			continue
		}
		if i == 0 {
			return msg.To, impl.Input{Kind: impl.InputMessage, Msg: msg}
		}
		i--
	}
	if i < len(s.timers) {
		t := s.timers[i]
		return t.Node, impl.Input{Kind: impl.InputTimer, Timer: t.Timer}
	}
	panic(fmt.Sprintf("explore: action %d out of range", i))
}

func (m *sysModel) Apply(s *sysState, i int) {
	m.step(s, i)
}

// step takes action i of s and returns the node, the input and the
// effects (valid until the next step), for a trace to record.
func (m *sysModel) step(s *sysState, i int) (impl.NodeID, impl.Input, *impl.Effects) {
	node, in := m.action(s, i)
	switch in.Kind {
	case impl.InputMessage:
		for k, msg := range s.inflight {
			if msg == in.Msg {
				s.inflight = append(s.inflight[:k], s.inflight[k+1:]...)
				break
			}
		}
	case impl.InputTimer:
		s.removeTimer(pendingTimer{Node: node, Timer: in.Timer})
	}
	m.out.Reset()
	s.sys.Step(node, in, &m.out)
	for _, msg := range m.out.Send {
		s.inflight = append(s.inflight, msg)
		for k := len(s.inflight) - 1; k > 0 && msgLess(s.inflight[k], s.inflight[k-1]); k-- {
			s.inflight[k], s.inflight[k-1] = s.inflight[k-1], s.inflight[k]
		}
	}
	// Sets before cancels, as the actors' Effects do not order them; no
	// actor sets and cancels the same timer in one step (impl's tests
	// check that), so the order never matters.
	for _, ts := range m.out.Set {
		s.addTimer(pendingTimer{Node: node, Timer: ts.Timer})
	}
	for _, t := range m.out.Cancel {
		s.removeTimer(pendingTimer{Node: node, Timer: t})
	}
	return node, in, &m.out
}

// addTimer makes t pending; setting a pending timer again only moves its
// deadline, which the untimed model does not have.
func (s *sysState) addTimer(t pendingTimer) {
	for _, p := range s.timers {
		if p == t {
			return
		}
	}
	s.timers = append(s.timers, t)
	for k := len(s.timers) - 1; k > 0 && timerLess(s.timers[k], s.timers[k-1]); k-- {
		s.timers[k], s.timers[k-1] = s.timers[k-1], s.timers[k]
	}
}

func (s *sysState) removeTimer(t pendingTimer) {
	for k, p := range s.timers {
		if p == t {
			s.timers = append(s.timers[:k], s.timers[k+1:]...)
			return
		}
	}
}

func (m *sysModel) Properties() []string {
	names := make([]string, len(m.invs))
	for i, inv := range m.invs {
		names[i] = inv.Name
	}
	return names
}

func (m *sysModel) Holds(s *sysState, k int) bool { return m.invs[k].Check(s.sys) == nil }

func (m *sysModel) Finished(s *sysState) bool { return s.sys.AllDone() }
