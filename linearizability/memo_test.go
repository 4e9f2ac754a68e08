package linearizability

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/verdict"
)

// everyMode is every fencing mode a register can check.
func everyMode() []impl.FenceMode {
	return []impl.FenceMode{impl.FenceNone, impl.FenceWrites, impl.FenceAll, impl.FenceCAS, impl.FenceVersion, impl.FenceSequencer}
}

// ignoresTokens reports whether the register of mode never reads a token:
// DESIGN.md's modes none (no check) and sequencer (the service decides).
func ignoresTokens(mode impl.FenceMode) bool {
	return mode == impl.FenceNone || mode == impl.FenceSequencer
}

// interval is a history's call and return of one operation, to be moved.
type interval struct{ call, ret *int64 }

// reorder changes the real-time order of two operations a and b: one that
// preceded the other (returned before the other's call) no longer does,
// or two that overlapped no longer do. Porcupine's search reads exactly
// that order, so the history it makes is one the memo must not merge with
// the one before.
func reorder(a, b interval) {
	if *a.call > *b.call {
		a, b = b, a // a is called first
	}
	switch {
	case *a.ret < *b.call: // a precedes b: make them touch, and overlap
		*a.ret = *b.call
	case *a.call < *b.call: // they overlap: a now returns just before b's call
		*a.ret = *b.call - 1
	default: // called at the same instant: b is now called after a returns
		*b.call = *a.ret + 1
		*b.ret = max(*b.ret, *b.call)
	}
}

// precedes reports whether the operation x returned before y's call.
func precedes(x, y interval) bool { return *x.ret < *y.call }

// reorderWithAnother reorders operation i of n (original's intervals)
// with another one drawn, in changed's, and fails unless that changed
// which of the two comes first.
func reorderWithAnother(t *rapid.T, n, i int, original, changed func(k int) interval) {
	j := rapid.IntRange(0, n-2).Draw(t, "other")
	if j >= i {
		j++
	}
	before := [2]bool{precedes(original(i), original(j)), precedes(original(j), original(i))}
	reorder(changed(i), changed(j))
	after := [2]bool{precedes(changed(i), changed(j)), precedes(changed(j), changed(i))}
	require.NotEqual(t, before, after, "reorder changed no order")
}

