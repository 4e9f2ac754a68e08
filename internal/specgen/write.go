package specgen

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/fencelab/fencelab/internal/atomicfile"
)

// Write regenerates the committed specs under root's specs/ folder: every
// file whose bytes differ is rewritten (atomically), and every cfg that
// specgen once wrote but no row generates any more is removed (a cfg
// without GeneratedMark is never touched). It returns the files written,
// the cfgs removed and the files generated; an ErrUnpinned error comes
// after the files are written all the same, for TLC to check them.
func Write(root string) (wrote, removed, total int, err error) {
	files, err := Generate(Rows(), GoldenFigures(root))
	if err != nil && !errors.Is(err, ErrUnpinned) {
		return 0, 0, 0, err
	}
	unpinned := err
	dir := filepath.Join(root, Dir)
	want := map[string]bool{}
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
			return wrote, removed, len(files), err
		}
		wrote++
	}
	cfgs, err := filepath.Glob(filepath.Join(dir, "*.cfg"))
	if err != nil {
		return wrote, removed, len(files), err
	}
	for _, path := range cfgs {
		if want[filepath.Base(path)] || !generated(path) {
			continue
		}
		if err := os.Remove(path); err != nil {
			return wrote, removed, len(files), err
		}
		removed++
	}
	return wrote, removed, len(files), unpinned
}

// generated reports whether the cfg at path is one specgen wrote: its first
// line bears GeneratedMark.
func generated(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	line, _ := bufio.NewReader(io.LimitReader(f, 4096)).ReadString('\n')
	return strings.HasPrefix(line, GeneratedMark)
}
