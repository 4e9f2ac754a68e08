package pipeline

import (
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/fencelab/fencelab/bounds"
	"github.com/fencelab/fencelab/internal/words"
	"github.com/fencelab/fencelab/sweep"
)

// Sweep runs s, a validated sweep, writes sweep.csv and sweep.svg into
// out, and prints per design and property the cells inside and outside
// the derived boundary and where the worst case and the random runs
// violate; a violation inside the boundary fails. designs is the --design
// value the header repeats.
func Sweep(e *Env, s *sweep.Sweep, out, designs string) error {
	progress, done := NewProgress(e, s.Total(), "sweep")
	s.Progress = progress
	start := time.Now()
	res, err := s.Run()
	done()
	if err != nil {
		return BadInput("%v", err)
	}
	fmt.Fprintf(e.Stderr, "fencelab sweep: %s in %.1fs\n", words.Count(s.Total(), "run"), time.Since(start).Seconds())
	return sweepReport(e, res, out, designs)
}

// sweepReport writes a sweep's files and prints its table and verdict:
// the same for a sweep run on one machine and one merged from shards.
func sweepReport(e *Env, res *sweep.Result, out, designs string) error {
	s := res.Sweep
	x, y, runs := s.X, s.Y, s.Runs
	csvPath, svgPath := filepath.Join(out, "sweep.csv"), filepath.Join(out, "sweep.svg")
	folder := e.Disk.Folder(out)
	if err := folder.WriteFile("sweep.csv", res.WriteCSV); err != nil {
		return CouldNotSave(err)
	}
	if err := folder.WriteFile("sweep.svg", res.WriteSVG); err != nil {
		return CouldNotSave(err)
	}
	w := e.Stdout
	fmt.Fprintf(w, "fencelab sweep: %s × %s, %d × %s, designs %v, %s per cell\n\n", x.Name, y.Name, x.Cells, words.Count(y.Cells, "cell"), designs, words.Count(runs, "random run"))
	for k, d := range s.Designs {
		for q, p := range bounds.Properties() {
			var inside, outside, worstOut, randomOut int
			for j := range y.Cells {
				for i := range x.Cells {
					o := res.CellAt(k, i, j).Outcomes[q]
					if o.Derived.Safe {
						inside++
						continue
					}
					outside++
					if o.Worst == "violated" {
						worstOut++
					}
					if o.Random > 0 {
						randomOut++
					}
				}
			}
			fmt.Fprintf(w, "  %-7s %-24s %3d cells inside the boundary, %3d outside: the worst case violates in %d, random runs in %d\n", d, p.Name, inside, outside, worstOut, randomOut)
		}
	}
	fmt.Fprintf(w, "\nfiles: %s, %s\n", csvPath, svgPath)
	return sweepVerdict(w, res)
}

// sweepVerdict prints how many random runs inside the boundary violated
// (each a disagreement, as a violating worst case inside is) and the
// disagreements, and fails when there is any.
func sweepVerdict(w io.Writer, res *sweep.Result) error {
	violating, inside := res.RandomInside()
	fmt.Fprintf(w, "\nrandom runs inside the boundary: %d of %d violated the property they were run for\n", violating, inside)
	if dis := res.Disagreements(); len(dis) > 0 {
		fmt.Fprintln(w, "\nDisagreements with the derivation:")
		for _, d := range dis {
			fmt.Fprintf(w, "  ✗ %s\n", d)
		}
		return Failed("DESIGN.md's condition and the sweep disagree in %s (see above)", words.Count(len(dis), "cell"))
	}
	fmt.Fprintln(w, "\nNo violation inside the boundary: the sweep agrees with DESIGN.md's condition.")
	return nil
}
