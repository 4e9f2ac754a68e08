// Command specgen writes every TLC model of fencelab — specs/*.cfg and
// specs/models.json — from the design rows (impl/row_*.go) and the distinct
// state counts pinned in testdata/pins/<design>.golden (package
// internal/specgen). go generate ./... runs it (make generate); it works
// from the module root above the working directory.
//
// With -record DIR it first records into the golden files the distinct
// state counts of the ok models that a run of fencelab tlc --out DIR
// checked (DIR/<model>/tlc.out), printing each change: how a new row's
// counts, or a changed spec's, are pinned without a hand edit.
// A file whose bytes are already right is left alone, and a cfg that no row
// generates any more is removed when it bears specgen's header (a cfg
// written by hand is left for the staleness test to report).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/fencelab/fencelab/internal/golden"
	"github.com/fencelab/fencelab/internal/specgen"
)

func main() {
	fs := flag.NewFlagSet("specgen", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	record := fs.String("record", "", "a fencelab tlc --out folder: record its ok models' distinct state counts in testdata/pins first")
	if err := fs.Parse(os.Args[1:]); err != nil || fs.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "specgen: usage: specgen [-record DIR] (writes specs/*.cfg and specs/models.json from impl/row_*.go)")
		os.Exit(2)
	}
	if err := run(*record); err != nil {
		fmt.Fprintln(os.Stderr, "specgen:", err)
		os.Exit(2)
	}
}

func run(record string) error {
	root, err := golden.ModuleRoot()
	if err != nil {
		return err
	}
	// The rows are checked before anything is recorded or written.
	if err := specgen.Validate(specgen.Rows()); err != nil {
		return err
	}
	if record != "" {
		if err := specgen.RecordGolden(os.Stdout, root, record); err != nil {
			return err
		}
	}
	wrote, removed, total, err := specgen.Write(root)
	if wrote > 0 || removed > 0 {
		fmt.Printf("specgen: %d of %d files in %s written, %d stale cfgs removed\n", wrote, total, specgen.Dir, removed)
	}
	return err
}
