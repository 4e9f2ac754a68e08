//go:build !race

package explore

import "github.com/fencelab/fencelab/impl"

const raceEnabled = false

// testDesigns is the designs the costliest tests loop over: every row of
// the matrix (see race_test.go).
func testDesigns() []impl.Design { return impl.Designs() }

// rowDesigns is the designs the tests of every row loop over: every row
// (see race_test.go).
func rowDesigns() []impl.Design { return impl.Designs() }
