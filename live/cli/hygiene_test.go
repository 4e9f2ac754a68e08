package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/live/setup"
)

// The --design flag takes a setup's name (what list prints after
// --design), which is not always its design row: the help must say so.
func TestRunHelpNamesDesignAsTheSetupName(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.Equal(t, ExitOK, Run(setup.All(), []string{"run", "-h"}, strings.NewReader(""), &stdout, &stderr))
	help := stdout.String()
	i := strings.Index(help, "  -design")
	require.GreaterOrEqual(t, i, 0, help)
	rest := help[i+len("  -design"):]
	// The flag's description runs to the next flag.
	if j := strings.Index(rest, "\n  -"); j >= 0 {
		rest = rest[:j]
	}
	require.Contains(t, rest, "setup's name")
	require.NotContains(t, rest, "named by its design row")
	// The value the help describes is the one Find takes: a setup
	// whose name is not its row is found by its name.
	differs := false
	for _, s := range setup.All() {
		if s.Name != string(s.Design) {
			differs = true
			_, err := setup.Find(setup.All(), s.Service, s.Name)
			require.NoError(t, err, s.ID())
		}
	}
	require.True(t, differs, "some setup's name is not its row, so the wording matters")
}
