package distlockspec

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/explore"
	"github.com/fencelab/fencelab/impl"
)

// TestTraceCfgBindsEveryConstant: a trace run's cfg binds every constant
// its spec declares (a constant left out is a cfg error of TLC's, which
// judges no trace), and the trace spec's own Verbose.
func TestTraceCfgBindsEveryConstant(t *testing.T) {
	ident := regexp.MustCompile(`^\s+([A-Za-z_][A-Za-z0-9_]*)\s*,?\s*(\\\*.*)?$`)
	for _, d := range Designs() {
		src, err := os.ReadFile(filepath.Join(specsDir, Spec(d)+".tla"))
		require.NoError(t, err)
		_, block, ok := strings.Cut(string(src), "\nCONSTANTS\n")
		require.True(t, ok, Spec(d))
		var consts []string
		for _, line := range strings.Split(block, "\n") {
			if strings.TrimSpace(line) == "" || !strings.HasPrefix(line, " ") {
				break
			}
			if m := ident.FindStringSubmatch(line); m != nil {
				consts = append(consts, m[1])
			}
		}
		require.NotEmpty(t, consts, Spec(d))
		cfg := TraceCfg(explore.DefaultConfig(d, 2).Config, false)
		for _, c := range append(consts, "Verbose") {
			assert.Regexp(t, `(?m)^    `+c+` (=|<-) `, cfg, "%s: the trace cfg of %s does not bind %s", d, Spec(d), c)
		}
		if d == impl.DesignRedlock {
			assert.Contains(t, consts, "LateMajority")
		}
	}
}
