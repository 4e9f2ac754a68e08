package explore

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
	"github.com/fencelab/fencelab/verdict"
)

// mutantModel is the reference implementation with one actor broken after
// each step, for tests only: refuse turns every reply of the resource into
// a refusal and undoes what the resource did (a resource that refuses
// everything); noGrant turns every grant into a rejection and undoes the
// service's step (a service that never grants).
type mutantModel struct {
	*sysModel
	refuse, noGrant bool
	// noRenew refuses every renewal (a service that never extends).
	noRenew bool
	// lateMajority is a Redlock client that ignores its validity timer
	// while it acquires: it never learns that its window closed, and holds
	// on the majority that comes after (the late majority acted upon).
	lateMajority bool
	// grantToken, when set, replaces the token of every grant the service
	// sends by grantToken(lease): a service handing out other tokens than
	// its own state says (two grants with one token, tokens that go down).
	grantToken func(lease uint64) uint64
	// yesAfterExpiry makes a sequencer service say yes for the latest
	// lease's token after it expired, until the next grant.
	yesAfterExpiry bool
}

func (m *mutantModel) Apply(s *impl.World, i int) {
	a := s.Action(i)
	res, svc := s.Sys.Resource.Clone(), s.Sys.Service.Clone()
	if a.Node.IsLockNode() {
		// Any lock node (a Redlock row has several): the one acting.
		svc = s.Sys.LockNode(a.Node.LockIndex()).Clone()
	}
	timers := append([]impl.PendingTimer(nil), s.Timers...)
	var client impl.Client
	ignore := m.lateMajority && a.Node.IsClient() && a.Input.Kind == impl.InputTimer && a.Input.Timer.Kind == impl.TimerValidity &&
		s.Sys.Clients[a.Node.ClientIndex()].Phase() == impl.Acquiring
	if ignore {
		client = s.Sys.Clients[a.Node.ClientIndex()].Clone()
	}
	s.Apply(i)
	changed := false
	if ignore {
		// The timer is gone (it fired); the client is as before it fired.
		s.Sys.Clients[a.Node.ClientIndex()] = client
	}
	for k := range s.InFlight {
		msg := &s.InFlight[k]
		switch {
		case m.refuse && a.Node == impl.ResourceNode && msg.From == impl.ResourceNode && msg.OK:
			msg.OK, msg.Value = false, 0
			s.Sys.Resource, changed = res, true
		case m.noGrant && a.Node.IsLockNode() && msg.From == a.Node && msg.Kind == impl.MsgGrant:
			*msg = impl.Message{Kind: impl.MsgReject, From: a.Node, To: msg.To}
			*s.Sys.LockNode(a.Node.LockIndex()), s.Timers, changed = svc, timers, true
		case m.grantToken != nil && a.Node == impl.ServiceNode && msg.From == impl.ServiceNode && msg.Kind == impl.MsgGrant:
			if tok := m.grantToken(msg.Lease); msg.Token != tok {
				msg.Token, changed = tok, true
			}
		case m.yesAfterExpiry && a.Node == impl.ServiceNode && msg.Kind == impl.MsgCheckReply && !msg.OK:
			if l := s.Sys.Service.Lock(); l.Status == impl.Expired && msg.Token == l.LastLease {
				msg.OK, changed = true, true
			}
		case m.noRenew && a.Node.IsLockNode() && msg.From == a.Node && msg.Kind == impl.MsgRenewed && msg.OK:
			msg.OK = false
			*s.Sys.LockNode(a.Node.LockIndex()), s.Timers, changed = svc, timers, true
		}
	}
	if changed {
		s.Canonicalize()
	}
}

