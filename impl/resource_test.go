package impl

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// refResource is the reference model of the fenced counter, as DESIGN.md's
// table of fencing modes states it.
type refResource struct {
	mode    FenceMode
	counter int64
	high    uint64
	log     []Op
}

func (r *refResource) admit(kind OpKind, token uint64) bool {
	switch {
	case r.mode == FenceNone:
		return true
	case r.mode == FenceWrites && kind == OpRead:
		return true // reads are neither checked nor raise the highest token
	case token < r.high:
		return false
	}
	r.high = token
	return true
}

type resourceMachine struct {
	res Resource
	ref refResource
	out Effects
}

func (rm *resourceMachine) op(t *rapid.T, kind OpKind) {
	c := ClientNode(rapid.IntRange(0, 2).Draw(t, "client"))
	token := rapid.Uint64Range(0, 6).Draw(t, "token")
	m := Message{Kind: MsgRead, From: c, To: ResourceNode, Token: token}
	if kind == OpWrite {
		m.Kind, m.Value = MsgWrite, rapid.Int64Range(-3, 10).Draw(t, "value")
	}
	rm.out.Reset()
	rm.res.Step(&Input{Kind: InputMessage, Msg: m}, &rm.out)

	ok := rm.ref.admit(kind, token)
	want := Op{Client: c, Kind: kind, Token: token, Accepted: ok}
	reply := Message{From: ResourceNode, To: c, Token: token, OK: ok}
	if kind == OpRead {
		reply.Kind = MsgReadReply
		if ok {
			want.Value, reply.Value = rm.ref.counter, rm.ref.counter
		}
	} else {
		reply.Kind, want.Value = MsgWriteReply, m.Value
		if ok {
			rm.ref.counter = m.Value
		}
	}
	rm.ref.log = append(rm.ref.log, want)
	assert.Equal(t, []Message{reply}, rm.out.Send)
	wantEvent := EvOpAccepted
	if !ok {
		wantEvent = EvOpRejected
	}
	assert.Equal(t, []Event{{Kind: wantEvent, Node: ResourceNode, Peer: c, Token: token, Op: want}}, rm.out.Events)
}

func (rm *resourceMachine) check(t *rapid.T) {
	assert.Equal(t, rm.ref.counter, rm.res.Counter())
	assert.Equal(t, rm.ref.log, append([]Op(nil), rm.res.Log()...))
	if rm.ref.mode != FenceNone {
		assert.Equal(t, rm.ref.high, rm.res.MaxToken())
	}
	// With "all" the resource cannot accept tokens out of order, whatever
	// arrives: TokenIsMonotonical holds by construction of the check.
	if rm.ref.mode == FenceAll {
		require.Nil(t, tokenIsMonotonical(&System{Resource: rm.res}))
	}
}

func TestResourceAgainstReferenceModel(t *testing.T) {
	for _, mode := range []FenceMode{FenceNone, FenceWrites, FenceAll} {
		t.Run(mode.String(), func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				rm := &resourceMachine{res: NewResource(mode), ref: refResource{mode: mode}}
				t.Repeat(map[string]func(*rapid.T){
					"read":  func(t *rapid.T) { rm.op(t, OpRead) },
					"write": func(t *rapid.T) { rm.op(t, OpWrite) },
					"":      rm.check,
				})
			})
		})
	}
}

func TestResourceRules(t *testing.T) {
	c1, c2 := ClientNode(0), ClientNode(1)
	read := func(c NodeID, token uint64) Message {
		return Message{Kind: MsgRead, From: c, To: ResourceNode, Token: token}
	}
	write := func(c NodeID, token uint64, v int64) Message {
		return Message{Kind: MsgWrite, From: c, To: ResourceNode, Token: token, Value: v}
	}
	tests := []struct {
		name    string
		mode    FenceMode
		ops     []Message
		ok      []bool // each reply's OK
		counter int64
	}{
		{"none accepts a stale write", FenceNone,
			[]Message{write(c2, 2, 1), write(c1, 1, 1)}, []bool{true, true}, 1},
		{"writes rejects a write below the highest written token", FenceWrites,
			[]Message{write(c2, 2, 1), write(c1, 1, 5)}, []bool{true, false}, 1},
		{"writes: a newer holder's read does not fence an older holder's write", FenceWrites,
			[]Message{read(c2, 2), write(c1, 1, 1), write(c2, 2, 1)}, []bool{true, true, true}, 1},
		{"writes: reads are never rejected", FenceWrites,
			[]Message{write(c2, 2, 1), read(c1, 1)}, []bool{true, true}, 1},
		{"all: a newer holder's read fences an older holder's write", FenceAll,
			[]Message{read(c2, 2), write(c1, 1, 1), write(c2, 2, 1)}, []bool{true, false, true}, 1},
		{"all: a stale read is rejected", FenceAll,
			[]Message{read(c2, 2), read(c1, 1)}, []bool{true, false}, 0},
		{"all: an equal token is accepted (one section reads then writes)", FenceAll,
			[]Message{read(c1, 3), write(c1, 3, 1)}, []bool{true, true}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewResource(tc.mode)
			for i, m := range tc.ops {
				var out Effects
				r.Step(&Input{Kind: InputMessage, Msg: m}, &out)
				require.Len(t, out.Send, 1)
				assert.Equal(t, tc.ok[i], out.Send[0].OK, "operation %d (%v)", i+1, m)
			}
			assert.Equal(t, tc.counter, r.Counter())
			assert.Len(t, r.Log(), len(tc.ops), "every operation is logged, rejected ones too")
		})
	}
}

func TestResourceIgnoresWhatIsNotAnOperation(t *testing.T) {
	r := NewResource(FenceAll)
	var out Effects
	r.Step(&Input{Kind: InputTimer, Timer: Timer{Kind: TimerThink}}, &out)
	r.Step(&Input{Kind: InputMessage, Msg: Message{Kind: MsgAcquire, From: ClientNode(0)}}, &out)
	assert.Empty(t, out.Send)
	assert.Empty(t, r.Log())
}