// TestMemoKeepsHistoriesApart: a history that differs from one judged
// before in anything Porcupine's search reads — the order of two calls and
// returns, a value read or written, an answer, an operation's kind, a
// token where the mode reads tokens, an operation more or fewer — is not
// found in the Checker's memory, and gets the one-shot check's verdict;
// one that differs only in what no search reads — the clients, tokens
// where the mode ignores them, the times but not their order, aborted
// sections — is found, with the same verdict a search gives it.
func TestMemoKeepsHistoriesApart(t *testing.T) {
	missed, found := map[string]int{}, map[string]int{}
	statuses := map[verdict.Status]int{}
	// The assertions after the checks want every mode changed in every
	// way: rapid's hundred checks, which -short cuts to twenty.
	rounds := 1
	if testing.Short() {
		rounds = 5
	}
	check := func(t *rapid.T) {
		c := NewChecker()
		if rapid.Bool().Draw(t, "sections") {
			ss := genSections(t)
			var done []int // committed sections: the counter's operations
			for i := range ss {
				if ss[i].Committed {
					done = append(done, i)
				}
			}
			if len(done) == 0 {
				t.Skip("no committed section")
			}
			statuses[c.Sections(ss, generous).Status]++
			at := func(ss []Section, k int) interval { return interval{&ss[done[k]].Call, &ss[done[k]].Return} }

			// What the search reads, one change at a time.
			whats := []string{"read", "committed"}
			if len(done) > 1 {
				whats = append(whats, "order")
			}
			for _, what := range whats {
				changed := slices.Clone(ss)
				i := rapid.IntRange(0, len(done)-1).Draw(t, "section")
				switch what {
				case "read":
					changed[done[i]].Read += rapid.SampledFrom([]int64{-1, 1}).Draw(t, "by")
				case "order":
					reorderWithAnother(t, len(done), i, func(k int) interval { return at(ss, k) }, func(k int) interval { return at(changed, k) })
				case "committed":
					changed[done[i]].Committed = false
				}
				hits := c.MemoStats().SectionsHits
				assert.Equal(t, CheckSections(changed, generous).Verdict, c.Sections(changed, generous), "%s changed: %+v", what, changed)
				assert.Equal(t, hits, c.MemoStats().SectionsHits, "a history with another %s was found in the memory", what)
				missed["sections "+what]++
			}

			// What no search reads.
			for _, how := range []string{"clients", "tokens", "times", "aborted"} {
				same := slices.Clone(ss)
				for k := range same {
					switch how {
					case "clients":
						same[k].Client = (same[k].Client + 1) % 3
					case "tokens":
						same[k].Token += 7
					case "times": // later and slower, the order kept
						same[k].Call, same[k].Return = 1000+3*same[k].Call, 1000+3*same[k].Return
					case "aborted":
						if !same[k].Committed {
							same[k].Read, same[k].Call = same[k].Read+5, same[k].Call-50
						}
					}
				}
				hits := c.MemoStats().SectionsHits
				assert.Equal(t, CheckSections(same, generous).Verdict, c.Sections(same, generous), "%s changed: %+v", how, same)
				assert.Equal(t, hits+1, c.MemoStats().SectionsHits, "the same history but for its %s was judged again", how)
				found["sections "+how]++
			}
			return
		}

		mode := rapid.SampledFrom(everyMode()).Draw(t, "mode")
		ops := genRegisterOps(t, mode)
		if len(ops) == 0 {
			t.Skip("no operation")
		}
		statuses[c.Resource(ops, mode, generous).Status]++
		at := func(ops []ResourceOp, k int) interval { return interval{&ops[k].Call, &ops[k].Return} }

		whats := []string{"answer", "kind", "dropped"}
		if len(ops) > 1 {
			whats = append(whats, "order")
		}
		if !ignoresTokens(mode) {
			whats = append(whats, "token")
		}
		var valued []int // a rejected read's value is no answer
		for k := range ops {
			if ops[k].Kind == impl.OpWrite || ops[k].Accepted {
				valued = append(valued, k)
			}
		}
		if len(valued) > 0 {
			whats = append(whats, "value")
		}
		for _, what := range whats {
			changed := slices.Clone(ops)
			i := rapid.IntRange(0, len(ops)-1).Draw(t, "operation")
			switch what {
			case "answer":
				changed[i].Accepted = !changed[i].Accepted
			case "kind":
				changed[i].Kind = impl.OpRead + impl.OpWrite - changed[i].Kind
			case "value":
				i = rapid.SampledFrom(valued).Draw(t, "valued operation")
				changed[i].Value += rapid.SampledFrom([]int64{-1, 1}).Draw(t, "by")
			case "token":
				changed[i].Token ^= 1 << rapid.IntRange(0, 3).Draw(t, "bit")
			case "order":
				reorderWithAnother(t, len(ops), i, func(k int) interval { return at(ops, k) }, func(k int) interval { return at(changed, k) })
			case "dropped":
				changed = slices.Delete(changed, i, i+1)
			}
			hits := c.MemoStats().RegisterHits
			assert.Equal(t, CheckResource(changed, mode, generous).Verdict, c.Resource(changed, mode, generous), "mode %v, %s changed: %+v", mode, what, changed)
			assert.Equal(t, hits, c.MemoStats().RegisterHits, "mode %v: a history with another %s was found in the memory", mode, what)
			missed["register "+what]++
		}

		// The same operations under another mode: another register.
		other := rapid.SampledFrom(everyMode()).Filter(func(m impl.FenceMode) bool { return m != mode }).Draw(t, "other mode")
		hits := c.MemoStats().RegisterHits
		assert.Equal(t, CheckResource(ops, other, generous).Verdict, c.Resource(ops, other, generous), "mode %v after %v", other, mode)
		assert.Equal(t, hits, c.MemoStats().RegisterHits, "mode %v: the verdict under mode %v was found", other, mode)

		hows := []string{"clients", "times"}
		if ignoresTokens(mode) {
			hows = append(hows, "tokens")
		}
		for _, how := range hows {
			same := slices.Clone(ops)
			for k := range same {
				switch how {
				case "clients":
					same[k].Client = (same[k].Client + 1) % 3
				case "tokens":
					same[k].Token += 7
				case "times":
					same[k].Call, same[k].Return = 1000+3*same[k].Call, 1000+3*same[k].Return
				}
			}
			hits = c.MemoStats().RegisterHits
			assert.Equal(t, CheckResource(same, mode, generous).Verdict, c.Resource(same, mode, generous), "mode %v, %s changed: %+v", mode, how, same)
			assert.Equal(t, hits+1, c.MemoStats().RegisterHits, "mode %v: the same history but for its %s was judged again", mode, how)
			found["register "+how+" "+mode.String()]++
		}
	}
	// uncovered are the changes no check made yet. rapid draws small
	// values first (the first modes of everyMode most often): a round
	// can leave a mode out, so rounds go on, at most maxRounds, until
	// every change was made.
	uncovered := func() []string {
		var out []string
		for _, k := range []string{"sections read", "sections order", "sections committed", "register answer", "register kind", "register order", "register dropped", "register value", "register token"} {
			if missed[k] == 0 {
				out = append(out, "no history changed in "+k)
			}
		}
		for _, k := range []string{"sections clients", "sections tokens", "sections times", "sections aborted"} {
			if found[k] == 0 {
				out = append(out, "no history changed in "+k+" only")
			}
		}
		for _, mode := range everyMode() {
			hows := []string{"clients", "times"}
			if ignoresTokens(mode) {
				hows = append(hows, "tokens")
			}
			for _, how := range hows {
				if found["register "+how+" "+mode.String()] == 0 {
					out = append(out, fmt.Sprintf("no history of mode %v changed in its %s only", mode, how))
				}
			}
		}
		return out
	}
	const maxRounds = 20
	for round := 0; round < rounds || (len(uncovered()) > 0 && round < maxRounds); round++ {
		rapid.Check(t, check)
	}
	assert.Empty(t, uncovered(), "after %d rounds of rapid's checks at most", maxRounds)
	assert.Positive(t, statuses[verdict.Holds], "no history was linearizable")
	assert.Positive(t, statuses[verdict.Violated], "no history was illegal")
}

