package sweep

import (
	"fmt"
	"slices"

	"github.com/fencelab/fencelab/bounds"
)

// CheckCell judges cell c, read back from a shard's result, as cell k of
// s: its design, place and bounds are k's, its derived verdicts are the
// derivation's for those bounds, and its counts are within its runs. A
// cell that passes is what RunCells would have made of k but for the
// simulator's own results, which no check can redo without the runs.
func (s *Sweep) CheckCell(k int, c *Cell) error {
	per := s.X.Cells * s.Y.Cells
	d := s.Designs[k/per]
	i, j := k%per%s.X.Cells, k%per/s.X.Cells
	if c.Design != d || c.I != i || c.J != j {
		return fmt.Errorf("cell %d is %s at (%d, %d), not %s at (%d, %d)", k, c.Design, c.I, c.J, d, i, j)
	}
	if c.Bounds != s.cellBounds(i, j) {
		return fmt.Errorf("cell %d: bounds %v, not the grid's %v", k, c.Bounds, s.cellBounds(i, j))
	}
	if c.Runs != s.Runs {
		return fmt.Errorf("cell %d: %d random runs, not the sweep's %d", k, c.Runs, s.Runs)
	}
	verdicts, err := bounds.Check(c.Bounds)
	if err != nil {
		return fmt.Errorf("cell %d: %w", k, err)
	}
	if len(c.Outcomes) != len(verdicts) {
		return fmt.Errorf("cell %d: %d outcomes, not %d", k, len(c.Outcomes), len(verdicts))
	}
	for q, o := range c.Outcomes {
		switch {
		case o.Derived != verdicts[q]:
			return fmt.Errorf("cell %d: the derived verdict on %s is not the derivation's", k, verdicts[q].Property)
		case !slices.Contains([]string{"violated", "held", "n/a"}, o.Worst):
			return fmt.Errorf("cell %d: worst case %q", k, o.Worst)
		case o.Random < 0 || o.Random > c.Runs:
			return fmt.Errorf("cell %d: %d of %d random runs violate %s", k, o.Random, c.Runs, o.Derived.Property)
		}
	}
	return nil
}

// Assemble is the result of s from all its cells, in grid order, each
// checked (CheckCell).
func (s *Sweep) Assemble(cells []Cell) (*Result, error) {
	if len(cells) != s.CellCount() {
		return nil, fmt.Errorf("%d cells, not the sweep's %d", len(cells), s.CellCount())
	}
	for k := range cells {
		if err := s.CheckCell(k, &cells[k]); err != nil {
			return nil, err
		}
	}
	return &Result{Sweep: s, Cells: cells}, nil
}
