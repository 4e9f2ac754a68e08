package explore

import (
	"path/filepath"
	"testing"

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
func TestPinnedFiguresMatrix2Clients(t *testing.T) {
	testbuild.SkipUnderRace(t)
	checkPinned(t, func(*Config) {}, []pinnedModel{
		{impl.DesignNonAtomic, 2, 3816, 10939, 24, [3]int{7, 13, 17}},
		{impl.DesignRestartVolatile, 2, 16627, 48231, 23, [3]int{7, -1, 15}},
		{impl.DesignRestartDurable, 2, 12650, 36807, 22, [3]int{7, -1, -1}},
		{impl.DesignUniqueCAS, 2, 3744, 10655, 22, [3]int{7, 0, -1}},
		{impl.DesignRevision, 2, 2816, 7943, 22, [3]int{7, -1, -1}},
		{impl.DesignVersionEquality, 2, 3744, 10655, 22, [3]int{7, 0, -1}},
		{impl.DesignSequencer, 2, 14046, 42681, 32, [3]int{8, -1, -1}},
		{impl.DesignRenewal, 2, 84590, 350627, 27, [3]int{7, 0, 15}},
	})
}

// TestSequencerStatesAreTLCs: the sequencer row's 2-client model with
// client symmetry has the distinct states TLC reports for
// DistLockFencing_sequencer_2c (specs/models.json), the same depth less
// TLC's initial state, and AtMostOneClientHoldLock's shortest trace is
// DistLockFencing_sequencer_2c_AtMostOneClientHoldLock's 9 states.
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
	checkPinned(t, func(c *Config) { c.Symmetry = true }, []pinnedModel{
		{impl.DesignSequencer, 2, int(want), 21343, 32, [3]int{8, -1, -1}},
	})
}

// TestPinnedFiguresRedlockTwoNodes: the Redlock rows with 2 lock nodes
// instead of 3 (a majority is both), 2 clients, client symmetry: a
// twelfth of the states of TestPinnedFiguresRedlock (33,469), so every
// size explores both rows in full — the
// majority, the per-node grants, lease timers, restarts and releases, the
// unique values — and reaches DESIGN.md's verdicts: two holders in 13
// steps (12 actions), an update lost in 21 without fencing, none with
// check-and-set. The 3-node figures, the specs' model, are pinned in the
// full size (pins_matrix_full_test.go).
func TestPinnedFiguresRedlockTwoNodes(t *testing.T) {
	testbuild.SkipUnderRace(t)
	checkPinned(t, func(c *Config) { c.Symmetry, c.Nodes = true, 2 }, []pinnedModel{
		{impl.DesignRedlock, 2, 33469, 128577, 28, [3]int{12, 0, 20}},
		{impl.DesignRedlockUnique, 2, 33469, 128577, 28, [3]int{12, 0, -1}},
	})
}
