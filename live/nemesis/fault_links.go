package nemesis

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fencelab/fencelab/internal/wait"
	"github.com/fencelab/fencelab/live/history"
)

// links delays or drops every byte of one client's links to the lock
// service for e.For, through its own proxies (Target.Network):
// history.FaultDelay and history.FaultBlackhole.
func (n *Nemesis) links(ctx context.Context, e FaultEvent, rec *history.FaultRecord, fail func(error)) {
	if n.target.Network == nil {
		fail(errors.New("this setup has no proxy between clients and service"))
		return
	}
	net, c := n.target.Network, e.Client
	var err error
	if e.Fault == history.FaultDelay {
		d := networkDelay(e.For)
		rec.Detail = fmt.Sprintf("delay every byte of %s's links to the lock service by %v for %v", rec.Target, d, e.For)
		err = n.network(func() error { return net.Delay(c, d) }, func() error { return net.Delay(c, 0) })
	} else {
		rec.Detail = fmt.Sprintf("drop every byte of %s's links to the lock service for %v", rec.Target, e.For)
		err = n.network(func() error { return net.Blackhole(c, true) }, func() error { return net.Blackhole(c, false) })
	}
	if err != nil {
		fail(err)
		return
	}
	wait.Sleep(ctx, e.For)
	rec.End = time.Now().UnixNano()
	n.undoNetwork()
}

// network applies a network fault and remembers how to take it back.
func (n *Nemesis) network(do, undo func() error) error {
	if err := do(); err != nil {
		return err
	}
	n.mu.Lock()
	n.undo = append(n.undo, func() { undo() })
	n.mu.Unlock()
	return nil
}

func (n *Nemesis) undoNetwork() {
	n.mu.Lock()
	undo := n.undo
	n.undo = nil
	n.mu.Unlock()
	for _, u := range undo {
		u()
	}
}
