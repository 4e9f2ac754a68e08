package conform

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/distlockspec"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
)

// These tests run the real TLC (skipped, and counted, without a jar).

// TestWalksAccepted: random walks of every configuration of the bar —
// every design, 2 and 3 clients, 1 and 2 sections — and under the send
// rule too, are all accepted, and they take the belief-loss paths.
func TestWalksAccepted(t *testing.T) {
	k := checker(t)
	configs := UntimedConfigs()
	for _, c := range UntimedConfigs() {
		if c.Design.Renews() {
			continue // DistLock.tla models renewal under the arrival rule only
		}
		c.Validity = impl.ValiditySend
		configs = append(configs, c)
	}
	if testbuild.Reduced() {
		configs = reducedConfigs(configs)
		require.Len(t, configs, len(distlockspec.Designs()), "one configuration per design")
	}
	for _, c := range configs {
		g, err := Walks(c, 15, 200)
		require.NoError(t, err)
		run, err := k.Check(t.Context(), c, g.Traces)
		require.NoError(t, err)
		lost, expired := 0, 0
		for _, v := range run.Verdict {
			assert.True(t, v.Accepted, "%s rejected", v.Trace.Name)
			if v.Trace.LeaseLost {
				lost++
			}
			if v.Trace.Expired {
				expired++
			}
		}
		assert.Positive(t, lost, "%s: no walk lost a lease", describeConfig(c))
		assert.Positive(t, expired, "%s: no walk expired a lease", describeConfig(c))
	}
}

// TestCounterexamplesAndSimAccepted: the explorer's counterexamples and
// simulator runs, failing and passing, are accepted.
func TestCounterexamplesAndSimAccepted(t *testing.T) {
	k := checker(t)
	failing := 0
	for _, d := range distlockspec.Designs() {
		g, err := Counterexamples(t.Context(), d, 2, nil)
		require.NoError(t, err)
		require.NotEmpty(t, g.Traces, d)
		groups := []Group{g}
		// At reduced size (internal/testbuild) every other design's
		// simulator runs: one TLC run per design and group.
		if !testbuild.Reduced() || int(d)%2 == 0 {
			s, err := SimRuns(SimConfig(d), 30, 3)
			require.NoError(t, err)
			groups = append(groups, s)
		}
		for _, g := range groups {
			run, err := k.Check(t.Context(), g.Config, g.Traces)
			require.NoError(t, err)
			for _, v := range run.Verdict {
				assert.True(t, v.Accepted, "%s rejected", v.Trace.Name)
				if g.Source == SourceSim && len(v.Trace.Violates) > 0 {
					failing++
				}
			}
		}
	}
	assert.Positive(t, failing, "no failing simulator run was validated")
}

// A mutant breaks what one step did, after impl.World took it, and says
// whether it changed something. The mutants are the broken actors;
// each lives only here, in a test, through package conform's record seam.
type mutant struct {
	name string
	// breaker returns a fresh breaker for one walk of c (it may keep state).
	breaker func(c impl.Config) func(before, w *impl.World, a impl.Action) bool
}

// changeMsg changes the first message in flight pred selects.
func changeMsg(w *impl.World, pred func(m *impl.Message) bool, change func(m *impl.Message)) bool {
	for i := range w.InFlight {
		if pred(&w.InFlight[i]) {
			change(&w.InFlight[i])
			w.Canonicalize()
			return true
		}
	}
	return false
}

// isReply reports whether m is the resource's answer to a client.
func isReply(m *impl.Message) bool {
	return m.From == impl.ResourceNode && (m.Kind == impl.MsgReadReply || m.Kind == impl.MsgWriteReply)
}

func mutants() []mutant {
	return []mutant{
		{"a service that, after an expiry, grants one more acquirer while the lock is held", func(c impl.Config) func(before, w *impl.World, a impl.Action) bool {
			expired, done := false, false
			return func(before, w *impl.World, a impl.Action) bool {
				if a.Node == impl.ServiceNode && a.Input.Kind == impl.InputTimer && a.Input.Timer.Kind == impl.TimerLease {
					expired = true
				}
				if done || !expired || a.Node != impl.ServiceNode || a.Input.Msg.Kind != impl.MsgAcquire {
					return false
				}
				l := w.Sys.Service.Lock()
				done = changeMsg(w, func(m *impl.Message) bool { return m.Kind == impl.MsgReject && m.To == a.Input.Msg.From }, func(m *impl.Message) {
					tok := uint64(0)
					if c.Design.Tokens() {
						tok = l.LastLease + 1
					}
					*m = impl.Message{Kind: impl.MsgGrant, From: impl.ServiceNode, To: m.To, Lease: l.LastLease + 1, Token: tok}
				})
				return done
			}
		}},
		{"a resource that refuses everything", func(impl.Config) func(before, w *impl.World, a impl.Action) bool {
			return func(before, w *impl.World, a impl.Action) bool {
				if a.Node != impl.ResourceNode {
					return false
				}
				if len(w.Sys.Resource.Pending()) > len(before.Sys.Resource.Pending()) {
					// A non-atomic resource checked a write and sent
					// itself an apply: it refuses the write instead.
					op := a.Input.Msg
					w.Sys.Resource = before.Sys.Resource.Clone()
					return changeMsg(w, func(m *impl.Message) bool { return m.Kind == impl.MsgApply }, func(m *impl.Message) {
						*m = impl.Message{Kind: impl.MsgWriteReply, From: impl.ResourceNode, To: op.From, Token: op.Token}
					})
				}
				if !changeMsg(w, func(m *impl.Message) bool { return isReply(m) && m.OK }, func(m *impl.Message) {
					m.OK, m.Value = false, 0
				}) {
					return false // the step answered nobody (a sequencer's question to the service)
				}
				w.Sys.Resource = before.Sys.Resource.Clone()
				return true
			}
		}},
		{"a resource that accepts an older grant's token as if it were the newest", func(impl.Config) func(before, w *impl.World, a impl.Action) bool {
			return func(before, w *impl.World, a impl.Action) bool {
				if a.Node != impl.ResourceNode {
					return false
				}
				return changeMsg(w, func(m *impl.Message) bool { return isReply(m) && !m.OK }, func(m *impl.Message) {
					m.OK = true
					if m.Kind == impl.MsgReadReply {
						m.Value = w.Sys.Resource.Counter()
					}
				})
			}
		}},
		{"a client that writes after its belief ended", func(impl.Config) func(before, w *impl.World, a impl.Action) bool {
			return func(before, w *impl.World, a impl.Action) bool {
				if !a.Node.IsClient() || a.Input.Kind != impl.InputTimer || a.Input.Timer.Kind != impl.TimerThink {
					return false
				}
				cl := &before.Sys.Clients[a.Node.ClientIndex()]
				if cl.Phase() != impl.Thinking || cl.Holds() {
					return false
				}
				w.InFlight = append(w.InFlight, impl.Message{Kind: impl.MsgWrite, From: a.Node, To: impl.ResourceNode, Token: cl.Token(), Value: cl.Read() + 1})
				w.Canonicalize()
				return true
			}
		}},
	}
}

