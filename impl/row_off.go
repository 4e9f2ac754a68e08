package impl

import "github.com/fencelab/fencelab/verdict"

// rowOff is the design row DesignNoFencing (--design off): its facts, the
// verdicts expected of it and the TLC models that check it (cmd/specgen
// writes them into specs/).
func rowOff() row {
	return row{
		flag:          "off",
		describe:      "no fencing (no tokens)",
		products:      "a single Redis instance locked with SET key value NX PX ttl (no token); MySQL GET_LOCK comes closest (see below)",
		assumption:    "no tokens: safety rests on timing alone — every lease outlives its holder's pauses, delays and clock errors — which the asynchronous model never grants",
		expected:      [5]verdict.Status{v, na, v, na, na},
		notApplicable: [5]string{1: "there are no tokens to order", 3: "there are no tokens", 4: "there are no tokens"},
		specs: func() []SpecModels {
			return []SpecModels{
				{
					Module:    "DistLock",
					Constants: distLockConstants(0),
					Symmetry:  "Symmetry",
					Models: append([]TLCModel{
						violates(2, "AtMostOneClientHoldLock", "without fencing two clients believe they hold the lock: c1's grant is still in flight when the lease expires and c2 is granted"),
						violates(2, "NoLostUpdate", "without fencing both holders read the same value and both write it + 1"),
						liveness(2, "no deadlock; under weak fairness every client finishes (AllClientsFinish)"),
						witness(2, "NotEveryClientCommits", "witness: DistLock_2c_Liveness does not hold vacuously, every client can commit every section"),
						violates(3, "AtMostOneClientHoldLock", "without fencing two clients believe they hold the lock: c1's grant is still in flight when the lease expires and c2 is granted"),
						violates(3, "NoLostUpdate", "without fencing both holders read the same value and both write it + 1"),
						liveness(3, "no deadlock; under weak fairness every client finishes (AllClientsFinish); slow: TLC takes minutes with liveness (1,119,074 states, as fencelab explore --clients 3 --design off --symmetry=false counts)").slow(),
						witness(3, "NotEveryClientCommits", "witness: DistLock_3c_Liveness does not hold vacuously, every client can commit every section; slow: the witness of a slow model, run with it (fencelab tlc --all)").slow(),
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
							Suffix:     "NoLostUpdate",
							Invariants: []string{"NoLostUpdate"},
							Violates:   "NoLostUpdate",
							Note:       "two sections per client: without fencing an update is still lost",
						},
						{
							Clients:  2,
							Sections: 2,
							Suffix:   "Liveness",
							Property: "AllClientsFinish",
							Slow:     true,
							Note:     "two sections per client: no deadlock; under weak fairness every client finishes; slow: TLC takes minutes with liveness (1,194,876 states, as fencelab explore --clients 2 --sections 2 --design off --symmetry=false counts)",
						},
						{
							Clients:    2,
							Sections:   2,
							Suffix:     "Witness",
							Invariants: []string{"NotEveryClientCommits"},
							Violates:   "NotEveryClientCommits",
							Slow:       true,
							Note:       "witness: DistLock_2c_2s_Liveness does not hold vacuously, every client can commit both sections; slow: the witness of a slow model, run with it (fencelab tlc --all)",
						},
					}, everyClientCommitsVariants()...),
				},
				{
					Module:    "DistLockTimed",
					Tag:       "off",
					Constants: timedConstants("off", 0),
					Symmetry:  "Symmetry",
					Timed:     true,
					Models: []TLCModel{
						{
							Clients:    2,
							Suffix:     "AtMostOneClientHoldLock_inside",
							Invariants: []string{"AtMostOneClientHoldLock"},
							Set:        timedBounds(9, 4),
							Note:       "timed, no fencing, L = 9: one tick inside ceil((TTL-M+J)/(Q-R)) + P < ceil((TTL+L-J)/(Q+R)) (3 < 4); AtMostOneClientHoldLock holds",
						},
						{
							Clients:    2,
							Suffix:     "AtMostOneClientHoldLock_outside",
							Invariants: []string{"AtMostOneClientHoldLock"},
							Set:        timedBounds(8, 4),
							Violates:   "AtMostOneClientHoldLock",
							Note:       "timed, no fencing, L = 8: one tick outside (3 = 3); c1 (slow clock) is paused P past its validity timer while the service (fast clock, stepped forward J) grants c2",
						},
						{
							Clients:    2,
							Suffix:     "AtMostOneClientHoldLock_inside_Witness",
							Invariants: []string{"NeverBothCommit"},
							Constraint: "PerfectClocks",
							Set:        timedBounds(9, 4),
							Violates:   "NeverBothCommit",
							Note:       "the constants of ..._AtMostOneClientHoldLock_inside: both sections commit, so the lock is handed on and 'holds' is not vacuous; searched among perfect clocks (CONSTRAINT PerfectClocks): a witness need only exist",
						},
						{
							Clients:    2,
							Suffix:     "NoLostUpdate_inside",
							Invariants: []string{"AtMostOneClientHoldLock", "NoLostUpdate"},
							Set:        timedBounds(19, 6),
							Note:       "timed, no fencing, L = 19: one tick inside ceil((TTL-M+J)/(Q-R)) + 2P + D < ceil((TTL+L-J)/(Q+R)) (5 < 6); AtMostOneClientHoldLock and NoLostUpdate hold",
						},
						{
							Clients:    2,
							Suffix:     "NoLostUpdate_outside",
							Invariants: []string{"NoLostUpdate"},
							Set:        timedBounds(18, 6),
							Violates:   "NoLostUpdate",
							Note:       "timed, no fencing, L = 18: one tick outside (5 = 5); c1 checks its belief just before handling its late timer, its write is held P and delayed D, and c2 reads first",
						},
						{
							Clients:    2,
							Suffix:     "AtMostOneClientHoldLock_M5_L6",
							Invariants: []string{"AtMostOneClientHoldLock"},
							Set:        append([]Constant{{"M", "5"}}, timedBounds(6, 3)...),
							Violates:   "AtMostOneClientHoldLock",
							Note:       "timed, no fencing, M = 5, L = 6: where the spec's ticks and bounds' real time differ. bounds calls it safe by (TTL+L-J)/(Q+R) - (TTL-M+J)/(Q-R) - P = 13/5 - 4/3 - 1 = 4/15 of a tick; the spec's events fall on ticks, so c1's timer is due at tick ceil(4/3) = 2 and handled by tick 3, the tick of the next grant, ceil(13/5) = 3: violated (bounds.CheckTicks)",
						},
						{
							Clients:    2,
							Suffix:     "NoLostUpdate_M5_L15",
							Invariants: []string{"NoLostUpdate"},
							Set:        append([]Constant{{"M", "5"}}, timedBounds(15, 5)...),
							Violates:   "NoLostUpdate",
							Note:       "timed, no fencing, M = 5, L = 15: where the spec's ticks and bounds' real time differ. bounds calls it safe by 22/5 - 4/3 - 3 = 1/15 of a tick; on ticks c1's write, sent by tick ceil(4/3) + P = 3, lands by tick 5, the tick of the next grant, ceil(22/5) = 5: violated (bounds.CheckTicks)",
						},
						{
							Clients:    2,
							Suffix:     "NoLostUpdate_inside_Witness",
							Invariants: []string{"NeverBothCommit"},
							Constraint: "PerfectClocks",
							Set:        timedBounds(19, 6),
							Violates:   "NeverBothCommit",
							Note:       "the constants of ..._NoLostUpdate_inside: both sections commit, so the lock is handed on and 'holds' is not vacuous; searched among perfect clocks (CONSTRAINT PerfectClocks): a witness need only exist",
						},
					},
				},
			}
		},
	}
}
