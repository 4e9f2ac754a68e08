package nemesis

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/fencelab/fencelab/internal/wait"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/server"
)

// serverPause stops every process of the service for e.For and
// resumes them: history.FaultServerPause.
func (n *Nemesis) serverPause(ctx context.Context, e FaultEvent, rec *history.FaultRecord, fail func(error)) {
	var pids []int
	for _, s := range n.target.Servers {
		pids = append(pids, s.Pids()...)
		if err := n.pauseServer(s); err != nil {
			fail(fmt.Errorf("pause %s: %w", s.Name(), err))
		}
	}
	rec.Detail = fmt.Sprintf("SIGSTOP pids %v for %v", pids, e.For)
	wait.Sleep(ctx, e.For)
	rec.End = time.Now().UnixNano()
	n.resumeServers()
}

// pauser is a server that pauses and resumes itself, waiting until the
// kernel agrees (live/server's processes do); others get SIGSTOP and
// SIGCONT on their Pids.
type pauser interface {
	Pause() error
	Resume() error
}

func (n *Nemesis) pauseServer(s server.Server) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.stoppedS = append(n.stoppedS, s) // resumed even if the pause half failed
	if p, ok := s.(pauser); ok {
		return p.Pause()
	}
	var errs []error
	for _, pid := range s.Pids() {
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			errs = append(errs, fmt.Errorf("SIGSTOP %d: %w", pid, err))
		}
	}
	return errors.Join(errs...)
}

func (n *Nemesis) resumeServers() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, s := range n.stoppedS {
		if p, ok := s.(pauser); ok {
			p.Resume()
			continue
		}
		for _, pid := range s.Pids() {
			syscall.Kill(pid, syscall.SIGCONT)
		}
	}
	n.stoppedS = nil
}
