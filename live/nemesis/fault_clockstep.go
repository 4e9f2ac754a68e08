package nemesis

import (
	"context"
	"errors"
	"fmt"

	"github.com/fencelab/fencelab/live/history"
)

// clockStep steps the service's wall clock forward by e.For
// (Target.Clock), a point in time: history.FaultClockStep.
func (n *Nemesis) clockStep(ctx context.Context, e FaultEvent, rec *history.FaultRecord, fail func(error)) {
	if n.target.Clock == nil {
		fail(errors.New("this setup's service cannot get a clock fault"))
		return
	}
	rec.Detail = fmt.Sprintf("step the service's clock forward by %v", e.For)
	if err := n.target.Clock.Step(e.For); err != nil {
		fail(err)
	}
	rec.End = rec.Start
}
