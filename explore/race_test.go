//go:build race

package explore

import "github.com/fencelab/fencelab/impl"

// raceEnabled: the race detector is on; the costliest models give way to
// their symmetric versions.
const raceEnabled = true

// testDesigns is the designs the sleep-set comparison loops over under
// the race detector: the four rows of before issue 12, with 2 clients
// (sleep_test.go); the plain build checks every row, 3 clients and 2
// sections too.
func testDesigns() []impl.Design { return impl.Designs()[:4] }

// workerDesigns is the designs TestWorkersDoNotChangeTheResult compares
// worker counts on under the race detector: no fencing and mode all, one
// row without tokens and one with. The race detector looks for data races
// in the search — the workers' expansion, the merge into the table's
// shards, --first and the state limit mid-level — which is the same code
// for every row; the plain build compares every row.
func workerDesigns() []impl.Design { return []impl.Design{impl.DesignNoFencing, impl.DesignFenceAll} }

// rowDesigns is the designs the tests of every row loop over: under the
// race detector all but the Redlock rows, whose 2-client models (420,541
// states with symmetry, 840,934 without) take about 20 s of CPU each
// there; TestPinnedFiguresRedlockTwoNodes explores them (2 lock nodes) in
// every build, and the plain build their 3-node models.
func rowDesigns() []impl.Design {
	var ds []impl.Design
	for _, d := range impl.Designs() {
		if !d.Redlock() {
			ds = append(ds, d)
		}
	}
	return ds
}

// naiveDesigns is the designs whose 2-client model the naive searches
// (TestRunAgreesWithNaiveBFS, TestSymmetryKeepsVerdictsAndShortestTraces)
// walk again with Go maps of whole encodings: under the race detector the
// rows of rowDesigns but renewal, whose 84,590 states take seconds of CPU
// there for each naive walk; its search is the same code as every row's,
// its actions' semantics are checked against the naive successors
// (TestModelSuccessorsAreTheNaiveOnes) in every build, and the plain
// build walks it too.
func naiveDesigns() []impl.Design {
	var ds []impl.Design
	for _, d := range rowDesigns() {
		if !d.Renews() {
			ds = append(ds, d)
		}
	}
	return ds
}
