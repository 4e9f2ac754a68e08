package sim

import (
	"testing"

	"github.com/fencelab/fencelab/impl"
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
// outlasts still lose updates.
func TestPinnedRunsMatrix(t *testing.T) {
	testbuild.SkipUnderRace(t)
	checkPinnedRuns(t, DefaultConfig(), []pinnedRun{
		{impl.DesignNonAtomic, [numProps]int{20, 28, 25}, 14902, "82b3deb0c397c68b0c17afaaba938324c794bedfb527ccdba8989c7d8c87b102"},
		{impl.DesignRestartVolatile, [numProps]int{87, 0, 10}, 12205, "6feb4f5fd5dd4b0152c83fc3d129b881b13d671e320e1276abdd64c0e35c703c"},
		{impl.DesignRestartDurable, [numProps]int{84, 0, 0}, 14866, "671913e3907ab2944543b3ae92308ad7044ff84c81880d8b348df373c61e7699"},
		{impl.DesignUniqueCAS, [numProps]int{23, 0, 0}, 14897, "9b7726dc9b286c3b72ad44d244b7b69c575591c501d07ac6eb931885efc34f15"},
		{impl.DesignRevision, [numProps]int{23, 0, 0}, 14899, "288133c508504ca98c2d4a9ea210bcca6ec162277739a80cc3d0c334297bbaf7"},
		{impl.DesignVersionEquality, [numProps]int{23, 0, 0}, 500, "e4c51d7e4bdd59e79f3cc7f72172c3c0e82f03c0c6eee92454120cd948ab0b0e"},
		{impl.DesignSequencer, [numProps]int{11, 0, 0}, 14845, "924f0562a63ec1b351606a8b87d352d6d726a9b59afe08d0fbae5f9723b65b8a"},
		{impl.DesignRenewal, [numProps]int{23, 0, 15}, 14959, "63bec47033107fdee63b30437cf1280bd50e1bbaaf51ba5260c1e4920c23c31b"},
	})
}

// TestPinnedRunsRedlock: 500 seeds of the Redlock rows, 5 lock nodes each
// with its own drifting and stepping clock, under the default faults and
// the crashes of any lock node on top: a node whose clock steps forward,
// or that restarts without persistence, lets a second client win a
// majority. Without fencing updates are lost; with the unique values
// checked by check-and-set, none is, under the very same faults.
func TestPinnedRunsRedlock(t *testing.T) {
	testbuild.SkipUnderRace(t)
	checkPinnedRuns(t, DefaultConfig(), []pinnedRun{
		{impl.DesignRedlock, [numProps]int{33, 0, 35}, 14950, "4b3e7c13c74706a6b5d0ba4563a4ce6c4c32f02547fb6ec4653a65f87ccf9206"},
		{impl.DesignRedlockUnique, [numProps]int{33, 0, 0}, 14911, "74926564b83f7ac89b6c1eb2e59f4e52af9b64c27438239946f402acd9accb2e"},
	})
}
