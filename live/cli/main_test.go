package cli

import (
	"testing"

	"github.com/fencelab/fencelab/live/internal/livetest"
)

// TestMain: the test binary is also the client processes of the runs the
// tests start (livetest.RoleEnv).
func TestMain(m *testing.M) { livetest.Main(m) }
