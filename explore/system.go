package explore

import (
	"fmt"

	"github.com/fencelab/fencelab/impl"
)

// sysModel is the reference implementation's untimed world (impl.World) as
// a Model: the world defines the states and the actions, in its own order;
// the model adds the invariants to check, then the goals to reach (as
// properties whose violation reaches the goal: Options.Goals) and, with
// symmetry, a canonical encoding.
type sysModel struct {
	cfg   impl.Config
	invs  []impl.Property
	goals []impl.Property
	// sym, when set, makes Encode canonical under renamings of clients.
	sym *symmetry
	// step, when set, takes action i of w instead of w.Apply: the tests'
	// seam for a broken system (a test-only mutant), which the explorer
	// must report as findings, never as an internal error.
	step Stepper
}

// Stepper takes action i of w, as impl.World.Apply does.
type Stepper func(w *impl.World, i int) (impl.Action, *impl.Effects)

// apply takes action i of s by the model's stepper.
func (m *sysModel) apply(s *impl.World, i int) (impl.Action, *impl.Effects) {
	if m.step != nil {
		return m.step(s, i)
	}
	return s.Apply(i)
}

func (m *sysModel) New() *impl.World {
	w, err := impl.NewWorld(m.cfg)
	if err != nil {
		panic(fmt.Sprintf("explore: config validated before use: %v", err))
	}
	return w
}

func (m *sysModel) Init(s *impl.World) { s.CopyFrom(m.New()) }

func (m *sysModel) Encode(b []byte, s *impl.World) []byte {
	if m.sym != nil {
		return m.sym.canonical(b, s)
	}
	return s.Encode(b)
}

func (m *sysModel) Decode(s *impl.World, b []byte) error { return s.Decode(b) }

func (m *sysModel) Copy(dst, src *impl.World) { dst.CopyFrom(src) }

func (m *sysModel) Actions(s *impl.World) int { return s.Actions() }

func (m *sysModel) Apply(s *impl.World, i int) { m.apply(s, i) }

func (m *sysModel) Properties() []string {
	names := make([]string, 0, len(m.invs)+len(m.goals))
	for _, inv := range m.invs {
		names = append(names, inv.Name)
	}
	for _, g := range m.goals {
		names = append(names, g.Name)
	}
	return names
}

func (m *sysModel) Holds(s *impl.World, k int) bool {
	if k < len(m.invs) {
		return m.invs[k].Breach(s.Sys, s) == nil
	}
	return !m.goals[k-len(m.invs)].Goal(s)
}

func (m *sysModel) Finished(s *impl.World) bool { return s.Done() }

// Actors: the node that takes each action; a restart commutes with no
// action (impl.Commute is the relation, and this its form by actor).
func (m *sysModel) Actors(dst []int32, s *impl.World) []int32 {
	for i := range s.Actions() {
		a := s.Action(i)
		actor := int32(a.Node)
		if a.Input.Kind == impl.InputRestart {
			actor = -1
		}
		dst = append(dst, actor)
	}
	return dst
}

// Keys: each action's fingerprint, with the clients renamed as the
// canonical encoding renamed them (renaming is a packed permutation, see
// symmetry.canonicalRenaming).
func (m *sysModel) Keys(dst []uint64, s *impl.World, renaming uint64) []uint64 {
	var perm []int
	if renaming != 0 {
		perm = unpackRenaming(renaming, len(s.Sys.Clients))
	}
	var buf [64]byte
	for i := range s.Actions() {
		a := s.Action(i)
		if perm != nil {
			a = s.PermuteAction(a, perm)
		}
		dst = append(dst, fingerprint(a.Encode(buf[:0])))
	}
	return dst
}

func (m *sysModel) EncodeRenamed(b []byte, s *impl.World) ([]byte, uint64) {
	if m.sym != nil {
		return m.sym.canonicalRenaming(b, s)
	}
	return s.Encode(b), 0
}
