package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// entries lists dir's names, hidden temporary files included.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// TestWriteFileOnAFullDisk: whatever byte the disk fills at, the former
// file stays whole and no temporary file is left; with room, the new file
// replaces it.
func TestWriteFileOnAFullDisk(t *testing.T) {
	content := strings.Repeat("new content ", 20_000) // 240 kB: several buffer flushes
	for _, free := range []int64{0, 1, 64 << 10, int64(len(content)) - 1} {
		dir := t.TempDir()
		path := filepath.Join(dir, "trace.html")
		require.NoError(t, os.WriteFile(path, []byte("former"), 0o644))
		err := FullAfter(free).WriteFile(path, writeString(content))
		require.Error(t, err, "free %d", free)
		assert.True(t, errors.Is(err, syscall.ENOSPC), "free %d: %v", free, err)
		assert.Contains(t, err.Error(), "could not save "+path)
		got, _ := os.ReadFile(path)
		assert.Equal(t, "former", string(got), "free %d: the former file stays", free)
		assert.Equal(t, []string{"trace.html"}, entries(t, dir), "free %d: no temporary file left", free)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "trace.html")
	require.NoError(t, FullAfter(int64(len(content))).WriteFile(path, writeString(content)))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, content, string(got))
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), info.Mode().Perm())
}

// TestWriteFileRendererError: a renderer that fails midway leaves nothing.
func TestWriteFileRendererError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	boom := errors.New("boom")
	err := WriteFile(path, func(w io.Writer) error { io.WriteString(w, "half"); return boom })
	assert.ErrorIs(t, err, boom)
	assert.Empty(t, entries(t, dir))
}

// TestWriteFileRefusesSpecialTargets: a folder, a device, a pipe or a
// dangling link is never replaced by a saved file.
func TestWriteFileRefusesSpecialTargets(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	dangling := filepath.Join(dir, "dangling")
	require.NoError(t, os.Symlink(filepath.Join(dir, "nowhere"), dangling))
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	for _, tc := range []struct{ path, want string }{
		{"/dev/full", "a character device"},
		{"/dev/null", "a character device"},
		{fifo, "a named pipe"},
		{dangling, "symbolic link to nothing"},
		{sub, "a folder"},
	} {
		err := WriteFile(tc.path, writeString("x"))
		require.Error(t, err, tc.path)
		assert.Contains(t, err.Error(), tc.want)
	}
	_, err := os.Lstat(filepath.Join(dir, "nowhere"))
	assert.True(t, errors.Is(err, os.ErrNotExist), "nothing written through the dangling link")
	assert.Empty(t, entries(t, sub))
}

// TestWriteFileThroughALink: a link to a regular file is written through
// and stays a link.
func TestWriteFileThroughALink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	require.NoError(t, os.WriteFile(target, []byte("old"), 0o644))
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(target, link))
	require.NoError(t, WriteFile(link, writeString("new")))
	got, _ := os.ReadFile(target)
	assert.Equal(t, "new", string(got))
	info, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, info.Mode()&os.ModeSymlink)
}

// TestFolderAppearsWithItsFirstFile: a folder (and its missing parents)
// is removed again when its first file fails, stays when a file landed,
// and a folder that was there before is never removed.
func TestFolderAppearsWithItsFirstFile(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "a", "b")
	f := FullAfter(3).Folder(dir)
	require.Error(t, f.WriteFile("trace.txt", writeString("too long")))
	assert.Empty(t, entries(t, root), "the folders made for the first file are gone")
	assert.Empty(t, f.Written())

	f = FullAfter(5).Folder(dir)
	require.NoError(t, f.WriteFile("one", writeString("12345")))
	require.Error(t, f.WriteFile("two", writeString("x")))
	assert.Equal(t, []string{"one"}, f.Written())
	assert.Equal(t, []string{"one"}, entries(t, dir), "the folder keeps its first file and no temporary file")

	existing := t.TempDir()
	f = FullAfter(0).Folder(existing)
	require.Error(t, f.WriteFile("x", writeString("x")))
	assert.DirExists(t, existing, "a folder that was there stays")

	// A file where the folder should be.
	file := filepath.Join(root, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	err := NewFolder(filepath.Join(file, "sub")).WriteFile("x", writeString("x"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a folder")
}

// TestFullDevice: the real /dev/full, written through a file that is
// there, fails the write and is reported as could not save.
func TestFullDevice(t *testing.T) {
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full here")
	}
	f.Close()
	err = WriteFile("/dev/full", writeString("x"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "could not save /dev/full")
	info, err := os.Stat("/dev/full")
	require.NoError(t, err)
	assert.NotZero(t, info.Mode()&os.ModeCharDevice, "/dev/full is still the device")
}

// TestCheckFolders: every part of the way must be a folder or not there
// yet; a file or a link anywhere on it is refused before anything is
// written.
func TestCheckFolders(t *testing.T) {
	tests := []struct {
		name    string
		make    func(t *testing.T, root string)
		wantErr string
	}{
		{"nothing there yet", func(*testing.T, string) {}, ""},
		{"both folders there", func(t *testing.T, root string) {
			require.NoError(t, os.MkdirAll(filepath.Join(root, "docs", "matrix"), 0o755))
		}, ""},
		{"a file for the first part", func(t *testing.T, root string) {
			require.NoError(t, os.WriteFile(filepath.Join(root, "docs"), nil, 0o644))
		}, "docs is a regular file, not a folder"},
		{"a file for the last part", func(t *testing.T, root string) {
			require.NoError(t, os.MkdirAll(filepath.Join(root, "docs"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(root, "docs", "matrix"), nil, 0o644))
		}, "matrix is a regular file, not a folder"},
		{"a link to a folder", func(t *testing.T, root string) {
			require.NoError(t, os.MkdirAll(filepath.Join(root, "elsewhere"), 0o755))
			require.NoError(t, os.Symlink(filepath.Join(root, "elsewhere"), filepath.Join(root, "docs")))
		}, "not a folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			tt.make(t, root)
			err := CheckFolders(root, "docs/matrix")
			if tt.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

// TestConcurrentWritersAllSucceed: writers racing to save one path each
// succeed, and the path holds one writer's bytes, whole. (The target check
// once took a file that another writer renamed into place between its two
// looks for a symbolic link to nothing; the window is narrow, and tlc's
// TestCacheConcurrentWriters is what hit it, about once in 300 runs.)
func TestConcurrentWritersAllSucceed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "entry")
	var wg sync.WaitGroup
	for round := range 20 {
		for w := range 8 {
			wg.Go(func() {
				content := strings.Repeat(string(rune('a'+w)), 100+round)
				assert.NoError(t, WriteFile(path, func(out io.Writer) error {
					_, err := io.WriteString(out, content)
					return err
				}))
			})
		}
		wg.Wait()
		got, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Len(t, got, 100+round)
		assert.Equal(t, strings.Repeat(string(got[0]), len(got)), string(got), "one writer's bytes, whole")
	}
}
