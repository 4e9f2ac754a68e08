// Package atomicfile is fencelab's one writer of output files: every file a
// command saves is written whole or not at all, and a folder it creates for
// them exists only once a file in it is complete. A file goes to a temporary
// file in its own folder, is synced to disk and renamed over its name, so a
// reader (or the next run, after a full disk or a crash) sees the former
// file or the whole new one, never a truncated one. A Folder creates its
// folders when its first file is written and removes the folders it created
// again when that first file fails, so a failed save leaves no empty folder.
// A Stage saves a whole folder in place of another (a run's files replacing
// the former run's): its files go into a temporary folder beside it, which
// one rename puts in place, so a reader never sees two runs' files mixed;
// an Owner says which former folders are the writer's to replace.
//
// A Disk is where the files go; nil is the real file system. Tests make a
// full disk with FullAfter, so the failure paths are tested everywhere, not
// only where a small file system can be mounted.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/fencelab/fencelab/internal/inputfile"
)

// Disk is where files are written. A nil *Disk is the real file system
// with no limit; FullAfter gives one that fills up.
type Disk struct {
	mu   sync.Mutex
	free int64 // bytes left before writes fail with ENOSPC
	// observe, set only by tests, hears each step that makes a save
	// durable (syncing a file, a rename, syncing a folder) once it is
	// done, so a test can tell their order: a rename before the sync of
	// the file it puts in place could leave a file of zeros after a crash.
	observe func(op, path string)
}

// FullAfter returns a Disk that takes n bytes in all, over every file
// written through it, and then fails every write with ENOSPC, as a full
// disk does.
func FullAfter(n int64) *Disk { return &Disk{free: n} }

// take reserves up to n bytes and returns how many it got.
func (d *Disk) take(n int) int {
	if d == nil {
		return n
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	got := int64(n)
	if got > d.free {
		got = d.free
	}
	d.free -= got
	return int(got)
}

// limited passes writes to w while its Disk has room.
type limited struct {
	d *Disk
	w io.Writer
}

func (l limited) Write(p []byte) (int, error) {
	n := l.d.take(len(p))
	written, err := l.w.Write(p[:n])
	if err != nil {
		return written, err
	}
	if n < len(p) {
		return written, &fs.PathError{Op: "write", Path: "(disk)", Err: syscall.ENOSPC}
	}
	return written, nil
}

// CheckTarget reports why path cannot be replaced by a saved file: it is
// a folder, a device, a pipe or a dangling symbolic link. A path that does
// not exist, or a regular file (or a link to one), can be.
func CheckTarget(path string) error {
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		// Only a link can be there while what it names is not; anything
		// else found now appeared since (another writer's rename) and is
		// judged as it is.
		linfo, lerr := os.Lstat(path)
		switch {
		case lerr != nil:
			return nil
		case linfo.Mode()&fs.ModeSymlink != 0:
			if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("%s is a symbolic link to nothing", path)
			}
		}
		return CheckTarget(path)
	}
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s is %s, not a regular file", path, inputfile.Kind(info.Mode()))
	}
	return nil
}

// WriteFile writes path on the real disk (see Disk.WriteFile).
func WriteFile(path string, write func(io.Writer) error) error {
	return (*Disk)(nil).WriteFile(path, write)
}

// WriteFile writes path with write through a temporary file in the same
// folder, synced and renamed over path once complete: a reader sees the
// former file or the whole new one, and a failed write leaves nothing
// behind. path's folder must exist; path must not be a folder, a device or
// a pipe (CheckTarget), so a save never replaces one.
func (d *Disk) WriteFile(path string, write func(io.Writer) error) (err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("could not save %s: %w", path, err)
		}
	}()
	if err := CheckTarget(path); err != nil {
		return err
	}
	// A link to a regular file is written through: the file it names is
	// replaced, the link stays.
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		path = resolved
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	// Buffered: the renderers write a page in many small pieces (the HTML
	// template one field at a time), a system call each unbuffered.
	bw := bufio.NewWriterSize(limited{d, f}, 64<<10)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		return err
	}
	// Synced before the rename: after a crash the name holds the former
	// file or the complete new one, never a file of zeros.
	if err := d.sync(f); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := d.rename(tmp, path); err != nil {
		return err
	}
	d.syncDir(filepath.Dir(path))
	return nil
}

// The steps that make a save durable go through the Disk, which tells a
// test's observer of each once it is done.

