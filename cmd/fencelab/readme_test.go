package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
)

const readmePath = "../../README.md"

// cliReference is the README's CLI reference: what 'fencelab --help' and
// each 'fencelab <command> --help' print, so the README cannot drift from
// the flags.
func cliReference(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	help := func(args ...string) {
		code, stdout, stderr := runCLI(t, args...)
		require.Equal(t, exitOK, code, stderr)
		fmt.Fprintf(&b, "```text\n$ fencelab %s\n%s```\n", strings.Join(args, " "), stdout)
	}
	help("--help")
	for _, c := range commands() {
		fmt.Fprintf(&b, "\n#### fencelab %s\n\n", c.name)
		help(c.name, "--help")
	}
	return b.String()
}

// TestREADMECLIReference checks the README's CLI reference against the
// commands' own help. FENCELAB_UPDATE_README=1 rewrites it (make readme).
func TestREADMECLIReference(t *testing.T) {
	want := cliReference(t)
	if os.Getenv("FENCELAB_UPDATE_README") != "" {
		require.NoError(t, updateReadmeBlock(readmePath, "cli", want))
	}
	data, err := os.ReadFile(readmePath)
	require.NoError(t, err)
	got, err := readmeBlock(string(data), "cli")
	require.NoError(t, err)
	assert.Equal(t, want, got, "the README's CLI reference differs from the commands' help: run make readme")
}

// TestREADMEVerdictTable checks that the README's verdict table, written by
// 'fencelab demo --update-readme', still says what DESIGN.md's table says
// in every cell of every method: a change of expectations cannot leave the
// README behind.
func TestREADMEVerdictTable(t *testing.T) {
	data, err := os.ReadFile(readmePath)
	require.NoError(t, err)
	block, err := readmeBlock(string(data), "verdicts")
	require.NoError(t, err)
	rows := 0
	for _, line := range strings.Split(strings.TrimSpace(block), "\n")[2:] {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		require.Len(t, cells, 6, line)
		want := cells[2]
		for i, cell := range cells[3:] {
			verdict := strings.SplitN(cell, " ", 2)[0]
			if verdict == "n/a" {
				continue
			}
			assert.Equal(t, want, verdict, "%s / %s: %s says %q", cells[0], cells[1], [...]string{"TLC", "explorer", "simulator"}[i], cell)
		}
		rows++
		if !strings.HasPrefix(cells[0], "any design") {
			d := designByDescription(t, cells[0])
			assert.Equal(t, impl.Expected(d, cells[1]).String(), want, "%s / %s is DESIGN.md's verdict", cells[0], cells[1])
		}
	}
	assert.Equal(t, len(impl.Designs())*len(impl.Invariants())+len(impl.Invariants()), rows, "every cell of the table, and the fault-free simulator")
}

func designByDescription(t *testing.T, s string) impl.Design {
	t.Helper()
	for _, d := range impl.Designs() {
		if d.Describe() == s {
			return d
		}
	}
	t.Fatalf("no design is described as %q", s)
	return 0
}

func TestSpliceReadme(t *testing.T) {
	begin, end := readmeMarkers("x")
	readme := "intro\n" + begin + "old\n" + end + "\nrest\n"
	got, err := spliceReadme(readme, "x", "new\n")
	require.NoError(t, err)
	assert.Equal(t, "intro\n"+begin+"new\n"+end+"\nrest\n", got)
	_, err = spliceReadme("no markers", "x", "new")
	assert.ErrorContains(t, err, `README has no "x" block`)
	block, err := readmeBlock(got, "x")
	require.NoError(t, err)
	assert.Equal(t, "new\n", block)
}

// walkthroughFixture is TLC's output for the README's walkthrough: the
// showcase model checked with one worker, so the counterexample is the
// same on every run (tlc.Runner's "auto" workers). make readme refreshes
// it from the demo's run; TestTLCWalkthroughIsReproducible (with a jar)
// checks that a fresh run still gives it.
const walkthroughFixture = "../../tlc/testdata/tool_DistLock_2c_AtMostOneClientHoldLock.out"

// walkthrough renders the fixture as the README shows it: the step table
// and the Mermaid picture, titled by the model rather than a file path.
func walkthrough(t *testing.T, format string) string {
	t.Helper()
	code, stdout, stderr := runCLI(t, "trace", "--format", format, "--title", showcaseModel, walkthroughFixture)
	require.Equal(t, exitOK, code, stderr)
	fence := "text"
	if format == "mermaid" {
		fence = "mermaid"
	}
	return "```" + fence + "\n" + stdout + "```\n"
}

// TestREADMEWalkthrough checks the README's TLC walkthrough — its step
// table and its sequence picture — against the committed TLC output, so
// the story's step numbers are the ones a user gets. FENCELAB_UPDATE_README=1
// rewrites them (make readme).
func TestREADMEWalkthrough(t *testing.T) {
	for _, block := range []struct{ name, format string }{{"walkthrough-table", "table"}, {"walkthrough-mermaid", "mermaid"}} {
		want := walkthrough(t, block.format)
		if os.Getenv("FENCELAB_UPDATE_README") != "" {
			require.NoError(t, updateReadmeBlock(readmePath, block.name, want))
		}
		data, err := os.ReadFile(readmePath)
		require.NoError(t, err)
		got, err := readmeBlock(string(data), block.name)
		require.NoError(t, err)
		assert.Equal(t, want, got, "the README's walkthrough differs from the TLC output it is drawn from: run make readme")
	}
}
