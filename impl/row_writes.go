package impl

import "github.com/fencelab/fencelab/verdict"

// rowFenceWrites is the design row DesignFenceWrites (--design writes): its
// facts, the verdicts expected of it and the TLC models that check it
// (cmd/specgen writes them into specs/).
func rowFenceWrites() row {
	return row{
		flag:       "writes",
		describe:   "tokens, mode writes",
		tokens:     true,
		mode:       FenceWrites,
		products:   "any lock whose token the resource checks on writes only, not on reads",
		assumption: "the resource checks writes only: a newer holder's read does not fence an older holder's write",
		expected:   [5]verdict.Status{v, v, v, h, h},
		specs: func() []SpecModels {
			return []SpecModels{
				{
					Module:    "DistLockFencing",
					Tag:       "writes",
					Constants: fencingConstants("writes", "lease", "never", false),
					Symmetry:  "Symmetry",
					Models: []TLCModel{
						holds(2, "the resource checks writes only, but the service's tokens are unique and increase in grant order: TokensAreUnique and TokensIncreaseInGrantOrder hold; no deadlock", "TokensAreUnique", "TokensIncreaseInGrantOrder"),
						witness(2, "NotEveryClientCommits", "witness: DistLockFencing_writes_2c does not hold vacuously, every client can commit every section"),
						violates(2, "NoLostUpdate", "the newer holder reads before the stale holder writes; reads do not raise the highest token, so the stale write is accepted and the newer holder writes the same value again"),
						violates(2, "TokenIsMonotonical", "reads are not checked: a stale holder's read is accepted after a newer token was seen"),
						violates(2, "AtMostOneClientHoldLock", "fencing does not stop two clients from believing they hold the lock"),
						violates(3, "NoLostUpdate", "the newer holder reads before the stale holder writes; reads do not raise the highest token, so the stale write is accepted and the newer holder writes the same value again"),
						violates(3, "TokenIsMonotonical", "reads are not checked: a stale holder's read is accepted after a newer token was seen"),
						violates(3, "AtMostOneClientHoldLock", "fencing does not stop two clients from believing they hold the lock"),
						{
							Clients:    2,
							Sections:   2,
							Suffix:     "NoLostUpdate",
							Invariants: []string{"NoLostUpdate"},
							Violates:   "NoLostUpdate",
							Note:       "two sections per client: check writes still loses an update",
						},
					},
				},
			}
		},
	}
}
