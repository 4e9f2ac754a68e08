package impl

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// randomRun walks the untimed world (World.Walk) with rapid choosing each
// action, up to 60 of them, calling visit after every step.
func randomRun(t *rapid.T, cfg Config, visit func(sys *System, n NodeID, in Input, out *Effects)) {
	w, err := NewWorld(cfg)
	require.NoError(t, err)
	steps := rapid.IntRange(0, 60).Draw(t, "steps")
	choose := func(n int) int { return rapid.IntRange(0, n-1).Draw(t, "choice") }
	w.Walk(choose, steps, func(a Action, out *Effects) bool {
		visit(w.Sys, a.Node, a.Input, out)
		return true
	})
}

func drawConfig(t *rapid.T) Config {
	d := rapid.SampledFrom(Designs()).Draw(t, "design")
	var nodes int
	if d.Redlock() {
		nodes = rapid.IntRange(1, 5).Draw(t, "nodes")
	}
	return Config{
		Design:   d,
		Nodes:    nodes,
		Clients:  rapid.IntRange(1, 4).Draw(t, "clients"),
		Sections: rapid.IntRange(1, 3).Draw(t, "sections"),
		Retries:  rapid.IntRange(0, 2).Draw(t, "retries"),
		TTL:      10, Margin: 1,
		LockDelay: rapid.SampledFrom([]time.Duration{0, 5}).Draw(t, "lockDelay"),
		Validity:  rapid.SampledFrom(ValidityRules()).Draw(t, "validity"),
	}
}

// TestDecodeInvertsEncode: every state a random run reaches decodes, into a
// system built from the same Config, to a system that encodes to the same
// bytes and behaves the same.
func TestDecodeInvertsEncode(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := drawConfig(t)
		// The world's system: a renewing client's budget is the
		// untimed world's (UntimedRenewals), not NewSystem's.
		w, err := NewWorld(cfg)
		require.NoError(t, err)
		fresh := w.Sys
		randomRun(t, cfg, func(sys *System, _ NodeID, _ Input, _ *Effects) {
			enc := sys.Encode(nil)
			rest, err := fresh.Decode(append(enc, 0xAB))
			require.NoError(t, err)
			assert.Equal(t, []byte{0xAB}, rest, "Decode must return what follows the encoding")
			assert.Equal(t, enc, fresh.Encode(nil))
			assert.Equal(t, sys.Service, fresh.Service)
			assert.Equal(t, sys.Clients, fresh.Clients)
			assert.Equal(t, sys.Resource.Counter(), fresh.Resource.Counter())
			assert.Equal(t, sys.Resource.MaxToken(), fresh.Resource.MaxToken())
			assert.True(t, slices.Equal(sys.Resource.Log(), fresh.Resource.Log()), "log")
			assert.Equal(t, sys.AllDone(), fresh.AllDone())
		})
	})
}

func TestDecodeMessageInvertsEncode(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := Message{
			Kind:  MsgKind(rapid.IntRange(int(MsgAcquire), int(MsgWriteReply)).Draw(t, "kind")),
			From:  NodeID(rapid.Uint8().Draw(t, "from")),
			To:    NodeID(rapid.Uint8().Draw(t, "to")),
			Lease: rapid.Uint64().Draw(t, "lease"),
			Token: rapid.Uint64().Draw(t, "token"),
			Value: rapid.Int64().Draw(t, "value"),
			OK:    rapid.Bool().Draw(t, "ok"),
		}
		got, rest, err := DecodeMessage(append(m.Encode(nil), 7))
		require.NoError(t, err)
		assert.Equal(t, m, got)
		assert.Equal(t, []byte{7}, rest)
	})
}

func TestDecodeRejectsBadInput(t *testing.T) {
	sys, err := NewSystem(Config{Design: DesignFenceAll, Clients: 2, Sections: 1, TTL: 10, Margin: 1})
	require.NoError(t, err)
	good := sys.Encode(nil)
	m := Message{Kind: MsgGrant, From: ServiceNode, To: ClientNode(0), Lease: math.MaxUint64, Token: 3}.Encode(nil)
	tests := []struct {
		name   string
		decode func() error
	}{
		{"empty system", func() error { _, err := sys.Decode(nil); return err }},
		{"system cut short", func() error { _, err := sys.Decode(good[:len(good)-1]); return err }},
		{"bad boolean", func() error {
			b := append([]byte(nil), good...)
			b[2] = 9 // the service's Delayed flag
			_, err := sys.Decode(b)
			return err
		}},
		{"log longer than its bytes", func() error {
			var r Resource
			_, err := r.Decode([]byte{0, 0, 100, 1})
			return err
		}},
		{"message cut short", func() error { _, _, err := DecodeMessage(m[:len(m)-2]); return err }},
		{"message bad varint", func() error {
			_, _, err := DecodeMessage([]byte{1, 2, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF})
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Error(t, tc.decode())
		})
	}
}

