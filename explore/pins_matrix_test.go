package explore

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
	"github.com/fencelab/fencelab/tlc"
)

// TestPinnedFiguresMatrix2Clients: the rows of issue 12 that take an
// assumption of fencing all away, 2 clients. Each property's shortest
// counterexample is pinned, and a holds counts only with its witnesses
// (checkPinned: Run turns a holds without them into Unknown):
//   - nonatomic: a write is checked, then applied in a later step; the
//     newer holder reads between c1's check and its apply (14 steps to
//     tokens out of order, 18 to a lost update: 4 and 2 more than mode
//     none's 10 and 16, the applies and the interleaving they allow);
//   - restart-volatile: the restart makes the counter hand lease and
//     token 1 out twice; check all keeps the accepted tokens from
//     decreasing, and NoLostUpdate falls as in mode none (16 steps);
//   - restart-durable: the restart frees the lock (two holders) but the
//     tokens stay fresh: both data properties hold;
//   - unique-cas: check-and-set on unique tokens; the state space of
//     mode none (the resource keeps one token either way, and the
//     explorer's tokens are one fixed order), but no update is lost;
//   - revision: the tokens are the store's revision, which every grant,
//     release and expiry advances: the same states, verdicts and traces
//     as mode all (the revision is a function of the rest of the state);
//   - version-equality: etcd's contrib/lock storage; no update is lost,
//     but only because the first write's version shuts every other lease
//     out for good: NotEveryClientCommits is not reached (checkPinned's Run
//     counts the holds only because the row expects exactly that);
//   - sequencer: the resource asks the service about each operation's
//     token (two more steps an operation, and operations queue at the
//     resource) and the service has a lock-delay (one more step before
//     the second grant: 8 actions to two holders, not 7); both data
//     properties hold.
//   - renewal: the holder renews its lease (at most impl.UntimedRenewals
//     a section); untimed, a renewed lease still expires at any moment, so
//     the verdicts and shortest traces are off's (the shortest ones renew
//     nothing), with about 23 times the states — the renewal timer, the
//     renewal and its answer in flight — and the witness that a renewal is
//     granted and its section still commits (NoSectionCommitsAfterRenewal,
//     11 steps).
//   - snapshot-fence: a section is one transaction under snapshot
//     isolation, its write checked against the fence its read's snapshot
//     saw and the fence raised only at a commit: a read with token 1
//     passes after token 2's (TokenIsMonotonical, 9 actions) and two
//     writes based on the same read both commit (NoLostUpdate, 15).
func TestPinnedFiguresMatrix2Clients(t *testing.T) {
	testbuild.SkipUnderRace(t)
	checkPinned(t, pinnedModels{clients: 2, designs: []impl.Design{
		impl.DesignNonAtomic, impl.DesignRestartVolatile, impl.DesignRestartDurable, impl.DesignUniqueCAS,
		impl.DesignRevision, impl.DesignVersionEquality, impl.DesignSequencer, impl.DesignRenewal,
		impl.DesignSnapshotFence,
	}})
}

// TestSequencerStatesAreTLCs: the sequencer row's 2-client model with
// client symmetry has the distinct states TLC reports for
// DistLockFencing_sequencer_2c (specs/models.json), the same depth less
// TLC's initial state, and AtMostOneClientHoldLock's shortest trace is
// DistLockFencing_sequencer_2c_AtMostOneClientHoldLock's 9 states (the
// pinned 8 actions).
func TestSequencerStatesAreTLCs(t *testing.T) {
	m, err := tlc.LoadManifest(filepath.Join("..", "specs", "models.json"))
	require.NoError(t, err)
	want := int64(-1)
	for _, mod := range m.Models {
		if mod.Name == "DistLockFencing_sequencer_2c" {
			want = mod.DistinctStates
		}
	}
	require.Positive(t, want, "DistLockFencing_sequencer_2c and its count are in the manifest")
	p := pinnedModels{clients: 2, variant: "sym", setup: func(c *Config) { c.Symmetry = true }, designs: []impl.Design{impl.DesignSequencer}}
	checkPinned(t, p)
	t.Run("TLC's", func(t *testing.T) {
		res, _ := runShared(t, p.config(impl.DesignSequencer))
		assert.Equal(t, want, int64(res.Distinct), "the explorer's distinct states are TLC's")
	})
}

// TestPinnedFiguresRedlockTwoNodes: the Redlock rows with 2 lock nodes
// instead of 3 (a majority is both), 2 clients, client symmetry: a
// eighteenth of the states of TestPinnedFiguresRedlock (47,665), so every
// size explores both rows in full — the
// majority, the per-node grants, lease timers, restarts and releases, the
// unique values — and reaches DESIGN.md's verdicts: two holders in 13
// steps (12 actions), an update lost in 21 without fencing, none with
// check-and-set. The 3-node figures, the specs' model, are pinned in the
// full size (pins_matrix_full_test.go).
func TestPinnedFiguresRedlockTwoNodes(t *testing.T) {
	testbuild.SkipUnderRace(t)
	checkPinned(t, pinnedModels{clients: 2, variant: "sym.2nodes", setup: func(c *Config) { c.Symmetry, c.Nodes = true, 2 }, designs: []impl.Design{
		impl.DesignRedlock, impl.DesignRedlockUnique,
	}})
}
