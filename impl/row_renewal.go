package impl

import "github.com/fencelab/fencelab/verdict"

// rowRenewal is the design row DesignRenewal (--design renewal): its facts,
// the verdicts expected of it and the TLC models that check it (cmd/specgen
// writes them into specs/).
func rowRenewal() row {
	return row{
		flag:          "renewal",
		describe:      "no fencing, lease renewed (Redisson's watchdog)",
		renews:        true,
		products:      "Redisson's RLock with its watchdog; etcd's concurrency.Mutex when the resource does not check its revision (the session's KeepAlive renews the lease)",
		assumption:    "no tokens; the holder renews its lease every TTL/3 while its section lasts and the service extends only the holder's current lease: a section may outlast the TTL, but a pause longer than what is left of the lease stops the renewals with the work, and the paused holder resumes still believing",
		expected:      [5]verdict.Status{v, na, v, na, na},
		notApplicable: [5]string{1: "there are no tokens to order", 3: "there are no tokens", 4: "there are no tokens"},
		specs: func() []SpecModels {
			return []SpecModels{
				{
					Module:        "DistLock",
					Tag:           "renewal",
					Constants:     distLockConstants(1),
					Specification: "RenewalSpec",
					Symmetry:      "Symmetry",
					Models: []TLCModel{
						holds(2, "lease renewal (one renewal a section): no deadlock; 42,296 states, as fencelab explore --design renewal counts (23 times design off's: the renewal timer, the renewal and its answer in flight)"),
						violates(2, "AtMostOneClientHoldLock", "with renewal two clients still believe they hold the lock: untimed, a renewed lease expires at any moment, as a pause longer than what is left of it lets it"),
						violates(2, "NoLostUpdate", "with renewal and no fencing both holders read the same value and both write it + 1"),
						witness(2, "NotEveryClientCommits", "witness: DistLock_renewal_2c does not hold vacuously, every client can commit every section"),
						{
							Clients:    2,
							Suffix:     "RenewalWitness",
							Invariants: []string{"NoSectionCommitsAfterRenewal"},
							Violates:   "NoSectionCommitsAfterRenewal",
							Note:       "witness: a renewal is granted, extends the holder's belief, and that section's write is accepted",
						},
					},
				},
				{
					Module:    "DistLockTimed",
					Tag:       "renewal",
					Constants: timedConstants("off", 1),
					Symmetry:  "Symmetry",
					Timed:     true,
					Models: []TLCModel{
						{
							Clients:    2,
							Suffix:     "AtMostOneClientHoldLock_inside",
							Invariants: []string{"AtMostOneClientHoldLock"},
							Set:        timedBounds(9, 5),
							Slow:       true,
							Note:       "timed, no fencing, the holder renews (Renewals = 1), L = 9: one tick inside the same bound as without renewal, ceil((TTL-M+J)/(Q-R)) + P < ceil((TTL+L-J)/(Q+R)) (3 < 4); AtMostOneClientHoldLock holds",
						},
						{
							Clients:    2,
							Suffix:     "AtMostOneClientHoldLock_outside",
							Invariants: []string{"AtMostOneClientHoldLock"},
							Set:        timedBounds(8, 5),
							Violates:   "AtMostOneClientHoldLock",
							Note:       "timed, no fencing, the holder renews (Renewals = 1), L = 8: one tick outside (3 = 3); renewal does not widen the bound: c1 (slow clock) is paused P past its validity timer while the service (fast clock, stepped forward J) grants c2",
						},
						{
							Clients:    2,
							Suffix:     "AtMostOneClientHoldLock_inside_Witness",
							Invariants: []string{"NeverBothCommitPastWindow"},
							Constraint: "PerfectClocks",
							Set:        timedBounds(9, 5),
							Violates:   "NeverBothCommitPastWindow",
							Slow:       true,
							Note:       "the constants of ..._renewal_2c_AtMostOneClientHoldLock_inside: the first section commits a write sent past its original validity window (only a granted renewal allows it) and the other section commits after it, so renewal is not vacuous there and a renewed lease is handed on; searched among perfect clocks (CONSTRAINT PerfectClocks): a witness need only exist",
						},
					},
				},
			}
		},
	}
}
