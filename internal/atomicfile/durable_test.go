package atomicfile

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// step is one durable step a Disk's observer heard: its op and the path
// it named (a rename's destination).
type step struct{ op, path string }

// observed returns a Disk that takes free bytes and records the durable
// steps of the saves through it, in order.
func observed(free int64) (*Disk, *[]step) {
	var steps []step
	return &Disk{free: free, observe: func(op, path string) { steps = append(steps, step{op, path}) }}, &steps
}

// TestSavesSyncBeforeTheyRename: a file is synced before it is renamed
// into place, and its folder is synced after the rename; a staged folder's
// files are synced before the folder is renamed into place, and its parent
// after. A save renamed before its bytes are synced (issue 36) could leave
// the name holding a file of zeros after a crash. Want's paths are
// filepath.Match patterns below the test's folder.
func TestSavesSyncBeforeTheyRename(t *testing.T) {
	tests := []struct {
		name string
		free int64
		save func(t *testing.T, d *Disk, root string)
		want []step
	}{
		{"new file", math.MaxInt64, func(t *testing.T, d *Disk, root string) {
			require.NoError(t, d.WriteFile(filepath.Join(root, "trace.html"), writeString("new")))
		}, []step{{"sync", ".trace.html.*.tmp"}, {"rename", "trace.html"}, {"syncdir", ""}}},
		{"over a file", math.MaxInt64, func(t *testing.T, d *Disk, root string) {
			require.NoError(t, os.WriteFile(filepath.Join(root, "trace.html"), []byte("former"), 0o644))
			require.NoError(t, d.WriteFile(filepath.Join(root, "trace.html"), writeString("new")))
		}, []step{{"sync", ".trace.html.*.tmp"}, {"rename", "trace.html"}, {"syncdir", ""}}},
		{"through a link", math.MaxInt64, func(t *testing.T, d *Disk, root string) {
			require.NoError(t, os.Mkdir(filepath.Join(root, "real"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(root, "real", "t.json"), []byte("former"), 0o644))
			require.NoError(t, os.Symlink(filepath.Join("real", "t.json"), filepath.Join(root, "t.json")))
			require.NoError(t, d.WriteFile(filepath.Join(root, "t.json"), writeString("new")))
		}, []step{{"sync", "real/.t.json.*.tmp"}, {"rename", "real/t.json"}, {"syncdir", "real"}}},
		{"folder, created", math.MaxInt64, func(t *testing.T, d *Disk, root string) {
			require.NoError(t, d.Folder(filepath.Join(root, "a", "b")).WriteFile("x", writeString("new")))
		}, []step{{"sync", "a/b/.x.*.tmp"}, {"rename", "a/b/x"}, {"syncdir", "a/b"}}},
		{"stage, new folder", math.MaxInt64, func(t *testing.T, d *Disk, root string) {
			s, err := d.Stage(filepath.Join(root, "run"))
			require.NoError(t, err)
			require.NoError(t, s.Folder().WriteFile("x", writeString("new")))
			require.NoError(t, s.Commit(nil))
		}, []step{{"sync", ".run.new-*/.x.*.tmp"}, {"rename", ".run.new-*/x"}, {"syncdir", ".run.new-*"}, {"rename", "run"}, {"syncdir", ""}}},
		{"stage, over a folder", math.MaxInt64, func(t *testing.T, d *Disk, root string) {
			require.NoError(t, os.Mkdir(filepath.Join(root, "run"), 0o755))
			s, err := d.Stage(filepath.Join(root, "run"))
			require.NoError(t, err)
			require.NoError(t, s.Folder().WriteFile("x", writeString("new")))
			require.NoError(t, s.Commit(nil))
		}, []step{{"sync", ".run.new-*/.x.*.tmp"}, {"rename", ".run.new-*/x"}, {"syncdir", ".run.new-*"},
			{"rename", ".run.old-*/run"}, {"rename", "run"}, {"syncdir", ""}}},
		{"full disk: nothing synced or renamed", 2, func(t *testing.T, d *Disk, root string) {
			require.Error(t, d.WriteFile(filepath.Join(root, "trace.html"), writeString("new")))
		}, []step{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			d, steps := observed(tt.free)
			tt.save(t, d, root)
			require.Len(t, *steps, len(tt.want), "%v", *steps)
			for i, w := range tt.want {
				got := (*steps)[i]
				assert.Equal(t, w.op, got.op, "step %d: %v", i, *steps)
				ok, err := filepath.Match(filepath.Join(root, w.path), got.path)
				require.NoError(t, err)
				assert.True(t, ok, "step %d: %s %s, want %s", i, got.op, got.path, w.path)
			}
		})
	}
}
