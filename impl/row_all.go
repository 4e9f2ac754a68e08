package impl

import "github.com/fencelab/fencelab/verdict"

// rowFenceAll is the design row DesignFenceAll (--design all): its facts,
// the verdicts expected of it and the TLC models that check it (cmd/specgen
// writes them into specs/).
func rowFenceAll() row {
	return row{
		flag:       "all",
		describe:   "tokens, mode all",
		tokens:     true,
		mode:       FenceAll,
		products:   "a fencing token from a counter that never goes back, checked by the resource on every read and write, atomically (Kleppmann's fencing)",
		assumption: "the token counter never goes back (the service never restarts, or persists it) and the resource checks and applies each operation in one atomic step",
		expected:   [5]verdict.Status{v, h, h, h, h},
		specs: func() []SpecModels {
			return []SpecModels{
				{
					Module:    "DistLockFencing",
					Tag:       "all",
					Constants: fencingConstants("all", "lease", "never", false),
					Symmetry:  "Symmetry",
					Models: append(everyClientCommitsVariants("TokenIsMonotonical", "TokensAreUnique", "TokensIncreaseInGrantOrder", "NoLostUpdate"), []TLCModel{
						holds(2, "check all: TypeInvariant, TokenIsMonotonical, TokensAreUnique, TokensIncreaseInGrantOrder and NoLostUpdate hold; no deadlock", "TokenIsMonotonical", "TokensAreUnique", "TokensIncreaseInGrantOrder", "NoLostUpdate"),
						witness(2, "NotEveryClientCommits", "witness: DistLockFencing_all_2c and _Liveness do not hold vacuously, every client can commit every section"),
						liveness(2, "check all: the safety properties hold and under weak fairness every client finishes", "TokenIsMonotonical", "TokensAreUnique", "TokensIncreaseInGrantOrder", "NoLostUpdate"),
						violates(2, "AtMostOneClientHoldLock", "fencing does not stop two clients from believing they hold the lock"),
						holds(3, "check all: TypeInvariant, TokenIsMonotonical, TokensAreUnique, TokensIncreaseInGrantOrder and NoLostUpdate hold; no deadlock", "TokenIsMonotonical", "TokensAreUnique", "TokensIncreaseInGrantOrder", "NoLostUpdate"),
						witness(3, "NotEveryClientCommits", "witness: DistLockFencing_all_3c and _Liveness do not hold vacuously, every client can commit every section"),
						liveness(3, "check all: the safety properties hold and under weak fairness every client finishes; slow: TLC takes minutes with liveness (450,986 states, as fencelab explore --clients 3 --design all --symmetry=false counts)", "TokenIsMonotonical", "TokensAreUnique", "TokensIncreaseInGrantOrder", "NoLostUpdate").slow(),
						violates(3, "AtMostOneClientHoldLock", "fencing does not stop two clients from believing they hold the lock"),
						holds(4, "check all, 4 clients; slow: TLC takes minutes (5,295,957 states, depth 47; the explorer counts the same, fencelab explore --clients 4 --design all)", "TokenIsMonotonical", "TokensAreUnique", "TokensIncreaseInGrantOrder", "NoLostUpdate").slow(),
						witness(4, "NotEveryClientCommits", "witness: DistLockFencing_all_4c does not hold vacuously, every client can commit its section").slow(),
						{
							Clients:       2,
							Suffix:        "Liveness_Unfair",
							Property:      "AllClientsFinish",
							Specification: "UnfairSpec",
							Violates:      "AllClientsFinish",
							Note:          "without fairness a process may stop forever: the liveness property is not vacuous and rests on Spec's fairness",
						},
						{
							Clients:    2,
							Sections:   2,
							Invariants: []string{"TokenIsMonotonical", "TokensAreUnique", "TokensIncreaseInGrantOrder", "NoLostUpdate"},
							Slow:       true,
							Note:       "check all, two sections per client: the safety properties hold",
						},
						{
							Clients:    2,
							Sections:   2,
							Suffix:     "Witness",
							Invariants: []string{"NotEveryClientCommits"},
							Violates:   "NotEveryClientCommits",
							Slow:       true,
							Note:       "witness: DistLockFencing_all_2c_2s does not hold vacuously, every client can commit both sections; slow: the witness of a slow model, run with it (fencelab tlc --all)",
						},
						{
							Clients:    2,
							Suffix:     "TokensAreUnique_Pairs",
							Invariants: []string{"TokensAreUnique"},
							Set:        []Constant{{"TokenRule", "\"pairs\""}},
							Violates:   "TokensAreUnique",
							Variant:    true,
							Note:       "mutant service that gives two grants the same token: TokensAreUnique catches it (TokenIsMonotonical, with <=, does not: see _Pairs_TokenIsMonotonical)",
						},
						{
							Clients:    2,
							Suffix:     "TokensAreUnique_Pairs_TokenIsMonotonical",
							Invariants: []string{"TokenIsMonotonical"},
							Set:        []Constant{{"TokenRule", "\"pairs\""}},
							Variant:    true,
							Note:       "the same mutant: TokenIsMonotonical (<=) holds, blind to two grants with one token",
						},
						{
							Clients:    2,
							Suffix:     "TokensIncreaseInGrantOrder_Down",
							Invariants: []string{"TokensIncreaseInGrantOrder"},
							Set:        []Constant{{"TokenRule", "\"down\""}},
							Violates:   "TokensIncreaseInGrantOrder",
							Variant:    true,
							Note:       "mutant service whose tokens go down (17 - lease): TokensIncreaseInGrantOrder catches it (the resource's >= check keeps the others: see _Down_Others)",
						},
						{
							Clients:    2,
							Suffix:     "TokensIncreaseInGrantOrder_Down_Others",
							Invariants: []string{"TokenIsMonotonical", "TokensAreUnique", "NoLostUpdate"},
							Set:        []Constant{{"TokenRule", "\"down\""}},
							Variant:    true,
							Note:       "the same mutant: TokenIsMonotonical, TokensAreUnique and NoLostUpdate hold, blind to tokens that go down (the resource refuses every later grant's operations)",
						},
					}...),
				},
				{
					// A holder's death (specs/DistLockCrash.tla): the
					// victim client has no fairness, so it may stop for
					// ever holding the lock; the lease timer frees it.
					Module:        "DistLockCrash",
					Tag:           "all",
					Constants:     fencingConstants("all", "lease", "never", false),
					Specification: "CrashSpec",
					Models: []TLCModel{
						{
							Clients:  2,
							Suffix:   "LockFreedAfterHolderDeath",
							Property: "LockFreedAfterHolderDeath",
							Note:     "a holder's death: the victim may stop for ever holding the lock, and the service's lease timer frees it (LockFreedAfterHolderDeath holds)",
						},
						{
							Clients:    2,
							Suffix:     "LockFreedAfterHolderDeath_Witness",
							Invariants: []string{"NotEveryClientCommits"},
							Violates:   "NotEveryClientCommits",
							Note:       "witness: DistLockCrash_all_2c_LockFreedAfterHolderDeath does not hold vacuously, every client can commit every section",
						},
						{
							Clients:  2,
							Suffix:   "LockFreedAfterHolderDeath_NoTimeouts",
							Property: "LockFreedAfterHolderDeath",
							Set:      []Constant{{"Timeouts", "FALSE"}},
							Violates: "LockFreedAfterHolderDeath",
							Variant:  true,
							Note:     "the same without timeouts: the lease never expires, a dead holder keeps the lock for ever (LockFreedAfterHolderDeath violated: the property rests on the lease timer)",
						},
					},
				},
				{
					Module:    "DistLockTimed",
					Tag:       "all",
					Constants: timedConstants("all", 0),
					Symmetry:  "Symmetry",
					Timed:     true,
					Models: []TLCModel{
						{
							Clients:    2,
							Suffix:     "NoLostUpdate_inside",
							Invariants: []string{"NoLostUpdate"},
							Set:        timedBounds(19, 6),
							Note:       "timed, fencing all, the constants of DistLockTimed_off_2c_NoLostUpdate_inside: NoLostUpdate holds",
						},
						{
							Clients:    2,
							Suffix:     "NoLostUpdate_outside",
							Invariants: []string{"NoLostUpdate"},
							Set:        timedBounds(8, 6),
							Note:       "timed, fencing all, L = 8 (outside both bounds: two clients may believe at once): NoLostUpdate holds anyway",
						},
						{
							Clients:    2,
							Suffix:     "NoLostUpdate_inside_Witness",
							Invariants: []string{"NeverBothCommit"},
							Constraint: "PerfectClocks",
							Set:        timedBounds(19, 6),
							Violates:   "NeverBothCommit",
							Note:       "the constants of ..._NoLostUpdate_inside: both sections commit under fencing all, so 'holds' is not vacuous; searched among perfect clocks (CONSTRAINT PerfectClocks): a witness need only exist",
						},
						{
							Clients:    2,
							Suffix:     "NoLostUpdate_outside_Witness",
							Invariants: []string{"NeverBothCommit"},
							Constraint: "PerfectClocks",
							Set:        timedBounds(8, 6),
							Violates:   "NeverBothCommit",
							Note:       "the constants of ..._NoLostUpdate_outside: both sections commit under fencing all though two clients may believe at once, so 'holds' is not vacuous (the resource does not refuse everything); searched among perfect clocks (CONSTRAINT PerfectClocks): a witness need only exist",
						},
					},
				},
			}
		},
	}
}
