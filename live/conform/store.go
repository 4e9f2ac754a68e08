package conform

import (
	"fmt"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/store"
)

// StoreSequence is what conform-store asks a store command, in order:
// three clients with tokens 1 to 3, each class of operation the fencing
// modes tell apart — a stale write after a newer read, a stale read after
// a newer write, a write with no read before it, a stale write after a
// newer write, an operation with no token.
func StoreSequence() []impl.Op {
	c := impl.ClientNode
	r := func(client int, token uint64) impl.Op {
		return impl.Op{Client: c(client), Kind: impl.OpRead, Token: token}
	}
	w := func(client int, token uint64, v int64) impl.Op {
		return impl.Op{Client: c(client), Kind: impl.OpWrite, Token: token, Value: v}
	}
	return []impl.Op{
		r(0, 1), w(0, 1, 1), // the first holder's section
		r(1, 2),    // a newer holder reads
		w(0, 1, 2), // the stale write after a newer read
		w(1, 2, 2),
		r(0, 1),    // a stale read after a newer write
		w(2, 3, 3), // a write with no read before it
		w(1, 2, 4), // a stale write after a newer write
		r(2, 3),
		r(1, 0), // no token
		w(2, 3, 4),
	}
}

// Store checks that command speaks the resource protocol
// (docs/store-protocol.md) and fences as design's row claims: it says
// hello, asks StoreSequence, and compares each decision (and a read's
// value) with impl.Resource of the row's mode fed the same operations;
// then the log, checked against the answers, and close. The first
// decision that differs ends the sequence (the store's state is not the
// model's after it); the log and close are checked still. The error is
// the harness's: a row no store command can claim.
func Store(command string, design impl.Design) ([]Check, error) {
	mode := design.Mode()
	if mode == impl.FenceSequencer {
		return nil, fmt.Errorf("row %s checks tokens with the lock service (sequencer): a store command cannot", design)
	}
	sc, err := store.StartStoreCommand(command, mode, design.String())
	if err != nil {
		return []Check{{Name: "hello", Err: err}}, nil
	}
	checks := []Check{{Name: "hello"}}
	model := impl.NewResource(mode)
	var out impl.Effects
	for i, op := range StoreSequence() {
		name := fmt.Sprintf("operation %d: %s %s, token %d", i+1, op.Client, op.Kind, op.Token)
		if op.Kind == impl.OpWrite {
			name = fmt.Sprintf("operation %d: %s write %d, token %d", i+1, op.Client, op.Value, op.Token)
		}
		m := impl.Message{Kind: impl.MsgRead, From: op.Client, To: impl.ResourceNode, Token: op.Token}
		if op.Kind == impl.OpWrite {
			m.Kind, m.Value = impl.MsgWrite, op.Value
		}
		out.Reset()
		model.Step(&impl.Input{Kind: impl.InputMessage, Msg: m}, &out)
		want := model.Log()[len(model.Log())-1]
		got, err := sc.Do(op)
		if err == nil {
			err = differs(got, want, mode)
		}
		checks = append(checks, Check{Name: name, Err: err})
		if err != nil {
			break
		}
	}
	_, err = sc.Log()
	checks = append(checks, Check{Name: "log", Err: err})
	checks = append(checks, Check{Name: "close", Err: sc.Close()})
	return checks, nil
}

// differs says how the store's decision got differs from want, the
// model's (nil when it does not).
func differs(got, want impl.Op, mode impl.FenceMode) error {
	word := map[bool]string{true: "accepted", false: "refused"}
	switch {
	case got.Accepted != want.Accepted:
		return fmt.Errorf("the store %s it; a resource fencing %v %s it", word[got.Accepted], mode, word[want.Accepted])
	case got.Kind == impl.OpRead && got.Value != want.Value:
		return fmt.Errorf("the store read %d; the counter is %d", got.Value, want.Value)
	}
	return nil
}