// genRegisterOps draws operations for a register of mode: mostly what the
// resource does (genOps), or, in the modes genOps does not step, any
// answers at all (legal or not: the memory keeps histories apart either
// way).
func genRegisterOps(t *rapid.T, mode impl.FenceMode) []ResourceOp {
	if slices.Contains(allModes(), mode) {
		return genOps(t, mode, rapid.SampledFrom([]int64{10, 120, 400}).Draw(t, "spread"))
	}
	ops := make([]ResourceOp, rapid.IntRange(0, 12).Draw(t, "operations"))
	for i := range ops {
		at := int64(100 * (i + 1))
		ops[i] = ResourceOp{
			Client: rapid.IntRange(0, 2).Draw(t, "client"), Kind: rapid.SampledFrom([]impl.OpKind{impl.OpRead, impl.OpWrite}).Draw(t, "kind"),
			Token: rapid.Uint64Range(1, 4).Draw(t, "token"), Value: rapid.Int64Range(0, 4).Draw(t, "value"), Accepted: rapid.Bool().Draw(t, "accepted"),
			Call: at - rapid.Int64Range(0, 150).Draw(t, "before"), Return: at + rapid.Int64Range(0, 150).Draw(t, "after"),
		}
	}
	return ops
}

// TestMemoIsBounded: the memory holds at most its number of forms and of
// bytes, lets the oldest go first, and keeps no form bigger than all it
// may hold, nor an Unknown verdict.
func TestMemoIsBounded(t *testing.T) {
	holds := verdict.Verdict{Property: SectionsLinearizable, Status: verdict.Holds}
	judge := func(m *memo, key string, v verdict.Verdict) {
		m.key = append(m.key[:0], key...)
		_, ok := m.lookup()
		require.False(t, ok, "form %q already remembered", key)
		m.keep(v)
	}
	remembers := func(m *memo, key string) bool {
		m.key = append(m.key[:0], key...)
		_, ok := m.lookup()
		return ok
	}

	m := newMemo(3, 1<<20)
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		judge(&m, k, holds)
		assert.LessOrEqual(t, len(m.verdicts), 3)
	}
	for k, want := range map[string]bool{"a": false, "b": false, "c": true, "d": true, "e": true} {
		assert.Equal(t, want, remembers(&m, k), "form %q", k)
	}

	m = newMemo(100, 10)
	for _, k := range []string{"aaaa", "bbbb", "cccc"} {
		judge(&m, k, holds)
		assert.LessOrEqual(t, m.size, 10)
	}
	assert.False(t, remembers(&m, "aaaa"), "the oldest went first")
	assert.True(t, remembers(&m, "bbbb"))
	assert.True(t, remembers(&m, "cccc"))
	judge(&m, "far too long a form", holds)
	assert.False(t, remembers(&m, "far too long a form"))
	assert.True(t, remembers(&m, "cccc"), "a form too big to keep evicts nothing")

	judge(&m, "dd", verdict.Verdict{Property: SectionsLinearizable, Status: verdict.Unknown})
	assert.False(t, remembers(&m, "dd"), "an Unknown verdict is no judgement")

	off := newMemo(0, 1<<20)
	judge(&off, "a", holds)
	assert.False(t, remembers(&off, "a"), "a memory of no forms remembers none")
	assert.Zero(t, off.Lookups)
}
