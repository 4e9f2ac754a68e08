package explore

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
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
	s.Apply(i)
	changed := false
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
			c := DefaultConfig(d, 2)
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
