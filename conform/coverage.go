package conform

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/fencelab/fencelab/distlockspec"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/tlc"
	"github.com/fencelab/fencelab/verdict"
)

// Cell is one applicable cell of the verdict table (a row and an
// invariant of the table) as conformance covers it.
type Cell struct {
	Design   impl.Design
	Property string
	Expected verdict.Status
	// Traced: the row's Go runs are validated by TLC against its spec
	// (walks, the explorer's counterexamples, simulator runs: every row
	// distlockspec.Designs lists).
	Traced bool
	// Replayed names the models of the default run whose counterexample
	// of Property, TLC's, is replayed in the row's Go actors (none for a
	// cell that holds: TLC has no counterexample to replay).
	Replayed []string
}

// Coverage lists the applicable cells of the verdict table, row by row in
// impl.Designs order, with what conformance checks of each: read from the
// rows (distlockspec.Designs) and the manifest of specsDir (the models
// ModelReplayable accepts).
func Coverage(specsDir string) ([]Cell, error) {
	m, err := tlc.LoadManifest(filepath.Join(specsDir, "models.json"))
	if err != nil {
		return nil, err
	}
	traced := map[impl.Design]bool{}
	for _, d := range distlockspec.Designs() {
		traced[d] = true
	}
	var cells []Cell
	for _, d := range impl.Designs() {
		for _, inv := range impl.Invariants() {
			want := impl.Expected(d, inv.Name)
			if want == verdict.NotApplicable {
				continue
			}
			c := Cell{Design: d, Property: inv.Name, Expected: want, Traced: traced[d]}
			for _, mod := range m.Models {
				if mod.Design != d.String() || mod.Property != inv.Name || mod.Expected != tlc.ResultInvariant || mod.Slow {
					continue
				}
				if _, err := ModelReplayable(specsDir, mod); err == nil {
					c.Replayed = append(c.Replayed, mod.Name)
				}
			}
			cells = append(cells, c)
		}
	}
	return cells, nil
}

// CoverageTable writes cells as the Markdown table of docs/conformance.md:
// one line per row, what each applicable cell has (trace validation,
// replay, or both), and the counts.
func CoverageTable(cells []Cell) string {
	var b strings.Builder
	b.WriteString("| row | " + strings.Join(impl.InvariantNames(), " | ") + " |\n")
	b.WriteString("|---" + strings.Repeat("|---", len(impl.InvariantNames())) + "|\n")
	traced, replayed, both := 0, 0, 0
	for _, d := range impl.Designs() {
		fmt.Fprintf(&b, "| `%s` |", d)
		for _, name := range impl.InvariantNames() {
			text := "— (not applicable)"
			for _, c := range cells {
				if c.Design == d && c.Property == name {
					text = c.what()
					if c.Traced {
						traced++
					}
					if len(c.Replayed) > 0 {
						replayed++
					}
					if c.Traced && len(c.Replayed) > 0 {
						both++
					}
				}
			}
			b.WriteString(" " + text + " |")
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\nCovered: %s (trace validation %d, replay %d, both %d).\n",
		CoverageSummary(cells), traced, replayed, both)
	return b.String()
}

// CoverageSummary is the one-line count README.md gives: the applicable
// cells conformance covers (trace validation, replay, or both), of all.
func CoverageSummary(cells []Cell) string {
	covered := 0
	for _, c := range cells {
		if c.Traced || len(c.Replayed) > 0 {
			covered++
		}
	}
	return fmt.Sprintf("%d of %d applicable cells", covered, len(cells))
}

// what says what conformance checks of c: "both", "trace validation" or
// "replay", with its expected verdict.
func (c Cell) what() string {
	switch {
	case c.Traced && len(c.Replayed) > 0:
		return fmt.Sprintf("both (%s)", c.Expected)
	case c.Traced:
		return fmt.Sprintf("trace validation (%s)", c.Expected)
	case len(c.Replayed) > 0:
		return fmt.Sprintf("replay (%s)", c.Expected)
	}
	return fmt.Sprintf("none (%s)", c.Expected)
}
