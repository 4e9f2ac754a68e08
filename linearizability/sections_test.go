package linearizability

import (
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/verdict"
)

// generous is the timeout of checks that must finish: far beyond what these
// histories need, so a verdict other than Ok or Illegal is a real finding.
const generous = 10 * time.Second

func committed(client int, token uint64, read, call, ret int64) Section {
	return Section{Client: client, Token: token, Read: read, Committed: true, Call: call, Return: ret}
}

func aborted(client int, token uint64, call, ret int64) Section {
	return Section{Client: client, Token: token, Call: call, Return: ret}
}

func TestCheckSections(t *testing.T) {
	tests := []struct {
		name     string
		sections []Section
		want     verdict.Status
	}{
		{"empty history", nil, verdict.Holds},
		{"sequential sections", []Section{
			committed(0, 1, 0, 0, 10), committed(1, 2, 1, 20, 30), committed(0, 3, 2, 40, 50),
		}, verdict.Holds},
		{"overlapping sections that read in some order", []Section{
			// c2 started later but linearizes first: allowed, they overlap.
			committed(0, 2, 1, 0, 30), committed(1, 1, 0, 10, 20),
		}, verdict.Holds},
		{"lost update: overlapping sections read the same value", []Section{
			committed(0, 1, 0, 0, 30), committed(1, 2, 0, 10, 40),
		}, verdict.Violated},
		{"lost update: sequential sections read the same value", []Section{
			committed(0, 1, 0, 0, 10), committed(1, 2, 0, 20, 30),
		}, verdict.Violated},
		{"lost update among three", []Section{
			committed(0, 1, 0, 0, 10), committed(1, 2, 1, 20, 60), committed(2, 3, 1, 30, 50),
		}, verdict.Violated},
		{"a read nothing explains: an increment is missing", []Section{
			committed(0, 1, 0, 0, 10), committed(1, 2, 2, 20, 30),
		}, verdict.Violated},
		{"aborted sections are ignored", []Section{
			committed(0, 1, 0, 0, 10), aborted(1, 2, 5, 15), committed(1, 3, 1, 20, 30), aborted(0, 4, 25, 35),
		}, verdict.Holds},
		{"the same read counted as committed is a lost update", []Section{
			// The control for the case above: c2's section read 0 too; had
			// its write landed, an update would be lost.
			committed(0, 1, 0, 0, 10), {Client: 1, Token: 2, Read: 0, Committed: true, Call: 5, Return: 15},
			committed(1, 3, 1, 20, 30),
		}, verdict.Violated},
		{"real-time order: a section that returned first must linearize first", []Section{
			// Legal in the order c2, c1; but c1 returned at 10, before c2
			// was called at 20, so c1 must come first and read 0.
			committed(0, 1, 1, 0, 10), committed(1, 2, 0, 20, 30),
		}, verdict.Violated},
		{"real-time order: the same reads overlapping are fine", []Section{
			committed(0, 1, 1, 0, 25), committed(1, 2, 0, 20, 30),
		}, verdict.Holds},
		{"intervals are closed: touching sections are concurrent", []Section{
			committed(0, 1, 1, 0, 10), committed(1, 2, 0, 10, 20),
		}, verdict.Holds},
		{"no tokens (the design without fencing)", []Section{
			committed(0, 0, 0, 0, 10), committed(1, 0, 1, 20, 30),
		}, verdict.Holds},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, CheckSections(tt.sections, generous).Verdict.Status)
		})
	}
}

// hardSections is a family of illegal histories that take Porcupine time
// exponential in pairs to refute: 2·pairs sections, all concurrent, where
// two read 0, two read 1, ... Every choice of one section per value is a
// partial linearization to the counter pairs, and none goes further, so the
// search visits about 2^(pairs+1) distinct states before it may say Illegal.
func hardSections(pairs int) []Section {
	var ss []Section
	for v := range pairs {
		for c := range 2 {
			ss = append(ss, committed(c, uint64(2*v+c+1), int64(v), 0, 1000))
		}
	}
	return ss
}

func TestCheckSectionsUnknownOnTimeout(t *testing.T) {
	// Small members of the family finish, and are Illegal: Unknown below
	// comes from the timeout, not from a history Porcupine cannot judge.
	require.Equal(t, verdict.Violated, CheckSections(hardSections(8), generous).Verdict.Status)
	// 2^31 states cannot be searched in a millisecond (the small case above
	// needs 2^9 and takes well under that), so the check must time out and
	// say so.
	r := CheckSections(hardSections(30), time.Millisecond)
	assert.Equal(t, verdict.Unknown, r.Verdict.Status)
}

func TestTimeoutDefault(t *testing.T) {
	tests := []struct {
		in, want time.Duration
	}{
		{0, DefaultTimeout},
		{-time.Second, DefaultTimeout},
		{time.Nanosecond, time.Nanosecond},
		{3 * time.Second, 3 * time.Second},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, effectiveTimeout(tt.in), "timeout %v", tt.in)
	}
	// And through the API: a zero or negative timeout neither hangs (read
	// as "no limit" by Porcupine) nor times out at once.
	for _, d := range []time.Duration{0, -1} {
		assert.Equal(t, verdict.Holds, CheckSections([]Section{committed(0, 1, 0, 0, 10)}, d).Verdict.Status)
		assert.Equal(t, verdict.Violated, CheckSections([]Section{committed(0, 1, 1, 0, 10)}, d).Verdict.Status)
		r := CheckResource([]ResourceOp{read(0, 1, 0, 0, 10)}, impl.FenceAll, d)
		assert.Equal(t, verdict.Holds, r.Verdict.Status)
		assert.Equal(t, DefaultTimeout, r.timeout)
	}
}

