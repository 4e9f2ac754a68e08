package pipeline

import (
	"fmt"
	"time"

	"github.com/fencelab/fencelab/internal/words"
	"github.com/fencelab/fencelab/shard"
	"github.com/fencelab/fencelab/sweep"
)

// sweepShardResult is a sweep shard's result: its cells, in grid order.
type sweepShardResult struct {
	Cells []sweep.Cell `json:"cells"`
}

// CheckSweepShardOut refuses, before any work, an --out a sweep shard
// cannot save its result folder in.
func CheckSweepShardOut(out string) error { return CheckShardOut("sweep", out) }

// SweepShard runs shard r's cells of s and saves them for MergeSweep.
func SweepShard(e *Env, s *sweep.Sweep, out string, r *ShardRun) error {
	lo, hi := r.Spec.Range(s.CellCount())
	progress, done := NewProgress(e, (hi-lo)*s.RunsPerCell(), "sweep")
	s.Progress = progress
	start := time.Now()
	cells, err := s.RunCells(lo, hi)
	done()
	if err != nil {
		return BadInput("%v", err)
	}
	fmt.Fprintf(e.Stderr, "fencelab sweep: %s in %.1fs\n", words.Count((hi-lo)*s.RunsPerCell(), "run"), time.Since(start).Seconds())
	fmt.Fprintf(e.Stdout, "fencelab sweep: shard %s, cells %d to %d of %d\n", r.Spec, lo, hi, s.CellCount())
	return saveShard(e, "sweep", out, r, s.CellCount(), sweepShardResult{Cells: cells}, nil, nil)
}

// MergeSweep finishes the sweep s from its shards' cells c: the files and
// the report of the sweep run on one machine, byte for byte.
func MergeSweep(e *Env, s *sweep.Sweep, out, designs string, c *shard.Campaign) error {
	results, err := decodeShards(c, func(m *shard.Manifest, r *sweepShardResult) error {
		if len(r.Cells) != m.Hi-m.Lo {
			return fmt.Errorf("%s, not the shard's %d", words.Count(len(r.Cells), "cell"), m.Hi-m.Lo)
		}
		for k := range r.Cells {
			if err := s.CheckCell(m.Lo+k, &r.Cells[k]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	var cells []sweep.Cell
	for _, r := range results {
		cells = append(cells, r.Cells...)
	}
	res, err := s.Assemble(cells)
	if err != nil {
		return BadInput("%v", err)
	}
	return sweepReport(e, res, out, designs)
}
