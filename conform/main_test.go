package conform

import (
	"os"
	"testing"

	"github.com/fencelab/fencelab/internal/tlccount"
	"github.com/fencelab/fencelab/internal/tlctest"
	"github.com/fencelab/fencelab/tlc"
)

// tlcChecks counts this package's TLC-backed tests that ran and those
// skipped.
var tlcChecks tlccount.Counter

// TestMain reports how many TLC-backed checks ran (tlccount.Report).
func TestMain(m *testing.M) {
	code := m.Run()
	tlcChecks.Report("conform")
	os.Exit(code)
}

const specsDir = "../specs"

// checker returns a Checker with the real TLC, or skips the test
// (tlctest.Require).
func checker(t testing.TB) *Checker {
	t.Helper()
	tool := tlctest.Require(t, &tlcChecks)
	return &Checker{TLC: &tlc.Runner{Java: tool.Java, Jar: tool.Jar}, SpecsDir: specsDir}
}