func TestVerdictOf(t *testing.T) {
	tests := []struct {
		in   porcupine.CheckResult
		want verdict.Status
	}{
		{porcupine.Ok, verdict.Holds},
		{porcupine.Illegal, verdict.Violated},
		{porcupine.Unknown, verdict.Unknown},
		{porcupine.CheckResult("something new"), verdict.Unknown}, // only a finished search says ok
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, verdictOf(tt.in), "porcupine result %q", tt.in)
	}
}

// Porcupine starts one goroutine per partition; without a Partition
// function there is one, which is the bound on a check's concurrency.
func TestModelsDoNotPartition(t *testing.T) {
	models := map[string]porcupine.Model{"sections": sectionsModel()}
	for _, m := range allModes() {
		models["register "+m.String()] = registerModel(m)
	}
	for name, m := range models {
		assert.Nil(t, m.Partition, name)
		assert.Nil(t, m.PartitionEvent, name)
	}
}

func TestMalformedHistoriesPanic(t *testing.T) {
	assert.PanicsWithValue(t, "linearizability: section 1 of c2 returns at 5, before its call at 10", func() {
		CheckSections([]Section{committed(0, 1, 0, 0, 1), committed(1, 2, 1, 10, 5)}, generous)
	})
	assert.Panics(t, func() { CheckSections([]Section{committed(-1, 1, 0, 0, 1)}, generous) })
	assert.Panics(t, func() { CheckResource([]ResourceOp{read(0, 1, 0, 10, 5)}, impl.FenceAll, generous) })
	assert.Panics(t, func() {
		CheckResource([]ResourceOp{{Client: 0, Kind: impl.OpKind(9), Call: 0, Return: 1}}, impl.FenceAll, generous)
	})
	assert.Panics(t, func() { CheckResource(nil, impl.FenceMode(9), generous) })
}

func TestClientNamesMatchImpl(t *testing.T) {
	for i := range impl.MaxClients {
		require.Equal(t, impl.ClientNode(i).String(), clientName(i))
	}
}

// The run-by-run agreement the simulator relies on, at the resource's
// level: clients run read-then-write sections against a real impl.Resource,
// interleaved at random, under any mode and with any tokens; the section
// history is Illegal exactly when impl's NoLostUpdate is breached.
func TestSectionsAgreeWithNoLostUpdate(t *testing.T) {
	noLostUpdate, err := impl.LookupInvariant(impl.NoLostUpdate)
	require.NoError(t, err)
	seen := map[verdict.Status]int{}
	rapid.Check(t, func(t *rapid.T) {
		mode := rapid.SampledFrom(allModes()).Draw(t, "mode")
		clients := rapid.IntRange(1, 3).Draw(t, "clients")
		perClient := rapid.IntRange(1, 3).Draw(t, "sections per client")

		res := impl.NewResource(mode)
		var out impl.Effects
		type progress struct {
			left    int
			inside  bool // read done, write next
			section Section
		}
		ps := make([]progress, clients)
		for i := range ps {
			ps[i].left = perClient
		}
		var sections []Section
		var now int64
		for {
			var ready []int
			for i, p := range ps {
				if p.left > 0 {
					ready = append(ready, i)
				}
			}
			if len(ready) == 0 {
				break
			}
			c := rapid.SampledFrom(ready).Draw(t, "next client")
			p := &ps[c]
			now += 10
			if !p.inside {
				token := rapid.Uint64Range(0, 4).Draw(t, "token")
				reply := step(&res, &out, impl.Message{Kind: impl.MsgRead, From: impl.ClientNode(c), To: impl.ResourceNode, Token: token})
				p.section = Section{Client: c, Token: token, Read: reply.Value, Call: now}
				if reply.OK {
					p.inside = true
					continue
				}
			} else {
				reply := step(&res, &out, impl.Message{Kind: impl.MsgWrite, From: impl.ClientNode(c), To: impl.ResourceNode,
					Token: p.section.Token, Value: p.section.Read + 1})
				p.section.Committed = reply.OK
			}
			p.section.Return = now
			sections = append(sections, p.section)
			p.inside = false
			p.left--
		}

		breach := noLostUpdate.Check(&impl.System{Resource: res})
		got := CheckSections(sections, generous).Verdict.Status
		seen[got]++
		if breach != nil {
			assert.Equal(t, verdict.Violated, got, "NoLostUpdate: %s; sections %+v", breach.Explanation, sections)
		} else {
			assert.Equal(t, verdict.Holds, got, "sections %+v", sections)
		}
	})
	// Both sides of the "exactly when" were exercised.
	assert.Positive(t, seen[verdict.Holds], "no generated run kept every update")
	assert.Positive(t, seen[verdict.Violated], "no generated run lost an update")
}

// step delivers m to r and returns the reply it sends.
func step(r *impl.Resource, out *impl.Effects, m impl.Message) impl.Message {
	out.Reset()
	r.Step(&impl.Input{Kind: impl.InputMessage, Msg: m}, out)
	if len(out.Send) != 1 {
		panic("the resource did not answer with exactly one message")
	}
	return out.Send[0]
}
