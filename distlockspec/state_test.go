package distlockspec

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/explore"
	"github.com/fencelab/fencelab/impl"
)

const specsDir = "../specs"

// firstConfig is the first of conform's untimed configurations: the first
// design a spec models, 2 clients, one section, the explorer's durations.
func firstConfig() impl.Config {
	c := explore.DefaultConfig(Designs()[0], 2).Config
	c.Sections = 1
	return c
}

// TestVarsAreTheTranslations: Vars lists each spec's variables in the
// order of the translation's vars tuple, which the trace specs compare a
// line's state with.
func TestVarsAreTheTranslations(t *testing.T) {
	re := regexp.MustCompile(`(?s)\nvars == <<(.*?)>>`)
	for _, d := range []impl.Design{impl.DesignNoFencing, impl.DesignFenceAll} {
		src, err := os.ReadFile(filepath.Join(specsDir, Spec(d)+".tla"))
		require.NoError(t, err)
		m := re.FindSubmatch(src)
		require.NotNil(t, m, "%s: no vars tuple", Spec(d))
		var got []string
		for _, f := range strings.Split(string(m[1]), ",") {
			got = append(got, strings.TrimSpace(f))
		}
		assert.Equal(t, got, Vars(d), Spec(d))
	}
}

// TestAbstractInitial: the initial world of every design is the specs'
// Init, variable by variable.
func TestAbstractInitial(t *testing.T) {
	for _, d := range Designs() {
		if d.Redlock() {
			continue // its own variables: TestAbstractRedlockInitial
		}
		for _, n := range []int{1, 2, 3} {
			c := firstConfig()
			c.Design, c.Clients = d, n
			w, err := impl.NewWorld(c)
			require.NoError(t, err)
			s, err := Abstract(w, d)
			require.NoError(t, err)
			per := func(v string) string {
				var f []string
				for i := range n {
					f = append(f, fmt.Sprintf("c%d |-> %s", i+1, v))
				}
				return "[" + strings.Join(f, ", ") + "]"
			}
			want := State{
				"network": "{}", "timers": "{}", "counter": "0", "ops": "<<>>", "last_lease": "0",
				"renewals": per("0"), "renewed": per("FALSE"),
				"lock_held": per("FALSE"), "late": per("FALSE"), "lease": per("0"), "retries": per("0"),
				"read_val": per("0"), "committed": per("0"), "aborted": per("0"),
				"pc": strings.TrimSuffix(per(`"Acquire"`), "]") + `, service |-> "Serve", resource |-> "Access"]`,
			}
			if d.Tokens() {
				want["distLock"] = `[status |-> "Available", id |-> "none", lease |-> 0, token |-> 0]`
				want["max_token"], want["token"], want["queue"] = "0", per("0"), "<<>>"
				delete(want, "renewals")
				delete(want, "renewed")
				want["pending"], want["restarts"], want["held_at_restart"], want["revision"] = "<<>>", "0", "{}", "0"
			} else {
				want["distLock"] = `[status |-> "Available", id |-> "none", lease |-> 0]`
			}
			assert.Equal(t, want, s, "%s, %d clients", d, n)
			assert.Len(t, s, len(Vars(d)))
		}
	}
}

// TestAbstractRedlockInitial: a Redlock world's initial state is
// DistLockRedlock.tla's Init, every variable, with Go's 0 as NoValue.
func TestAbstractRedlockInitial(t *testing.T) {
	for _, d := range []impl.Design{impl.DesignRedlock, impl.DesignRedlockUnique} {
		c := firstConfig()
		c.Design, c.Clients, c.Nodes = d, 2, 2
		w, err := impl.NewWorld(c)
		require.NoError(t, err)
		s, err := Abstract(w, d)
		require.NoError(t, err)
		free := `[status |-> "Available", id |-> "none", value |-> novalue]`
		want := State{
			"locks": "[n1 |-> " + free + ", n2 |-> " + free + "]", "network": "{}", "timers": "{}",
			"lock_held": "[c1 |-> FALSE, c2 |-> FALSE]", "counter": "0", "cas_token": "novalue", "ops": "<<>>",
			"restarts": "0", "held_at_restart": "{}",
			"pc":      `[c1 |-> "Acquire", c2 |-> "Acquire", n1 |-> "Serve", n2 |-> "Serve", resource |-> "Access"]`,
			"retries": "[c1 |-> 0, c2 |-> 0]", "late": "[c1 |-> FALSE, c2 |-> FALSE]",
			"lease": "[c1 |-> novalue, c2 |-> novalue]", "token": "[c1 |-> novalue, c2 |-> novalue]",
			"read_val": "[c1 |-> 0, c2 |-> 0]", "committed": "[c1 |-> 0, c2 |-> 0]", "aborted": "[c1 |-> 0, c2 |-> 0]",
			"answers": "[c1 |-> 0, c2 |-> 0]", "grants": "[c1 |-> 0, c2 |-> 0]",
		}
		assert.Equal(t, want, s, d.String())
	}
}

