package report

import (
	"testing"

	"github.com/fencelab/fencelab/live/internal/livetest"
)

// TestMain: the test binary is a client process of the runs too.
func TestMain(m *testing.M) { livetest.Main(m) }
