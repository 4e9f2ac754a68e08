package impl

import "github.com/fencelab/fencelab/verdict"

// rowNonAtomic is the design row DesignNonAtomic (--design nonatomic): its
// facts, the verdicts expected of it and the TLC models that check it
// (cmd/specgen writes them into specs/).
func rowNonAtomic() row {
	return row{
		flag:       "nonatomic",
		describe:   "tokens, mode all, non-atomic resource",
		tokens:     true,
		mode:       FenceAll,
		nonAtomic:  true,
		products:   "a resource that checks the token, then writes in a second step (a read-then-write without a transaction)",
		assumption: "as all, but the resource checks a write's token in one step and applies the write in a later one, so another operation can come between: the atomicity all rests on, taken away",
		expected:   [5]verdict.Status{v, v, v, h, h},
		specs: func() []SpecModels {
			return []SpecModels{
				{
					Module:    "DistLockFencing",
					Tag:       "nonatomic",
					Constants: fencingConstants("all", "lease", "never", true),
					Symmetry:  "Symmetry",
					Models: []TLCModel{
						holds(2, "non-atomic resource: TypeInvariant, TokensAreUnique and TokensIncreaseInGrantOrder hold and no deadlock (the data properties are violated, below); the explorer's distinct states", "TokensAreUnique", "TokensIncreaseInGrantOrder"),
						violates(2, "AtMostOneClientHoldLock", "non-atomic resource: fencing does not change beliefs, two clients believe they hold the lock"),
						violates(2, "TokenIsMonotonical", "non-atomic resource: c1's write is checked, c2 (newer token) reads, then c1's write takes effect after c2's read"),
						violates(2, "NoLostUpdate", "non-atomic resource: c2 reads before c1's checked write is applied and writes the same value again"),
						witness(2, "NotEveryClientCommits", "witness: every client can commit its section through a check and a later apply"),
					},
				},
			}
		},
	}
}
