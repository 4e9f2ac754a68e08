package nemesis

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/fencelab/fencelab/live/history"
)

// clientPause stops a client's process group (SIGSTOP) for e.For and
// resumes it (SIGCONT): history.FaultClientPause.
func (n *Nemesis) clientPause(ctx context.Context, e FaultEvent, rec *history.FaultRecord, fail func(error)) {
	p, ok := n.clientOf(e, fail)
	if !ok {
		return
	}
	if err := p.Signal(syscall.SIGSTOP); errors.Is(err, ErrEnded) {
		rec.Detail = fmt.Sprintf("%s had ended: nothing to pause", rec.Target)
		return
	} else if err != nil {
		fail(err)
		return
	}
	n.mu.Lock()
	n.stopped = append(n.stopped, p)
	n.mu.Unlock()
	rec.Detail = fmt.Sprintf("SIGSTOP %s for %v", rec.Target, e.For)
	if e.Until != "" {
		rec.Detail = fmt.Sprintf("SIGSTOP %s until %s (at most %v)", rec.Target, untilWords(e.Until), e.For)
	}
	n.hold(ctx, e, e.For)
	rec.End = time.Now().UnixNano()
	n.resumeClients()
}

func (n *Nemesis) resumeClients() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, p := range n.stopped {
		p.Signal(syscall.SIGCONT)
	}
	n.stopped = nil
}

// clientOf is the client fault e acts on; false, with fail called, when
// the run has no such client.
func (n *Nemesis) clientOf(e FaultEvent, fail func(error)) (ProcessGroup, bool) {
	if e.Client < 0 || e.Client >= len(n.clients) {
		fail(fmt.Errorf("no client %d", e.Client))
		return nil, false
	}
	return n.clients[e.Client], true
}

// untilWords says what a pause waits for, for the fault log.
func untilWords(until string) string {
	if until == UntilOtherRead {
		return "another client's accepted read"
	}
	return "another client's grant"
}
