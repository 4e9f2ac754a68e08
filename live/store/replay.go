package store

import (
	"fmt"

	"github.com/fencelab/fencelab/impl"
)

// Replay rebuilds a resource of the given fencing mode from a log of its
// operations: a fresh impl.Resource handles each again, in order, and
// must decide it as the log says (accepted or refused). The rebuilt
// resource's log and counter are what the judge reads; a read's value is
// the counter the replay reaches, which the judge does not read.
// A sequencer-checking resource cannot be replayed: it asks the lock
// service about every token.
func Replay(mode impl.FenceMode, ops []impl.Op) (*impl.Resource, error) {
	if mode == impl.FenceSequencer {
		return nil, fmt.Errorf("a resource fencing %v cannot be replayed without its lock service", mode)
	}
	r := impl.NewResource(mode)
	var out impl.Effects
	for i, op := range ops {
		m := impl.Message{Kind: impl.MsgRead, From: op.Client, To: impl.ResourceNode, Token: op.Token}
		switch op.Kind {
		case impl.OpRead:
		case impl.OpWrite:
			m.Kind, m.Value = impl.MsgWrite, op.Value
		default:
			return nil, fmt.Errorf("operation %d: unknown kind %v", i+1, op.Kind)
		}
		out.Reset()
		r.Step(&impl.Input{Kind: impl.InputMessage, Msg: m}, &out)
		if got := r.Log()[len(r.Log())-1]; got.Accepted != op.Accepted {
			return nil, fmt.Errorf("operation %d (%v): logged as %s, a resource fencing %v %s it", i+1, op, decision(op.Accepted), mode, decision(got.Accepted))
		}
	}
	return &r, nil
}

func decision(accepted bool) string {
	if accepted {
		return "accepted"
	}
	return "refused"
}
