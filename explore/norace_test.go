//go:build !race

package explore

import "github.com/fencelab/fencelab/impl"

const raceEnabled = false

// testDesigns is the designs the costliest tests loop over: every row of
// the matrix (see race_test.go).
func testDesigns() []impl.Design { return impl.Designs() }
