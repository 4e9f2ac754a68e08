package impl

import "github.com/fencelab/fencelab/verdict"

// rowRestartDurable is the design row DesignRestartDurable (--design
// restart-durable): its facts, the verdicts expected of it and the TLC
// models that check it (cmd/specgen writes them into specs/).
func rowRestartDurable() row {
	return row{
		flag:       "restart-durable",
		describe:   "tokens, mode all, service restarts, durable counter",
		tokens:     true,
		mode:       FenceAll,
		restart:    RestartDurable,
		products:   "a token counter persisted before each grant (Redis INCR with appendfsync always, a database sequence)",
		assumption: "as all, the service may crash and restart (forgetting who holds the lock), and its token counter is persisted before each grant is sent",
		expected:   [5]verdict.Status{v, h, h, h, h},
		specs: func() []SpecModels {
			return []SpecModels{
				{
					Module:    "DistLockFencing",
					Tag:       "restart-durable",
					Constants: fencingConstants("all", "lease", "durable", false),
					Symmetry:  "Symmetry",
					Models: []TLCModel{
						holds(2, "service restarts, durable counter persisted by a step of its own before the grant (a crash in between loses the grant, not the counter): TokenIsMonotonical, TokensAreUnique, TokensIncreaseInGrantOrder and NoLostUpdate hold; no deadlock", "TokenIsMonotonical", "TokensAreUnique", "TokensIncreaseInGrantOrder", "NoLostUpdate"),
						violates(2, "AtMostOneClientHoldLock", "service restarts, durable counter: the restart forgets who holds the lock, two clients believe they hold it"),
						witness(2, "NoSectionCommitsAcrossRestart", "witness: DistLockFencing_restart-durable_2c does not hold vacuously: a client that held the lock at the restart commits, and so does every other"),
					},
				},
			}
		},
	}
}
