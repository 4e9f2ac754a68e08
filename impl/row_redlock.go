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
					},
				},
			}
		},
	}
}