// TestMutantsRejected: for each mutant and design, walks in which it broke
// a step are rejected, and the first unmatched Go step is the broken one;
// walks in which it never acted are accepted, so the rejections are the
// mutant's. Every mutant acts in some walk of design all (the resource
// refuses nothing without fencing, so the third cannot act there).
func TestMutantsRejected(t *testing.T) {
	k := checker(t)
	designs, diagnosed := distlockspec.Designs(), 2
	if testbuild.Reduced() {
		// One TLC run per mutant and design: at reduced size, design all
		// (where every mutant acts) and every fifth other row, and one
		// rejection diagnosed of each instead of two.
		designs = slices.DeleteFunc(slices.Clone(designs), func(d impl.Design) bool { return d != impl.DesignFenceAll && int(d)%5 != 0 })
		diagnosed = 1
	}
	for _, mu := range mutants() {
		total := 0
		for _, d := range designs {
			c := UntimedConfigs()[2] // 3 clients, 1 section: room for one more acquirer
			require.Equal(t, 3, c.Clients)
			c.Design = d
			var traces []*Trace
			var broke []int // the Go step the mutant first broke, per trace (0: none)
			for seed := range uint64(30) {
				brk := mu.breaker(c)
				first, step := 0, 0
				choose := impl.SeededChooser(seed)
				next := func(w *impl.World) (int, error) { return choose(w.Actions()), nil }
				apply := func(w *impl.World, i int) (impl.Action, *impl.Effects) {
					step++
					before, _ := impl.NewWorld(c)
					before.CopyFrom(w)
					a, out := w.Apply(i)
					if brk(before, w, a) && first == 0 {
						first = step
					}
					return a, out
				}
				tr, err := record(c, SourceWalk, fmt.Sprintf("%s seed %d", d, seed), 200, next, apply)
				require.NoError(t, err)
				traces = append(traces, tr)
				broke = append(broke, first)
			}
			run, err := k.Check(t.Context(), c, traces)
			require.NoError(t, err)
			rejected := 0
			for i, v := range run.Verdict {
				if broke[i] == 0 {
					assert.True(t, v.Accepted, "%s, %s: %s rejected though the mutant never acted", mu.name, d, v.Trace.Name)
					continue
				}
				if !assert.False(t, v.Accepted, "%s, %s: %s accepted", mu.name, d, v.Trace.Name) {
					continue
				}
				rejected++
				if rejected <= diagnosed {
					matched, err := k.Diagnose(t.Context(), v.Trace)
					require.NoError(t, err)
					assert.Equal(t, broke[i], matched, "%s, %s: %s: the first unmatched step is not the broken one", mu.name, d, v.Trace.Name)
					tr, err := Render(v.Trace, matched)
					require.NoError(t, err)
					require.NotNil(t, tr.Violation)
					assert.Equal(t, Rejected, tr.Violation.Property)
					assert.Len(t, tr.Steps, matched+1, "the initial state and the steps up to the unmatched one")
				}
			}
			total += rejected
			if d == impl.DesignFenceAll {
				assert.Positive(t, rejected, "%s, %s: the mutant never acted", mu.name, d)
			}
		}
		t.Logf("%s: %d walks broken, all rejected", mu.name, total)
	}
}

// reducedConfigs is TestWalksAccepted's configurations at reduced size
// (internal/testbuild): one TLC run per design instead of eight, the
// designs taking the client counts, section counts and validity rules in
// turn, so that each of them is still validated.
func reducedConfigs(configs []impl.Config) []impl.Config {
	var out []impl.Config
	seen := map[impl.Design]bool{}
	for _, c := range configs {
		if seen[c.Design] {
			continue
		}
		i := int(c.Design)
		want := impl.ValidityArrival
		if i%2 == 1 && !c.Design.Renews() {
			want = impl.ValiditySend
		}
		if c.Clients == 2+i%2 && c.Sections == 1+(i/2)%2 && c.Validity == want {
			seen[c.Design] = true
			out = append(out, c)
		}
	}
	for _, c := range configs { // a design without the combination: its first
		if !seen[c.Design] {
			seen[c.Design] = true
			out = append(out, c)
		}
	}
	return out
}
