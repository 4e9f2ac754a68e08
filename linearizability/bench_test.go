package linearizability

import (
	"math/rand/v2"
	"testing"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/verdict"
)

// realisticSections is a run of 3 clients × 20 sections as the simulator
// records them: the k-th committed section takes effect at 100·k, and each
// stretches a random 0–150 ns before and after, so it overlaps one or two
// neighbours of other clients (a client's own sections, 300 apart, never
// overlap). Every fifth section of a client is fenced off and aborted. With
// lose set, one section reads the value its predecessor read: a lost update.
func realisticSections(lose bool) []Section {
	rng := rand.New(rand.NewPCG(1, 2))
	var ss []Section
	read := int64(0)
	for k := range 60 {
		at := int64(100 * (k + 1))
		s := Section{Client: k % 3, Token: uint64(k + 1), Call: at - rng.Int64N(150), Return: at + rng.Int64N(150)}
		if k%15 == 14 {
			ss = append(ss, s) // aborted
			continue
		}
		s.Committed, s.Read = true, read
		if lose && k == 31 {
			s.Read--
		}
		read = s.Read + 1
		ss = append(ss, s)
	}
	return ss
}

func BenchmarkCheckSections(b *testing.B) {
	for _, bc := range []struct {
		name string
		lose bool
		want verdict.Status
	}{{"ok", false, verdict.Holds}, {"lost-update", true, verdict.Violated}} {
		ss := realisticSections(bc.lose)
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if v := CheckSections(ss, generous).Verdict.Status; v != bc.want {
					b.Fatalf("verdict %s, want %s", v, bc.want)
				}
			}
		})
	}
}

// BenchmarkCheckResource checks the same run's 120 resource operations (a
// read and a write per section, the aborted ones fenced at their write)
// under mode all.
func BenchmarkCheckResource(b *testing.B) {
	res := impl.NewResource(impl.FenceAll)
	var out impl.Effects
	var ops []ResourceOp
	for _, s := range realisticSections(false) {
		mid := (s.Call + s.Return) / 2
		token := s.Token
		r := step(&res, &out, impl.Message{Kind: impl.MsgRead, From: impl.ClientNode(s.Client), To: impl.ResourceNode, Token: token})
		ops = append(ops, ResourceOp{Client: s.Client, Kind: impl.OpRead, Token: token, Value: r.Value, Accepted: r.OK, Call: s.Call, Return: mid})
		if !s.Committed {
			token = 0 // a stale token: this write is fenced off
		}
		w := step(&res, &out, impl.Message{Kind: impl.MsgWrite, From: impl.ClientNode(s.Client), To: impl.ResourceNode, Token: token, Value: r.Value + 1})
		ops = append(ops, ResourceOp{Client: s.Client, Kind: impl.OpWrite, Token: token, Value: r.Value + 1, Accepted: w.OK, Call: mid + 1, Return: s.Return})
	}
	for b.Loop() {
		if v := CheckResource(ops, impl.FenceAll, generous).Verdict.Status; v != verdict.Holds {
			b.Fatalf("verdict %s, want ok", v)
		}
	}
}
