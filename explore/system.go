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
	invs  []impl.Invariant
	goals []goal
	// sym, when set, makes Encode canonical under renamings of clients.
	sym *symmetry
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

func (m *sysModel) Apply(s *impl.World, i int) { s.Apply(i) }

func (m *sysModel) Properties() []string {
	names := make([]string, 0, len(m.invs)+len(m.goals))
	for _, inv := range m.invs {
		names = append(names, inv.Name)
	}
	for _, g := range m.goals {
		names = append(names, "not "+g.name)
	}
	return names
}

func (m *sysModel) Holds(s *impl.World, k int) bool {
	if k < len(m.invs) {
		return m.invs[k].Check(s.Sys) == nil
	}
	return !m.goals[k-len(m.invs)].reached(s)
}

func (m *sysModel) Finished(s *impl.World) bool { return s.Done() }
