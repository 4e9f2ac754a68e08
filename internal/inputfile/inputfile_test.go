package inputfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadRefusesWhatIsNotABoundedRegularFile: a pipe (which would block),
// a device (which never ends, also through a link), a folder and a file
// above the limit are refused before any read, quickly.
func TestReadRefusesWhatIsNotABoundedRegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	link := filepath.Join(dir, "tlc.out")
	require.NoError(t, os.Symlink("/dev/zero", link))
	big := filepath.Join(dir, "big")
	require.NoError(t, os.WriteFile(big, []byte(strings.Repeat("x", 101)), 0o644))
	for _, tc := range []struct{ path, want string }{
		{fifo, "a named pipe, not a regular file"},
		{"/dev/zero", "a character device, not a regular file"},
		{link, "a character device, not a regular file"},
		{dir, "a folder, not a regular file"},
		{big, "holds 101 bytes, more than the limit of 100"},
		{filepath.Join(dir, "missing"), "no such file"},
	} {
		start := time.Now()
		_, err := Read(tc.path, 100)
		require.Error(t, err, tc.path)
		assert.Contains(t, err.Error(), tc.want)
		assert.Less(t, time.Since(start), 5*time.Second, "%s: refused up front", tc.path)
	}
}

// TestReadAtTheLimit: a file of exactly limit bytes is read whole; the
// bounded reader refuses one that grows past it after the first look.
func TestReadAtTheLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(path, []byte("0123456789"), 0o644))
	data, err := Read(path, 10)
	require.NoError(t, err)
	assert.Equal(t, "0123456789", string(data))

	r, err := Open(path, 10)
	require.NoError(t, err)
	defer r.Close()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("grown")
	require.NoError(t, err)
	f.Close()
	buf := make([]byte, 100)
	total := 0
	for {
		n, err := r.Read(buf)
		total += n
		if err != nil {
			assert.ErrorIs(t, err, ErrTooLarge)
			break
		}
	}
	assert.Equal(t, 10, total)
}
