package explore

import (
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/testbuild"
)

// The sizes of this package's tests (internal/testbuild): at reduced size
// (the race build, -short) the costliest models give way to their
// symmetric or 2-client versions; go test ./... runs every one.

// testDesigns is the designs the sleep-set comparison loops over: at
// reduced size the four rows of before issue 12, with 2 clients
// (sleep_test.go); at full size every row, 3 clients and 2 sections too.
func testDesigns() []impl.Design {
	if testbuild.Reduced() {
		return impl.Designs()[:4]
	}
	return impl.Designs()
}

// workerDesigns is the designs TestWorkersDoNotChangeTheResult compares
// worker counts on: at reduced size no fencing and mode all, one row
// without tokens and one with. The race detector looks for data races in
// the search — the workers' expansion, the merge into the table's shards,
// --first and the state limit mid-level — which is the same code for
// every row; at full size every row is compared.
func workerDesigns() []impl.Design {
	if testbuild.Reduced() {
		return []impl.Design{impl.DesignNoFencing, impl.DesignFenceAll}
	}
	return impl.Designs()
}

// rowDesigns is the designs the tests of every row loop over: at reduced
// size all but the Redlock rows, whose 2-client models (860,742 states
// with symmetry, 840,934 without) take about 20 s of CPU each under the
// race detector; TestPinnedFiguresRedlockTwoNodes explores them (2 lock
// nodes) at every size, and the full size their 3-node models.
func rowDesigns() []impl.Design {
	if !testbuild.Reduced() {
		return impl.Designs()
	}
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
// walk again with Go maps of whole encodings: the rows of rowDesigns, and
// at reduced size not renewal, whose 84,590 states take seconds of CPU
// under the race detector for each naive walk; its search is the same
// code as every row's, and its actions' semantics are checked against
// the naive successors (TestModelSuccessorsAreTheNaiveOnes) at every
// size.
func naiveDesigns() []impl.Design {
	if !testbuild.Reduced() {
		return rowDesigns()
	}
	var ds []impl.Design
	for _, d := range rowDesigns() {
		if !d.Renews() {
			ds = append(ds, d)
		}
	}
	return ds
}
