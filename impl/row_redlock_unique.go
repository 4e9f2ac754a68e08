package impl

import "github.com/fencelab/fencelab/verdict"

// rowRedlockUnique is the design row DesignRedlockUnique (--design redlock-
// unique): its facts, the verdicts expected of it and the TLC models that
// check it (cmd/specgen writes them into specs/).
func rowRedlockUnique() row {
	return row{
		flag:          "redlock-unique",
		describe:      "Redlock, unique values as tokens, check-and-set",
		redlock:       true,
		restart:       RestartVolatile,
		tokens:        true,
		mode:          FenceCAS,
		uniqueTokens:  true,
		products:      "Redlock with its unique values compared-and-set by the resource (antirez's proposal)",
		assumption:    "as redlock, and the resource checks the client's unique value with an atomic check-and-set (antirez's proposal): a holder's read sets the resource's token, a write is accepted only with it",
		expected:      [5]verdict.Status{v, na, h, na, na},
		notApplicable: [5]string{1: "the tokens are the clients' unique values, unordered: the resource compares them for equality, and their order means nothing", 3: "the lock nodes hand out no tokens: each client makes its own unique value, so there is no service-side token to check", 4: "the lock nodes hand out no tokens: each client makes its own unique value, so there is no service-side token to order"},
		specs: func() []SpecModels {
			return []SpecModels{
				{
					Module:    "DistLockRedlock",
					Tag:       "unique",
					Constants: redlockConstants("unique"),
					Symmetry:  "ClientAndNodeSymmetry",
					Models: []TLCModel{
						{
							Clients:    2,
							Invariants: []string{"NoLostUpdate"},
							Symmetry:   "Symmetry",
							Note:       "Redlock, unique values as tokens checked by check-and-set, 3 lock nodes: NoLostUpdate holds; no deadlock",
						},
						violates(2, "AtMostOneClientHoldLock", "Redlock, unique values as tokens: two clients believe they hold the lock"),
						witness(2, "NoSectionCommitsAcrossRestart", "witness: DistLockRedlock_unique_2c does not hold vacuously: a client that held the lock when a node restarted, and every other, commit every section"),
					},
				},
			}
		},
	}
}
