package conform

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/internal/tlccount"
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

// checker returns a Checker with the real TLC, or skips the test (counted)
// without Java or a jar.
func checker(t testing.TB) *Checker {
	t.Helper()
	skip := func(why string) {
		tlcChecks.Skipped(why)
		t.Skip("TLC-backed test skipped: " + why)
	}
	if testing.Short() {
		skip("-short mode")
	}
	java, err := tlc.FindJava()
	if err != nil {
		skip("no java on PATH")
	}
	r, err := tlc.DefaultResolver(filepath.Join("..", "tla2tools.version"))
	require.NoError(t, err)
	if r.EnvJar == "" && (r.CachePath() == "" || tlc.VerifyFile(r.CachePath(), r.Pin.SHA256) != nil) {
		skip("no tla2tools.jar: set TLA2TOOLS_JAR=/path/to/tla2tools.jar")
	}
	jar, err := r.Resolve(context.Background())
	require.NoError(t, err, "TLA2TOOLS_JAR is set but unusable")
	tlcChecks.Ran()
	return &Checker{TLC: &tlc.Runner{Java: java, Jar: jar.Path}, SpecsDir: specsDir}
}
