package bounds

import (
	"os"
	"testing"

	"github.com/fencelab/fencelab/internal/tlccount"
)

// tlcChecks counts this package's TLC-backed tests that ran and those
// skipped.
var tlcChecks tlccount.Counter

// TestMain reports how many TLC-backed checks ran (tlccount.Report).
func TestMain(m *testing.M) {
	code := m.Run()
	tlcChecks.Report("bounds")
	os.Exit(code)
}
