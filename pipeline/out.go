package pipeline

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/fencelab/fencelab/internal/atomicfile"
	"github.com/fencelab/fencelab/internal/inputfile"
	"github.com/fencelab/fencelab/internal/quote"
)

// The rules for what fencelab writes and reads, in one place: every
// command checks its --out before any work (CheckOutDir, CheckOutFile),
// saves through atomicfile (Env.Disk), reports a failed save as "could not
// save …" (CouldNotSave), and reads every input through inputfile
// (ReadInput).

// CheckOutDir makes sure an --out folder can be used, before any work and
// without creating anything (CheckFolder).
func CheckOutDir(flagName, dir string) error { return CheckFolder("--"+flagName, dir) }

// CheckFolder makes sure the folder dir, named what in messages (a flag
// such as --out, a variable such as FENCELAB_CACHE), can be written,
// without creating anything: dir, or the nearest folder above it that
// exists, must be a folder fencelab can create files in. An empty name, a
// file, a dangling symbolic link, or a folder that cannot be written is
// bad input.
func CheckFolder(what, dir string) error {
	if dir == "" {
		return BadInput("%s is empty: name a folder", what)
	}
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		info, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			if filepath.Dir(p) == p {
				return BadInput("%s %s: no folder above it exists", what, quote.S(dir))
			}
			continue
		}
		if err != nil {
			return BadInput("%s %s: %v", what, quote.S(dir), pathError(err))
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			if info, err = os.Stat(p); err != nil {
				return BadInput("%s %s: %s is a symbolic link to nothing", what, quote.S(dir), quote.S(p))
			}
		}
		if !info.IsDir() && p == filepath.Clean(dir) {
			return BadInput("%s %s is %s, not a folder", what, quote.S(dir), inputfile.Kind(info.Mode()))
		}
		if !info.IsDir() {
			return BadInput("%s %s cannot be created: %s is %s, not a folder", what, quote.S(dir), quote.S(p), inputfile.Kind(info.Mode()))
		}
		return probeWritable(what, dir, p)
	}
}

// CheckOutFile makes sure an --out file can be saved, before any work: it
// is missing or a regular file (not a folder, a device, a pipe or a
// dangling link), and its folder can be written.
func CheckOutFile(flagName, path string) error {
	if path == "" {
		return nil
	}
	if err := atomicfile.CheckTarget(path); err != nil {
		return BadInput("--%s %s: %v", flagName, quote.S(path), WithoutPath(err))
	}
	if info, err := os.Stat(path); err == nil && info.Mode().Perm()&0o222 == 0 {
		return BadInput("--%s %s is read-only (mode %04o): not replacing it", flagName, quote.S(path), info.Mode().Perm())
	}
	dir := filepath.Dir(path)
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		dir = filepath.Dir(resolved)
	}
	info, err := os.Stat(dir)
	if err != nil {
		return BadInput("--%s %s: its folder %s: %v", flagName, quote.S(path), quote.S(dir), WithoutPath(err))
	}
	if !info.IsDir() {
		return BadInput("--%s %s: %s is %s, not a folder", flagName, quote.S(path), quote.S(dir), inputfile.Kind(info.Mode()))
	}
	return probeWritable("--"+flagName, path, dir)
}

// probeWritable creates and removes a file in the existing folder dir: the
// one sure test (permissions, a read-only file system, root's rights). A
// folder whose mode has no write bit at all is read-only for fencelab too,
// also when it runs as root, who could write there anyway: someone marked
// it so.
func probeWritable(what, value, dir string) error {
	if info, err := os.Stat(dir); err == nil && info.Mode().Perm()&0o222 == 0 {
		return BadInput("%s %s cannot be written: %s is read-only (mode %04o)", what, quote.S(value), quote.S(dir), info.Mode().Perm())
	}
	f, err := os.CreateTemp(dir, ".fencelab-write-check-")
	if err != nil {
		return BadInput("%s %s cannot be written: %s: %v", what, quote.S(value), quote.S(dir), WithoutPath(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// pathError drops a *PathError's repetition of the path.
func pathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", quote.S(pe.Path), pe.Err)
	}
	return err
}

// WithoutPath is a *PathError's cause alone, for a message that names the
// path already.
func WithoutPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// CouldNotSave is a failed save (a full disk, a folder removed meanwhile):
// exit 2, with atomicfile's "could not save …" message, never taken for a
// verdict.
func CouldNotSave(err error) error {
	return &ExitError{Code: ExitBadInput, Err: err}
}

// ReadInput reads a file a user gave with its bound (inputfile): a pipe,
// a device, a folder or a file above limit is bad input, one line.
func ReadInput(what, path string, limit int64) ([]byte, error) {
	data, err := inputfile.Read(path, limit)
	if err != nil {
		return nil, BadInput("%s %s: %v", what, quote.S(path), WithoutPath(err))
	}
	return data, nil
}

// MakeOutDir creates an --out folder that commands save into through
// their own staging folders, and returns what removes it again at the end
// if this invocation created it and left nothing in it.
func MakeOutDir(e *Env, dir string) (cleanup func(), err error) {
	folder := e.Disk.Folder(dir)
	if err := folder.Create(); err != nil {
		return func() {}, CouldNotSave(err)
	}
	return folder.Abandon, nil
}
