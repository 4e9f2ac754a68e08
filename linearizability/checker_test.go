package linearizability

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/verdict"
)

// genSections draws a history of sections of up to 3 clients whose reads
// may or may not add up: overlapping or not, committed or aborted, with
// reads near the count of committed sections before them, so that both
// verdicts come up.
func genSections(t *rapid.T) []Section {
	n := rapid.IntRange(0, 12).Draw(t, "sections")
	spread := rapid.SampledFrom([]int64{10, 120, 400}).Draw(t, "spread")
	ss := make([]Section, n)
	read := int64(0)
	for i := range ss {
		at := int64(100 * (i + 1))
		s := Section{Client: rapid.IntRange(0, 2).Draw(t, "client"), Token: rapid.Uint64Range(0, 4).Draw(t, "token")}
		s.Call = at - rapid.Int64Range(0, spread).Draw(t, "before")
		s.Return = at + rapid.Int64Range(0, spread).Draw(t, "after")
		if s.Committed = rapid.IntRange(0, 4).Draw(t, "aborted") > 0; s.Committed {
			s.Read = read + rapid.SampledFrom([]int64{0, 0, 0, 0, -1, 1}).Draw(t, "off by")
			read++
		}
		ss[i] = s
	}
	return ss
}

// TestCheckerAgreesWithOneShotChecks: a Checker, reused over a sequence
// of histories (its buffers, its register models and its memory of the
// last sections), gives each history the one-shot checks' verdict, word
// for word — also for a history checked again just after, and for one that
// differs from the last only in one section's read, which the memory must
// not hide.
func TestCheckerAgreesWithOneShotChecks(t *testing.T) {
	seen := map[verdict.Status]int{}
	rapid.Check(t, func(t *rapid.T) {
		c := NewChecker()
		for range rapid.IntRange(1, 4).Draw(t, "histories") {
			ss := genSections(t)
			want := CheckSections(ss, generous).Verdict
			assert.Equal(t, want, c.Sections(ss, generous), "sections %+v", ss)
			assert.Equal(t, want, c.Sections(ss, generous), "the same sections again: %+v", ss)
			seen[want.Status]++
			for i := range ss {
				if ss[i].Committed && rapid.Bool().Draw(t, "change a read") {
					ss[i].Read += rapid.SampledFrom([]int64{-1, 1}).Draw(t, "by")
					assert.Equal(t, CheckSections(ss, generous).Verdict, c.Sections(ss, generous), "read %d changed: %+v", i, ss)
					break
				}
			}

			mode := rapid.SampledFrom(allModes()).Draw(t, "mode")
			spread := rapid.SampledFrom([]int64{10, 120, 400}).Draw(t, "spread")
			ops := genOps(t, mode, spread)
			if len(ops) > 0 && rapid.Bool().Draw(t, "mutate an answer") {
				i := rapid.IntRange(0, len(ops)-1).Draw(t, "mutated")
				ops[i].Accepted = !ops[i].Accepted
			}
			want = CheckResource(ops, mode, generous).Verdict
			assert.Equal(t, want, c.Resource(ops, mode, generous), "mode %v, operations %+v", mode, ops)
			seen[want.Status]++
			// Again, as the next design of a batch may record it: the same
			// operations, or with other tokens or another answer, under
			// this mode or another.
			if len(ops) > 0 {
				i := rapid.IntRange(0, len(ops)-1).Draw(t, "changed")
				switch rapid.IntRange(0, 2).Draw(t, "change") {
				case 1:
					ops[i].Token = rapid.Uint64Range(0, 4).Draw(t, "token")
				case 2:
					ops[i].Accepted = !ops[i].Accepted
				}
			}
			mode = rapid.SampledFrom(allModes()).Draw(t, "mode again")
			assert.Equal(t, CheckResource(ops, mode, generous).Verdict, c.Resource(ops, mode, generous), "again: mode %v, operations %+v", mode, ops)
		}
	})
	assert.Positive(t, seen[verdict.Holds], "no history was linearizable")
	assert.Positive(t, seen[verdict.Violated], "no history was illegal")
}

// TestCheckerUnknownOnTimeout: a search cut short is Unknown, is not
// remembered as a judgement of its history, and leaves the Checker able
// to judge the next history in full.
func TestCheckerUnknownOnTimeout(t *testing.T) {
	c := NewChecker()
	// As in TestCheckSectionsUnknownOnTimeout: 2^31 states are not searched
	// in a millisecond.
	require.Equal(t, verdict.Unknown, c.Sections(hardSections(30), time.Millisecond).Status)
	require.Empty(t, c.sectionsMemo.verdicts, "an Unknown verdict is no judgement to reuse")
	ss := hardSections(8)
	assert.Equal(t, CheckSections(ss, generous).Verdict, c.Sections(ss, generous))
	ops := []ResourceOp{{Client: 0, Kind: impl.OpWrite, Token: 1, Value: 1, Accepted: true, Call: 0, Return: 10}}
	assert.Equal(t, verdict.Holds, c.Resource(ops, impl.FenceAll, generous).Status)
}
