package impl

import "github.com/fencelab/fencelab/verdict"

// rowFenceNone is the design row DesignFenceNone (--design none): its facts,
// the verdicts expected of it and the TLC models that check it (cmd/specgen
// writes them into specs/).
func rowFenceNone() row {
	return row{
		flag:       "none",
		describe:   "tokens, mode none",
		tokens:     true,
		mode:       FenceNone,
		products:   "a lock that hands out a token (Redis SET NX PX plus an INCR counter, etcd or ZooKeeper) when the resource never looks at it",
		assumption: "tokens are handed out but the resource ignores them: safety rests on timing alone",
		expected:   [5]verdict.Status{v, v, v, h, h},
		specs: func() []SpecModels {
			return []SpecModels{
				{
					Module:    "DistLockFencing",
					Tag:       "none",
					Constants: fencingConstants("none", "lease", "never", false),
					Symmetry:  "Symmetry",
					Models: []TLCModel{
						holds(2, "the resource ignores tokens, but the service's tokens are unique and increase in grant order: TokensAreUnique and TokensIncreaseInGrantOrder hold; no deadlock", "TokensAreUnique", "TokensIncreaseInGrantOrder"),
						witness(2, "NotEveryClientCommits", "witness: DistLockFencing_none_2c does not hold vacuously, every client can commit every section"),
						violates(2, "NoLostUpdate", "the resource ignores tokens: both holders read the same value and both write it + 1"),
						violates(2, "TokenIsMonotonical", "the resource ignores tokens: a stale holder's operation is accepted after a newer one"),
						violates(2, "AtMostOneClientHoldLock", "fencing does not stop two clients from believing they hold the lock"),
						violates(3, "NoLostUpdate", "the resource ignores tokens: both holders read the same value and both write it + 1"),
						violates(3, "TokenIsMonotonical", "the resource ignores tokens: a stale holder's operation is accepted after a newer one"),
						violates(3, "AtMostOneClientHoldLock", "fencing does not stop two clients from believing they hold the lock"),
					},
				},
			}
		},
	}
}