// TestCopyFromIsIndependent: a copy equals its source and does not share
// memory with it: stepping one leaves the other as it was.
func TestCopyFromIsIndependent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := drawConfig(t)
		cp, err := NewSystem(cfg)
		require.NoError(t, err)
		randomRun(t, cfg, func(sys *System, _ NodeID, _ Input, _ *Effects) {
			cp.CopyFrom(sys)
			before := sys.Encode(nil)
			assert.Equal(t, before, cp.Encode(nil))
			// Step the copy with every client's start and a read at the
			// resource; the source must not change.
			var out Effects
			for i := range cp.Clients {
				cp.Step(ClientNode(i), &Input{Kind: InputStart}, &out)
			}
			cp.Step(ResourceNode, &Input{Kind: InputMessage, Msg: Message{Kind: MsgWrite, From: ClientNode(0), To: ResourceNode, Token: 99, Value: 42}}, &out)
			assert.Equal(t, before, sys.Encode(nil), "stepping a copy changed its source")
		})
	})
}

// renameMessage renames the clients a message names, as PermuteClients
// renames them in the actors: in a Redlock row its value names one too.
func renameMessage(m Message, perm []int, redlock bool) Message {
	rename := func(n NodeID) NodeID {
		if n.IsClient() {
			return ClientNode(perm[n.ClientIndex()])
		}
		return n
	}
	m.From, m.To = rename(m.From), rename(m.To)
	if redlock {
		m.Lease, m.Token = renameValue(m.Lease, rename), renameValue(m.Token, rename)
	}
	return m
}

// TestPermuteClientsIsASymmetry: renaming clients is undone by the inverse
// renaming, changes no invariant's verdict, and commutes with every step:
// stepping then renaming gives the same state and effects as renaming then
// stepping the renamed node with the renamed input.
func TestPermuteClientsIsASymmetry(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := drawConfig(t)
		perm := rapid.Permutation(func() []int {
			p := make([]int, cfg.Clients)
			for i := range p {
				p[i] = i
			}
			return p
		}()).Draw(t, "perm")
		inverse := make([]int, len(perm))
		for i, p := range perm {
			inverse[p] = i
		}
		scratch, err := NewSystem(cfg)
		require.NoError(t, err)
		after, err := NewSystem(cfg)
		require.NoError(t, err)
		var before []byte
		randomRun(t, cfg, func(sys *System, n NodeID, in Input, out *Effects) {
			// Commutation of the step just taken, from the state before it.
			if before != nil {
				_, err := scratch.Decode(before)
				require.NoError(t, err)
				scratch.PermuteClients(perm)
				rn := n
				if n.IsClient() {
					rn = ClientNode(perm[n.ClientIndex()])
				}
				rin := in
				rin.Msg = renameMessage(in.Msg, perm, cfg.Design.Redlock())
				var rout Effects
				scratch.Step(rn, &rin, &rout)
				after.CopyFrom(sys)
				after.PermuteClients(perm)
				require.Equal(t, after.Encode(nil), scratch.Encode(nil), "step of %s on %v does not commute with renaming", n, in)
				require.Len(t, rout.Send, len(out.Send))
				for i, m := range out.Send {
					require.Equal(t, renameMessage(m, perm, cfg.Design.Redlock()), rout.Send[i])
				}
				require.Equal(t, append([]TimerSet(nil), out.Set...), append([]TimerSet(nil), rout.Set...))
				require.Equal(t, append([]Timer(nil), out.Cancel...), append([]Timer(nil), rout.Cancel...))
			}
			before = sys.Encode(before[:0])

			scratch.CopyFrom(sys)
			scratch.PermuteClients(perm)
			for _, inv := range Invariants() {
				if !inv.AppliesTo(cfg.Design) {
					// Redlock's values name their clients, so their order
					// changes under renaming: an order that means nothing.
					continue
				}
				require.Equal(t, inv.Check(sys) == nil, inv.Check(scratch) == nil, "%s changes under renaming", inv.Name)
			}
			scratch.PermuteClients(inverse)
			require.Equal(t, sys.Encode(nil), scratch.Encode(nil), "the inverse renaming must restore the state")
		})
	})
}
