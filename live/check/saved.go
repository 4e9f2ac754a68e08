package check

import (
	"fmt"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/linearizability"
	"github.com/fencelab/fencelab/live/history"
)

// ResourceOps is the operations on the resource that h's records show,
// each with its call and return (times since h.Start): what a saved run
// made before its resource's log was saved rebuilds that log from.
func ResourceOps(h *history.History) []linearizability.ResourceOp {
	_, ops, _, _, _ := operations(h)
	return ops
}

// ResourceCovered is what a verdict on the resource's log covers: its
// length and the counter (the Covered of TokenIsMonotonical and
// NoLostUpdate).
func ResourceCovered(res *impl.Resource) string {
	return fmt.Sprintf("%d operations, counter %d", len(res.Log()), res.Counter())
}
