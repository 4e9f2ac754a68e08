// Package faketlc is test support: a stand-in for Java and the TLA+ tools,
// so that what runs TLC (its scheduling, its files, its exit codes and
// processes) is tested without TLC. The product does not import it.
package faketlc

import (
	"archive/zip"
	"fmt"
	"github.com/fencelab/fencelab/internal/testexec"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TLC is a "java" script first on PATH that appends every run's main
// class to a log and does what the test asks of TLC and of the PlusCal
// translator, and a TLA2TOOLS_JAR that is a zip holding the two classes.
type TLC struct {
	Dir, Log, Jar string
}

// New puts a fake java first on t's PATH and its jar in TLA2TOOLS_JAR:
// TLC runs tlcBody, the PlusCal translator pcalBody (shell commands).
func New(t *testing.T, tlcBody, pcalBody string) *TLC {
	t.Helper()
	f := &TLC{Dir: t.TempDir()}
	f.Log = filepath.Join(f.Dir, "runs.log")
	f.Jar = filepath.Join(f.Dir, "tla2tools.jar")
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
`, f.Log, tlcBody, pcalBody)
	testexec.Write(t, filepath.Join(f.Dir, "java"), []byte(script))
	WriteZip(t, f.Jar, "tlc2/TLC.class", "pcal/trans.class")
	t.Setenv("PATH", f.Dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("TLA2TOOLS_JAR", f.Jar)
	// TLC's results are cached in the test's own folder, never the
	// user's (and never another test's fake's).
	t.Setenv("FENCELAB_CACHE", t.TempDir())
	return f
}

// Runs lists the main classes java was started with, in order.
func (f *TLC) Runs(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(f.Log)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	return strings.Fields(string(data))
}

// WriteZip writes a zip archive at path holding the files names.
func WriteZip(t *testing.T, path string, names ...string) {
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

// Specs writes a specs folder: S.tla, m.cfg, and a manifest of the given
// model entries (the fields of a JSON object without its braces: name,
// spec and cfg; each expects "ok, 1409 distinct states" of design all).
// Without entries, one model m of S.tla and m.cfg.
func Specs(t *testing.T, entries ...string) string {
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