// TestMutantsReachNoWitness: with a resource that refuses everything, or
// a service that never grants, no section ever commits: neither witness
// is reached, though the search is complete — the holds it would report
// are vacuous.
func TestMutantsReachNoWitness(t *testing.T) {
	testbuild.SkipUnderRace(t)
	for _, mut := range []struct {
		name            string
		refuse, noGrant bool
	}{{"refusing resource", true, false}, {"service that never grants", false, true}} {
		for _, d := range rowDesigns() {
			if mut.noGrant && d == impl.DesignRestartDurable {
				// Its grant leaves by the persist step, whose timer this
				// mutant's rollback of the service re-arms: every firing
				// adds a reject to the network, without end. The refusing
				// resource covers the row.
				continue
			}
			c := DefaultConfig(d, 2)
			if d.Redlock() {
				// Under the send rule the 3-node Redlock search is 860,742
				// states, three times over here; 2 nodes keep the rules.
				c.Nodes = 2
			}
			m := &mutantModel{sysModel: c.model(), refuse: mut.refuse, noGrant: mut.noGrant}
			m.goals = goals(d)
			for _, inv := range impl.Invariants() {
				if inv.AppliesTo(d) {
					m.invs = append(m.invs, inv)
				}
			}
			out, err := Search[*impl.World](m, Options{Goals: len(m.goals), Workers: 1})
			require.NoError(t, err)
			assert.True(t, out.Complete)
			for k := range m.goals {
				assert.Nil(t, out.Violations[len(m.invs)+k], "%s, %s: %s reached", mut.name, d, m.goals[k].Name)
			}
			// The honest model reaches both (its search is Run's, shared
			// with TestWitnessesReached).
			honest, _ := runShared(t, c)
			require.Len(t, honest.Witnesses, len(m.goals))
			for k, w := range honest.Witnesses {
				require.Equal(t, m.goals[k].Name, w.Goal)
				if m.goals[k].Unreachable(d) != "" {
					assert.False(t, w.Reached, "%s: %s is unreachable by design", d, w.Goal)
					continue
				}
				assert.True(t, w.Reached, "%s: %s", d, w.Goal)
			}
		}
	}
}

// TestServiceRefusingRenewalsReachesNoRenewalWitness: in the renewing rows
// a service that refuses every renewal still lets sections commit (the
// first two witnesses), but none on a renewed lease:
// NoSectionCommitsAfterRenewal is not reached, so the row's witness tells a
// renewal that works from one that does nothing.
func TestServiceRefusingRenewalsReachesNoRenewalWitness(t *testing.T) {
	testbuild.SkipUnderRace(t)
	for _, d := range []impl.Design{impl.DesignRenewal} {
		c := DefaultConfig(d, 2)
		m := &mutantModel{sysModel: c.model(), noRenew: true}
		m.goals = goals(d)
		out, err := Search[*impl.World](m, Options{Goals: len(m.goals), Workers: 1})
		require.NoError(t, err)
		require.True(t, out.Complete)
		for k, g := range m.goals {
			if g.Name == impl.NoSectionCommitsAfterRenewal {
				assert.Nil(t, out.Violations[k], "%s: %s reached with every renewal refused", d, g.Name)
			} else {
				assert.NotNil(t, out.Violations[k], "%s: %s", d, g.Name)
			}
		}
	}
}

// grantsC1WhileHeld is a test-only mutant stepper: a service that answers
// c1's acquire with a grant even while another client holds the lock — the
// current lease and its token a second time (a double grant; the designs
// it runs with have the lease as their token). It favours c1, so the
// broken system is not symmetric in its clients either.
func grantsC1WhileHeld(tokens bool) Stepper {
	return func(w *impl.World, i int) (impl.Action, *impl.Effects) {
		l := w.Sys.Service.Lock()
		a, out := w.Apply(i)
		if a.Node != impl.ServiceNode || a.Input.Kind != impl.InputMessage || a.Input.Msg.Kind != impl.MsgAcquire ||
			a.Input.Msg.From != impl.ClientNode(0) || l.Status != impl.Acquired {
			return a, out
		}
		grant := impl.Message{Kind: impl.MsgGrant, From: impl.ServiceNode, To: a.Input.Msg.From, Lease: l.Lease}
		if tokens {
			grant.Token = l.Lease
		}
		for k := range w.InFlight {
			if m := &w.InFlight[k]; m.Kind == impl.MsgReject && m.From == impl.ServiceNode && m.To == grant.To {
				*m = grant
				break
			}
		}
		out.Send = []impl.Message{grant}
		w.Canonicalize()
		return a, out
	}
}

