package linearizability_test

import (
	"fmt"
	"io"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/linearizability"
)

// Kleppmann's lost update: c1 reads 0, pauses past its lease; c2 gets the
// lock, reads 0 and writes 1; c1 wakes and writes 1 too.
func ExampleCheckSections() {
	sections := []linearizability.Section{
		{Client: 0, Token: 1, Read: 0, Committed: true, Call: 0, Return: 300},
		{Client: 1, Token: 2, Read: 0, Committed: true, Call: 120, Return: 200},
	}
	r := linearizability.CheckSections(sections, time.Second)
	fmt.Println(linearizability.Word(r.Verdict.Status))
	err := r.WriteHTML(io.Discard, []linearizability.Annotation{
		{Client: 0, Start: 20, End: 250, Text: "c1 paused 230ns", Tag: "pause"},
	})
	fmt.Println(err)
	// Output:
	// illegal
	// <nil>
}

// The same interleaving at the resource: under mode all, c2's read marks
// the resource with token 2, so c1's write with token 1 must be fenced off.
func ExampleCheckResource() {
	ops := []linearizability.ResourceOp{
		{Client: 0, Kind: impl.OpRead, Token: 1, Value: 0, Accepted: true, Call: 0, Return: 10},
		{Client: 1, Kind: impl.OpRead, Token: 2, Value: 0, Accepted: true, Call: 120, Return: 130},
		{Client: 0, Kind: impl.OpWrite, Token: 1, Value: 1, Accepted: true, Call: 250, Return: 260},
	}
	for _, mode := range []impl.FenceMode{impl.FenceWrites, impl.FenceAll} {
		fmt.Println(mode, linearizability.Word(linearizability.CheckResource(ops, mode, time.Second).Verdict.Status))
	}
	// Output:
	// writes ok
	// all illegal
}
