package linearizability

import (
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/fencelab/fencelab/impl"
)

// drawInterval draws a call and return on a short time line, so that
// operations overlap, touch (equal times: concurrent for Porcupine) and
// follow one another in every way.
func drawInterval(t *rapid.T) (call, ret int64) {
	call = rapid.Int64Range(0, 30).Draw(t, "call")
	return call, call + rapid.Int64Range(0, 8).Draw(t, "length")
}

// TestDecideAgreesWithPorcupine: on random histories of both models — the
// counter's increments with values read near the right ones, the
// register's reads and writes under every mode with tokens, values and
// answers drawn from small ranges — decide's verdict, where it decides, is
// Porcupine's; and it decides every history whose blocks are within its
// bounds (all of these: at most blockLimit operations).
func TestDecideAgreesWithPorcupine(t *testing.T) {
	seen := map[bool]int{}
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, blockLimit).Draw(t, "operations")
		var want, got, decided bool
		if rapid.Bool().Draw(t, "sections") {
			ops := make([]fastOp[sectionInput, int64], n)
			for i := range ops {
				c := rapid.IntRange(0, 3).Draw(t, "client")
				call, ret := drawInterval(t)
				ops[i] = fastOp[sectionInput, int64]{client: c, call: call, ret: ret, in: sectionInput{client: c}, out: rapid.Int64Range(0, int64(n)).Draw(t, "read")}
			}
			want = porcupine.CheckOperations(sectionsModel(), porcupineOps(ops))
			got, decided = decide(int64(0), sectionsStep, ops)
		} else {
			mode := rapid.SampledFrom(allModes()).Draw(t, "mode")
			ops := make([]fastOp[resourceInput, resourceOutput], n)
			for i := range ops {
				c := rapid.IntRange(0, 3).Draw(t, "client")
				call, ret := drawInterval(t)
				in := resourceInput{client: c, kind: rapid.SampledFrom([]impl.OpKind{impl.OpRead, impl.OpWrite}).Draw(t, "kind"), token: rapid.Uint64Range(0, 3).Draw(t, "token")}
				out := resourceOutput{accepted: rapid.Bool().Draw(t, "accepted")}
				if in.kind == impl.OpWrite {
					in.value = rapid.Int64Range(0, 3).Draw(t, "written")
				} else if out.accepted {
					out.value = rapid.Int64Range(0, 3).Draw(t, "read")
				}
				ops[i] = fastOp[resourceInput, resourceOutput]{client: c, call: call, ret: ret, in: in, out: out}
			}
			want = porcupine.CheckOperations(registerModel(mode), porcupineOps(ops))
			step := func(s registerState, in resourceInput, out resourceOutput) (bool, registerState) {
				return registerStep(mode, s, in, out)
			}
			got, decided = decide(registerState{}, step, ops)
		}
		if !decided {
			return // Porcupine decides these; bounded below
		}
		seen[got]++
		assert.Equal(t, want, got, "Porcupine says linearizable: %v", want)
	})
	assert.Positive(t, seen[true], "no linearizable history drawn")
	assert.Positive(t, seen[false], "no illegal history drawn")
}

// TestDecideGivesUpBeyondItsBounds: a block of more concurrent operations
// than blockLimit is left to Porcupine (decided false), and the check
// still reaches Porcupine's verdict through it.
func TestDecideGivesUpBeyondItsBounds(t *testing.T) {
	var ops []fastOp[sectionInput, int64]
	var sections []Section
	for i := range blockLimit + 1 {
		// All concurrent; read i: linearizable in the order of the reads.
		ops = append(ops, fastOp[sectionInput, int64]{client: i, call: 0, ret: 100, out: int64(blockLimit - i)})
		sections = append(sections, committed(i, uint64(i+1), int64(blockLimit-i), 0, 100))
	}
	_, decided := decide(int64(0), sectionsStep, ops)
	assert.False(t, decided)
	r := CheckSections(sections, generous)
	require.Equal(t, "ok", Word(r.Verdict.Status))
	// One operation fewer (reads 0 to 15, all concurrent): within the
	// bounds, decided, linearizable.
	ok, decided := decide(int64(0), sectionsStep, ops[1:])
	assert.True(t, decided)
	assert.True(t, ok)
}
