package impl

import "github.com/fencelab/fencelab/verdict"

// rowUniqueCAS is the design row DesignUniqueCAS (--design unique-cas): its
// facts, the verdicts expected of it and the TLC models that check it
// (cmd/specgen writes them into specs/).
func rowUniqueCAS() row {
	return row{
		flag:          "unique-cas",
		describe:      "unique tokens, check-and-set at the resource",
		tokens:        true,
		mode:          FenceCAS,
		uniqueTokens:  true,
		products:      "unique random lock values used as tokens, compared-and-set by the resource (antirez's answer to Kleppmann)",
		assumption:    "tokens are unique (never handed out twice) and the resource compares and sets in one atomic step: a holder's read sets the resource's token, a write is accepted only with that token (antirez's proposal for Redlock)",
		expected:      [5]verdict.Status{v, na, h, h, na},
		notApplicable: [5]string{1: "the tokens are unique but unordered: the resource compares them for equality, and their order means nothing", 4: "the tokens are unique but unordered by design: the next one may be smaller than one in use"},
		specs: func() []SpecModels {
			return []SpecModels{
				{
					Module:    "DistLockFencing",
					Tag:       "unique-cas",
					Constants: fencingConstants("cas", "unique", "never", false),
					Symmetry:  "Symmetry",
					Models: []TLCModel{
						holds(2, "unique tokens (Go's, impl.Scramble's order), check-and-set: NoLostUpdate and TokensAreUnique hold; no deadlock (the explorer's distinct states)", "NoLostUpdate", "TokensAreUnique"),
						violates(2, "AtMostOneClientHoldLock", "unique tokens, check-and-set: two clients believe they hold the lock"),
						witness(2, "NotEveryClientCommits", "witness: DistLockFencing_unique-cas_2c does not hold vacuously, every client can commit every section"),
						{
							Clients:    3,
							Suffix:     "TokenIsMonotonical_NoTimeouts",
							Invariants: []string{"TokenIsMonotonical"},
							Set:        noTimeouts(),
							Violates:   "TokenIsMonotonical",
							Variant:    true,
							Note:       "no timeouts, no fault at all, and the accepted tokens still decrease: Go's unique tokens of leases 1, 2, 3 are in the order 2nd, 3rd, 1st, so TokenIsMonotonical does not apply to the row (3 clients: with 2 only leases 1 and 2 are granted, whose tokens happen to ascend)",
						},
					},
				},
			}
		},
	}
}
