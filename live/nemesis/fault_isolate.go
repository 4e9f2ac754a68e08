package nemesis

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fencelab/fencelab/internal/wait"
	"github.com/fencelab/fencelab/live/history"
)

// isolated carries out e, a fault of the service, while client c's links
// to the lock service are cut (FaultEvent.Isolate): from before the
// fault starts until e.Isolate after it ends. The cut is a blackhole of
// its own in the fault log, beside e's record, so the judge reads both.
// A service that keeps its sessions across a restart or a pause (as
// ZooKeeper does) loses c's once it is back and c's pings do not reach
// it, while c, cut off, still thinks: the story's two holders.
func (n *Nemesis) isolated(ctx context.Context, e FaultEvent, c int) {
	rec := history.FaultRecord{Fault: history.FaultBlackhole, Target: history.ClientName(c), Start: time.Now().UnixNano()}
	rec.Detail = fmt.Sprintf("drop every byte of %s's links to the lock service during the %s and %v after it", rec.Target, e.Fault, e.Isolate)
	var err error
	if n.target.Network == nil {
		err = errors.New("this setup has no proxy between clients and service")
	} else {
		net := n.target.Network
		err = n.network(func() error { return net.Blackhole(c, true) }, func() error { return net.Blackhole(c, false) })
	}
	if err != nil {
		rec.Error = history.OneLine(err.Error(), 200)
		rec.End = time.Now().UnixNano()
		n.log(rec)
		n.inject(ctx, e) // the fault of the service all the same
		return
	}
	n.inject(ctx, e)
	wait.Sleep(ctx, e.Isolate)
	rec.End = time.Now().UnixNano()
	n.undoNetwork()
	n.log(rec)
}
