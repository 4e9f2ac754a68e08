package tlc_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/tlc"
)

// grantBeforePersist are the edits of DistLockFencing.tla that swap the
// durable counter's two steps, a test-only spec variant: the service
// grants in the step that takes the acquire (the counter counted in
// memory only) and persists it in the next step, into a store of its own
// (persisted), which a restart comes back with.
var grantBeforePersist = []string{
	`                    distLock := [status |-> "Persisting", id |-> m.from, lease |-> last_lease + 1,
                                 token |-> TokenOf(last_lease + 1, revision)];
                    network := network \ {m};
                    timers := timers \cup {PersistTimer};`,
	`                    distLock := [status |-> "Acquired", id |-> m.from, lease |-> last_lease + 1,
                                 token |-> TokenOf(last_lease + 1, revision)];
                    network := (network \ {m}) \cup {GrantMsg(m.from, last_lease + 1, TokenOf(last_lease + 1, revision))};
                    timers := timers \cup {PersistTimer, LeaseTimer};`,
	`            timers := (timers \ {PersistTimer}) \cup {LeaseTimer};
            distLock.status := "Acquired";
            network := network \cup {GrantMsg(distLock.id, distLock.lease, distLock.token)};`,
	`            timers := timers \ {PersistTimer};
            persisted := last_lease;`,
	`    revision = 0;    \* TokenRule "revision": the store's revision, else 0`,
	`    revision = 0,    \* TokenRule "revision": the store's revision, else 0
    persisted = 0;   \* the mutant's store`,
	`if (ServiceRestart = "volatile") { last_lease := 0 };`,
	`if (ServiceRestart = "volatile") { last_lease := 0 } else { last_lease := persisted };`,
	// Leases beyond the counter come back, as with a volatile one.
	`Leases == IF ServiceRestart = "volatile" THEN Nat ELSE 0 .. last_lease`,
	`Leases == Nat`,
}

// TestTLCDurableCounterMustBePersistedBeforeTheGrant: restart-durable's
// model holds (the token properties, NoLostUpdate) only because the
// counter is persisted by the step before the grant. Swapped — grant,
// then persist — a restart between the two steps comes back with the old
// counter: TLC finds the next token not above the one in use, with
// TokensAreUnique alone checked the same lease and token granted twice,
// and with NoLostUpdate alone an update lost. The same cfgs on the
// committed spec hold.
func TestTLCDurableCounterMustBePersistedBeforeTheGrant(t *testing.T) {
	r := tlcRunner(t)
	dir := mutant(t, r, "DistLockFencing.tla", true, grantBeforePersist...)
	model := manifestModel(t, "DistLockFencing_restart-durable_2c")
	cfg, err := os.ReadFile(filepath.Join(specsDir, model.Cfg))
	require.NoError(t, err)
	require.Positive(t, model.DistinctStates)
	const invs = "INVARIANT TokenIsMonotonical\nINVARIANT TokensAreUnique\nINVARIANT TokensIncreaseInGrantOrder\nINVARIANT NoLostUpdate\n"
	require.Contains(t, string(cfg), invs)
	for _, tc := range []struct{ invariant, first string }{
		{"", "TokensIncreaseInGrantOrder"},
		{"TokensAreUnique", "TokensAreUnique"},
		{"NoLostUpdate", "NoLostUpdate"},
	} {
		name := "mutant_" + tc.first
		text := string(cfg)
		if tc.invariant != "" {
			text = strings.Replace(text, invs, "INVARIANT "+tc.invariant+"\n", 1)
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, name+".cfg"), []byte(text), 0o644))
		m := tlc.Model{Name: name, Spec: "DistLockFencing.tla", Cfg: name + ".cfg", Expected: tlc.ResultInvariant, Property: tc.first}
		res, err := r.Run(context.Background(), dir, m)
		require.NoError(t, err)
		assert.Empty(t, res.Mismatch, "grant before persist: %s\n%s", tc.first, res.Output)
		t.Logf("grant before persist, %s: TLC %s %s after %d distinct states, counterexample of %d states", tc.first, res.Got.Result, res.Got.Property, res.Got.Distinct, len(res.Parsed.States))

		// The committed spec, same cfg: holds.
		honest := t.TempDir()
		for _, f := range []string{"DistLockFencing.tla"} {
			data, err := os.ReadFile(filepath.Join(specsDir, f))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(honest, f), data, 0o644))
		}
		require.NoError(t, os.WriteFile(filepath.Join(honest, name+".cfg"), []byte(text), 0o644))
		h, err := r.Run(context.Background(), honest, tlc.Model{Name: name, Spec: "DistLockFencing.tla", Cfg: name + ".cfg", Expected: tlc.ResultOK, DistinctStates: model.DistinctStates})
		require.NoError(t, err)
		assert.Empty(t, h.Mismatch, "persist before grant: %s\n%s", tc.first, h.Output)
	}
}
