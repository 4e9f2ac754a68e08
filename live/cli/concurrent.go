package cli

import (
	"cmp"
	"context"
	"io"
	"slices"
	"sync"

	"github.com/fencelab/fencelab/live/campaign"
	"github.com/fencelab/fencelab/live/history"
)

// defaultParallel is how many campaigns the matrix runs at once: its
// runs mostly wait (think times, pauses, leases; make live used 180 s of
// CPU in 6 min 58 s three at once, at load 0.5 to 1), and four at once
// keep make live within 6 minutes on 2 cores while a restart story's
// margin, which grows with the measured start-up
// (setup.Setup.StoryThink), absorbs the load they add.
const defaultParallel = 4

// maxParallel bounds --parallel: each campaign runs its own servers.
const maxParallel = 16

// outcome is one campaign's result.
type outcome struct {
	summary *campaign.Summary
	err     error
}

// runCampaigns runs plans, at most parallel at once (each campaign its
// own servers on free ports and its own data folders, its summary in its
// own folder under --out), and hands each outcome to emit in the order of
// plans, from the calling goroutine, as soon as it and every one before
// it are done: what emit prints reads as a serial run's. run is
// campaign.Run (a test's stand-in elsewhere); skip says which plans not
// to run (emit is not called for them). Once ctx ends no campaign starts;
// runCampaigns returns after every one started ended, so nothing it
// started outlives it.
func runCampaigns(ctx context.Context, plans []campaign.Config, parallel int, run func(context.Context, campaign.Config) (*campaign.Summary, error), skip func(int) bool, emit func(i int, o outcome)) {
	parallel = max(1, min(parallel, len(plans)))
	done := make([]chan outcome, len(plans))
	for i := range done {
		done[i] = make(chan outcome, 1)
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				var o outcome
				if ctx.Err() != nil {
					o.err = ctx.Err()
				} else {
					o.summary, o.err = run(ctx, plans[i])
				}
				done[i] <- o
			}
		}()
	}
	go func() {
		defer close(next)
		order := dispatchOrder(plans)
		for k, i := range order {
			if skip(i) {
				continue
			}
			select {
			case next <- i:
			case <-ctx.Done():
				// The rest never start: each is told ctx's end.
				for _, j := range order[k:] {
					if !skip(j) {
						done[j] <- outcome{err: ctx.Err()}
					}
				}
				return
			}
		}
	}()
	for i := range plans {
		if !skip(i) {
			emit(i, <-done[i])
		}
	}
	wg.Wait()
}

// syncWriter serialises writes to w: the campaigns' progress lines,
// written from several goroutines, and the matrix's own lines between
// them, each written whole.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// dispatchOrder is the order campaigns start in: the longest first, so
// that none of minutes starts last while the others have ended (make
// live's restarts of PostgreSQL, MariaDB and ZooKeeper took 30 to 63 s
// a campaign, its client pauses 4 to 8 s). A campaign's length is
// guessed from its fault, the plans' order kept within a fault. The
// output does not change: it follows the plans' order.
func dispatchOrder(plans []campaign.Config) []int {
	order := make([]int, len(plans))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(lengthRank(plans[a].Run.Fault), lengthRank(plans[b].Run.Fault))
	})
	return order
}

// lengthRank orders faults by how long their campaigns run, longest
// (0) first: a restart waits for the server's start-up, a server pause
// and a network fault for leases and sessions to run out.
func lengthRank(f history.Fault) int {
	switch f {
	case history.FaultRestartWipe, history.FaultRestartKeep:
		return 0
	case history.FaultServerPause:
		return 1
	case history.FaultDelay, history.FaultBlackhole:
		return 2
	}
	return 3
}
