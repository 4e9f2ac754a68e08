package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/live/internal/livetest"
	"github.com/fencelab/fencelab/live/internal/toystore"
	"github.com/fencelab/fencelab/live/setup"
)

// mainEnv makes the test binary fencelab-live itself (cli.Main over
// setup.All()): what a test that signals a command runs.
const mainEnv = "FENCELAB_LIVE_CLI_TEST_MAIN"

// TestMain: the test binary is a client of the toy setups when asked
// (livetest.RoleEnv: a test that runs the toy through Run), fencelab-live
// when asked (mainEnv), and when started as one of its roles (a run's
// client, etcd's server — the binary a command run in a test
// re-executes), never the tests again.
func TestMain(m *testing.M) {
	toystore.MaybeServe() // the toy store of the store-command tests
	if os.Getenv(livetest.RoleEnv) == "client" {
		livetest.Main(m) // serves the client role and exits
	}
	if os.Getenv(mainEnv) == "1" || (len(os.Args) > 1 && !strings.HasPrefix(os.Args[1], "-")) {
		os.Exit(Main(append([]string{"fencelab-live"}, os.Args[1:]...), setup.All()))
	}
	os.Exit(m.Run())
}
