package pipeline

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fencelab/fencelab/internal/atomicfile"
	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/trace"
)

// stage is where one invocation of fencelab sim writes its files before
// they are renamed into --out, so that --out never mixes invocations: a
// reader sees a design's folder from the last invocation that wrote it,
// whole, and a design with no failing run has no folder.
type stage struct {
	out, tmp string
	disk     *atomicfile.Disk
	// outFolder is --out: removed again at the end if this invocation
	// created it and left nothing in it.
	outFolder *atomicfile.Folder
	folders   map[string]*atomicfile.Folder
}

// newStage creates --out and a staging folder inside it (on the same file
// system, so that renaming is atomic).
func newStage(disk *atomicfile.Disk, out string) (*stage, error) {
	outFolder := disk.Folder(out)
	if err := outFolder.Create(); err != nil {
		return nil, CouldNotSave(err)
	}
	tmp, err := os.MkdirTemp(out, ".staging-")
	if err != nil {
		outFolder.Abandon()
		return nil, CouldNotSave(fmt.Errorf("could not save into %s: %w", out, err))
	}
	return &stage{out: out, tmp: tmp, disk: disk, outFolder: outFolder, folders: map[string]*atomicfile.Folder{}}, nil
}

// dir is the staging folder of a design's files, created with its first
// file.
func (s *stage) dir(name string) *atomicfile.Folder {
	if s.folders[name] == nil {
		s.folders[name] = s.disk.Folder(filepath.Join(s.tmp, name))
	}
	return s.folders[name]
}

// commit puts the staged folder of each of names into --out, replacing the
// one there, and removes the folder of each name that has none staged
// (left by an earlier invocation). Only folders named by names are
// touched, and only if they hold nothing but files fencelab sim writes.
func (s *stage) commit(names []string) error {
	for _, name := range names {
		dst, old := filepath.Join(s.out, name), filepath.Join(s.tmp, ".old-"+name)
		// The folder there moves aside first and goes with the staging
		// folder: a reader sees the old folder or the new one.
		if err := moveOwn(dst, old); err != nil {
			return CouldNotSave(fmt.Errorf("could not save into %s: %w", s.out, err))
		}
		src := filepath.Join(s.tmp, name)
		if _, err := os.Stat(src); err != nil {
			continue
		}
		if err := os.Rename(src, dst); err != nil {
			return CouldNotSave(fmt.Errorf("could not save into %s: %w", s.out, err))
		}
	}
	return s.abandon()
}

// abandon removes the staging folder and whatever is left in it, and
// --out if this invocation created it and it is empty.
func (s *stage) abandon() error {
	if s.tmp == "" {
		return nil
	}
	err := os.RemoveAll(s.tmp)
	s.tmp = ""
	s.outFolder.Abandon()
	return err
}

// simFiles are the names fencelab sim writes into a design's folder.
func simFiles() []string {
	return append(trace.FileNames(), "run.txt", "schedule.json", "porcupine.html", "shrunk-schedule.json")
}

// moveOwn moves dir to to if it is a folder fencelab sim wrote: it holds
// only files of simFiles (or their temporary files). Anything else in it
// is a user's, and dir stays, with an error that says so.
func moveOwn(dir, to string) error {
	if err := checkOwn(dir); err != nil {
		return err
	}
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return os.Rename(dir, to)
}

// checkOwn reports why dir is not a folder fencelab sim may replace: it
// holds something fencelab sim does not write. A missing dir is fine.
func checkOwn(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !(slices.Contains(simFiles(), name) || strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".tmp")) {
			return fmt.Errorf("%s holds %s, which fencelab sim did not write: not replacing it", dir, quote.S(name))
		}
	}
	return nil
}
