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
//     explorer's tokens are one fixed order), but no update is lost.
func TestPinnedFiguresMatrix2Clients(t *testing.T) {
	checkPinned(t, func(*Config) {}, []pinnedModel{
		{impl.DesignNonAtomic, 2, 3816, 10939, 24, [3]int{7, 13, 17}},
		{impl.DesignRestartVolatile, 2, 16627, 48231, 23, [3]int{7, -1, 15}},
		{impl.DesignRestartDurable, 2, 12650, 36807, 22, [3]int{7, -1, -1}},
		{impl.DesignUniqueCAS, 2, 3744, 10655, 22, [3]int{7, 0, -1}},
	})
}
