package impl

import "github.com/fencelab/fencelab/verdict"

// rowRedlock is the design row DesignRedlock (--design redlock): its facts,
// the verdicts expected of it and the TLC models that check it (cmd/specgen
// writes them into specs/).
func rowRedlock() row {
	return row{
		flag:          "redlock",
		describe:      "Redlock, no fencing",
		redlock:       true,
		restart:       RestartVolatile,
		products:      "Redlock over N Redis masters: redsync (Go), Redisson RedLock and the other Redlock clients",
		assumption:    "a majority of N independent lock nodes granted and the client's validity (TTL − time since its first send − drift allowance) has not run out: safety rests on every node's clock and memory — a node whose clock jumps forward, or that restarts without persistence, lets a second client win a majority",
		expected:      [5]verdict.Status{v, na, v, na, na},
		notApplicable: [5]string{1: "there are no tokens to order", 3: "the lock nodes hand out no tokens", 4: "the lock nodes hand out no tokens"},
		specs: func() []SpecModels {
			return []SpecModels{
				{
					Module:    "DistLockRedlock",
					Tag:       "redlock",
					Constants: redlockConstants("none"),
					Symmetry:  "ClientAndNodeSymmetry",
					Models: []TLCModel{
						{
							Clients:    2,
							Invariants: []string{"NoActionPastValidity"},
							Note:       "Redlock, no fencing, 3 lock nodes, the send rule: no client acts on a belief past its validity window (a majority whose answers came after the window closed is given back); no deadlock. Clients and nodes symmetric: a third of the states of DistLockRedlock_unique_2c, whose count is the explorer's",
						},
						witness(2, "NoSectionCommitsAcrossRestart", "witness: DistLockRedlock_redlock_2c does not hold vacuously: a client that held the lock when a node restarted, and every other, commit every section"),
						violates(2, "AtMostOneClientHoldLock", "Redlock, no fencing, 3 lock nodes: a node lets c1's key go early (its clock) and c2 wins a majority: two clients believe they hold the lock"),
						violates(2, "NoLostUpdate", "Redlock, no fencing, 3 lock nodes: both holders' writes accepted, an update lost"),
						{
							Clients:    2,
							Suffix:     "NoLostUpdate_NoTimeouts",
							Invariants: []string{"NoLostUpdate"},
							Set:        noTimeouts(),
							Violates:   "NoLostUpdate",
							Variant:    true,
							Note:       "Redlock, no fencing, no timer fires at all: a node that restarts without persistence alone lets a second client win a majority and lose an update (Kleppmann's second counterexample)",
						},
						{
							Clients:    2,
							Suffix:     "NoActionPastValidity_LateMajority",
							Invariants: []string{"NoActionPastValidity"},
							Set:        []Constant{{"LateMajority", "TRUE"}},
							Violates:   "NoActionPastValidity",
							Variant:    true,
							Note:       "mutant client that holds on a majority whose answers came after its validity window closed (the late majority acted upon): NoActionPastValidity catches it (DistLockRedlock_redlock_2c, the same model with Redlock's client, holds)",
						},
						{
							Clients:    2,
							Suffix:     "AtMostOneClientHoldLock_NoFaults",
							Invariants: []string{"AtMostOneClientHoldLock"},
							Set:        []Constant{{"Timeouts", "FALSE"}, {"MaxRestarts", "0"}},
							Variant:    true,
							Note:       "Redlock, no fencing, without its faults (no key expires early, no node restarts): two majorities of the 3 nodes share a node, so at most one client believes it holds the lock",
						},
						{
							Clients:    2,
							Suffix:     "AtMostOneClientHoldLock_NoFaults_HalfQuorum",
							Invariants: []string{"AtMostOneClientHoldLock"},
							Set:        []Constant{{"Timeouts", "FALSE"}, {"MaxRestarts", "0"}, {"Quorum", `"half"`}},
							Violates:   "AtMostOneClientHoldLock",
							Variant:    true,
							Note:       "mutant client whose quorum is N div 2 (1 of 3 nodes) instead of N div 2 + 1: two quorums need not share a node, and without any fault two clients believe they hold the lock (_NoFaults, with Redlock's majority, holds)",
						},
					},
				},
			}
		},
	}
}
