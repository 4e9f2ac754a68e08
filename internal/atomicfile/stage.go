package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fencelab/fencelab/internal/quote"
)

// Stage is a folder of files saved whole in place of another: a run's
// files (a TLC model's output, a simulator run, a live run) are written,
// each through WriteFile, into a temporary folder beside the folder they
// replace, and Commit puts that folder in its place with one rename. A
// reader sees the former folder or the new one, never a mix of two runs,
// and a failed save leaves the former folder as it was.
type Stage struct {
	dir, tmp string
	folder   *Folder
}

// Stage starts the staged replacement of dir: an empty temporary folder
// beside it, created now (with dir's parent, if missing). Its files go
// through Folder; Commit or Abandon ends it.
func (d *Disk) Stage(dir string) (*Stage, error) {
	parent, name := filepath.Dir(dir), filepath.Base(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(parent, "."+name+".new-")
	if err != nil {
		return nil, err
	}
	// MkdirTemp made it private; the folder it becomes is not.
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return &Stage{dir: dir, tmp: tmp, folder: d.Folder(tmp)}, nil
}

// NewStage starts the staged replacement of dir on the real disk (see
// Disk.Stage).
func NewStage(dir string) (*Stage, error) { return (*Disk)(nil).Stage(dir) }

// Folder is the staged folder, where the files go.
func (s *Stage) Folder() *Folder { return s.folder }

// Abandon removes the staged folder and whatever is in it; after Commit
// it does nothing.
func (s *Stage) Abandon() {
	if s.tmp != "" {
		os.RemoveAll(s.tmp)
		s.tmp = ""
	}
}

// Commit puts the staged folder in dir's place. The former dir, if any,
// is moved aside into a temporary folder beside it and removed there: a
// folder, a file or a symbolic link (removed as a link, never followed).
// With an owner, a former dir is replaced only when it is a folder of the
// owner's files (CheckOwn); anything else is a user's, and dir stays.
// A failed Commit leaves the former dir as it was.
func (s *Stage) Commit(owner *Owner) error {
	if s.tmp == "" {
		return errors.New("the stage was abandoned or committed already")
	}
	if err := owner.Check(s.dir); err != nil {
		return err
	}
	defer s.Abandon() // a no-op once renamed into place
	if err := s.folder.disk.replace(s.tmp, s.dir); err != nil {
		return err
	}
	s.tmp = ""
	return nil
}

// replace puts the folder tmp in dir's place, through a temporary folder
// beside dir that takes the former dir, and syncs dir's parent so that the
// renames survive a crash (tmp's files were synced as they were saved).
func (d *Disk) replace(tmp, dir string) error {
	parent, name := filepath.Dir(dir), filepath.Base(dir)
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := d.rename(tmp, dir); err != nil {
			return fmt.Errorf("moving the results into %s: %w", dir, err)
		}
		d.syncDir(parent)
		return nil
	}
	aside, err := os.MkdirTemp(parent, "."+name+".old-")
	if err != nil {
		return fmt.Errorf("creating a folder in %s: %w", parent, err)
	}
	defer os.RemoveAll(aside)
	old := filepath.Join(aside, name)
	if err := d.rename(dir, old); err != nil {
		return fmt.Errorf("moving the former %s aside: %w", dir, err)
	}
	if tmp != "" { // RemoveOwn: nothing takes its place
		if err := d.rename(tmp, dir); err != nil {
			_ = os.Rename(old, dir) // the former results stay
			return fmt.Errorf("moving the results into %s: %w", dir, err)
		}
	}
	d.syncDir(parent)
	return nil
}

// Owner is the writer of a kind of folder and the names of the files it
// saves there: a folder that holds only those (and the temporary files of
// a save that was cut short) is its own, to replace or remove; anything
// else in it is a user's.
type Owner struct {
	Name  string   // the writer, as messages name it: "fencelab sim"
	Files []string // the names it saves
}

// Check reports why dir is not a folder o may replace: it is not a
// folder, or it holds something o does not write. A missing dir is fine,
// and so is anything when o is nil.
func (o *Owner) Check(dir string) error {
	if o == nil {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		temporary := strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".tmp") // WriteFile's, cut short
		if e.IsDir() || !(slices.Contains(o.Files, name) || temporary) {
			return fmt.Errorf("%s holds %s, which %s did not write: not replacing it", dir, quote.S(name), o.Name)
		}
	}
	return nil
}

// RemoveOwn removes dir, a folder of o's files left by an earlier run that
// this one replaces by nothing; a folder that holds anything else stays,
// with an error that says so. A missing dir is fine.
func (o *Owner) RemoveOwn(dir string) error {
	if err := o.Check(dir); err != nil {
		return err
	}
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return (*Disk)(nil).replace("", dir)
}
