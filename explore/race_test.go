//go:build race

package explore

import "github.com/fencelab/fencelab/impl"

// raceEnabled: the race detector is on; the costliest models give way to
// their symmetric versions.
const raceEnabled = true

// testDesigns is the designs the costliest tests (workers against one)
// loop over under the race detector: the four rows of before issue 12. The
// race detector looks for data races in the search, which is the same code
// for every row, and six more rows of 3-client searches would take the race
// build toward go test's ten minutes; the plain build checks them all.
func testDesigns() []impl.Design { return impl.Designs()[:4] }

// rowDesigns is the designs the tests of every row loop over: under the
// race detector all but the Redlock rows, whose 2-client models (420,541
// states with symmetry, 840,934 without) take minutes each there;
// TestPinnedFiguresRedlock and the plain build check them.
func rowDesigns() []impl.Design {
	var ds []impl.Design
	for _, d := range impl.Designs() {
		if !d.Redlock() {
			ds = append(ds, d)
		}
	}
	return ds
}
