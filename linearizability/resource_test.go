package linearizability

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"pgregory.net/rapid"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/verdict"
)

func allModes() []impl.FenceMode {
	return []impl.FenceMode{impl.FenceNone, impl.FenceWrites, impl.FenceAll}
}

// read is an accepted read that returned value; write an accepted write.
func read(client int, token uint64, value, call, ret int64) ResourceOp {
	return ResourceOp{Client: client, Kind: impl.OpRead, Token: token, Value: value, Accepted: true, Call: call, Return: ret}
}

func write(client int, token uint64, value, call, ret int64) ResourceOp {
	return ResourceOp{Client: client, Kind: impl.OpWrite, Token: token, Value: value, Accepted: true, Call: call, Return: ret}
}

func fenced(op ResourceOp) ResourceOp {
	op.Accepted = false
	if op.Kind == impl.OpRead {
		op.Value = 0
	}
	return op
}

func TestCheckResource(t *testing.T) {
	type want struct{ none, writes, all verdict.Status }
	tests := []struct {
		name string
		ops  []ResourceOp
		want want
	}{
		{"empty history", nil, want{verdict.Holds, verdict.Holds, verdict.Holds}},
		{"one client's section", []ResourceOp{
			read(0, 1, 0, 0, 10), write(0, 1, 1, 20, 30), read(1, 2, 1, 40, 50),
		}, want{verdict.Holds, verdict.Holds, verdict.Holds}},
		{"DESIGN.md's writes row: a newer read does not stop a stale write", []ResourceOp{
			read(1, 2, 0, 0, 10), write(0, 1, 1, 20, 30), write(1, 2, 1, 40, 50),
		}, want{verdict.Holds, verdict.Holds, verdict.Violated}},
		{"the same with the stale write fenced off", []ResourceOp{
			read(1, 2, 0, 0, 10), fenced(write(0, 1, 1, 20, 30)), write(1, 2, 1, 40, 50),
		}, want{verdict.Violated, verdict.Violated, verdict.Holds}},
		{"a stale-token write accepted after a newer write", []ResourceOp{
			write(1, 2, 1, 0, 10), write(0, 1, 1, 20, 30),
		}, want{verdict.Holds, verdict.Violated, verdict.Violated}},
		{"the stale-token write rejected", []ResourceOp{
			write(1, 2, 1, 0, 10), fenced(write(0, 1, 1, 20, 30)),
		}, want{verdict.Violated, verdict.Holds, verdict.Holds}},
		{"a stale read after a newer write, accepted", []ResourceOp{
			write(1, 2, 7, 0, 10), read(0, 1, 7, 20, 30),
		}, want{verdict.Holds, verdict.Holds, verdict.Violated}},
		{"a stale read after a newer write, rejected", []ResourceOp{
			write(1, 2, 7, 0, 10), fenced(read(0, 1, 0, 20, 30)),
		}, want{verdict.Violated, verdict.Violated, verdict.Holds}},
		{"a fresh write rejected", []ResourceOp{
			read(0, 1, 0, 0, 10), fenced(write(0, 1, 1, 20, 30)),
		}, want{verdict.Violated, verdict.Violated, verdict.Violated}},
		{"an equal token is not stale", []ResourceOp{
			read(0, 3, 0, 0, 10), write(0, 3, 1, 20, 30), write(0, 3, 2, 40, 50),
		}, want{verdict.Holds, verdict.Holds, verdict.Holds}},
		{"a wrong value read", []ResourceOp{
			write(0, 1, 5, 0, 10), read(1, 2, 4, 20, 30),
		}, want{verdict.Violated, verdict.Violated, verdict.Violated}},
		{"a rejected operation changes nothing", []ResourceOp{
			write(1, 2, 1, 0, 10), fenced(write(0, 1, 9, 20, 30)), read(1, 2, 1, 40, 50),
		}, want{verdict.Violated, verdict.Holds, verdict.Holds}},
		{"concurrent writes, the later token last", []ResourceOp{
			// Either order fits the intervals; reading 2 needs c2's write last.
			write(0, 1, 1, 0, 50), write(1, 2, 2, 10, 60), read(2, 3, 2, 70, 80),
		}, want{verdict.Holds, verdict.Holds, verdict.Holds}},
		{"concurrent writes, the earlier token last", []ResourceOp{
			// Reading 1 needs c1's write (token 1) after c2's (token 2):
			// only a resource that ignores tokens may do that.
			write(0, 1, 1, 0, 50), write(1, 2, 2, 10, 60), read(2, 3, 1, 70, 80),
		}, want{verdict.Holds, verdict.Violated, verdict.Violated}},
		{"real-time order: a read that returned before a write was called", []ResourceOp{
			write(0, 1, 1, 0, 10), read(1, 2, 2, 20, 30), write(0, 1, 2, 40, 50),
		}, want{verdict.Violated, verdict.Violated, verdict.Violated}},
		{"no tokens (the design without fencing)", []ResourceOp{
			read(0, 0, 0, 0, 10), read(1, 0, 0, 5, 15), write(1, 0, 1, 20, 30), write(0, 0, 1, 25, 35), read(0, 0, 1, 40, 50),
		}, want{verdict.Holds, verdict.Holds, verdict.Holds}},
	}
	for _, tt := range tests {
		for _, mode := range allModes() {
			t.Run(fmt.Sprintf("%s/%s", tt.name, mode), func(t *testing.T) {
				w := map[impl.FenceMode]verdict.Status{impl.FenceNone: tt.want.none, impl.FenceWrites: tt.want.writes, impl.FenceAll: tt.want.all}[mode]
				assert.Equal(t, w, CheckResource(tt.ops, mode, generous).Verdict.Status)
			})
		}
	}
}

