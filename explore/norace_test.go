//go:build !race

package explore

import "github.com/fencelab/fencelab/impl"

const raceEnabled = false

// testDesigns is the designs the costliest tests loop over: every row of
// the matrix (see race_test.go).
func testDesigns() []impl.Design { return impl.Designs() }

// workerDesigns is the designs TestWorkersDoNotChangeTheResult compares
// worker counts on: every row (see race_test.go).
func workerDesigns() []impl.Design { return impl.Designs() }

// rowDesigns is the designs the tests of every row loop over: every row
// (see race_test.go).
func rowDesigns() []impl.Design { return impl.Designs() }

// naiveDesigns is the designs the naive searches walk: every row but the
// Redlock rows (see race_test.go), as rowDesigns.
func naiveDesigns() []impl.Design { return rowDesigns() }
