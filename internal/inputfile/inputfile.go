// Package inputfile reads the files a user gives fencelab (a schedule, a
// manifest, a TLC output, a trace.json, a README) with a bound: a file that
// is not a regular file (a named pipe, which would block forever; a
// device such as /dev/zero, which never ends; a folder) is refused before
// it is opened, and a file larger than its limit is refused instead of
// being read into memory whole.
package inputfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Limits of the files fencelab reads: far above any real one, far below
// what would exhaust memory.
const (
	// MaxText bounds a small text file: a schedule, a manifest, a cfg, a
	// README. The largest schedule Validate accepts (10,000 faults) is
	// about 1 MB.
	MaxText = 16 << 20
	// MaxOutput bounds a TLC output or a trace.json: the shipped
	// models' outputs are tens of kB, a 10,000-step trace.json a few MB.
	MaxOutput = 64 << 20
)

// ErrTooLarge is the error of a file above its limit.
var ErrTooLarge = errors.New("file too large")

// Check reports why path cannot be read as an input file: it is missing,
// or not a regular file (after following symbolic links), or larger than
// limit bytes. The message does not repeat path: the caller names it.
func Check(path string, limit int64) (fs.FileInfo, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("it is %s, not a regular file", Kind(info.Mode()))
	}
	if info.Size() > limit {
		return nil, fmt.Errorf("it holds %d bytes, more than the limit of %d: %w", info.Size(), limit, ErrTooLarge)
	}
	return info, nil
}

// Read reads the regular file path whole, refusing it up front (Check) if
// it is not a regular file or holds more than limit bytes; a file that
// grows past limit while it is read is refused too.
func Read(path string, limit int64) ([]byte, error) {
	f, err := Open(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// Open opens the regular file path for reading at most limit bytes (see
// Read); reading past limit fails with ErrTooLarge.
func Open(path string, limit int64) (io.ReadCloser, error) {
	if _, err := Check(path, limit); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	// Checked again on what was opened: the name may have been replaced
	// between the two looks.
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("it is %s, not a regular file", Kind(info.Mode()))
	}
	return &bounded{f: f, left: limit, limit: limit}, nil
}

// bounded reads at most limit bytes of f and fails past them.
type bounded struct {
	f     *os.File
	left  int64
	limit int64
}

func (b *bounded) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a file of exactly limit bytes from a longer one.
		var one [1]byte
		if n, _ := b.f.Read(one[:]); n > 0 {
			return 0, fmt.Errorf("it holds more than the limit of %d bytes: %w", b.limit, ErrTooLarge)
		}
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.f.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *bounded) Close() error { return b.f.Close() }

// Kind names a file mode's type for messages: "a folder", "a named pipe".
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsRegular():
		return "a regular file"
	}
	return "not a regular file"
}
