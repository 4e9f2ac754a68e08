package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/internal/faketlc"
	"github.com/fencelab/fencelab/pipeline"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// okOutput is what the fake TLC prints for a model that matches the
// manifest's "ok, 1409 distinct states".
const okOutput = "../../tlc/testdata/tool_DistLockFencing_all_2c.out"

// badTLCInput is one row of TestTLCBadInputFoundBeforeWork.
type badTLCInput struct {
	name    string
	models  []string           // manifest entries; nil: one good model
	setup   func(specs string) // changes to the specs folder
	jar     func(jar string)   // changes to the fake jar
	out     func(t *testing.T) string
	wantErr string
}

// TestTLCBadInputFoundBeforeWork is fencelab tlc's promise for bad input:
// hostile model names, specs and cfgs outside --specs or missing, an --out
// that cannot be written, a jar that is not TLA+ tools — each gives one
// line on stderr and exit 2 before anything runs (java is never started)
// and nothing outside --out is touched.
func TestTLCBadInputFoundBeforeWork(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	require.NoError(t, os.WriteFile(file, []byte("keep me"), 0o644))
	tests := []badTLCInput{
		{"name ..", []string{`"name": "..", "spec": "S.tla", "cfg": "m.cfg"`}, nil, nil, nil, `bad model name ".."`},
		{"name .", []string{`"name": ".", "spec": "S.tla", "cfg": "m.cfg"`}, nil, nil, nil, `bad model name "."`},
		{"name ../../victim", []string{`"name": "../../victim", "spec": "S.tla", "cfg": "m.cfg"`}, nil, nil, nil, "bad model name"},
		{"name a/b", []string{`"name": "a/b", "spec": "S.tla", "cfg": "m.cfg"`}, nil, nil, nil, "bad model name"},
		{"name empty", []string{`"name": "", "spec": "S.tla", "cfg": "m.cfg"`}, nil, nil, nil, "name, spec and cfg are required"},
		{"name con", []string{`"name": "con", "spec": "S.tla", "cfg": "m.cfg"`}, nil, nil, nil, "not a device name"},
		{"name absolute", []string{`"name": "/tmp/x", "spec": "S.tla", "cfg": "m.cfg"`}, nil, nil, nil, "bad model name"},
		{"second model bad", []string{`"name": "m", "spec": "S.tla", "cfg": "m.cfg"`, `"name": "x/..", "spec": "S.tla", "cfg": "m.cfg"`}, nil, nil, nil, "model 2"},
		{"spec absolute", []string{`"name": "m", "spec": "/etc/S.tla", "cfg": "m.cfg"`}, nil, nil, nil, "must be a file name in the specs folder"},
		{"spec ..", []string{`"name": "m", "spec": "../S.tla", "cfg": "m.cfg"`}, nil, nil, nil, "must be a file name in the specs folder"},
		{"cfg in a subfolder", []string{`"name": "m", "spec": "S.tla", "cfg": "sub/m.cfg"`}, nil, nil, nil, "must be a file name in the specs folder"},
		{"cfg missing", nil, func(s string) { require.NoError(t, os.Remove(filepath.Join(s, "m.cfg"))) }, nil, nil, "m.cfg does not exist"},
		{"spec missing", nil, func(s string) { require.NoError(t, os.Remove(filepath.Join(s, "S.tla"))) }, nil, nil, "S.tla does not exist"},
		{"cfg links outside", nil, func(s string) {
			require.NoError(t, os.Remove(filepath.Join(s, "m.cfg")))
			require.NoError(t, os.Symlink(file, filepath.Join(s, "m.cfg")))
		}, nil, nil, "m.cfg"},
		{"out is a file", nil, nil, nil, func(*testing.T) string { return file }, "--out " + file + " is a regular file, not a folder"},
		{"out below a file", nil, nil, nil, func(*testing.T) string { return filepath.Join(file, "tlc") }, "cannot be created"},
		{"jar empty", nil, nil, func(j string) { require.NoError(t, os.WriteFile(j, nil, 0o644)) }, nil, "the file is empty"},
		{"jar not a zip", nil, nil, func(j string) { require.NoError(t, os.WriteFile(j, []byte("<html>404</html>"), 0o644)) }, nil, "not a complete zip archive"},
		{"jar truncated", nil, nil, func(j string) {
			data, err := os.ReadFile(j)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(j, data[:len(data)-10], 0o644))
		}, nil, "not a complete zip archive"},
		{"jar of something else", nil, nil, func(j string) { faketlc.WriteZip(t, j, "org/other/Main.class") }, nil, "holds no tlc2/TLC.class"},
	}
	if _, err := os.Stat("/proc/self"); err == nil {
		tests = append(tests, badTLCInput{"out not writable", nil, nil, nil, func(*testing.T) string { return "/proc/self/fencelab-out" }, "cannot be written"})
	}
	if os.Getuid() != 0 {
		tests = append(tests, badTLCInput{"out read-only", nil, nil, nil, func(t *testing.T) string {
			d := t.TempDir()
			require.NoError(t, os.Chmod(d, 0o555))
			t.Cleanup(func() { os.Chmod(d, 0o755) })
			return d
		}, "cannot be written"})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := faketlc.New(t, "cat "+mustAbs(t, okOutput), "exit 0")
			specs := faketlc.Specs(t, tc.models...)
			// A folder beside --out that a hostile name would reach.
			victim := filepath.Join(filepath.Dir(specs), "victim")
			require.NoError(t, os.MkdirAll(filepath.Join(victim, "keep"), 0o755))
			if tc.setup != nil {
				tc.setup(specs)
			}
			if tc.jar != nil {
				tc.jar(fake.Jar)
			}
			out := filepath.Join(filepath.Dir(specs), "out", "tlc")
			if tc.out != nil {
				out = tc.out(t)
			}
			code, _, stderr := runCLI(t, "tlc", "--pin", "../../tla2tools.version", "--specs", specs, "--out", out)
			assertBadInput(t, code, stderr, tc.wantErr)
			assert.NotContains(t, stderr, "stale")
			assert.Empty(t, fake.Runs(t), "nothing ran")
			assert.DirExists(t, filepath.Join(victim, "keep"), "nothing outside --out is touched")
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			assert.Equal(t, "keep me", string(data))
		})
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	require.NoError(t, err)
	return abs
}

