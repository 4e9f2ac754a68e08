package explore

import (
	"bytes"
	"slices"

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
type symmetry struct {
	perms   [][]int // every permutation of the clients
	scratch *impl.World
	keys    [][]byte // each client's own encoding
	best    []byte
	cand    []byte
}

func newSymmetry(m *sysModel) *symmetry {
	return &symmetry{perms: permutations(m.cfg.Clients), scratch: m.New(), keys: make([][]byte, m.cfg.Clients)}
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
func (y *symmetry) sorts(perm []int) bool {
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
	for i := range s.Sys.Clients {
		y.keys[i] = s.Sys.Clients[i].Encode(y.keys[i][:0])
	}
	found := false
	for _, perm := range y.perms {
		if !y.sorts(perm) {
			continue
		}
		y.scratch.CopyFrom(s)
		y.scratch.PermuteClients(perm)
		y.cand = y.scratch.Encode(y.cand[:0])
		if !found || bytes.Compare(y.cand, y.best) < 0 {
			y.best, y.cand = y.cand, y.best
			found = true
		}
	}
	return append(b, y.best...)
}