// TestAbstractRefuses: a world the spec cannot hold (a lock-delay, two
// equal messages in flight, applies in flight that are not the writes
// checked, a unique token beyond the spec's table) has no abstraction.
func TestAbstractRefuses(t *testing.T) {
	c := firstConfig()
	w, err := impl.NewWorld(c)
	require.NoError(t, err)
	acq := impl.Message{Kind: impl.MsgAcquire, From: impl.ClientNode(0), To: impl.ServiceNode}
	w.InFlight = []impl.Message{acq, acq}
	_, err = Abstract(w, c.Design)
	assert.ErrorContains(t, err, "two equal messages")

	w, err = impl.NewWorld(c)
	require.NoError(t, err)
	w.Timers = []impl.PendingTimer{{Node: impl.ServiceNode, Timer: impl.Timer{Kind: impl.TimerLockDelay}}}
	_, err = Abstract(w, c.Design)
	assert.ErrorContains(t, err, "lock-delay")

	// A non-atomic resource's applies are its checked writes, one each.
	c.Design = impl.DesignNonAtomic
	w, err = impl.NewWorld(c)
	require.NoError(t, err)
	w.InFlight = []impl.Message{{Kind: impl.MsgApply, From: impl.ResourceNode, To: impl.ResourceNode}}
	_, err = Abstract(w, c.Design)
	assert.ErrorContains(t, err, "1 applies in flight for 0 writes")

	// Unique tokens are the spec's ranks up to lease 16, and none beyond.
	c.Design = impl.DesignUniqueCAS
	w, err = impl.NewWorld(c)
	require.NoError(t, err)
	w.InFlight = []impl.Message{{Kind: impl.MsgRead, From: impl.ClientNode(0), To: impl.ResourceNode, Token: impl.Scramble(16)}}
	s, err := Abstract(w, c.Design)
	require.NoError(t, err)
	assert.Contains(t, s["network"], "token |-> 14,")
	w.InFlight[0].Token = impl.Scramble(17)
	_, err = Abstract(w, c.Design)
	assert.ErrorContains(t, err, "UniqueTokens")

	// Every design has a spec here: the Redlock rows DistLockRedlock.tla,
	// whose abstraction names lock nodes n1 … nN and writes values as
	// <<client, section, attempt>>, Go's 0 as novalue.
	assert.Equal(t, impl.Designs(), Designs())
	for _, d := range []impl.Design{impl.DesignRedlock, impl.DesignRedlockUnique} {
		c := firstConfig()
		c.Design, c.Nodes = d, 3
		w, err := impl.NewWorld(c)
		require.NoError(t, err)
		assert.Equal(t, "DistLockRedlock", Spec(d))
		s, err := Abstract(w, d)
		require.NoError(t, err, d.String())
		assert.Equal(t, `[c1 |-> "Acquire", c2 |-> "Acquire", n1 |-> "Serve", n2 |-> "Serve", n3 |-> "Serve", resource |-> "Access"]`, s["pc"])
		assert.Contains(t, s["locks"], `n3 |-> [status |-> "Available", id |-> "none", value |-> novalue]`)
		w.Apply(0) // c1 starts: its acquires carry its first value
		s, err = Abstract(w, d)
		require.NoError(t, err)
		assert.Contains(t, s["network"], `[type |-> "acquire", from |-> "c1", to |-> "n2", lease |-> <<"c1", 0, 0>>, token |-> novalue, value |-> 0, ok |-> FALSE]`)
		assert.Len(t, Vars(d), 19)
		for _, v := range Vars(d) {
			assert.Contains(t, s, v, d.String())
		}
		// A lease number where a value belongs is no Redlock state.
		w.InFlight[0].Lease = 7
		_, err = Abstract(w, d)
		assert.ErrorContains(t, err, "no Redlock value")
	}
}

// TestUniqueTokensTable: DistLockFencing.tla's UniqueTokens is the ranks
// of Go's tokens (impl.Scramble), which keep their equalities and order;
// and they are not in lease order (else the row's tokens would be ordered
// after all).
func TestUniqueTokensTable(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(specsDir, "DistLockFencing.tla"))
	require.NoError(t, err)
	m := regexp.MustCompile(`\nUniqueTokens == <<([0-9, ]*)>>`).FindSubmatch(src)
	require.NotNil(t, m, "no UniqueTokens in DistLockFencing.tla")
	var want []string
	for _, r := range UniqueTokenRanks() {
		want = append(want, fmt.Sprint(r))
	}
	assert.Equal(t, strings.Join(want, ", "), string(m[1]))
	ranks := UniqueTokenRanks()
	for i := range ranks {
		for j := range ranks {
			a, b := impl.Scramble(uint64(i+1)), impl.Scramble(uint64(j+1))
			assert.Equal(t, a < b, ranks[i] < ranks[j], "leases %d, %d", i+1, j+1)
		}
	}
	assert.False(t, slices.IsSorted(ranks))
}

// TestSpecConstants: every design with tokens has its own constants, and
// DesignOf reads it back; a mutant's constants are no design's.
func TestSpecConstants(t *testing.T) {
	seen := map[Constants]impl.Design{}
	for _, d := range impl.Designs() {
		if !d.Tokens() || d.Redlock() {
			continue // DistLockRedlock.tla's constant is Fencing (RedlockFencing)
		}
		k := SpecConstants(d)
		prev, dup := seen[k]
		assert.False(t, dup, "%s and %s share constants %+v", d, prev, k)
		seen[k] = d
		got, ok := DesignOf(k)
		assert.True(t, ok, d.String())
		assert.Equal(t, d, got)
	}
	_, ok := DesignOf(Constants{Check: "all", TokenRule: "pairs", ServiceRestart: "never"})
	assert.False(t, ok)
	_, ok = DesignOf(Constants{Check: "cas", TokenRule: "lease", ServiceRestart: "never"})
	assert.False(t, ok, "check-and-set on lease numbers is no row")
}
