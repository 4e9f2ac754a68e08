package golden

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       Figures
		err        string
	}{
		{"empty", "", Figures{}, ""},
		{"comments and blanks", "# c\n\n  # d\n", Figures{}, ""},
		{"figures", "# h\nexplore.2c.states 3716\ntlc.M.distinct_states 12\n", Figures{"explore.2c.states": "3716", "tlc.M.distinct_states": "12"}, ""},
		{"value with spaces", "k a b\n", Figures{"k": "a b"}, ""},
		{"no value", "k\n", nil, "want \"key value\""},
		{"blank value", "k   \n", nil, "want \"key value\""},
		{"duplicate", "k 1\nk 2\n", nil, "key k twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse([]byte(tc.text))
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestFormatRoundTrips(t *testing.T) {
	f := Figures{"b.x": "2", "a.y": "1 2", "c": "three"}
	text := Format("all", f)
	assert.Contains(t, string(text), "design row all")
	back, err := Parse(text)
	require.NoError(t, err)
	assert.Equal(t, f, back)
	assert.Equal(t, text, Format("all", back), "sorted: one text per set of figures")
}

// recorder is a testing.TB that records failures instead of stopping.
type recorder struct {
	testing.TB
	failed  bool
	fatal   bool
	message string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failed = true
	r.message = format
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed, r.fatal = true, true
	r.message = format
	panic(r)
}
func (r *recorder) Fatal(args ...any) { r.Fatalf("%v", args...) }

// run calls checkFile on a recorder, catching its Fatal.
func run(t *testing.T, update bool, path, key, value string) *recorder {
	r := &recorder{TB: t}
	func() {
		defer func() {
			if p := recover(); p != nil && p != r {
				panic(p)
			}
		}()
		checkFile(r, update, path, "all", key, value)
	}()
	return r
}

func TestCheckComparesAndUpdateRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pins", "all.golden")

	r := run(t, false, path, "explore.states", "10")
	assert.True(t, r.fatal, "no pin yet: a failure, never a pass")

	r = run(t, true, path, "explore.states", "10")
	assert.False(t, r.failed)
	r = run(t, false, path, "explore.states", "10")
	assert.False(t, r.failed, "the recorded figure matches")

	r = run(t, false, path, "explore.states", "11")
	assert.True(t, r.failed, "a changed figure fails")
	assert.False(t, r.fatal, "as an error, so the other figures are still compared")

	r = run(t, true, path, "explore.depth", "7")
	assert.False(t, r.failed)
	f, err := Read(path)
	require.NoError(t, err)
	assert.Equal(t, Figures{"explore.states": "10", "explore.depth": "7"}, f, "an update keeps the other keys")
	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary or lock file left beside the row file")
}

func TestConcurrentUpdatesKeepEveryKey(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	path := filepath.Join(t.TempDir(), "all.golden")
	keys := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	var wg sync.WaitGroup
	for _, k := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			require.NoError(t, set(path, "all", k, k+"1"))
		}()
	}
	wg.Wait()
	f, err := Read(path)
	require.NoError(t, err)
	assert.Len(t, f, len(keys), "every writer's key survives: read-change-write under the lock")
	left, err := os.ReadDir(tmp)
	require.NoError(t, err)
	assert.Empty(t, left, "no lock file left in the temporary folder")
	beside, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	assert.Len(t, beside, 1, "no lock file left beside the row file")
}

func TestCheckRefusesMalformedFigures(t *testing.T) {
	path := filepath.Join(t.TempDir(), "all.golden")
	for _, tc := range []struct{ key, value string }{{"", "1"}, {"a b", "1"}, {"k", ""}, {"k", "1\n2"}} {
		r := &recorder{TB: t}
		func() {
			defer func() { _ = recover() }()
			Check(r, true, "all", tc.key, tc.value)
		}()
		assert.True(t, r.fatal, "key %q value %q", tc.key, tc.value)
	}
	_, err := os.Stat(path)
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing written")
}

func TestModuleRoot(t *testing.T) {
	root, err := ModuleRoot()
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(root, "go.mod"))
	require.NoError(t, err)
	p, err := Path("all")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "testdata", "pins", "all.golden"), p)
}

// TestRowFilesAreFormatted: every committed row file parses (no malformed
// line, no key twice) and is exactly what a rewrite would write, so a hand
// edit shows as a failure; and it belongs to a design row.
func TestRowFilesAreFormatted(t *testing.T) {
	root, err := ModuleRoot()
	require.NoError(t, err)
	paths, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(Dir), "*"))
	require.NoError(t, err)
	require.NotEmpty(t, paths, "no row files under %s", Dir)
	rows := map[string]bool{}
	for _, d := range impl.Designs() {
		rows[d.String()] = true
	}
	for _, path := range paths {
		name := filepath.Base(path)
		row, ok := strings.CutSuffix(name, ".golden")
		assert.True(t, ok && rows[row], "%s: not a design row's file (<row>.golden)", name)
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		f, err := Parse(data)
		require.NoError(t, err, name)
		assert.NotEmpty(t, f, name)
		assert.Equal(t, string(Format(row, f)), string(data), "%s: not as a rewrite writes it (sorted keys, the header): run the tests with -update", name)
	}
}

// fileRun calls File on a recorder, catching its Fatal.
func fileRun(t *testing.T, update bool, path, got string) *recorder {
	r := &recorder{TB: t}
	func() {
		defer func() {
			if p := recover(); p != nil && p != r {
				panic(p)
			}
		}()
		File(r, update, path, []byte(got))
	}()
	return r
}

func TestFileComparesAndUpdateWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "picture.txt")
	assert.True(t, fileRun(t, false, path, "a").fatal, "no golden file: a failure, never a pass")
	assert.False(t, fileRun(t, true, path, "a").failed)
	assert.False(t, fileRun(t, false, path, "a").failed, "the written file matches")
	r := fileRun(t, false, path, "ab")
	assert.True(t, r.failed, "a changed rendering fails")
	assert.Contains(t, r.message, "-update")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "a", string(data), "compared, not written")
	assert.Equal(t, 1, firstDifference([]byte("a"), []byte("ab")))
	assert.Equal(t, 0, firstDifference([]byte("x"), []byte("y")))
}
