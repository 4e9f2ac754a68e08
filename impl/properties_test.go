package impl

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPropertiesNamedAsSpecs: every property of the one list is an
// operator the specs define, under the same name, once in the list; an
// invariant has a check, a witness or liveness property a goal.
func TestPropertiesNamedAsSpecs(t *testing.T) {
	specs, err := filepath.Glob(filepath.Join("..", "specs", "*.tla"))
	require.NoError(t, err)
	require.NotEmpty(t, specs)
	var text []byte
	for _, f := range specs {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		text = append(text, b...)
	}
	seen := map[string]bool{}
	for _, p := range Properties() {
		assert.False(t, seen[p.Name], "%s twice", p.Name)
		seen[p.Name] = true
		assert.Regexp(t, regexp.MustCompile(`(?m)^`+p.Name+` ==`), string(text), "%s is no operator of specs/*.tla", p.Name)
		assert.NotEmpty(t, p.What, p.Name)
		if p.Expectation == Always {
			assert.True(t, (p.Check == nil) != (p.CheckTimers == nil), "%s: exactly one of Check and CheckTimers", p.Name)
			assert.Nil(t, p.Goal, p.Name)
		} else {
			assert.NotNil(t, p.Goal, p.Name)
			assert.Nil(t, p.Check, p.Name)
			assert.Nil(t, p.CheckTimers, p.Name)
		}
	}
	assert.Equal(t, []string{AtMostOneClientHoldLock, TokenIsMonotonical, NoLostUpdate, TokensAreUnique, TokensIncreaseInGrantOrder}, InvariantNames())
	var client []string
	for _, p := range ClientInvariants() {
		client = append(client, p.Name)
	}
	assert.Equal(t, []string{NoActionPastValidity}, client)
	for _, d := range Designs() {
		var names []string
		for _, w := range Witnesses(d) {
			names = append(names, w.Name)
		}
		want := []string{NoSectionCommits, NotEveryClientCommits}
		if d.Restart() != NoRestart {
			want = append(want, NoSectionCommitsAcrossRestart)
		}
		if d.Renews() {
			want = append(want, NoSectionCommitsAfterRenewal)
		}
		assert.Equal(t, want, names, d.String())
	}
	_, ok := LookupProperty("SomeSectionCommits")
	assert.False(t, ok, "the explorer's old name is no property")
}

// TestWitnessGoals walks each design's untimed world at random: no goal
// is reached in the initial state (the witness invariants of TLC hold
// there), some section commits in some walk of two simple rows, a goal the design never
// reaches (Unreachable) is reached by none, and a goal about the actors
// alone (SystemGoal) agrees with Goal in every state. That every witness
// is reached, and not reached with a broken actor, is the explorer's
// test (TestWitnessesReached, TestMutantsReachNoWitness): it needs the
// whole state space, not a sample.
func TestWitnessGoals(t *testing.T) {
	for _, d := range Designs() {
		cfg := Config{Design: d, Clients: 2, Sections: 1, Retries: 1, TTL: 10, Margin: 1}
		if d.Redlock() {
			cfg.Nodes, cfg.Retries = 3, 0
		}
		init, err := NewWorld(cfg)
		require.NoError(t, err, d.String())
		props := append(Witnesses(d), eventually()...)
		reached := make([]bool, len(props))
		for _, p := range props {
			assert.False(t, p.Goal(init), "%s: %s's goal in the initial state", d, p.Name)
			assert.Equal(t, p.Expectation == Eventually, p.Violated(init), "%s: %s", d, p.Name)
		}
		rng := rand.New(rand.NewPCG(1, uint64(d)))
		for walk := 0; walk < 300; walk++ {
			w := init.Clone()
			for step := 0; step < 200 && w.Actions() > 0; step++ {
				w.Apply(rng.IntN(w.Actions()))
				for k, p := range props {
					g := p.Goal(w)
					reached[k] = reached[k] || g
					assert.Equal(t, g, p.Violated(w) != (p.Expectation == Eventually))
					if p.SystemGoal != nil {
						require.Equal(t, g, p.SystemGoal(w.Sys), "%s: %s", d, p.Name)
					}
				}
			}
		}
		for k, p := range props {
			if p.Unreachable(d) != "" {
				assert.False(t, reached[k], "%s: %s reached, unreachable: %s", d, p.Name, p.Unreachable(d))
			}
			if p.Name == NoSectionCommits && (d == DesignNoFencing || d == DesignFenceAll) {
				assert.True(t, reached[k], "%s: no walk commits a section", d) // the walks reach goals at all
			}
		}
	}
}

