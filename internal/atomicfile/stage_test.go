package atomicfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// names lists dir's entries.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// TestStageReplacesTheFolderWhole: a staged folder takes dir's place with
// its files only (the former run's files go), whatever was at dir when no
// owner is given (a folder, a file, a link, which is not followed); with
// an owner, a folder holding a user's file stays as it was and the commit
// fails; nothing temporary is left beside dir on any path.
func TestStageReplacesTheFolderWhole(t *testing.T) {
	owner := &Owner{Name: "the test", Files: []string{"a.txt", "b.txt"}}
	tests := []struct {
		name    string
		before  func(t *testing.T, dir string) // what is at dir before the commit
		owner   *Owner
		wantErr string
	}{
		{"no folder yet", func(*testing.T, string) {}, owner, ""},
		{"a former run's folder", func(t *testing.T, dir string) {
			require.NoError(t, os.Mkdir(dir, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "b.txt"), []byte("old"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(dir, ".b.txt.123.tmp"), nil, 0o644))
		}, owner, ""},
		{"a user's file in the folder", func(t *testing.T, dir string) {
			require.NoError(t, os.Mkdir(dir, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.md"), []byte("mine"), 0o644))
		}, owner, "holds notes.md, which the test did not write"},
		{"a file, no owner", func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(dir, []byte("x"), 0o644))
		}, nil, ""},
		{"a link to a folder, no owner", func(t *testing.T, dir string) {
			target := filepath.Join(filepath.Dir(dir), "elsewhere")
			require.NoError(t, os.Mkdir(target, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(target, "keep"), nil, 0o644))
			require.NoError(t, os.Symlink(target, dir))
		}, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, "run")
			tc.before(t, dir)
			before := names(t, parent)
			st, err := NewStage(dir)
			require.NoError(t, err)
			require.NoError(t, st.Folder().WriteFile("a.txt", writeString("new")))
			err = st.Commit(tc.owner)
			st.Abandon()
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				assert.Equal(t, before, names(t, parent), "nothing beside it changed")
				assert.FileExists(t, filepath.Join(dir, "notes.md"), "a user's file stays")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, []string{"a.txt"}, names(t, dir), "the new run's files only")
			got, err := os.ReadFile(filepath.Join(dir, "a.txt"))
			require.NoError(t, err)
			assert.Equal(t, "new", string(got))
			info, err := os.Lstat(dir)
			require.NoError(t, err)
			assert.True(t, info.IsDir(), "a folder, not the former link")
			if target := filepath.Join(parent, "elsewhere"); tc.name == "a link to a folder, no owner" {
				assert.FileExists(t, filepath.Join(target, "keep"), "a link is not followed")
			}
			for _, n := range names(t, parent) {
				assert.Contains(t, []string{"run", "elsewhere"}, n, "nothing temporary left")
			}
		})
	}
}

// TestStageFullDiskKeepsTheFormerFolder: a file that cannot be written
// whole ends the stage: the former folder stays as it was, and nothing
// temporary is left.
func TestStageFullDiskKeepsTheFormerFolder(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "run")
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("old"), 0o644))
	st, err := FullAfter(2).Stage(dir)
	require.NoError(t, err)
	err = st.Folder().WriteFile("a.txt", writeString("new and longer"))
	require.ErrorContains(t, err, "could not save")
	st.Abandon()
	assert.Equal(t, []string{"run"}, names(t, parent))
	got, err := os.ReadFile(filepath.Join(dir, "a.txt"))
	require.NoError(t, err)
	assert.Equal(t, "old", string(got))
	assert.Error(t, st.Commit(nil), "an abandoned stage commits nothing")
}

// TestRemoveOwn: a former run's folder goes; a folder with a user's file,
// or with a folder in it, stays; a missing one is fine.
func TestRemoveOwn(t *testing.T) {
	owner := &Owner{Name: "the test", Files: []string{"a.txt"}}
	parent := t.TempDir()
	mine := filepath.Join(parent, "mine")
	require.NoError(t, os.Mkdir(mine, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(mine, "a.txt"), nil, 0o644))
	require.NoError(t, owner.RemoveOwn(mine))
	assert.NoDirExists(t, mine)

	users := filepath.Join(parent, "users")
	require.NoError(t, os.MkdirAll(filepath.Join(users, "sub"), 0o755))
	require.ErrorContains(t, owner.RemoveOwn(users), "holds sub, which the test did not write")
	assert.DirExists(t, filepath.Join(users, "sub"))

	require.NoError(t, owner.RemoveOwn(filepath.Join(parent, "missing")))
	assert.Equal(t, []string{"users"}, names(t, parent), "nothing temporary left")
}
