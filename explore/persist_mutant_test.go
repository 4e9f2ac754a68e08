package explore

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
)

// grantBeforePersist is restart-durable's service with its two steps in
// the wrong order, for tests only: it grants in the step that takes the
// acquire and persists the counter in the next one (the persist timer),
// so a crash in between comes back with the counter of before the grant.
// It is the honest step rewritten after the fact: the honest acquire
// leaves the lock Persisting; the mutant makes it Acquired, sends the
// grant, sets the lease timer, and keeps the store's old value; the
// honest persist step grants nothing then (the lock is not Persisting),
// and the mutant writes the store.
type grantBeforePersist struct{ *sysModel }

func (m *grantBeforePersist) Apply(s *impl.World, i int) {
	a := s.Action(i)
	persisted := s.Sys.Service.Lock().Persisted
	s.Apply(i)
	if a.Node != impl.ServiceNode {
		return
	}
	l := s.Sys.Service.Lock()
	switch {
	case l.Status == impl.Persisting:
		setDurableLock(s, impl.LockState{Status: impl.Acquired, Holder: l.Holder, Lease: l.Lease, LastLease: l.LastLease, Persisted: persisted})
		s.InFlight = append(s.InFlight, impl.Message{Kind: impl.MsgGrant, From: impl.ServiceNode, To: l.Holder, Lease: l.Lease, Token: l.Lease})
		s.Timers = append(s.Timers, impl.PendingTimer{Node: impl.ServiceNode, Timer: impl.Timer{Kind: impl.TimerLease}})
		s.Canonicalize()
	case a.Input.Kind == impl.InputTimer && a.Input.Timer.Kind == impl.TimerPersist:
		l.Persisted = l.LastLease
		setDurableLock(s, l)
	}
}

// setDurableLock sets the lock of a durable-counter service (no revision,
// no lock-delay) through its encoding, the only way in from outside impl.
func setDurableLock(s *impl.World, l impl.LockState) {
	b := []byte{byte(l.Status), byte(l.Holder), 0}
	b = binary.AppendUvarint(b, l.Lease)
	b = binary.AppendUvarint(b, l.LastLease)
	b = binary.AppendUvarint(b, l.Persisted)
	if _, err := s.Sys.Service.Decode(b); err != nil {
		panic(err)
	}
}

// TestGrantBeforePersistLosesAnUpdate: restart-durable keeps NoLostUpdate
// only because the counter is persisted before the grant leaves. The
// explorer's verdict flips with the order: the mutant that grants first
// and persists after lets a crash in between hand the same token out
// twice, and an update is lost (TokensAreUnique's story, as in
// restart-volatile); the honest service, searched the same way, holds.
func TestGrantBeforePersistLosesAnUpdate(t *testing.T) {
	testbuild.SkipUnderRace(t)
	d := impl.DesignRestartDurable
	c := DefaultConfig(d, 2)
	for _, tc := range []struct {
		name   string
		mutant bool
	}{{"honest", false}, {"grant before persist", true}} {
		base := c.model()
		for _, inv := range impl.Invariants() {
			if inv.AppliesTo(d) {
				base.invs = append(base.invs, inv)
			}
		}
		var m Model[*impl.World] = base
		if tc.mutant {
			m = &grantBeforePersist{sysModel: base}
		}
		out, err := Search[*impl.World](m, Options{Workers: 1})
		require.NoError(t, err)
		require.True(t, out.Complete, tc.name)
		for k, inv := range base.invs {
			switch inv.Name {
			case impl.AtMostOneClientHoldLock:
				assert.NotNil(t, out.Violations[k], "%s: the restart forgets the holder either way", tc.name)
			case impl.NoLostUpdate:
				assert.Equal(t, tc.mutant, out.Violations[k] != nil, "%s: %s", tc.name, inv.Name)
			}
		}
	}
}
