package sim

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/golden"
	"github.com/fencelab/fencelab/internal/testbuild"
)

// TestPinnedRunsMatrix: 500 seeds of each row of issue 12 under the
// default faults (the restart rows with their crashes on top, drawn from
// their own stream). nonatomic loses updates and accepts tokens out of
// order where fencing all does neither under the very same NPC faults;
// restart-volatile loses updates (a forgotten counter hands a token out
// twice) and never accepts tokens out of order, and far fewer sections
// commit (a counter that restarts below the resource's highest token is
// fenced off until it catches up); restart-durable loses nothing. In both
// a crash frees the lock: four times as many runs with two holders.
// unique-cas loses nothing under the faults that make fencing none lose
// updates, with unordered tokens (TokenIsMonotonical does not apply).
// revision runs exactly as fencing all (the same digest: revision tokens
// with gaps are checked by >= as lease numbers are); version-equality
// loses nothing because exactly one section a run — the first write's —
// ever commits: 500 in 500 runs. sequencer loses nothing and accepts no
// token out of order (the service says yes only to the holder's token, and
// the resource applies operations in the order of the yeses), and its
// lock-delay of a fifth of the TTL after an expiry makes two holders
// rarer: 11 runs where the other rows have 23. renewal: the same two holders as
// off (23 runs), and fewer lost updates (15 against 36): a section a fault
// stretched past TTL/3 has its lease renewed; the faults that no renewal
// outlasts still lose updates. snapshot-fence: a section's write is
// checked against the fence its read's snapshot saw, so a stale holder's
// write lands after the newer holder's operations whatever the delay.
func TestPinnedRunsMatrix(t *testing.T) {
	testbuild.SkipUnderRace(t)
	checkPinnedRuns(t, pinnedRuns{config: "default", base: DefaultConfig(), designs: []impl.Design{
		impl.DesignNonAtomic, impl.DesignRestartVolatile, impl.DesignRestartDurable, impl.DesignUniqueCAS,
		impl.DesignRevision, impl.DesignVersionEquality, impl.DesignSequencer, impl.DesignRenewal,
		impl.DesignSnapshotFence,
	}})
}

// TestPinnedRunsRedlock: 500 seeds of the Redlock rows, 5 lock nodes each
// with its own drifting and stepping clock, under the default faults and
// the crashes of any lock node on top: a node whose clock steps forward,
// or that restarts without persistence, lets a second client win a
// majority. Without fencing updates are lost; with the unique values
// checked by check-and-set, none is, under the very same faults.
func TestPinnedRunsRedlock(t *testing.T) {
	testbuild.SkipUnderRace(t)
	checkPinnedRuns(t, pinnedRuns{config: "default", base: DefaultConfig(), designs: []impl.Design{
		impl.DesignRedlock, impl.DesignRedlockUnique,
	}})
}

// TestPinnedRunsSharedByRows: revision runs exactly as fencing all —
// revision tokens with gaps are checked by >= as lease numbers are — so
// their pinned batches are one: a rewrite (-update) that tells them apart
// shows as a failure, not only as a diff.
func TestPinnedRunsSharedByRows(t *testing.T) {
	for _, tc := range []struct {
		row, as impl.Design
		config  string
	}{
		{impl.DesignRevision, impl.DesignFenceAll, "default"},
	} {
		t.Run(tc.row.String(), func(t *testing.T) {
			prefix := fmt.Sprintf("sim.%s.%druns.", tc.config, pinnedSeeds)
			for _, f := range []string{"digest", "committed"} {
				got, ok, err := golden.Lookup(tc.row.String(), prefix+f)
				require.NoError(t, err)
				require.True(t, ok, "%s: no pinned %s", tc.row, prefix+f)
				want, ok, err := golden.Lookup(tc.as.String(), prefix+f)
				require.NoError(t, err)
				require.True(t, ok, "%s: no pinned %s", tc.as, prefix+f)
				assert.Equal(t, want, got, "%s runs as %s", tc.row, tc.as)
			}
		})
	}
}