func eventually() []Property {
	return filter(func(p Property) bool { return p.Expectation == Eventually })
}

// TestTokensAreUnique: two clients' accepted operations with one token
// violate it; one client's, or a refused one, do not.
func TestTokensAreUnique(t *testing.T) {
	p, ok := LookupProperty(TokensAreUnique)
	require.True(t, ok)
	sys, err := NewSystem(Config{Design: DesignRestartVolatile, Clients: 2, Sections: 1, TTL: 10, Margin: 1})
	require.NoError(t, err)
	c1, c2 := ClientNode(0), ClientNode(1)
	for _, tc := range []struct {
		log  []Op
		want bool
	}{
		{[]Op{{Client: c1, Kind: OpRead, Accepted: true, Token: 1}, {Client: c2, Kind: OpRead, Accepted: true, Token: 1}}, true},
		{[]Op{{Client: c1, Kind: OpRead, Accepted: true, Token: 1}, {Client: c2, Kind: OpRead, Accepted: true, Token: 2}, {Client: c1, Kind: OpWrite, Accepted: true, Token: 2, Value: 1}}, true},
		{[]Op{{Client: c1, Kind: OpRead, Accepted: true, Token: 1}, {Client: c1, Kind: OpWrite, Accepted: true, Token: 1, Value: 1}}, false},
		{[]Op{{Client: c1, Kind: OpRead, Accepted: true, Token: 1}, {Client: c2, Kind: OpRead, Accepted: false, Token: 1}}, false},
	} {
		sys.Resource.log = tc.log
		b := p.Check(sys)
		assert.Equal(t, tc.want, b != nil, "%v", tc.log)
		if b != nil {
			assert.ElementsMatch(t, []NodeID{c1, c2}, b.Involved)
		}
	}
}

// TestNoActionPastValidity: in every design, under both rules, random
// walks of the untimed world never have a client believe with its
// validity window closed (and some client believes: the check is not
// vacuous); a client whose validity timer is gone while it holds is a
// breach (the explorer's and TLC's late-majority mutants reach one).
func TestNoActionPastValidity(t *testing.T) {
	p, ok := LookupProperty(NoActionPastValidity)
	require.True(t, ok)
	for _, d := range Designs() {
		assert.Equal(t, "holds", Expected(d, NoActionPastValidity).String(), d.String())
		for _, rule := range []ValidityRule{ValidityArrival, ValiditySend} {
			if d.Renews() && rule == ValiditySend {
				continue
			}
			c := Config{Design: d, Clients: 2, Sections: 2, Retries: 1, Validity: rule, TTL: 30e9, Margin: 1e9, Think: 1e9}
			believed := false
			for seed := uint64(1); seed <= 40; seed++ {
				w, err := NewWorld(c)
				require.NoError(t, err, d)
				w.Walk(SeededChooser(seed), 300, func(Action, *Effects) bool {
					require.Nil(t, p.Breach(w.Sys, w), "%s, %s rule, seed %d", d, rule, seed)
					for i := range w.Sys.Clients {
						believed = believed || w.Sys.Clients[i].holds
					}
					return true
				})
			}
			assert.True(t, believed, "%s, %s rule: no client ever believed", d, rule)
		}
	}
	// A client of any design that holds with its timer gone.
	w, err := NewWorld(Config{Design: DesignNoFencing, Clients: 1, Sections: 1, Validity: ValidityArrival, TTL: 30e9, Margin: 1e9, Think: 1e9})
	require.NoError(t, err)
	for !w.Sys.Clients[0].holds {
		w.Apply(0)
	}
	require.Nil(t, p.Breach(w.Sys, w))
	w.Timers = slices.DeleteFunc(w.Timers, func(t PendingTimer) bool { return t.Timer.Kind == TimerValidity })
	b := p.Breach(w.Sys, w)
	require.NotNil(t, b)
	assert.Equal(t, []NodeID{ClientNode(0)}, b.Involved)
	assert.Contains(t, b.Explanation, "validity window closed")
}

