package impl

import "github.com/fencelab/fencelab/verdict"

// rowSequencer is the design row DesignSequencer (--design sequencer): its
// facts, the verdicts expected of it and the TLC models that check it
// (cmd/specgen writes them into specs/).
func rowSequencer() row {
	return row{
		flag:       "sequencer",
		describe:   "sequencer checked with the service (Chubby, Consul)",
		tokens:     true,
		mode:       FenceSequencer,
		lockDelay:  true,
		products:   "Chubby's sequencers (CheckSequencer) and Consul's sessions (lock-delay, the resource asking Consul who holds the lock)",
		assumption: "the resource asks the lock service whether each operation's sequencer is the current holder's and applies it only if so, one operation at a time, so operations take effect in the order the service said yes (Chubby's CheckSequencer); the lock-delay after an expiry protects only resources that do not check, and only under timing bounds",
		expected:   [5]verdict.Status{v, h, h, h, h},
		specs: func() []SpecModels {
			return []SpecModels{
				{
					Module:    "DistLockFencing",
					Tag:       "sequencer",
					Constants: fencingConstants("sequencer", "lease", "never", false),
					Symmetry:  "Symmetry",
					Models: []TLCModel{
						holds(2, "check sequencer (Chubby/Consul): the resource asks the service whether each operation's token is the holder's, one operation at a time; TypeInvariant, TokenIsMonotonical, TokensAreUnique, TokensIncreaseInGrantOrder and NoLostUpdate hold; no deadlock", "TokenIsMonotonical", "TokensAreUnique", "TokensIncreaseInGrantOrder", "NoLostUpdate"),
						liveness(2, "check sequencer, no symmetry: the safety properties hold and under weak fairness every client finishes", "TokenIsMonotonical", "TokensAreUnique", "TokensIncreaseInGrantOrder", "NoLostUpdate"),
						holds(3, "check sequencer, 3 clients: TypeInvariant, TokenIsMonotonical, TokensAreUnique, TokensIncreaseInGrantOrder and NoLostUpdate hold; no deadlock", "TokenIsMonotonical", "TokensAreUnique", "TokensIncreaseInGrantOrder", "NoLostUpdate").slow(),
						witness(3, "NotEveryClientCommits", "witness: DistLockFencing_sequencer_3c does not hold vacuously, every client can commit every section").slow(),
						violates(2, "AtMostOneClientHoldLock", "check sequencer: two clients believe they hold the lock (c1's lease expires, the lock-delay ends, c2 is granted)"),
						witness(2, "NotEveryClientCommits", "witness: DistLockFencing_sequencer_2c does not hold vacuously, every client can commit every section"),
					},
				},
			}
		},
	}
}
