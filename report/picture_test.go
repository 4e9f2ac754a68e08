package report

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
)

// TestLiveMarks: a row's live mark over its setups is the strongest one —
// a single violating setup makes it violated; "held while the fault took
// effect" (or the older "not observed" where the fault took effect) is not
// seen, "inconclusive" where the fault never took effect no effect, where
// it did unknown; a cell it cannot read is an error, never a guess.
func TestLiveMarks(t *testing.T) {
	head := "| Row | Live setup | AtMostOneClientHoldLock: model · live | NoLostUpdate: model · live |\n|---|---|---|---|\n"
	tests := []struct {
		name, rows string
		want       map[string]map[string]Mark
		err        string
	}{
		{"one violating setup of two", "| `off` | a | violated · not observed (0 of 3; the fault took effect in 3) | violated · not observed (0 of 3; the fault took effect in 0) |\n" +
			"| `off` | b | violated · [violated (1 of 3)](docs/live/x/) | violated · not observed (0 of 3; the fault took effect in 0) |\n",
			map[string]map[string]Mark{"off": {impl.AtMostOneClientHoldLock: MarkViolated, impl.NoLostUpdate: MarkNoEffect}}, ""},
		{"not seen beats no effect", "| `all` | a | violated · not observed (0 of 3; the fault took effect in 0) | holds · not observed (0 of 3; the fault took effect in 0) |\n" +
			"| `all` | b | violated · [violated (3 of 3)](x) | holds · not observed (0 of 3; the fault took effect in 2) |\n",
			map[string]map[string]Mark{"all": {impl.AtMostOneClientHoldLock: MarkViolated, impl.NoLostUpdate: MarkNotSeen}}, ""},
		{"the campaign's words: held, inconclusive", "| `all` | a | violated · inconclusive (the fault took effect in 0 of 3) | holds · held while the fault took effect in 2 of 3 |\n",
			map[string]map[string]Mark{"all": {impl.AtMostOneClientHoldLock: MarkNoEffect, impl.NoLostUpdate: MarkNotSeen}}, ""},
		{"held beats undecided beats no effect", "| `all` | a | holds · inconclusive (the fault took effect in 0 of 3) | holds · inconclusive (the fault took effect in 2 of 3) |\n" +
			"| `all` | b | holds · inconclusive (the fault took effect in 1 of 3) | holds · held while the fault took effect in 1 of 3 |\n",
			map[string]map[string]Mark{"all": {impl.AtMostOneClientHoldLock: MarkUnknown, impl.NoLostUpdate: MarkNotSeen}}, ""},
		{"safe by a witnessed mechanism beats no effect", "| `none` | a | violated · safe: leases survive a restart (3 of 3) | violated · inconclusive (the fault took effect in 0 of 3) |\n" +
			"| `none` | b | violated · inconclusive (the fault took effect in 0 of 3) | violated · safe: the key and its absolute expiry survive on disk (2 of 3) |\n",
			map[string]map[string]Mark{"none": {impl.AtMostOneClientHoldLock: MarkNotSeen, impl.NoLostUpdate: MarkNotSeen}}, ""},
		{"a word it does not know", "| `off` | a | violated · inconclusive | — · — |\n", nil, `live cell "inconclusive" is no verdict`},
		{"does not apply", "| `redlock` | a | violated · [violated (3 of 3)](x) | — · — (not applicable) |\n",
			map[string]map[string]Mark{"redlock": {impl.AtMostOneClientHoldLock: MarkViolated, impl.NoLostUpdate: MarkNotApplicable}}, ""},
		{"a cell it cannot read", "| `off` | a | violated · holds | — · — |\n", nil, `live cell "holds" is no verdict`},
		{"a cell without the model's verdict", "| `off` | a | violated | — · — |\n", nil, `is not "model · live"`},
		{"a short row", "| `off` | a |\n", nil, "has 2 cells, the header 4"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := LiveMarks(head + tc.rows)
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	_, err := LiveMarks("| Row | fault |\n|---|---|\n| `off` | x |\n")
	assert.ErrorContains(t, err, "no column")
	_, err = LiveMarks("no table")
	assert.ErrorContains(t, err, "no Markdown table")
}

// TestPictureFromTheMatrix: the picture has the matrix's rows, labelled by
// their --design values, its properties, and in each cell the mark of
// every checker's verdict and the live block's; an unreadable cell or an
// unknown row is an error.
func TestPictureFromTheMatrix(t *testing.T) {
	off := impl.DesignNoFencing
	live := "| Row | AtMostOneClientHoldLock: model · live |\n|---|---|\n| `off` | violated · [violated (3 of 3)](x) |\n"
	table := Join([]Reached{{Design: off.Describe(), Checker: Explorer, Clients: 2, Verdicts: nil}})
	p, err := NewPicture(table.Matrix(nil), live)
	require.NoError(t, err)
	assert.Equal(t, impl.InvariantNames(), p.Properties)
	require.Len(t, p.Rows, len(impl.Designs())+1)
	assert.Equal(t, "off", p.Rows[0].Label)
	assert.Equal(t, off.Describe(), p.Rows[0].Describe)
	assert.Equal(t, NoFaultsLabel, p.Rows[len(p.Rows)-1].Label)
	// No checker ran: unknown for the three, the live block's violation.
	assert.Equal(t, [4]Mark{MarkUnknown, MarkUnknown, MarkUnknown, MarkViolated}, p.Rows[0].Cells[0])
	assert.Equal(t, [4]Mark{MarkNotApplicable, MarkNotApplicable, MarkNotApplicable, MarkNone}, p.Rows[0].Cells[1], "TokenIsMonotonical without tokens")
	assert.Equal(t, [4]Mark{MarkNotApplicable, MarkNotApplicable, MarkUnknown, MarkNone}, p.Rows[len(p.Rows)-1].Cells[0], "untimed checkers without faults")

	svg := p.SVG()
	assert.True(t, strings.HasPrefix(svg, `<svg xmlns="http://www.w3.org/2000/svg" width="820"`), "fits GitHub's README column")
	for _, want := range []string{">restart-volatile</text>", "<title>" + impl.DesignRestartVolatile.Describe() + "</title>", ">AtMostOne</text>", ">ClientHoldLock</text>", ">live</text>", "did not run"} {
		assert.Contains(t, svg, want)
	}
	assert.NotContains(t, svg, "the fault never took effect", "the legend lists only the marks shown")

	bad := strings.Replace(table.Matrix(nil), "| — (1) |", "| maybe |", 1)
	_, err = NewPicture(bad, live)
	assert.ErrorContains(t, err, `cell "maybe" is no verdict`)
	_, err = NewPicture(strings.Replace(table.Matrix(nil), off.Describe(), "a lock of my own", 1), live)
	assert.ErrorContains(t, err, `no design row is described as "a lock of my own"`)
}

func TestSplitCamel(t *testing.T) {
	for in, want := range map[string][]string{
		"AtMostOneClientHoldLock":    {"AtMostOne", "ClientHoldLock"},
		"TokensIncreaseInGrantOrder": {"TokensIncrease", "InGrantOrder"},
		"NoLostUpdate":               {"NoLostUpdate"},
		"Deadlock":                   {"Deadlock"},
	} {
		assert.Equal(t, want, splitCamel(in), in)
	}
}
