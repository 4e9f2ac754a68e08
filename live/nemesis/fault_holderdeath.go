package nemesis

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/fencelab/fencelab/live/history"
)

// holderDeath kills a client's process group (SIGKILL) for good:
// history.FaultHolderDeath. Every client is a process of its own (a Go
// library's too, and a client command is its child in its group), so
// the kill is a real process death: no release is sent, the kernel closes
// the client's sockets, and the service learns only what it learns of
// any dead client (a closed connection, then silence). The record's End
// is the moment the kill returned: the client can act no more after it.
func (n *Nemesis) holderDeath(_ context.Context, e FaultEvent, rec *history.FaultRecord, fail func(error)) {
	p, ok := n.clientOf(e, fail)
	if !ok {
		return
	}
	err := p.Signal(syscall.SIGKILL)
	rec.End = time.Now().UnixNano()
	switch {
	case errors.Is(err, ErrEnded):
		rec.Detail = fmt.Sprintf("%s had ended: nothing to kill", rec.Target)
	case err != nil:
		fail(err)
	default:
		rec.Detail = fmt.Sprintf("SIGKILL %s's process group: no release sent, its kernel closes its connections", rec.Target)
	}
}