// acceptsStaleTokens is a test-only mutant stepper: a resource that takes
// an operation with a stale token as if it carried the newest one it has
// seen, so it accepts it (its fencing check passes every token).
func acceptsStaleTokens(w *impl.World, i int) (impl.Action, *impl.Effects) {
	a := w.Action(i)
	newest := w.Sys.Resource.MaxToken()
	if a.Node != impl.ResourceNode || a.Input.Kind != impl.InputMessage || a.Input.Msg.Token >= newest ||
		(a.Input.Msg.Kind != impl.MsgRead && a.Input.Msg.Kind != impl.MsgWrite) {
		return w.Apply(i)
	}
	fresh := a.Input.Msg
	fresh.Token = newest
	for k := range w.InFlight {
		if w.InFlight[k] == a.Input.Msg {
			w.InFlight[k] = fresh
			break
		}
	}
	w.Canonicalize()
	for j := range w.Actions() {
		if b := w.Action(j); b.Node == impl.ResourceNode && b.Input.Kind == impl.InputMessage && b.Input.Msg == fresh {
			return w.Apply(j)
		}
	}
	panic("acceptsStaleTokens: the renewed message is not deliverable")
}

// TestStaleTokenResourceIsAFinding: with fencing all, a resource that
// accepts stale tokens loses an update: NoLostUpdate, which the honest
// resource keeps, is violated, with a concrete trace the mutant takes to
// a violating state; under symmetry too (the mutant is symmetric).
func TestStaleTokenResourceIsAFinding(t *testing.T) {
	testbuild.SkipUnderRace(t)
	for _, sym := range []bool{false, true} {
		c := DefaultConfig(impl.DesignFenceAll, 2)
		c.Symmetry, c.Workers = sym, 1
		honest, err := Run(c)
		require.NoError(t, err)
		hv, _ := honest.Verdict(impl.NoLostUpdate)
		require.Equal(t, verdict.Holds, hv.Status)
		res, err := run(c, acceptsStaleTokens)
		require.NoError(t, err)
		f, _ := res.Verdict(impl.NoLostUpdate)
		require.Equal(t, verdict.Violated, f.Status, "symmetry %v", sym)
		require.NotNil(t, f.Trace)
		w, err := impl.NewWorld(c.Config)
		require.NoError(t, err)
		for _, i := range f.Path {
			acceptsStaleTokens(w, i)
		}
		inv, err := impl.LookupInvariant(impl.NoLostUpdate)
		require.NoError(t, err)
		assert.NotNil(t, inv.Check(w.Sys), "symmetry %v: the trace ends in a lost update", sym)
		assert.Empty(t, res.Asymmetry)
	}
}

// TestDoubleGrantIsAFinding: a double-granting service breaks properties
// the honest service keeps (with fencing all, two sections under one
// token). Under symmetry the mutant's shortest paths among the
// representatives may have no concrete counterpart (it favours c1): the
// explorer then says so and searches again without symmetry. Either way
// each violation is a finding with its step and a concrete trace — the
// mutant's own steps from the initial state to a violating state — never
// an internal error.
func TestDoubleGrantIsAFinding(t *testing.T) {
	testbuild.SkipUnderRace(t)
	for _, d := range []impl.Design{impl.DesignNoFencing, impl.DesignFenceAll} {
		for _, opt := range []struct{ sym, por bool }{{false, false}, {true, false}, {true, true}} {
			sym := opt.sym
			c := DefaultConfig(d, 2)
			c.Symmetry, c.SleepSets, c.Workers = sym, opt.por, 1
			honest, err := Run(c)
			require.NoError(t, err)
			mutant := grantsC1WhileHeld(d.Tokens())
			res, err := run(c, mutant)
			require.NoError(t, err, "%s, symmetry %v: a broken system is a finding", d, sym)
			flipped := 0
			for k, f := range res.All() {
				if f.Status != verdict.Violated {
					continue
				}
				if honest.All()[k].Status == verdict.Holds {
					flipped++
				}
				require.NotNil(t, f.Trace, "%s %s", d, f.Property)
				assert.Len(t, f.Trace.Steps, f.Steps()+1, "the initial state, then one step an action")
				w, err := impl.NewWorld(c.Config)
				require.NoError(t, err)
				for _, i := range f.Path {
					require.Less(t, i, w.Actions())
					mutant(w, i)
				}
				if inv, err := impl.LookupInvariant(f.Property); err == nil {
					assert.NotNil(t, inv.Check(w.Sys), "%s, symmetry %v: %s's trace ends in a violating state", d, sym, f.Property)
				}
			}
			if d == impl.DesignFenceAll {
				assert.Positive(t, flipped, "symmetry %v: the double grant flips a verdict the honest service holds", sym)
			}
			if res.Asymmetry != "" {
				assert.True(t, sym)
				assert.False(t, res.Config.Symmetry)
				assert.Contains(t, res.Asymmetry, "not symmetric in its clients")
			}
			t.Logf("%s, symmetry %v: %v; asymmetry: %q", d, sym, res.Verdicts(), res.Asymmetry)
		}
	}
}

