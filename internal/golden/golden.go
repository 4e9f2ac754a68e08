// Package golden keeps the pinned figures of each design row — state
// counts, depths, shortest counterexample lengths, simulator counts, TLC's
// distinct states — in one text file per row, testdata/pins/<row>.golden
// at the module root (<row> is the row's --design flag value), in the
// manner of etcd-io/raft's testdata scripts: a test compares what it
// measured with the file, and the same test run with -update rewrites the
// file instead, so that a changed figure is a reviewed diff, never a hand
// edit of a literal. A test file keeps the table of what it pins and the
// comments that say why a figure is what it is; the numbers live here.
//
// A file is one figure per line, "key value", sorted by key; '#' starts a
// comment line. Rewrites take a lock on the file, because go test runs
// packages in parallel processes, and keep every other key.
//
// # Keys
//
// A key is dot-separated words: the checker first, then the model or
// batch, then the figure, with properties named as the specs name them
// (impl.Invariants):
//
//	explore.<N>c[.<variant>].states         distinct states
//	explore.<N>c[.<variant>].generated      states generated
//	explore.<N>c[.<variant>].depth          depth of the search
//	explore.<N>c[.<variant>].<Property>.verdict   holds, violated, not-applicable
//	explore.<N>c[.<variant>].<Property>.shortest  actions of the shortest counterexample
//	sim.<config>.<R>runs.violations.<Property>    runs that violated it
//	sim.<config>.<R>runs.committed                sections committed
//	sim.<config>.<R>runs.digest                   SHA-256 of every run's figures
//	tlc.<Model>.distinct_states                   TLC's, from specs/models.json
//
// <N> is the clients; <variant> what differs from the checker's default
// configuration, e.g. "sym" (client symmetry), "send" (the send rule),
// "sym.2nodes" (and 2 lock nodes), "rejects-lost" (a network that loses
// rejections); <config> names the simulator's configuration, "default"
// for sim.DefaultConfig; <R> the runs, seeds 1 to R; <Model> a model of
// specs/models.json.
//
// # Rewriting
//
// Every test package with goldens — these row files or rendered outputs
// under its own testdata — declares the one flag
//
//	var update = flag.Bool("update", false, golden.UpdateUsage)
//
// and make golden runs those packages' tests with -update (go test ./...
// -update would stop at the packages without the flag); go test
// ./explore -update rewrites one package's. internal/testbuild checks
// that every package importing this one in its tests declares the flag.
package golden

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/internal/atomicfile"
)

// UpdateUsage is the usage of every test package's -update flag, the one
// convention for rewriting committed expectations:
//
//	var update = flag.Bool("update", false, golden.UpdateUsage)
const UpdateUsage = "rewrite the golden files (pinned figures, rendered outputs) instead of comparing; review the diff"

// Figures are one row's pinned figures by key.
type Figures map[string]string

// Dir is the folder of the row files under the module root.
const Dir = "testdata/pins"

// Path is the golden file of design row row (its --design flag value),
// found from the module root above the working directory.
func Path(row string) (string, error) {
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, filepath.FromSlash(Dir), row+".golden"), nil
}

// ModuleRoot is the nearest folder at or above the working directory that
// holds go.mod: where a test of any package finds the row files.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("golden: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("golden: no go.mod at or above the working directory")
		}
		dir = parent
	}
}

// Parse reads a row file's text.
func Parse(data []byte) (Figures, error) {
	f := Figures{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, " ")
		value = strings.TrimSpace(value)
		if !ok || value == "" {
			return nil, fmt.Errorf("golden: line %d: want \"key value\", got %q", n, line)
		}
		if _, dup := f[key]; dup {
			return nil, fmt.Errorf("golden: line %d: key %s twice", n, key)
		}
		f[key] = value
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("golden: %w", err)
	}
	return f, nil
}

// Read reads the row file at path; a missing file is no figures.
func Read(path string) (Figures, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Figures{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("golden: %w", err)
	}
	f, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Format is the text of a row file: a header naming the row and how to
// rewrite it, then the figures sorted by key.
func Format(row string, f Figures) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Pinned figures of the design row %s. Written by the tests:\n", row)
	b.WriteString("# make golden (go test -update in the packages with goldens) rewrites them,\n")
	b.WriteString("# TLC's with TLA2TOOLS_JAR set; review the diff.\n")
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s %s\n", k, f[k])
	}
	return b.Bytes()
}

// Lookup is the pinned figure of key in row's file, and whether there is one.
func Lookup(row, key string) (string, bool, error) {
	path, err := Path(row)
	if err != nil {
		return "", false, err
	}
	f, err := Read(path)
	if err != nil {
		return "", false, err
	}
	v, ok := f[key]
	return v, ok, nil
}

// Check compares got, formatted with %v, with the figure pinned under key
// in row's file. With update it records got instead (the test then
// passes: the diff of the file is what a reviewer reads). A figure with
// no pin fails the test, naming the flag that records it.
func Check(t testing.TB, update bool, row, key string, got any) {
	t.Helper()
	value := fmt.Sprint(got)
	if strings.ContainsAny(value, "\n") || value == "" || strings.ContainsAny(key, " \n") || key == "" {
		t.Fatalf("golden: key %q, value %q: a key is one word and a value one non-empty line", key, value)
	}
	path, err := Path(row)
	if err != nil {
		t.Fatal(err)
	}
	checkFile(t, update, path, row, key, value)
}

// checkFile is Check on the row file at path.
func checkFile(t testing.TB, update bool, path, row, key, value string) {
	t.Helper()
	if update {
		if err := set(path, row, key, value); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	want, ok := f[key]
	if !ok {
		t.Fatalf("%s: no pinned %s (measured %s): run the test with -update and review the diff", path, key, value)
	}
	if want != value {
		t.Errorf("%s: %s = %s, pinned %s: if the change is meant, rerun with -update and review the diff", path, key, value, want)
	}
}

// File compares got with the rendered golden file at path (a test's own
// testdata: a picture, a module, a README block). With update it writes
// got there instead, so that the change is a diff to review.
func File(t testing.TB, update bool, path string, got []byte) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("golden: %v", err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%s: no golden file: run the test with -update and review the diff", path)
	}
	if err != nil {
		t.Fatalf("golden: %v", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s: differs from what the test renders (first difference at byte %d): if the change is meant, rerun with -update and review the diff", path, firstDifference(want, got))
	}
}

// firstDifference is the offset of the first byte where a and b differ.
func firstDifference(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// set records one figure: read, change, write a temporary file and rename
// it over the row file, under an exclusive lock on the row file's folder.
func set(path, row, key, value string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("golden: %w", err)
	}
	unlock, err := lock(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer unlock()
	f, err := Read(path)
	if err != nil {
		return err
	}
	if f[key] == value {
		return nil
	}
	f[key] = value
	data := Format(row, f)
	if err := atomicfile.WriteFile(path, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		return fmt.Errorf("golden: %w", err)
	}
	return nil
}
