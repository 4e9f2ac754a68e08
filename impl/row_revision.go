package impl

import "github.com/fencelab/fencelab/verdict"

// rowRevision is the design row DesignRevision (--design revision): its
// facts, the verdicts expected of it and the TLC models that check it
// (cmd/specgen writes them into specs/).
func rowRevision() row {
	return row{
		flag:       "revision",
		describe:   "revision tokens, resource checks ≥",
		tokens:     true,
		mode:       FenceAll,
		revision:   true,
		products:   "etcd's concurrency.Mutex with its revision (the key's CreateRevision) checked by the resource; ZooKeeper and Curator's InterProcessMutex with the lock node's zxid or sequence number checked",
		assumption: "the token is the lock key's creation revision (etcd) or zxid (ZooKeeper): the store's revision, durable (replicated) and advanced by every change, so it only grows — with gaps; the resource checks ≥ on every operation",
		expected:   [5]verdict.Status{v, h, h, h, h},
		specs: func() []SpecModels {
			return []SpecModels{
				{
					Module:    "DistLockFencing",
					Tag:       "revision",
					Constants: fencingConstants("all", "revision", "never", false),
					Symmetry:  "Symmetry",
					Models: []TLCModel{
						holds(2, "revision tokens (with gaps), check >=: TokenIsMonotonical, TokensAreUnique, TokensIncreaseInGrantOrder and NoLostUpdate hold; no deadlock (the state count of DistLockFencing_all_2c and of the explorer)", "TokenIsMonotonical", "TokensAreUnique", "TokensIncreaseInGrantOrder", "NoLostUpdate"),
						violates(2, "AtMostOneClientHoldLock", "revision tokens: two clients believe they hold the lock"),
						witness(2, "NotEveryClientCommits", "witness: DistLockFencing_revision_2c does not hold vacuously, every client can commit every section"),
					},
				},
			}
		},
	}
}
