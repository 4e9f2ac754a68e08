package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const cliReferencePath = "../../docs/cli.md"

// TestCLIReference: docs/cli.md is what 'fencelab help --markdown' writes
// from the commands' own help, so it cannot drift from the flags; go
// generate ./cmd/fencelab (make cli-docs) rewrites it.
func TestCLIReference(t *testing.T) {
	code, want, stderr := runCLI(t, "help", "--markdown")
	require.Equal(t, exitOK, code, stderr)
	data, err := os.ReadFile(cliReferencePath)
	require.NoError(t, err)
	assert.Equal(t, want, string(data), "docs/cli.md differs from the commands' help: run go generate ./cmd/fencelab (make cli-docs)")
}

// TestCLIReferenceHasEveryCommand: the reference has a section per
// command with its usage and, where it has flags, its flags.
func TestCLIReferenceHasEveryCommand(t *testing.T) {
	var b strings.Builder
	require.NoError(t, writeReference(&b))
	ref := b.String()
	assert.Contains(t, ref, "$ fencelab --help\n")
	for _, c := range commands() {
		section := fmt.Sprintf("\n## fencelab %s\n", c.name)
		require.Contains(t, ref, section)
		body := strings.SplitN(strings.SplitN(ref, section, 2)[1], "\n## ", 2)[0]
		assert.Contains(t, body, fmt.Sprintf("$ fencelab %s --help\n", c.name))
		assert.Contains(t, body, "Usage: ")
	}
	assert.Contains(t, ref, "  -runs int\n")
}

// TestCLIReferenceIsTheSameOnEveryMachine: the defaults that follow the
// machine (--workers: one per CPU) read as words in the reference, so it
// does not change with the CPU count, while --help itself shows the count.
func TestCLIReferenceIsTheSameOnEveryMachine(t *testing.T) {
	render := func(cpus int) string {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(cpus))
		var b strings.Builder
		require.NoError(t, writeReference(&b))
		return b.String()
	}
	one, three := render(1), render(3)
	assert.Equal(t, one, three)
	assert.Equal(t, 3, strings.Count(one, "(default: one per CPU)"), "explore's, sim's and sweep's --workers")

	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	_, help, _ := runCLI(t, "sweep", "--help")
	assert.Contains(t, help, "goroutines running cells (results do not depend on it) (default 3)")
}
