package impl

import "github.com/fencelab/fencelab/verdict"

// rowRestartVolatile is the design row DesignRestartVolatile (--design
// restart-volatile): its facts, the verdicts expected of it and the TLC
// models that check it (cmd/specgen writes them into specs/).
func rowRestartVolatile() row {
	return row{
		flag:       "restart-volatile",
		describe:   "tokens, mode all, service restarts, volatile counter",
		tokens:     true,
		mode:       FenceAll,
		restart:    RestartVolatile,
		products:   "a token counter kept in memory by a lock server that may restart (Redis INCR without persistence)",
		assumption: "as all, but the service may crash and restart, and its token counter lives in memory: after a restart it hands out token 1 again",
		expected:   [5]verdict.Status{v, h, v, v, v},
		specs: func() []SpecModels {
			return []SpecModels{
				{
					Module:    "DistLockFencing",
					Tag:       "restart-volatile",
					Constants: fencingConstants("all", "lease", "volatile", false),
					Symmetry:  "Symmetry",
					Models: []TLCModel{
						holds(2, "service restarts, volatile counter: TokenIsMonotonical holds (check all keeps accepted tokens from decreasing, whatever the tokens); no deadlock", "TokenIsMonotonical"),
						violates(2, "AtMostOneClientHoldLock", "service restarts, volatile counter: two clients believe they hold the lock"),
						violates(2, "NoLostUpdate", "service restarts, volatile counter: token 1 handed out twice, both holders' operations accepted, an update lost"),
						violates(2, "TokensAreUnique", "service restarts, volatile counter: two grants carry token 1 (the companion of TokenIsMonotonical)"),
						violates(2, "TokensIncreaseInGrantOrder", "service restarts, volatile counter: the next token is 1 again while a token above it is in use"),
						witness(2, "NoSectionCommitsAcrossRestart", "witness: DistLockFencing_restart-volatile_2c does not hold vacuously: a client that held the lock at the restart commits, and so does every other"),
					},
				},
			}
		},
	}
}
