package main

import (
	"flag"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/golden"
	"github.com/fencelab/fencelab/verdict"
)

var update = flag.Bool("update", false, golden.UpdateUsage)

// exploreFigures is the figures line fencelab explore prints under a
// model's header: "1,873 distinct states, 2,603 generated, depth 22, ".
var exploreFigures = regexp.MustCompile(`^([0-9,]+) distinct states, ([0-9,]+) generated, depth ([0-9]+), `)

// checkExploreFigures: stdout has header (fencelab explore's description
// of one model) and under it the figures pinned in row d's golden file
// (internal/golden) under prefix: states, generated, depth.
func checkExploreFigures(t *testing.T, stdout, header string, d impl.Design, prefix string) {
	t.Helper()
	_, after, ok := strings.Cut(stdout, header+"\n")
	require.True(t, ok, "no %q in the output:\n%s", header, stdout)
	m := exploreFigures.FindStringSubmatch(after)
	require.NotNil(t, m, "no figures under %q:\n%s", header, stdout)
	checkFigures(t, d, prefix, m[1:])
}

// checkExploreRow: the table of fencelab explore over every design has
// design d's row, its figures pinned under prefix.
func checkExploreRow(t *testing.T, stdout string, d impl.Design, prefix string) {
	t.Helper()
	row := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(d.Describe()) + `\s+([0-9,]+)\s+([0-9,]+)\s+([0-9]+)\s`)
	m := row.FindStringSubmatch(stdout)
	require.NotNil(t, m, "no row of %s in the table:\n%s", d.Describe(), stdout)
	checkFigures(t, d, prefix, m[1:])
}

// checkFigures checks states, generated and depth, as printed.
func checkFigures(t *testing.T, d impl.Design, prefix string, printed []string) {
	t.Helper()
	for i, figure := range []string{"states", "generated", "depth"} {
		golden.Check(t, *update, d.String(), prefix+"."+figure, strings.ReplaceAll(printed[i], ",", ""))
	}
}

// pinned is the figure of design d pinned under key, which another test
// checks against what it measures (a test that only reads a pin names
// the tests that write it), as fencelab prints a count: "33,469".
func pinned(t *testing.T, d impl.Design, key string) string {
	t.Helper()
	v, ok, err := golden.Lookup(d.String(), key)
	require.NoError(t, err)
	require.True(t, ok, "%s: no pinned %s", d, key)
	n, err := strconv.Atoi(v)
	require.NoError(t, err, "%s %s", d, key)
	return verdict.Thousands(n)
}
