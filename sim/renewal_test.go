package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
)

// longSections is a workload whose critical sections outlast the TTL: two
// clients, think twice the TTL, so that a client that does not renew has
// stopped believing by the time it would write; a backoff long enough that
// the waiting client keeps asking through the other's section and its
// lease's expiry.
func longSections(d impl.Design) Config {
	c := DefaultConfig()
	c.Design, c.Clients, c.Sections = d, 2, 2
	c.Think = 2 * c.TTL
	c.Backoff = 100 * time.Millisecond
	c.Faults = NoFaults
	return c
}

// TestRenewalKeepsLongSections: with no fault, sections twice the TTL
// commit only where the holder renews. Without renewal the belief ends
// before the write (validity TTL − margin) and every section is abandoned
// — and the lease expires under it; with renewal every section commits and
// nothing is violated: renewal is what keeps a long section, and safe,
// while no pause occurs.
func TestRenewalKeepsLongSections(t *testing.T) {
	for _, tc := range []struct {
		design    impl.Design
		committed int
	}{
		{impl.DesignNoFencing, 0},
		{impl.DesignFenceAll, 0},
		{impl.DesignRenewal, 4},
	} {
		t.Run(tc.design.String(), func(t *testing.T) {
			c := longSections(tc.design)
			r, err := NewRunner(c)
			require.NoError(t, err)
			res := r.Run(&Schedule{Version: ScheduleVersion, Seed: 1})
			require.Empty(t, res.Stall)
			assert.Equal(t, tc.committed, res.Committed, "sections committed")
			assert.Equal(t, 4-tc.committed, res.Aborted, "sections abandoned")
			for _, inv := range impl.Invariants() {
				assert.False(t, res.Violated(inv.Name), "%s violated with no fault", inv.Name)
			}
		})
	}
}

// thinkEnd is the virtual time at which the first holder's think timer
// fires in the fault-free run of c — the moment it checks its belief and
// sends its write — and that holder.
func thinkEnd(t *testing.T, c Config) (time.Duration, impl.NodeID) {
	t.Helper()
	r, err := NewRunner(c)
	require.NoError(t, err)
	_, tr, _ := r.Record(&Schedule{Version: ScheduleVersion, Seed: 1}, "long sections", "")
	for _, s := range tr.Steps {
		if s.Action == "think timer fired" {
			for i := range c.Clients {
				if s.Actor == impl.ClientNode(i).String() {
					return s.At, impl.ClientNode(i)
				}
			}
		}
	}
	require.FailNow(t, "no think timer fired")
	return 0, 0
}

// TestPauseBreaksRenewal: the same long sections, and one GC pause of the
// first holder. A pause longer than what is left of the lease stops the
// renewals with the work: the lease expires, the other client is granted
// the lock, and the paused one resumes still believing: two holders.
// Struck between its belief check and its write's leaving (Kleppmann's
// pause), the write lands after the new holder's read: an update is lost
// (nothing fences it off). Struck in the middle of the think instead, the
// resumed client's
// overdue validity timer fires before its think timer: it abandons the
// section — two holders for the pause's length, no update lost.
func TestPauseBreaksRenewal(t *testing.T) {
	at, holder := thinkEnd(t, longSections(impl.DesignRenewal))
	pause := func(at time.Duration) *Schedule {
		return &Schedule{Version: ScheduleVersion, Seed: 1, Faults: []Fault{{Kind: FaultPause, Node: holder, At: at, Duration: 3 * time.Second / 2}}}
	}
	for _, tc := range []struct {
		name    string
		at      time.Duration
		lostUpd bool
	}{
		{"paused at the write", at + 50*time.Microsecond, true},
		{"paused mid-section", at - time.Second, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := longSections(impl.DesignRenewal)
			c.Faults = PauseFaults
			r, err := NewRunner(c)
			require.NoError(t, err)
			res := r.Run(pause(tc.at))
			require.Empty(t, res.Stall)
			assert.True(t, res.Violated(impl.AtMostOneClientHoldLock), "the paused holder still believes while the other holds")
			assert.Equal(t, tc.lostUpd, res.Violated(impl.NoLostUpdate), "NoLostUpdate violated")
			assert.Positive(t, res.Committed, "the other client's sections commit")
		})
	}
}

// TestRenewalUnderDefaultFaults: 1,000 seeds of the default workload
// (sections of 20 ms, far below the TTL) and faults, with and without
// renewal. Renewal changes little here — a renewal is due only after TTL/3,
// which only a section stretched by a fault reaches — and it removes no
// violation kind: two holders and lost updates remain (fewer lost
// updates: a section a delay stretched past TTL/3 has its lease renewed).
func TestRenewalUnderDefaultFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("4,000 runs")
	}
	c := DefaultConfig()
	sum, err := Batch{Config: c, Designs: []impl.Design{impl.DesignNoFencing, impl.DesignRenewal}, Seed: 1, Runs: 1000}.Run()
	require.NoError(t, err)
	want := map[impl.Design][numProps]int{
		impl.DesignNoFencing: {55, 0, 86},
		impl.DesignRenewal:   {51, 0, 36},
	}
	for _, d := range sum.Designs {
		var got [numProps]int
		for k := range numProps {
			got[k] = d.violations[k]
		}
		assert.Equal(t, want[d.Design], got, "%s: runs violating each property", d.Design)
		assert.Positive(t, d.Committed, d.Design.String())
	}
}