// genOps drives a real impl.Resource with random operations, one at a
// time, and records what it answered. Operation i takes effect at virtual
// time 100·(i+1); spread says how far each interval may reach around that
// point. Any spread gives a linearizable history (the real order is a
// linearization inside the intervals); spread < 50 makes it sequential.
func genOps(t *rapid.T, mode impl.FenceMode, spread int64) []ResourceOp {
	n := rapid.IntRange(0, 30).Draw(t, "operations")
	res := impl.NewResource(mode)
	var out impl.Effects
	ops := make([]ResourceOp, n)
	for i := range ops {
		client := rapid.IntRange(0, 2).Draw(t, "client")
		m := impl.Message{From: impl.ClientNode(client), To: impl.ResourceNode, Token: rapid.Uint64Range(0, 4).Draw(t, "token")}
		op := ResourceOp{Client: client, Token: m.Token}
		if rapid.Bool().Draw(t, "write") {
			m.Kind, m.Value = impl.MsgWrite, rapid.Int64Range(-3, 9).Draw(t, "value")
			op.Kind, op.Value = impl.OpWrite, m.Value
		} else {
			m.Kind, op.Kind = impl.MsgRead, impl.OpRead
		}
		reply := step(&res, &out, m)
		op.Accepted = reply.OK
		if op.Kind == impl.OpRead && reply.OK {
			op.Value = reply.Value
		}
		at := int64(100 * (i + 1))
		op.Call = at - rapid.Int64Range(0, spread).Draw(t, "before")
		op.Return = at + rapid.Int64Range(0, spread).Draw(t, "after")
		ops[i] = op
	}
	return ops
}

func TestCheckResourceAcceptsWhatImplDoes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		mode := rapid.SampledFrom(allModes()).Draw(t, "mode")
		spread := rapid.SampledFrom([]int64{10, 120, 400}).Draw(t, "spread")
		ops := genOps(t, mode, spread)
		if got := CheckResource(ops, mode, generous).Verdict.Status; got != verdict.Holds {
			t.Fatalf("impl's own behaviour judged %s under mode %s: %+v", got, mode, ops)
		}
	})
}

// On a sequential history, the model's single right answer at each step is
// the real resource's; so changing one answer — accept for reject, or the
// value read — must make it Illegal.
func TestCheckResourceRejectsAMutatedAnswer(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		mode := rapid.SampledFrom(allModes()).Draw(t, "mode")
		ops := genOps(t, mode, 10)
		if len(ops) == 0 {
			t.Skip("nothing to mutate")
		}
		i := rapid.IntRange(0, len(ops)-1).Draw(t, "mutated")
		op := &ops[i]
		if op.Kind == impl.OpRead && op.Accepted && rapid.Bool().Draw(t, "change the value") {
			op.Value += rapid.SampledFrom([]int64{-2, -1, 1, 2}).Draw(t, "delta")
		} else {
			op.Accepted = !op.Accepted
			if op.Kind == impl.OpRead {
				// A fenced read returns nothing; a read wrongly accepted
				// returns whatever value: the acceptance itself is wrong.
				op.Value = rapid.Int64Range(-1, 9).Draw(t, "value")
			}
		}
		if got := CheckResource(ops, mode, generous).Verdict.Status; got != verdict.Violated {
			t.Fatalf("operation %d mutated to %+v judged %s under mode %s: %+v", i, *op, got, mode, ops)
		}
	})
}
