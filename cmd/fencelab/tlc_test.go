package main

import (
	"archive/zip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeTLC is a stand-in for Java and the TLA+ tools, so the command's
// handling of files, exit codes and processes is tested without TLC: a
// "java" script on PATH that appends every run's main class to a log and
// does what the test asks of TLC (tlcBody) and of the PlusCal translator
// (pcalBody), and a TLA2TOOLS_JAR that is a zip holding the two classes.
type fakeTLC struct {
	dir, log, jar string
}

func newFakeTLC(t *testing.T, tlcBody, pcalBody string) *fakeTLC {
	t.Helper()
	f := &fakeTLC{dir: t.TempDir()}
	f.log = filepath.Join(f.dir, "runs.log")
	f.jar = filepath.Join(f.dir, "tla2tools.jar")
	script := fmt.Sprintf(`#!/bin/sh
main=
for a in "$@"; do case $a in tlc2.TLC|pcal.trans) main=$a;; esac; done
echo "$main" >> '%s'
case $main in
tlc2.TLC)
%s
;;
pcal.trans)
%s
;;
esac
`, f.log, tlcBody, pcalBody)
	require.NoError(t, os.WriteFile(filepath.Join(f.dir, "java"), []byte(script), 0o755))
	writeZip(t, f.jar, "tlc2/TLC.class", "pcal/trans.class")
	t.Setenv("PATH", f.dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("TLA2TOOLS_JAR", f.jar)
	return f
}

// runs lists the main classes java was started with, in order.
func (f *fakeTLC) runs(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(f.log)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	return strings.Fields(string(data))
}

func writeZip(t *testing.T, path string, names ...string) {
	t.Helper()
	out, err := os.Create(path)
	require.NoError(t, err)
	zw := zip.NewWriter(out)
	for _, n := range names {
		w, err := zw.Create(n)
		require.NoError(t, err)
		_, err = w.Write([]byte("class " + n))
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	require.NoError(t, out.Close())
}

// specsFolder writes a specs folder: S.tla, one cfg per model, and a
// manifest of the given model entries (JSON objects without the braces'
// common fields: name, spec and cfg are given by each entry).
func specsFolder(t *testing.T, entries ...string) string {
	t.Helper()
	specs := filepath.Join(t.TempDir(), "specs")
	require.NoError(t, os.MkdirAll(specs, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(specs, "S.tla"), []byte("---- MODULE S ----\n(* --algorithm S { skip } *)\n====\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(specs, "m.cfg"), []byte("INIT Init\nNEXT Next\n"), 0o644))
	if len(entries) == 0 {
		entries = []string{`"name": "m", "spec": "S.tla", "cfg": "m.cfg"`}
	}
	var models []string
	for _, e := range entries {
		models = append(models, `{`+e+`, "design": "all", "expected": "ok", "distinct_states": 1409}`)
	}
	manifest := `{"models": [` + strings.Join(models, ", ") + `]}`
	require.NoError(t, os.WriteFile(filepath.Join(specs, "models.json"), []byte(manifest), 0o644))
	return specs
}

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
		{"jar of something else", nil, nil, func(j string) { writeZip(t, j, "org/other/Main.class") }, nil, "holds no tlc2/TLC.class"},
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
			fake := newFakeTLC(t, "cat "+mustAbs(t, okOutput), "exit 0")
			specs := specsFolder(t, tc.models...)
			// A folder beside --out that a hostile name would reach.
			victim := filepath.Join(filepath.Dir(specs), "victim")
			require.NoError(t, os.MkdirAll(filepath.Join(victim, "keep"), 0o755))
			if tc.setup != nil {
				tc.setup(specs)
			}
			if tc.jar != nil {
				tc.jar(fake.jar)
			}
			out := filepath.Join(filepath.Dir(specs), "out", "tlc")
			if tc.out != nil {
				out = tc.out(t)
			}
			code, _, stderr := runCLI(t, "tlc", "--pin", "../../tla2tools.version", "--specs", specs, "--out", out)
			assertBadInput(t, code, stderr, tc.wantErr)
			assert.NotContains(t, stderr, "stale")
			assert.Empty(t, fake.runs(t), "nothing ran")
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

// TestTLCResultsReplacedInPlace: each model's results are written to a
// temporary folder inside --out and renamed into place; the former results
// are replaced, other models' folders and whatever a former result linked
// to stay as they were, and no temporary folder is left.
func TestTLCResultsReplacedInPlace(t *testing.T) {
	fake := newFakeTLC(t, "cat "+mustAbs(t, okOutput), "exit 0")
	specs := specsFolder(t, `"name": "m", "spec": "S.tla", "cfg": "m.cfg"`, `"name": "n", "spec": "S.tla", "cfg": "m.cfg"`)
	out := filepath.Join(t.TempDir(), "out")
	elsewhere := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(elsewhere, "precious"), []byte("x"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(out, "other-model"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(out, "other-model", "tlc.out"), []byte("other"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(out, "m"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(out, "m", "from-before.txt"), nil, 0o644))
	require.NoError(t, os.Symlink(elsewhere, filepath.Join(out, "n"))) // a former result that is a link

	for range 2 {
		code, stdout, stderr := runCLI(t, "tlc", "--pin", "../../tla2tools.version", "--specs", specs, "--out", out)
		require.Equal(t, exitOK, code, "stdout: %s\nstderr: %s", stdout, stderr)
	}
	assert.Equal(t, []string{"pcal.trans", "tlc2.TLC", "tlc2.TLC", "pcal.trans", "tlc2.TLC", "tlc2.TLC"}, fake.runs(t))
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{"m", "n", "other-model"}, names, "no temporary folder is left")
	assert.FileExists(t, filepath.Join(out, "m", "tlc.out"))
	assert.NoFileExists(t, filepath.Join(out, "m", "from-before.txt"), "the former results are replaced")
	st, err := os.Lstat(filepath.Join(out, "n"))
	require.NoError(t, err)
	assert.True(t, st.IsDir(), "the link was replaced by a folder")
	assert.FileExists(t, filepath.Join(elsewhere, "precious"), "what a former result linked to is untouched")
	other, err := os.ReadFile(filepath.Join(out, "other-model", "tlc.out"))
	require.NoError(t, err)
	assert.Equal(t, "other", string(other))
}

// TestTLCTranslatorFailureIsNotStale: a translator that fails is reported
// as such (exit 1, an unexpected result), never as a stale translation.
func TestTLCTranslatorFailureIsNotStale(t *testing.T) {
	newFakeTLC(t, "cat "+mustAbs(t, okOutput), "echo 'Unrecoverable error: -- Missing `begin`.'; exit 1")
	specs := specsFolder(t)
	code, stdout, stderr := runCLI(t, "tlc", "--pin", "../../tla2tools.version", "--specs", specs, "--out", t.TempDir())
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stderr, "the PlusCal translation could not be checked: the PlusCal translator failed on S.tla (exit 1): Unrecoverable error")
	assert.NotContains(t, stdout+stderr, "stale")
	assert.Equal(t, 2, strings.Count(stderr, "\n"), "which jar, then the one-line error: %s", stderr)
}

// TestTLCErrorShowsWhere: a spec TLC cannot parse is reported with SANY's
// line, column and message in the table row and in the one-line error.
func TestTLCErrorShowsWhere(t *testing.T) {
	newFakeTLC(t, "cat "+mustAbs(t, "../../tlc/testdata/tool_parse_error.out")+"; exit 150", "exit 0")
	specs := specsFolder(t)
	code, stdout, stderr := runCLI(t, "tlc", "--pin", "../../tla2tools.version", "--specs", specs, "--out", t.TempDir())
	assert.Equal(t, exitFailure, code)
	where := `DistLock.tla line 264, column 29: encountered "writes"; was expecting "==== or more Module body"`
	assert.Contains(t, stdout, where, "in the table row")
	assert.Contains(t, stderr, "TLC gave spec parse error (exit 150): "+where, "in the one-line error")
	assert.Equal(t, 2, strings.Count(stderr, "\n"), "which jar, then the one-line error: %s", stderr)
}

// TestTLCPrintsInManifestOrder: models run two at a time, but the
// counterexamples and the table come out in the manifest's order even when
// the later models finish first (the fake TLC takes longest on the first
// model, least on the last), and every model still runs once.
func TestTLCPrintsInManifestOrder(t *testing.T) {
	violation := mustAbs(t, "../../tlc/testdata/tool_DistLock_2c_AtMostOneClientHoldLock.out")
	fake := newFakeTLC(t, `for a in "$@"; do case $a in a1.cfg) sleep 0.6;; a2.cfg) sleep 0.3;; esac; done
cat `+violation+`; exit 12`, "exit 0")
	var entries []string
	for _, name := range []string{"a1", "a2", "a3"} {
		entries = append(entries, `"name": "`+name+`", "spec": "S.tla", "cfg": "`+name+`.cfg"`)
	}
	specs := specsFolder(t, entries...)
	for _, name := range []string{"a1", "a2", "a3"} {
		require.NoError(t, os.WriteFile(filepath.Join(specs, name+".cfg"), []byte("INIT Init\nNEXT Next\n"), 0o644))
	}
	code, stdout, stderr := runCLI(t, "tlc", "--pin", "../../tla2tools.version", "--specs", specs, "--out", t.TempDir())
	require.Equal(t, exitFailure, code, "a violation where the manifest expects ok: %s", stderr)
	var at []int
	for _, name := range []string{"── a1: ", "── a2: ", "── a3: ", "\nmodel ", "\na1 ", "\na2 ", "\na3 "} {
		from := 0
		if len(at) > 0 {
			from = at[len(at)-1]
		}
		i := strings.Index(stdout[from:], name)
		require.GreaterOrEqual(t, i, 0, "%q missing after byte %d of:\n%s", name, from, stdout)
		at = append(at, from+i)
	}
	for _, name := range []string{"── a1: ", "── a2: ", "── a3: "} {
		assert.Equal(t, 1, strings.Count(stdout, name), "one counterexample of each model")
	}
	assert.Equal(t, []string{"pcal.trans", "tlc2.TLC", "tlc2.TLC", "tlc2.TLC"}, fake.runs(t))
}