// sync writes f's bytes to the disk.
func (d *Disk) sync(f *os.File) error {
	if err := f.Sync(); err != nil {
		return err
	}
	d.note("sync", f.Name())
	return nil
}

// rename moves from to to.
func (d *Disk) rename(from, to string) error {
	if err := os.Rename(from, to); err != nil {
		return err
	}
	d.note("rename", to)
	return nil
}

// syncDir makes a rename in dir durable; a file system that cannot sync a
// folder has already made it so.
func (d *Disk) syncDir(dir string) {
	if f, err := os.Open(dir); err == nil {
		_ = f.Sync()
		f.Close()
	}
	d.note("syncdir", dir)
}

func (d *Disk) note(op, path string) {
	if d != nil && d.observe != nil {
		d.mu.Lock()
		defer d.mu.Unlock()
		d.observe(op, path)
	}
}

// Folder is a folder of saved files that is created with its first
// complete file. The zero value is not usable: see Disk.Folder.
type Folder struct {
	disk    *Disk
	dir     string
	created []string // folders this Folder made, the deepest last
	written []string // names of the files saved, in order
}

// Folder returns the folder dir on d, not yet created.
func (d *Disk) Folder(dir string) *Folder { return &Folder{disk: d, dir: dir} }

// NewFolder returns the folder dir on the real disk.
func NewFolder(dir string) *Folder { return (*Disk)(nil).Folder(dir) }

// Dir is the folder's path.
func (f *Folder) Dir() string { return f.dir }

// Written is the names of the files saved into the folder, in order.
func (f *Folder) Written() []string { return f.written }

// Create creates the folder and its missing parents now, for a caller
// that puts files there itself (a staging folder renamed into it); the
// folders it made are removed by Abandon while they are empty.
func (f *Folder) Create() error {
	if f.created != nil {
		return nil
	}
	created, err := mkdirAll(f.dir)
	if err != nil {
		return fmt.Errorf("could not save into %s: creating it: %w", f.dir, err)
	}
	f.created = created
	return nil
}

// WriteFile saves name in the folder with write, creating the folder (and
// its missing parents) first. When the first file fails, the folders made
// for it are removed again: a failed save leaves no empty folder.
func (f *Folder) WriteFile(name string, write func(io.Writer) error) error {
	if err := f.Create(); err != nil {
		return err
	}
	if err := f.disk.WriteFile(filepath.Join(f.dir, name), write); err != nil {
		if len(f.written) == 0 {
			f.Abandon()
		}
		return err
	}
	f.written = append(f.written, name)
	return nil
}

// Abandon removes the folders this Folder created while they are empty;
// one that holds anything (a file saved, or one another process put
// there) stays, so it is safe to call whatever happened.
func (f *Folder) Abandon() {
	for i := len(f.created) - 1; i >= 0; i-- {
		if os.Remove(f.created[i]) != nil {
			break
		}
	}
	f.created = nil
}

// mkdirAll creates dir and its missing parents, and returns the folders it
// created, outermost first.
func mkdirAll(dir string) ([]string, error) {
	var missing []string
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		info, err := os.Stat(p)
		if err == nil {
			if !info.IsDir() {
				return nil, fmt.Errorf("%s is %s, not a folder", p, inputfile.Kind(info.Mode()))
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return nil, err
		}
		missing = append(missing, p)
		if filepath.Dir(p) == p {
			break
		}
	}
	created := []string{}
	for i := len(missing) - 1; i >= 0; i-- {
		err := os.Mkdir(missing[i], 0o755)
		if errors.Is(err, fs.ErrExist) {
			continue // made meanwhile by someone else: theirs, not ours
		}
		if err != nil {
			for j := len(created) - 1; j >= 0; j-- {
				os.Remove(created[j])
			}
			return nil, err
		}
		created = append(created, missing[i])
	}
	return created, nil
}

// CheckFolders refuses, before anything is written, a folder on the way
// from root down rel (slash separated) that exists as anything but a
// folder: a link or a file there would send what is written elsewhere, or
// fail halfway. Folders not there yet are fine (they are made on write).
func CheckFolders(root, rel string) error {
	dir := root
	for _, part := range strings.Split(rel, "/") {
		dir = filepath.Join(dir, part)
		info, err := os.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if !info.IsDir() {
			return fmt.Errorf("%s is %s, not a folder", dir, inputfile.Kind(info.Mode()))
		}
	}
	return nil
}
