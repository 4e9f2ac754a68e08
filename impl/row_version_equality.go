package impl

import "github.com/fencelab/fencelab/verdict"

// rowVersionEquality is the design row DesignVersionEquality (--design
// version-equality): its facts, the verdicts expected of it and the TLC
// models that check it (cmd/specgen writes them into specs/).
func rowVersionEquality() row {
	return row{
		flag:          "version-equality",
		describe:      "version equality (etcd contrib/lock)",
		tokens:        true,
		mode:          FenceVersion,
		uniqueTokens:  true,
		products:      "etcd's contrib/lock (the storage keeps the first write's version)",
		assumption:    "as etcd's contrib/lock demo: the version is the holder's lease ID (unique, unordered; one per grant here); the storage remembers the version of the first write, and accepts a later write only with that very version; reads are not checked",
		expected:      [5]verdict.Status{v, na, h, h, na},
		notApplicable: [5]string{1: "the versions are lease IDs, unique but unordered: the storage compares them for equality", 4: "the versions are lease IDs, unique but unordered by design: the next one may be smaller than one in use"},
		starves:       "the storage remembers the first write's version and refuses every other version forever: only the first written section ever commits (a version is one grant's lease here; with one etcd session per client, only that client's)",
		specs: func() []SpecModels {
			return []SpecModels{
				{
					Module:    "DistLockFencing",
					Tag:       "version-equality",
					Constants: fencingConstants("version", "unique", "never", false),
					Symmetry:  "Symmetry",
					Models: []TLCModel{
						holds(2, "etcd contrib/lock's version equality: NoLostUpdate and TokensAreUnique hold, and so does NotEveryClientCommits: the first write's version shuts every other one out; no deadlock", "NoLostUpdate", "TokensAreUnique", "NotEveryClientCommits"),
						violates(2, "AtMostOneClientHoldLock", "version equality: two clients believe they hold the lock"),
						witness(2, "NoSectionCommits", "witness: some section commits, so DistLockFencing_version-equality_2c's NoLostUpdate does not hold vacuously altogether"),
					},
				},
			}
		},
	}
}
