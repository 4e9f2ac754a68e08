package shard

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Spec
		wantErr string
	}{
		{"0/1", Spec{0, 1}, ""},
		{"2/3", Spec{2, 3}, ""},
		{"99999/100000", Spec{99999, 100000}, ""},
		{"0/0", Spec{}, "the count \"0\" is not a number from 1"},
		{"3/2", Spec{}, "the index must be below the count (shards are numbered 0 to 1)"},
		{"2/2", Spec{}, "the index must be below the count"},
		{"-1/2", Spec{}, "the index \"-1\" is not a number"},
		{"a/b", Spec{}, "the index \"a\" is not a number"},
		{"1/0", Spec{}, "the count \"0\" is not a number from 1 to 100000"},
		{"1/-3", Spec{}, "the count \"-3\""},
		{"0/100001", Spec{}, "is not a number from 1 to 100000"},
		{"0/99999999999999999999999", Spec{}, "is not a number from 1 to 100000"},
		{"99999999999999999999/2", Spec{}, "the index"},
		{"1", Spec{}, "is not i/n"},
		{"", Spec{}, "is not i/n"},
		{"1/2/3", Spec{}, "the count \"2/3\""},
		{" 1/2", Spec{}, "the index"},
		{"+1/2", Spec{}, "the index"},
		{"1/2 ", Spec{}, "the count"},
		{"0x1/2", Spec{}, "the index"},
		{strings.Repeat("9", 1<<20) + "/2", Spec{}, "the index"},
	} {
		t.Run(tc.in[:min(len(tc.in), 30)], func(t *testing.T) {
			got, err := Parse(tc.in)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				assert.Less(t, len(err.Error()), 400, "a bounded message")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.in, got.String())
		})
	}
}

// TestRangeCoversOnce: the shards of any campaign cover every item
// exactly once, in order, with sizes differing by at most one.
func TestRangeCoversOnce(t *testing.T) {
	for _, items := range []int{0, 1, 2, 5, 7, 64, 1000, 1_000_000_000} {
		for _, n := range []int{1, 2, 3, 7, 8, 100, 100_000} {
			next, smallest, largest := 0, items, 0
			for i := range n {
				lo, hi := Spec{i, n}.Range(items)
				require.Equal(t, next, lo, "items %d, shard %d/%d starts where the last ended", items, i, n)
				require.GreaterOrEqual(t, hi, lo)
				smallest, largest = min(smallest, hi-lo), max(largest, hi-lo)
				next = hi
			}
			assert.Equal(t, items, next, "items %d, %d shards cover them all", items, n)
			assert.LessOrEqual(t, largest-smallest, 1, "items %d, %d shards balanced", items, n)
		}
	}
}

// writeShard saves the manifest of shard s of a campaign of items items.
func writeShard(t *testing.T, id Identity, s Spec, items int) string {
	t.Helper()
	m, err := New(id, s, items, map[string]int{"x": s.Index})
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "shard")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	var b bytes.Buffer
	require.NoError(t, m.Write(&b))
	require.NoError(t, os.WriteFile(filepath.Join(dir, FileName), b.Bytes(), 0o644))
	return dir
}

func TestCheck(t *testing.T) {
	build := Build{Version: "1", Go: "go1", Binary: "sha256:aa"}
	id := Identity{Command: "sim", Args: []string{"--runs=10"}, Build: build}
	other := Identity{Command: "sim", Args: []string{"--runs=11"}, Build: build}
	otherBuild := id
	otherBuild.Build.Binary = "sha256:bb"
	shards := func(id Identity, n, items int, idx ...int) []string {
		var dirs []string
		for _, i := range idx {
			dirs = append(dirs, writeShard(t, id, Spec{i, n}, items))
		}
		return dirs
	}
	truncated := writeShard(t, id, Spec{2, 3}, 10)
	data, err := os.ReadFile(filepath.Join(truncated, FileName))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(truncated, FileName), data[:len(data)/2], 0o644))
	lied := writeShard(t, id, Spec{2, 3}, 10)
	data, err = os.ReadFile(filepath.Join(lied, FileName))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(lied, FileName), bytes.Replace(data, []byte(`"lo": 6`), []byte(`"lo": 5`), 1), 0o644))
	extra := writeShard(t, id, Spec{2, 3}, 10)
	data, err = os.ReadFile(filepath.Join(extra, FileName))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(extra, FileName), append(data, "{}"...), 0o644))
	empty := t.TempDir()

	for _, tc := range []struct {
		name    string
		dirs    []string
		wantErr string
	}{
		{"whole", shards(id, 3, 10, 2, 0, 1), ""},
		{"one shard", shards(id, 1, 10, 0), ""},
		{"more shards than items", shards(id, 4, 2, 0, 1, 2, 3), ""},
		{"none", nil, "no shard result folder given"},
		{"missing", shards(id, 3, 10, 0, 2), "1 of 3 shards missing: 1 (of 0 to 2)"},
		{"duplicate", append(shards(id, 3, 10, 0, 1, 2), shards(id, 3, 10, 1)...), "shard 1/3 given twice"},
		{"other flags", append(shards(id, 3, 10, 0, 1), shards(other, 3, 10, 2)...), "shards of different campaigns: flags"},
		{"other count", append(shards(id, 3, 10, 0, 1, 2), shards(id, 4, 10, 3)...), "split into 3 shards, then 4"},
		{"other items", append(shards(id, 3, 10, 0, 1), shards(id, 3, 11, 2)...), "10 items, then 11"},
		{"other build", append(shards(id, 3, 10, 0, 1), shards(otherBuild, 3, 10, 2)...), "fencelab build"},
		{"not this build", shards(otherBuild, 1, 10, 0), "was made by another fencelab build"},
		{"truncated", append(shards(id, 3, 10, 0, 1), truncated), "not a whole shard result"},
		{"items not its shard's", append(shards(id, 3, 10, 0, 1), lied), "holds items 5 to 10, not 6 to 10"},
		{"data after it", append(shards(id, 3, 10, 0, 1), extra), "data after the JSON value"},
		{"no manifest", append(shards(id, 3, 10, 0, 1), empty), "has no shard.json"},
		{"not a folder", append(shards(id, 3, 10, 0, 1), filepath.Join(empty, "nothing")), "is not a shard result folder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ms []*Manifest
			var err error
			for _, d := range tc.dirs {
				var m *Manifest
				if m, err = Read(d); err != nil {
					break
				}
				ms = append(ms, m)
			}
			var c *Campaign
			if err == nil {
				c, err = Check(ms, tc.dirs, build)
			}
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				assert.NotContains(t, err.Error(), "\n")
				return
			}
			require.NoError(t, err)
			require.Len(t, c.Shards, len(tc.dirs))
			for i, m := range c.Shards {
				assert.Equal(t, i, m.Shard.Index, "in index order")
			}
		})
	}
}
