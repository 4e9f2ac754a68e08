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
		expected:   [3]verdict.Status{v, v, v},
		specs: func() []SpecModels {
			return []SpecModels{
				{
					Module:    "DistLockFencing",
					Tag:       "writes",
					Constants: fencingConstants("writes", "lease", "never", false),
					Symmetry:  "Symmetry",
					Models: []TLCModel{
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
