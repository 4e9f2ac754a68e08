// Command specgen writes every TLC model of fencelab — specs/*.cfg and
// specs/models.json — from the design rows (impl/row_*.go) and the distinct
// state counts pinned in testdata/pins/<design>.golden (package
// internal/specgen). go generate ./... runs it (make generate); it takes no
// arguments and works from the module root above the working directory.
// A file whose bytes are already right is left alone, and a cfg that no row
// generates any more is removed when it bears specgen's header (a cfg
// written by hand is left for the staleness test to report).
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/fencelab/fencelab/internal/atomicfile"
	"github.com/fencelab/fencelab/internal/golden"
	"github.com/fencelab/fencelab/internal/specgen"
)

func main() {
	if len(os.Args) > 1 {
		fmt.Fprintln(os.Stderr, "specgen: takes no arguments (it writes specs/*.cfg and specs/models.json from impl/row_*.go)")
		os.Exit(2)
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "specgen:", err)
		os.Exit(2)
	}
}

func run() error {
	root, err := golden.ModuleRoot()
	if err != nil {
		return err
	}
	files, err := specgen.Generate(specgen.Rows(), specgen.GoldenFigures(root))
	if err != nil {
		return err
	}
	dir := filepath.Join(root, specgen.Dir)
	want := map[string]bool{}
	wrote := 0
	for _, f := range files {
		want[f.Name] = true
		path := filepath.Join(dir, f.Name)
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, f.Data) {
			continue
		}
		if err := atomicfile.WriteFile(path, func(w io.Writer) error {
			_, err := w.Write(f.Data)
			return err
		}); err != nil {
			return err
		}
		wrote++
	}
	cfgs, err := filepath.Glob(filepath.Join(dir, "*.cfg"))
	if err != nil {
		return err
	}
	removed := 0
	for _, path := range cfgs {
		if want[filepath.Base(path)] || !generated(path) {
			continue
		}
		if err := os.Remove(path); err != nil {
			return err
		}
		removed++
	}
	if wrote > 0 || removed > 0 {
		fmt.Printf("specgen: %d of %d files in %s written, %d stale cfgs removed\n", wrote, len(files), specgen.Dir, removed)
	}
	return nil
}

// generated reports whether the cfg at path is one specgen wrote: its first
// line bears specgen.GeneratedMark.
func generated(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	line, _ := bufio.NewReader(io.LimitReader(f, 4096)).ReadString('\n')
	return strings.HasPrefix(line, specgen.GeneratedMark)
}