// TestTokenWatchSeesEveryFirstBreach: after any sequence of steps, each
// changing only its own node's state — clients' grants, the service's
// grant and counter, the resource's log, with tokens drawn from a small
// range so that clients share them — the watch says "may breach" at every
// step whose state breaches a token property the state before did not.
func TestTokenWatchSeesEveryFirstBreach(t *testing.T) {
	breaches := map[string]int{}
	rapid.Check(t, func(t *rapid.T) {
		d := rapid.SampledFrom([]Design{DesignFenceNone, DesignRestartVolatile, DesignUniqueCAS, DesignRevision}).Draw(t, "design")
		clients := rapid.IntRange(1, 4).Draw(t, "clients")
		sys, err := NewSystem(Config{Design: d, Clients: clients, Sections: 1, TTL: 10, Margin: 1})
		require.NoError(t, err)
		var w TokenWatch
		w.Reset(sys)
		token := rapid.Uint64Range(0, 6)
		client := rapid.IntRange(0, clients-1)
		prevUnique, prevIncrease := false, false
		for step := range rapid.IntRange(1, 40).Draw(t, "steps") {
			var n NodeID
			switch rapid.IntRange(0, 2).Draw(t, "node") {
			case 0:
				k := client.Draw(t, "client")
				n = ClientNode(k)
				c := &sys.Clients[k]
				c.lease, c.token = rapid.Uint64Range(0, 3).Draw(t, "lease"), token.Draw(t, "token")
			case 1:
				n = ResourceNode
				sys.Resource.log = append(sys.Resource.log, Op{Client: ClientNode(client.Draw(t, "opClient")),
					Token: token.Draw(t, "opToken"), Accepted: rapid.Bool().Draw(t, "accepted")})
			default:
				n = ServiceNode
				l := &sys.Service.lock
				l.LastLease = rapid.Uint64Range(0, 6).Draw(t, "lastLease")
				l.Revision = rapid.Uint64Range(0, 6).Draw(t, "revision")
				l.Status, l.Holder, l.Lease = Available, 0, 0
				if rapid.Bool().Draw(t, "acquired") {
					l.Status, l.Holder, l.Lease = Acquired, ClientNode(client.Draw(t, "holder")), rapid.Uint64Range(1, 6).Draw(t, "heldLease")
				}
			}
			unique, increase := w.Stepped(sys, n)
			nowUnique, nowIncrease := tokensAreUnique(sys) != nil, tokensIncreaseInGrantOrder(sys) != nil
			if nowUnique && !prevUnique {
				breaches["unique"]++
				require.True(t, unique, "step %d: TokensAreUnique breached, the watch did not say so", step)
			}
			if nowIncrease && !prevIncrease {
				breaches["increase"]++
				require.True(t, increase, "step %d: TokensIncreaseInGrantOrder breached, the watch did not say so", step)
			}
			prevUnique, prevIncrease = nowUnique, nowIncrease
		}
	})
	assert.Positive(t, breaches["unique"], "no walk breached TokensAreUnique")
	assert.Positive(t, breaches["increase"], "no walk breached TokensIncreaseInGrantOrder")
}

