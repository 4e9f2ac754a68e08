package nemesis

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/fencelab/fencelab/internal/wait"
	"github.com/fencelab/fencelab/live/history"
)

// restart kills the service (SIGKILL), keeps it down for e.For and
// starts it again on the same port, its data kept or wiped:
// history.FaultRestartKeep and history.FaultRestartWipe.
func (n *Nemesis) restart(ctx context.Context, e FaultEvent, rec *history.FaultRecord, fail func(error)) {
	wipe := e.Fault == history.FaultRestartWipe
	rec.Detail = fmt.Sprintf("SIGKILL, down %v, restart with data %s", e.For, map[bool]string{true: "wiped", false: "kept"}[wipe])
	for _, s := range n.target.Servers {
		if err := s.Kill(); err != nil {
			fail(fmt.Errorf("kill %s: %w", s.Name(), err))
			return
		}
	}
	wait.Sleep(ctx, e.For)
	// The run may end during the downtime or the restart: Stop then
	// ends what is left, or RestartDown starts it again for the
	// store's audit; a restart cut short is no fault of the service.
	leftDown := func() {
		n.mu.Lock()
		n.down = true
		n.mu.Unlock()
	}
	if ctx.Err() != nil {
		leftDown()
		return
	}
	// The servers start again side by side, as they started for the run:
	// the restart then takes about the start-up the story's margin is
	// derived from (setup.Setup.StoryThink), not one start-up per server.
	errs := make([]error, len(n.target.Servers))
	var wg sync.WaitGroup
	for i, s := range n.target.Servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.Restart(ctx, wipe)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			if ctx.Err() != nil {
				leftDown()
				return
			}
			fail(fmt.Errorf("restart %s: %w", n.target.Servers[i].Name(), err))
			return
		}
	}
	rec.End = time.Now().UnixNano()
}

// RestartDown starts again, data kept, the servers a restart left killed
// when the run ended during its downtime: a real store's log is read
// from them after the run.
func (n *Nemesis) RestartDown(ctx context.Context) error {
	n.mu.Lock()
	down := n.down
	n.down = false
	n.mu.Unlock()
	if !down {
		return nil
	}
	for _, s := range n.target.Servers {
		if len(s.Pids()) > 0 {
			continue
		}
		if err := s.Restart(ctx, false); err != nil {
			return fmt.Errorf("restarting %s, killed when the run ended: %w", s.Name(), err)
		}
	}
	return nil
}
