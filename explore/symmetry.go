package explore

import (
	"bytes"
	"slices"
	"sync"

	"github.com/fencelab/fencelab/impl"
)

// symmetry reduces the state space by the clients' interchangeability, as
// TLC's SYMMETRY does: clients share one configuration, so a state and
// the same state with clients renamed have the same future up to the
// renaming, and the invariants and the deadlock check do not depend on
// names. The explorer then stores one state per class of renamings: the
// one whose encoding is least among the renamings that put the clients'
// own states in sorted order.
//
// Why that is canonical: the clients' own encodings carry no names, so a
// renaming σ of a state permutes them, and the renamings that sort them
// are those of the original composed with σ⁻¹ — the same set of renamed
// states, hence the same least one. Trying only sorting renamings keeps
// the cost near one encoding when the clients' states differ, and tries
// every renaming only among clients in equal states.
//
// Counterexamples stay concrete and shortest: the table's parents are
// representatives, and the replay walks real states, taking at each step an
// action whose successor has the next representative's fingerprint.
//
// The canonical form is cheap when the clients' own states differ, as
// they mostly do: sorting the clients' encodings gives the one sorting
// renaming, and when that is the identity the state is encoded as it is,
// with no copy. Only clients in equal states make several renamings to
// try.
//
// A symmetry is safe for concurrent use: each call takes its scratch from
// a pool.
type symmetry struct {
	perms [][]int // every permutation of the clients
	pool  sync.Pool
}

// symScratch is one canonical call's memory.
type symScratch struct {
	world *impl.World
	keys  [][]byte // each client's own encoding
	order []int
	perm  []int
	best  []byte
	cand  []byte
}

func newSymmetry(m *sysModel) *symmetry {
	n := m.cfg.Clients
	y := &symmetry{perms: permutations(n)}
	y.pool.New = func() any {
		return &symScratch{world: m.New(), keys: make([][]byte, n), order: make([]int, n), perm: make([]int, n)}
	}
	return y
}

// permutations lists the permutations of 0..n-1 in lexicographic order.
func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for pos := 0; pos <= len(p); pos++ {
			q := make([]int, 0, n)
			q = append(q, p[:pos]...)
			q = append(q, n-1)
			q = append(q, p[pos:]...)
			out = append(out, q)
		}
	}
	slices.SortFunc(out, slices.Compare)
	return out
}

// sorts reports whether renaming client i to perm[i] puts the clients'
// own encodings in order.
func (y *symScratch) sorts(perm []int) bool {
	for i := range perm {
		for j := range perm {
			if perm[i] < perm[j] && bytes.Compare(y.keys[i], y.keys[j]) > 0 {
				return false
			}
		}
	}
	return true
}

// canonical appends the canonical encoding of s's class to b.
func (y *symmetry) canonical(b []byte, s *impl.World) []byte {
	b, _ = y.canonicalRenaming(b, s)
	return b
}

// canonicalRenaming appends the canonical encoding of s's class to b and
// returns the renaming of the clients that gives it, packed (packRenaming;
// 0 for none).
func (y *symmetry) canonicalRenaming(b []byte, s *impl.World) ([]byte, uint64) {
	sc := y.pool.Get().(*symScratch)
	defer y.pool.Put(sc)
	for i := range s.Sys.Clients {
		sc.keys[i] = s.Sys.Clients[i].Encode(sc.keys[i][:0])
		sc.order[i] = i
	}
	// order lists the clients by their own encodings; ties stay in index
	// order (a stable sort).
	slices.SortStableFunc(sc.order, func(a, b int) int { return bytes.Compare(sc.keys[a], sc.keys[b]) })
	tie, identity := false, true
	for r, i := range sc.order {
		sc.perm[i] = r
		identity = identity && i == r
		tie = tie || r > 0 && bytes.Equal(sc.keys[sc.order[r-1]], sc.keys[i])
	}
	if !tie {
		// One renaming sorts the clients.
		if identity {
			return s.Encode(b), 0
		}
		sc.world.CopyFrom(s)
		sc.world.PermuteClients(sc.perm)
		return sc.world.Encode(b), packRenaming(sc.perm)
	}
	found := false
	var best []int
	for _, perm := range y.perms {
		if !sc.sorts(perm) {
			continue
		}
		sc.world.CopyFrom(s)
		sc.world.PermuteClients(perm)
		sc.cand = sc.world.Encode(sc.cand[:0])
		if !found || bytes.Compare(sc.cand, sc.best) < 0 {
			sc.best, sc.cand = sc.cand, sc.best
			found, best = true, perm
		}
	}
	return append(b, sc.best...), packRenaming(best)
}

// packRenaming packs a renaming of at most 15 clients (client i becomes
// perm[i]) into a number, 4 bits a client above a set top bit; the
// identity packs to 0.
func packRenaming(perm []int) uint64 {
	identity := true
	var r uint64
	for i, to := range perm {
		identity = identity && i == to
		r |= uint64(to) << (4 * i)
	}
	if identity {
		return 0
	}
	return r | 1<<63
}

// unpackRenaming is packRenaming's inverse for n clients.
func unpackRenaming(r uint64, n int) []int {
	perm := make([]int, n)
	for i := range perm {
		perm[i] = int(r >> (4 * i) & 0xf)
	}
	return perm
}