// TestBreachesNameTheirActors: each invariant's breach names the clients
// it involves and says what happened in words a trace's reader sees, for
// crafted states of every shape the check tells apart (two holders or
// more; a stale write after another's or as the first; a counter no
// write explains; a token that goes down), and a state that keeps the
// invariant has no breach.
func TestBreachesNameTheirActors(t *testing.T) {
	c1, c2, c3 := ClientNode(0), ClientNode(1), ClientNode(2)
	write := func(c NodeID, token uint64, value int64) Op {
		return Op{Client: c, Kind: OpWrite, Accepted: true, Token: token, Value: value}
	}
	for _, tc := range []struct {
		name     string
		property string
		holders  []int
		log      []Op
		counter  int64
		involved []NodeID // nil: no breach
		explain  string
	}{
		{name: "one holder", property: AtMostOneClientHoldLock, holders: []int{1}},
		{name: "two holders", property: AtMostOneClientHoldLock, holders: []int{0, 2},
			involved: []NodeID{c1, c3}, explain: "c1 and c3 both believe they hold the lock"},
		{name: "three holders", property: AtMostOneClientHoldLock, holders: []int{0, 1, 2},
			involved: []NodeID{c1, c2, c3}, explain: "c1 and c2 and c3 all believe they hold the lock"},
		{name: "writes in order", property: NoLostUpdate, log: []Op{write(c1, 1, 1), write(c2, 2, 2)}, counter: 2},
		{name: "a stale write after another's", property: NoLostUpdate, log: []Op{write(c2, 2, 1), write(c1, 1, 1)}, counter: 1,
			involved: []NodeID{c2, c1}, explain: "c1 wrote 1 over c2's 1: an update was lost"},
		{name: "a stale write of one's own", property: NoLostUpdate, log: []Op{write(c1, 1, 1), write(c1, 1, 1)}, counter: 1,
			involved: []NodeID{c1}, explain: "c1 wrote 1 over c1's 1: an update was lost"},
		{name: "a stale first write", property: NoLostUpdate, log: []Op{write(c2, 1, 2)}, counter: 2,
			involved: []NodeID{c2}, explain: "c2 wrote 2 as the first write: an update was lost"},
		{name: "a counter no write explains", property: NoLostUpdate, log: []Op{write(c1, 1, 1)}, counter: 3,
			involved: []NodeID{}, explain: "the counter is 3 after 1 accepted writes"},
		{name: "one token again", property: TokenIsMonotonical, log: []Op{{Client: c1, Kind: OpRead, Accepted: true, Token: 1}, write(c1, 1, 1)}, counter: 1},
		{name: "tokens that rise", property: TokenIsMonotonical, log: []Op{write(c1, 1, 1), write(c2, 2, 2)}, counter: 2},
		{name: "a token that goes down", property: TokenIsMonotonical, log: []Op{write(c2, 2, 1), {Client: c1, Kind: OpWrite, Accepted: false, Token: 3}, write(c1, 1, 2)}, counter: 2,
			involved: []NodeID{c2, c1}, explain: "the resource accepted c1 write 2 (token 1) after c2 write 1 (token 2)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := LookupProperty(tc.property)
			require.True(t, ok)
			sys, err := NewSystem(Config{Design: DesignFenceNone, Clients: 3, Sections: 1, TTL: 10, Margin: 1})
			require.NoError(t, err)
			for _, k := range tc.holders {
				sys.Clients[k].holds = true
			}
			sys.Resource.log, sys.Resource.counter = tc.log, tc.counter
			b := p.Check(sys)
			if tc.involved == nil {
				assert.Nil(t, b)
				return
			}
			require.NotNil(t, b)
			assert.ElementsMatch(t, tc.involved, b.Involved)
			assert.Equal(t, tc.explain, b.Explanation)
		})
	}
}

// TestGrantChanged: after a client's step, the watch reads its grant
// again when it began or ended using one, or uses another token, and
// not when nothing of its grant changed (the simulator skips the token
// checks then, so a change it missed would hide a breach).
func TestGrantChanged(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		lease, token         uint64
		nextLease, nextToken uint64
		want                 bool
	}{
		{"nothing changed", 1, 1, 1, 1, false},
		{"still free", 0, 0, 0, 0, false},
		{"a grant begins", 0, 0, 1, 1, true},
		{"a grant ends", 1, 1, 0, 1, true},
		{"another token, the same use", 1, 1, 2, 2, true},
		{"another token alone", 1, 1, 1, 2, true},
		{"the same token, another lease", 1, 3, 2, 3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sys, err := NewSystem(Config{Design: DesignFenceAll, Clients: 1, Sections: 1, TTL: 10, Margin: 1})
			require.NoError(t, err)
			c := &sys.Clients[0]
			c.lease, c.token = tc.lease, tc.token
			var w TokenWatch
			w.Reset(sys)
			c.lease, c.token = tc.nextLease, tc.nextToken
			assert.Equal(t, tc.want, w.GrantChanged(sys, 0))
		})
	}
}
