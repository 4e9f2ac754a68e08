package pipeline

import (
	"fmt"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/fencelab/fencelab/explore"
	"github.com/fencelab/fencelab/internal/atomicfile"
	"github.com/fencelab/fencelab/internal/words"
	"github.com/fencelab/fencelab/report"
	"github.com/fencelab/fencelab/trace"
)

// Explore runs the explorer on each of configs and prints its result (one
// config) or the matrix (several); it writes every counterexample's files
// into a folder of outDir ("": none) and fails when a verdict differs
// from DESIGN.md's table.
//
// The search's memory is a few large pointer-free slices: collecting
// more often costs little time and keeps the process near what the
// search holds (4 clients, fencing all: 286 MB peak at 10, 305 MB at
// 25, the same CPU time). Under a MaxMemory the garbage collector works
// to stay under it too, so the process, not only the search's own
// structures, stays near it. Both settings come back at the end, for the
// tests that run commands in one process. An interrupt or a termination
// ends the search between two chunks, so that it removes its files on
// disk before the process exits (128+signal, as every command).
func Explore(e *Env, configs []explore.Config, outDir string) error {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	if len(configs) > 0 && configs[0].MaxMemory > 0 {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(int64(configs[0].MaxMemory)))
	}
	ctx, stop := Interruptible()
	defer stop()
	configs = slices.Clone(configs)
	for i := range configs {
		configs[i].Context = ctx
	}
	var results []*explore.Result
	// Every design, on a pipe: a line per design explored (on a terminal
	// the running line below says where each one is).
	step := func(string) {}
	if !e.Terminal && len(configs) > 1 {
		var stepsDone func()
		step, stepsDone = NewStepProgress(e, len(configs), "explore", "design")
		defer stepsDone()
	}
	for _, c := range configs {
		// Long runs (3 and 4 clients) show where they are, on stderr, so
		// stdout stays the same bytes.
		progress, progressDone := NewSearchProgress(e, "explore "+c.Design.String())
		c.Progress = progress
		res, err := explore.Run(c)
		progressDone()
		if err != nil && c.Context != nil && c.Context.Err() != nil {
			return StoppedWith(c.Context, "the search stopped, its files on disk removed")
		}
		if err != nil {
			return fmt.Errorf("explore: %w", err)
		}
		step(c.Design.String())
		results = append(results, res)
		if len(configs) == 1 {
			if err := report.ExploreResult(e.Stdout, res); err != nil {
				return err
			}
		}
	}
	if len(configs) > 1 {
		if err := report.ExploreMatrix(e.Stdout, results); err != nil {
			return err
		}
	}
	if outDir != "" {
		written, err := writeTraces(e.Disk, outDir, results)
		if err != nil {
			return err
		}
		if written > 0 {
			fmt.Fprintf(e.Stdout, "\n%d counterexample traces written to %s, one folder each (<design>-<clients>c-<property>/: %s)\n", written, outDir, strings.Join(trace.FileNames(), ", "))
		}
	}
	if diff := report.ExploreMismatches(results); len(diff) > 0 {
		return Failed("DESIGN.md's table differs in %s: %s", words.Count(len(diff), "verdict"), strings.Join(diff, "; "))
	}
	return nil
}

// writeTraces writes the files of every counterexample (trace.WriteFiles)
// into a folder of dir named <design>-<clients>c-<property>.
// Each folder, and dir, appears with its first complete file.
func writeTraces(disk *atomicfile.Disk, dir string, results []*explore.Result) (int, error) {
	written := 0
	for _, r := range results {
		for _, v := range r.All() {
			if v.Trace == nil {
				continue
			}
			sub := filepath.Join(dir, fmt.Sprintf("%s-%dc-%s", r.Config.Design, r.Config.Clients, v.Property))
			if _, err := trace.WriteFilesTo(disk.Folder(sub), v.Trace); err != nil {
				return written, CouldNotSave(err)
			}
			written++
		}
	}
	return written, nil
}
