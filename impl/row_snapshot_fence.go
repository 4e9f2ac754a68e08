package impl

import "github.com/fencelab/fencelab/verdict"

// rowSnapshotFence is the design row DesignSnapshotFence (--design
// snapshot-fence): its facts, the verdicts expected of it and the TLC
// models that check it (cmd/specgen writes them into specs/).
//
// It differs from nonatomic in what the check compares, not in a missing
// step: every operation is atomic here, and the write is checked — but
// against the fence of the snapshot its section's read took, a stale
// value that the read already passed, so a newer holder's operations
// committed since cannot stop it however late it comes (nonatomic's
// stale write only slips through between its check and its apply, the
// fence being current at the check). And the fence moves only when a
// transaction commits (its write), not at the read.
func rowSnapshotFence() row {
	return row{
		flag:          "snapshot-fence",
		describe:      "tokens, mode all, fence read from a transaction's snapshot",
		tokens:        true,
		mode:          FenceAll,
		snapshotFence: true,
		products:      "an epoch fence read by a REPEATABLE READ (snapshot isolation) transaction that began before the handover, its write committed after it (PostgreSQL; Tr3kkR/Yuzu #4015)",
		assumption:    "as all, but each section is one transaction under snapshot isolation: its read checks the token against the committed fence and takes the snapshot, its write checks the fence in that snapshot (which the read passed) and commits, raising the fence, so what a newer holder committed in between is not seen",
		expected:      [5]verdict.Status{v, v, v, h, h},
		specs: func() []SpecModels {
			return []SpecModels{
				{
					Module:    "DistLockFencing",
					Tag:       "snapshot-fence",
					Constants: fencingConstants("snapshot", "lease", "never", false),
					Symmetry:  "Symmetry",
					Models: []TLCModel{
						holds(2, "snapshot fence: TypeInvariant, TokensAreUnique and TokensIncreaseInGrantOrder hold and no deadlock (the data properties are violated, below); the explorer's distinct states", "TokensAreUnique", "TokensIncreaseInGrantOrder"),
						violates(2, "AtMostOneClientHoldLock", "snapshot fence: fencing does not change beliefs, two clients believe they hold the lock"),
						violates(2, "TokenIsMonotonical", "snapshot fence: c1 reads (its transaction's snapshot, fence 0), c2 (newer token) reads, then c1's write, checked in its snapshot, commits after c2's read"),
						violates(2, "NoLostUpdate", "snapshot fence: c1 and c2 read the same value in their snapshots and both commit a write of it plus one"),
						witness(2, "NotEveryClientCommits", "witness: every client can commit its section's transaction"),
					},
				},
			}
		},
	}
}
