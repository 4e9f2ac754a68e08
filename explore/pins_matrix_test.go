package explore

import (
	"testing"

	"github.com/fencelab/fencelab/impl"
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
//     out for good: EveryClientCommits is not reached (checkPinned's Run
//     counts the holds only because the row expects exactly that).
func TestPinnedFiguresMatrix2Clients(t *testing.T) {
	checkPinned(t, func(*Config) {}, []pinnedModel{
		{impl.DesignNonAtomic, 2, 3816, 10939, 24, [3]int{7, 13, 17}},
		{impl.DesignRestartVolatile, 2, 16627, 48231, 23, [3]int{7, -1, 15}},
		{impl.DesignRestartDurable, 2, 12650, 36807, 22, [3]int{7, -1, -1}},
		{impl.DesignUniqueCAS, 2, 3744, 10655, 22, [3]int{7, 0, -1}},
		{impl.DesignRevision, 2, 2816, 7943, 22, [3]int{7, -1, -1}},
		{impl.DesignVersionEquality, 2, 3744, 10655, 22, [3]int{7, 0, -1}},
	})
}