// TestTLCFailureIsOneLine: a model TLC fails on exits 1 with two lines on
// stderr, which jar ran and the one-line error that says where.
func TestTLCFailureIsOneLine(t *testing.T) {
	faketlc.New(t, "cat "+mustAbs(t, "../../tlc/testdata/tool_parse_error.out")+"; exit 150", "exit 0")
	code, _, stderr := runCLI(t, "tlc", "--pin", "../../tla2tools.version", "--specs", faketlc.Specs(t), "--out", t.TempDir())
	assert.Equal(t, exitFailure, code)
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	require.Len(t, lines, 2, stderr)
	assert.Contains(t, lines[0], "fencelab tlc: "+os.Getenv("TLA2TOOLS_JAR"))
	assert.Contains(t, lines[1], `fencelab tlc: 1 of 1 model differ from the manifest: model m: expected ok, TLC gave spec parse error (exit 150): DistLock.tla line 264, column 29`)
}

// TestTLCWorkersBounded: --workers is auto or a whole number from 1 to
// pipeline.TLCWorkersPerCore per core. Zero, negative, non-numeric and impossible
// counts (a hundred thousand threads would run TLC for a long while to
// fail) are refused up front: exit 2, one line, java never started,
// --out not created. The largest count allowed reaches TLC as given.
func TestTLCWorkersBounded(t *testing.T) {
	most := pipeline.TLCWorkersPerCore * runtime.NumCPU()
	for _, tc := range []struct{ name, workers, want string }{
		{"zero", "0", `got "0"`},
		{"negative", "-1", `got "-1"`},
		{"one above the bound", strconv.Itoa(most + 1), "a number from 1 to " + strconv.Itoa(most)},
		{"a hundred thousand", "100000", `got "100000"`},
		{"beyond int", "99999999999999999999", "a number from 1 to"},
		{"a fraction", "1.5", `got "1.5"`},
		{"empty", "", `got ""`},
		{"Auto in capitals", "AUTO", `got "AUTO"`},
		{"with a space", " 2", `got " 2"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := faketlc.New(t, "cat "+mustAbs(t, okOutput), "exit 0")
			out := filepath.Join(t.TempDir(), "out")
			code, _, stderr := runCLI(t, "tlc", "--pin", "../../tla2tools.version", "--specs", faketlc.Specs(t), "--out", out, "--workers", tc.workers)
			assertBadInput(t, code, stderr, tc.want)
			assert.Contains(t, stderr, "per core")
			assert.Empty(t, fake.Runs(t), "java never started")
			assert.NoDirExists(t, out, "nothing written")
		})
	}
	for _, workers := range []string{"1", strconv.Itoa(most)} {
		t.Run("accepted "+workers, func(t *testing.T) {
			args := filepath.Join(t.TempDir(), "args")
			faketlc.New(t, `echo "$@" > '`+args+`'; cat `+mustAbs(t, okOutput), "exit 0")
			code, _, stderr := runCLI(t, "tlc", "--pin", "../../tla2tools.version", "--specs", faketlc.Specs(t), "--out", t.TempDir(), "--workers", workers, "--no-cache")
			require.Equal(t, exitOK, code, stderr)
			got, err := os.ReadFile(args)
			require.NoError(t, err)
			assert.Contains(t, string(got), "-workers "+workers+" ")
		})
	}
}

// TestTLCCacheEnvRefusedUpFront: a FENCELAB_CACHE that cannot hold TLC's
// results and class archive — a file, a device, a link to nothing, below
// a file, a read-only folder, a relative path — is refused before
// anything runs (exit 2, one line naming the variable, java never
// started, nothing written), instead of being said to cache results it
// cannot. A folder that does not exist yet is used.
func TestTLCCacheEnvRefusedUpFront(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	require.NoError(t, os.WriteFile(file, []byte("keep me"), 0o644))
	dangling := filepath.Join(dir, "dangling")
	require.NoError(t, os.Symlink(filepath.Join(dir, "nowhere"), dangling))
	readOnly := filepath.Join(dir, "read-only")
	require.NoError(t, os.Mkdir(readOnly, 0o555))
	t.Cleanup(func() { os.Chmod(readOnly, 0o755) })
	for _, tc := range []struct{ name, cache, want string }{
		{"a file", file, "FENCELAB_CACHE " + file + " is a regular file, not a folder"},
		{"a device", "/dev/null", "FENCELAB_CACHE /dev/null is a character device, not a folder"},
		{"a link to nothing", dangling, "is a symbolic link to nothing"},
		{"below a file", filepath.Join(file, "cache"), "FENCELAB_CACHE " + filepath.Join(file, "cache") + " cannot be created"},
		{"a read-only folder", readOnly, "is read-only (mode 0555)"},
		{"relative", "cache", "FENCELAB_CACHE cache must be an absolute path"},
	} {
		for _, command := range [][]string{
			{"tlc"},
			{"conform", "--walks", "1", "--explore=false", "--sim-runs", "0", "--sim-failing", "0", "--replay=false", "--specs", mustAbs(t, "../../specs")},
		} {
			t.Run(command[0]+" "+tc.name, func(t *testing.T) {
				fake := faketlc.New(t, "cat "+mustAbs(t, okOutput), "exit 0")
				t.Setenv("FENCELAB_CACHE", tc.cache)
				out := filepath.Join(t.TempDir(), "out")
				args := append(append([]string{}, command...), "--pin", mustAbs(t, "../../tla2tools.version"), "--out", out)
				if command[0] == "tlc" {
					args = append(args, "--specs", faketlc.Specs(t))
				}
				cwd := t.TempDir()
				t.Chdir(cwd) // a relative FENCELAB_CACHE would land here
				code, _, stderr := runCLI(t, args...)
				assertBadInput(t, code, stderr, tc.want)
				assert.NotContains(t, stderr, "results cached in")
				assert.Empty(t, fake.Runs(t), "java never started")
				assert.NoDirExists(t, out, "nothing written")
				data, err := os.ReadFile(file)
				require.NoError(t, err)
				assert.Equal(t, "keep me", string(data))
				for _, d := range []string{readOnly, cwd} {
					entries, err := os.ReadDir(d)
					require.NoError(t, err)
					assert.Empty(t, entries, d)
				}
			})
		}
	}
	t.Run("a folder yet to be made", func(t *testing.T) {
		faketlc.New(t, "cat "+mustAbs(t, okOutput), "exit 0")
		cache := filepath.Join(t.TempDir(), "new", "cache")
		t.Setenv("FENCELAB_CACHE", cache)
		code, _, stderr := runCLI(t, "tlc", "--pin", "../../tla2tools.version", "--specs", faketlc.Specs(t), "--out", t.TempDir())
		require.Equal(t, exitOK, code, stderr)
		assert.Contains(t, stderr, "results cached in "+filepath.Join(cache, "tlc"))
	})
}
