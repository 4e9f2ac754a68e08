package report

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/sim"
	"github.com/fencelab/fencelab/tlc"
	"github.com/fencelab/fencelab/verdict"
)

// cellOf is the cell of design and property for checker in the joined
// table.
func cellOf(t *testing.T, table Verdicts, design, property, checker string) cell {
	t.Helper()
	for _, r := range table {
		if r.design == design && r.property == property {
			return r.cells[map[string]int{TLC: 0, Explorer: 1, Simulator: 2}[checker]]
		}
	}
	t.Fatalf("no row %s / %s", design, property)
	return cell{}
}

func TestTLCCell(t *testing.T) {
	invs := []string{"TypeInvariant", impl.NoLostUpdate}
	violation := func(name, design, property string, steps int) tlc.Outcome {
		g := tlc.Got{Result: tlc.ResultInvariant, Property: property}
		return tlc.Outcome{Model: tlc.Model{Name: name, Design: design, Expected: tlc.ResultInvariant, Property: property},
			Got: g.Text(), Verdicts: tlc.Verdicts(g, invs, steps)}
	}
	ok := func(name, design string, distinct int64) tlc.Outcome {
		g := tlc.Got{Result: tlc.ResultOK, Distinct: distinct}
		return tlc.Outcome{Model: tlc.Model{Name: name, Design: design, Expected: tlc.ResultOK}, Got: "ok", Distinct: distinct,
			Verdicts: tlc.Verdicts(g, invs, 0)}
	}
	differs := ok("F_all_2c", "all", 383)
	differs.Got, differs.Mismatch, differs.Verdicts = "invariant NoLostUpdate", "differs",
		tlc.Verdicts(tlc.Got{Result: tlc.ResultInvariant, Property: impl.NoLostUpdate}, invs, 11)
	tests := []struct {
		name     string
		design   impl.Design
		outcomes []tlc.Outcome
		missing  bool
		want     cell
	}{
		{"violated in both sizes", impl.DesignNoFencing,
			[]tlc.Outcome{violation("D_2c_NoLostUpdate", "off", impl.NoLostUpdate, 11), violation("D_3c_NoLostUpdate", "off", impl.NoLostUpdate, 11)}, false,
			cell{text: "violated (12 steps; 2 and 3 clients)", agrees: true, checked: true}},
		{"holds in ok models", impl.DesignFenceAll,
			[]tlc.Outcome{ok("F_all_2c", "all", 383), ok("F_all_3c", "all", 10104)}, false,
			cell{text: "holds (2 models, up to 10,104 states; 2 and 3 clients)", agrees: true, checked: true}},
		{"a verdict against the table", impl.DesignFenceAll,
			[]tlc.Outcome{violation("F_all_2c_NoLostUpdate", "all", impl.NoLostUpdate, 11)}, false,
			cell{text: "violated (12 steps; 2 clients)", agrees: false, checked: true}},
		{"a model that differs from the manifest", impl.DesignFenceAll, []tlc.Outcome{differs}, false,
			cell{text: "✗ F_all_2c: invariant NoLostUpdate", checked: true}},
		{"no model checks it", impl.DesignFenceWrites, nil, false,
			cell{text: "✗ no model checks it", checked: true}},
		{"no TLC", impl.DesignFenceAll, nil, true,
			cell{text: "not run"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reached, err := Checked(tc.outcomes)
			require.NoError(t, err)
			var notRun []string
			if tc.missing {
				notRun = []string{TLC}
			}
			got := cellOf(t, Join(reached, notRun...), tc.design.Describe(), impl.NoLostUpdate, TLC)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestSimulatorCells(t *testing.T) {
	v := func(property string, s verdict.Status, n, runs int) verdict.Verdict {
		return verdict.Verdict{Property: property, Status: s, Violating: n, Runs: runs}
	}
	all, none := impl.DesignFenceAll.Describe(), impl.DesignNoFencing.Describe()
	table := Join([]Reached{
		{Design: all, Checker: Simulator, Committed: 14937, Verdicts: verdict.Set{v(impl.NoLostUpdate, verdict.Holds, 0, 500)}},
		{Design: none, Checker: Simulator, Committed: 14000, Verdicts: verdict.Set{v(impl.NoLostUpdate, verdict.Violated, 42, 500)}},
		{Design: NoFaults, Checker: Simulator, Committed: 100, Verdicts: verdict.Set{v(impl.TokenIsMonotonical, verdict.NotApplicable, 0, 500)}},
		{Design: NoFaults, Checker: Simulator, Committed: 200, Verdicts: verdict.Set{v(impl.TokenIsMonotonical, verdict.Holds, 0, 500)}},
		{Design: NoFaults, Checker: Simulator, Committed: 300, Verdicts: verdict.Set{v(impl.NoLostUpdate, verdict.Violated, 1, 500)}},
	})
	assert.Equal(t, cell{text: "holds (0 of 500 runs, 14,937 sections committed)", agrees: true, checked: true}, cellOf(t, table, all, impl.NoLostUpdate, Simulator))
	assert.Equal(t, cell{text: "violated (42 of 500 runs)", agrees: true, checked: true}, cellOf(t, table, none, impl.NoLostUpdate, Simulator))
	assert.Equal(t, cell{text: "holds (0 of 500 runs, 200 sections committed)", agrees: true, checked: true}, cellOf(t, table, NoFaults, impl.TokenIsMonotonical, Simulator),
		"a design where the property does not apply adds no runs, nor sections")
	assert.Equal(t, cell{text: "violated (1 of 500 runs)", checked: true}, cellOf(t, table, NoFaults, impl.NoLostUpdate, Simulator))
	assert.Equal(t, cell{text: "not run"}, cellOf(t, table, NoFaults, impl.AtMostOneClientHoldLock, Simulator))
	assert.Equal(t, cell{text: "n/a (untimed)", agrees: true}, cellOf(t, table, NoFaults, impl.NoLostUpdate, Explorer))
	assert.Equal(t, cell{text: "—", agrees: true}, cellOf(t, table, none, impl.TokenIsMonotonical, TLC))
	assert.Equal(t, []string{"simulator: NoLostUpdate in any design, simulator without faults gave violated (1 of 500 runs), expected holds"},
		table.Disagreements()[len(table.Disagreements())-1:])
}

// TestSimulatorCellNoneCommitted: runs in which no section committed never
// read "holds", in the simulator's table nor in the joined one.
func TestSimulatorCellNoneCommitted(t *testing.T) {
	all := impl.DesignFenceAll.Describe()
	vacuous := verdict.Verdict{Property: impl.NoLostUpdate, Status: verdict.Unknown, Detail: sim.NoneCommitted, Runs: 500}
	table := Join([]Reached{{Design: all, Checker: Simulator, Verdicts: verdict.Set{vacuous}}})
	got := cellOf(t, table, all, impl.NoLostUpdate, Simulator)
	assert.Equal(t, cell{text: "unknown (0 of 500 runs, no section committed)", checked: true}, got)
	assert.NotContains(t, got.text, "holds")
	assert.NotEmpty(t, table.Disagreements())
}

func TestExplorerCell(t *testing.T) {
	all := impl.DesignFenceAll.Describe()
	table := Join([]Reached{
		{Design: all, Checker: Explorer, Clients: 2, Verdicts: verdict.Set{{Property: impl.NoLostUpdate, Status: verdict.Holds, Covered: "2,816 states"}}},
		{Design: all, Checker: Explorer, Clients: 3, Verdicts: verdict.Set{{Property: impl.NoLostUpdate, Status: verdict.Unknown}}},
		{Design: all, Checker: Explorer, Clients: 2, Verdicts: verdict.Set{{Property: impl.AtMostOneClientHoldLock, Status: verdict.Violated, Shortest: 7}}},
	})
	assert.Equal(t, cell{text: "✗ (2,816 states, unknown; 2 and 3 clients)", checked: true}, cellOf(t, table, all, impl.NoLostUpdate, Explorer),
		"an unknown verdict is no agreement")
	assert.Equal(t, cell{text: "violated (8 steps; 2 clients)", agrees: true, checked: true}, cellOf(t, table, all, impl.AtMostOneClientHoldLock, Explorer))
}

func TestCellText(t *testing.T) {
	tests := []struct {
		figures []string
		sizes   []int
		want    string
	}{
		{[]string{"8 steps"}, []int{2}, "violated (8 steps; 2 clients)"},
		{[]string{"8 steps", "8 steps"}, []int{3, 2}, "violated (8 steps; 2 and 3 clients)"},
		{[]string{"10 steps", "12 steps", "12 steps"}, []int{2, 3, 4, 3}, "violated (10 steps, 12 steps; 2, 3 and 4 clients)"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, cellText("violated", tc.figures, tc.sizes))
	}
}

// TestCheckedLeavesTimedModelsOut: a timed model's verdict depends on its
// bounds, not on its design, so it never lands in DESIGN.md's table — a
// timed model that violates AtMostOneClientHoldLock outside its bounds
// must not count as the fenced design's verdict, nor one that holds
// inside them.
func TestCheckedLeavesTimedModelsOut(t *testing.T) {
	outcomes := []tlc.Outcome{
		{Model: tlc.Model{Name: "DistLockFencing_all_2c", Design: "all"}, Distinct: 10},
		{Model: tlc.Model{Name: "DistLockTimed_off_2c_AtMostOneClientHoldLock_inside", Design: "off", Family: "timed"}, Distinct: 20},
	}
	got, err := Checked(outcomes)
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, int64(10), got[0].States)
}

// TestMatrix: the matrix has a row per design, then the simulator without
// faults, and a column per property and checker; a cell is its verdict in
// short, linked to its picture (the smallest model's) where the link
// function gives a target; "—" where the property does not apply, with a
// numbered note saying why; "✗" where the verdict contradicts DESIGN.md.
func TestMatrix(t *testing.T) {
	off, all, cas := impl.DesignNoFencing.Describe(), impl.DesignFenceAll.Describe(), impl.DesignUniqueCAS.Describe()
	violated := verdict.Verdict{Property: impl.NoLostUpdate, Status: verdict.Violated, Shortest: 15}
	table := Join([]Reached{
		{Design: off, Checker: Explorer, Clients: 3, Verdicts: verdict.Set{violated}, Pictures: map[string]string{impl.NoLostUpdate: "out/3c.mmd"}},
		{Design: off, Checker: Explorer, Clients: 2, Verdicts: verdict.Set{violated}, Pictures: map[string]string{impl.NoLostUpdate: "out/2c.mmd"}},
		{Design: all, Checker: Explorer, Clients: 2, Verdicts: verdict.Set{violated}},
	})
	var links []string
	md := table.Matrix(func(design, property, checker, picture string) string {
		links = append(links, design+"|"+property+"|"+checker+"|"+picture)
		return "pics/" + picture
	})
	lines := strings.Split(md, "\n")
	header := strings.Split(strings.Trim(lines[0], "| "), " | ")
	require.Len(t, header, 1+3*len(impl.Invariants()))
	assert.Equal(t, "AtMostOneClientHoldLock · TLC", header[1])
	assert.Equal(t, "NoLostUpdate · simulator", header[9])
	var rows []string
	cells := map[string][]string{}
	for _, l := range lines[2:] {
		if !strings.HasPrefix(l, "|") {
			break
		}
		c := strings.Split(strings.Trim(l, "| "), " | ")
		rows = append(rows, c[0])
		cells[c[0]] = c
	}
	var want []string
	for _, d := range impl.Designs() {
		want = append(want, d.Describe())
	}
	assert.Equal(t, append(want, NoFaults), rows)
	assert.Equal(t, "[violated (16 steps)](pics/out/2c.mmd)", cells[off][8], "the 2-client picture, the sizes left out")
	assert.Equal(t, []string{off + "|NoLostUpdate|explorer|out/2c.mmd"}, links, "only cells with a picture are linked")
	assert.Equal(t, "✗ (16 steps), expected holds", cells[all][8], "the explorer's cell says ✗ once")
	assert.Equal(t, "— (1)", cells[off][4])
	assert.Equal(t, "— (2)", cells[off][11], "TokensAreUnique: no tokens")
	assert.Equal(t, "— (2)", cells[off][14], "TokensIncreaseInGrantOrder: no tokens, the same reason, the same note")
	assert.Equal(t, "— (1)", cells[impl.DesignRenewal.Describe()][4], "renewal has no tokens to order either: off's note")
	assert.Equal(t, "— (3)", cells[cas][5])
	assert.Equal(t, "— (4)", cells[cas][14], "TokensIncreaseInGrantOrder: unordered tokens")
	assert.Equal(t, "✗ no model checks it, expected violated", cells[impl.DesignRestartVolatile.Describe()][10], "TokensAreUnique · TLC")
	assert.Contains(t, md, "\n(1) — does not apply: there are no tokens to order\n")
	assert.Contains(t, md, "\n(2) — does not apply: there are no tokens\n")
	assert.Contains(t, md, "\n(3) — does not apply: "+impl.NotApplicableWhy(impl.DesignUniqueCAS, impl.TokenIsMonotonical)+"\n")
	assert.Contains(t, md, "\n(4) — does not apply: "+impl.NotApplicableWhy(impl.DesignUniqueCAS, "TokensIncreaseInGrantOrder")+"\n")
	// One note per distinct reason, each once.
	reasons := map[string]bool{}
	for _, d := range impl.Designs() {
		for _, p := range impl.InvariantNames() {
			if why := impl.NotApplicableWhy(d, p); why != "" {
				reasons[why] = true
			}
		}
	}
	assert.Equal(t, len(reasons), strings.Count(md, "— does not apply: "), "a note per reason")
	assert.Equal(t, "n/a (untimed)", cells[NoFaults][1])
	assert.NotContains(t, table.Matrix(nil), "](", "no link function, no links")
}