// TestLateMajorityViolatesNoActionPastValidity: the explorer's verdict on
// NoActionPastValidity flips from holds, with Redlock's client (the send
// rule: the explorer's default for the Redlock rows), to violated with a
// client that holds on a majority after its window closed — the mutant
// that changed no verdict while the window counted from the arrival.
func TestLateMajorityViolatesNoActionPastValidity(t *testing.T) {
	testbuild.SkipUnderRace(t)
	for _, d := range []impl.Design{impl.DesignRedlock, impl.DesignRedlockUnique} {
		c := DefaultConfig(d, 2)
		require.Equal(t, impl.ValiditySend, c.Validity, "%s: the explorer's default for Redlock", d)
		// Redlock's client: the explorer's own run (shared with the
		// other tests of this model) says holds.
		honest, _ := runShared(t, c)
		f, ok := honest.Verdict(impl.NoActionPastValidity)
		require.True(t, ok, d)
		assert.Equal(t, verdict.Holds, f.Status, "%s: Redlock's client acts past its window", d)
		// The mutant client: violated, in a state where it holds with its
		// validity timer gone.
		inv, err := impl.LookupInvariant(impl.NoActionPastValidity)
		require.NoError(t, err)
		m := &mutantModel{sysModel: c.model(), lateMajority: true}
		m.invs = []impl.Property{inv}
		out, err := Search[*impl.World](m, Options{Workers: 1, First: true})
		require.NoError(t, err)
		require.NotNil(t, out.Violations[0], "%s: the late majority is acted upon unnoticed", d)
		w := m.New()
		for _, i := range out.Violations[0].Path {
			m.Apply(w, i)
		}
		b := inv.Breach(w.Sys, w)
		require.NotNil(t, b, d)
		assert.Contains(t, b.Explanation, "validity window closed", d)
	}
}

// TestTokenMutantsFailTheirCell: a service that hands one token out twice,
// or whose tokens go down, keeps the verdicts of the table's first three
// columns in design all (the resource's >= check keeps TokenIsMonotonical
// whatever the tokens; with tokens going down every later grant is simply
// refused), yet fails the service-side cell: TokensAreUnique,
// TokensIncreaseInGrantOrder. The honest service holds both.
func TestTokenMutantsFailTheirCell(t *testing.T) {
	testbuild.SkipUnderRace(t)
	d := impl.DesignFenceAll
	for _, tc := range []struct {
		name       string
		grantToken func(uint64) uint64
		fails      string
		same       []string // cells whose verdict the mutant keeps
	}{
		{"a service handing a token out twice", func(l uint64) uint64 { return (l + 1) / 2 }, impl.TokensAreUnique, []string{impl.TokenIsMonotonical}},
		{"a service whose tokens go down", func(l uint64) uint64 { return 17 - l }, impl.TokensIncreaseInGrantOrder,
			[]string{impl.TokenIsMonotonical, impl.NoLostUpdate, impl.TokensAreUnique}},
	} {
		c := DefaultConfig(d, 2)
		search := func(grantToken func(uint64) uint64) map[string]bool {
			m := &mutantModel{sysModel: c.model(), grantToken: grantToken}
			for _, inv := range impl.Invariants() {
				if inv.AppliesTo(d) {
					m.invs = append(m.invs, inv)
				}
			}
			out, err := Search[*impl.World](m, Options{Workers: 1})
			require.NoError(t, err)
			require.True(t, out.Complete)
			violated := map[string]bool{}
			for k, inv := range m.invs {
				violated[inv.Name] = out.Violations[k] != nil
			}
			return violated
		}
		honest, mutant := search(nil), search(tc.grantToken)
		assert.False(t, honest[tc.fails], "%s: the honest service keeps %s", tc.name, tc.fails)
		assert.True(t, mutant[tc.fails], "%s: %s holds", tc.name, tc.fails)
		for _, p := range tc.same {
			assert.Equal(t, honest[p], mutant[p], "%s: %s's verdict", tc.name, p)
		}
	}
}
