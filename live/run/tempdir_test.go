package run

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/live/server"
)

// deadPid is the pid of a process that has exited and been reaped.
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("/bin/true")
	require.NoError(t, cmd.Run())
	return cmd.Process.Pid
}

func writeOwner(t *testing.T, dir, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, ownerFile), []byte(content), 0o600))
}

func TestSweepRunDirs(t *testing.T) {
	self := os.Getpid()
	selfStart, ok := server.ProcStartTime(self)
	require.True(t, ok)
	type folder struct {
		name    string
		make    func(t *testing.T, root, dir string)
		removed bool
	}
	own := func(content string) func(t *testing.T, root, dir string) {
		return func(t *testing.T, root, dir string) {
			require.NoError(t, os.Mkdir(dir, 0o700))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "data"), []byte("125 MB of etcd"), 0o600))
			writeOwner(t, dir, content)
		}
	}
	for _, tc := range []folder{
		{"fencelab-live-dead", func(t *testing.T, root, dir string) {
			own(fmt.Sprintf("%d %d\n", deadPid(t), selfStart))(t, root, dir)
		}, true},
		{"fencelab-live-reused", own(fmt.Sprintf("%d %d\n", self, selfStart+1)), true}, // the pid now names another process
		{"fencelab-live-alive", own(fmt.Sprintf("%d %d\n", self, selfStart)), false},
		{"fencelab-live-no-owner", func(t *testing.T, root, dir string) { require.NoError(t, os.Mkdir(dir, 0o700)) }, false},
		{"fencelab-live-garbled", own("not an owner\n"), false},
		{"fencelab-live-half", own(fmt.Sprintf("%d", deadPid(t))), false},
		{"fencelab-live-negative", own(fmt.Sprintf("-5 %d\n", selfStart)), false},
		{"fencelab-live-owner-link", func(t *testing.T, root, dir string) {
			require.NoError(t, os.Mkdir(dir, 0o700))
			target := filepath.Join(root, "elsewhere-owner")
			require.NoError(t, os.WriteFile(target, []byte(fmt.Sprintf("%d 1\n", deadPid(t))), 0o600))
			require.NoError(t, os.Symlink(target, filepath.Join(dir, ownerFile)))
		}, false},
		{"fencelab-live-a-link", func(t *testing.T, root, dir string) {
			// A link to a folder a dead owner left: neither is touched.
			target := filepath.Join(root, "linked-target")
			own(fmt.Sprintf("%d 1\n", deadPid(t)))(t, root, target)
			require.NoError(t, os.Symlink(target, dir))
		}, false},
		{"fencelab-live-a-file", func(t *testing.T, root, dir string) {
			require.NoError(t, os.WriteFile(dir, []byte("x"), 0o600))
		}, false},
		{"other-dead", own(fmt.Sprintf("%d 1\n", deadPid(t))), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, tc.name)
			tc.make(t, root, dir)
			removed, err := SweepRunDirs(root)
			require.NoError(t, err)
			if tc.removed {
				require.Equal(t, []string{dir}, removed)
				require.NoFileExists(t, dir)
				require.NoDirExists(t, dir)
				return
			}
			require.Empty(t, removed)
			_, err = os.Lstat(dir)
			require.NoError(t, err, "kept")
			switch tc.name {
			case "fencelab-live-a-link":
				require.FileExists(t, filepath.Join(root, "linked-target", "data"), "a link's target is never touched")
			case "fencelab-live-owner-link":
				require.FileExists(t, filepath.Join(root, "elsewhere-owner"))
			}
		})
	}
}

// A run's own folder names its owner, so a sweep beside a live run keeps
// it, and removes it once its owner is gone.
func TestMakeRunDirNamesItsOwner(t *testing.T) {
	root := t.TempDir()
	dir, err := makeRunDir(root)
	require.NoError(t, err)
	pid, start, ok := readOwner(dir)
	require.True(t, ok)
	require.Equal(t, os.Getpid(), pid)
	now, alive := server.ProcStartTime(pid)
	require.True(t, alive)
	require.Equal(t, now, start)
	removed, err := SweepRunDirs(root)
	require.NoError(t, err)
	require.Empty(t, removed)
	require.DirExists(t, dir)

	writeOwner(t, dir, fmt.Sprintf("%d %d\n", deadPid(t), start))
	removed, err = SweepRunDirs(root)
	require.NoError(t, err)
	require.Equal(t, []string{dir}, removed)
	require.NoDirExists(t, dir)
}

func TestSweepRunDirsMissingRoot(t *testing.T) {
	_, err := SweepRunDirs(filepath.Join(t.TempDir(), "absent"))
	require.Error(t, err)
}
