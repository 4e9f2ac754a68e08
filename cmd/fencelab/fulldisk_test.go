package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/internal/atomicfile"
	"github.com/fencelab/fencelab/internal/faketlc"
	"github.com/fencelab/fencelab/pipeline"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runCLIOnDisk runs the command in-process with its files saved on disk.
func runCLIOnDisk(t *testing.T, disk *atomicfile.Disk, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &env{Env: pipeline.Env{Stdout: &out, Stderr: &errb, Disk: disk}})
	return code, out.String(), errb.String()
}

// TestFullDiskEveryCommand: a disk that fills while a command saves —
// after no byte, after a few, after most of a file — is "could not save
// …", exit 2, on one line (after the command's own progress lines), never
// a verdict; it leaves no truncated file, no temporary file and no empty
// folder, and a file that was there stays whole.
func TestFullDiskEveryCommand(t *testing.T) {
	good := filepath.Join(t.TempDir(), "good.json")
	require.NoError(t, os.WriteFile(good, []byte(`{"lanes": ["c1", "service"], "steps": [{"number": 1, "action": "Init"}, {"number": 2, "actor": "c1", "action": "a"}]}`), 0o644))
	tests := []struct {
		name string
		args func(out string) []string
		file bool // --out is a file
	}{
		{"trace", func(out string) []string { return []string{"trace", "--format", "html", "--out", out, good} }, true},
		{"explore", func(out string) []string { return []string{"explore", "--design", "off", "--out", out} }, false},
		{"sim", func(out string) []string {
			return []string{"sim", "--design", "none", "--runs", "1", "--seed", "14", "--out", out}
		}, false},
		{"sim --replay", func(out string) []string {
			return []string{"sim", "--design", "none", "--replay", "14", "--out", out}
		}, false},
		{"sweep", func(out string) []string {
			return []string{"sweep", "--design", "off", "--grid", "pause:0..100ms/2,lock-delay:0..100ms/2", "--runs", "1", "--out", out}
		}, false},
		{"sim --shard", func(out string) []string {
			// Every design: a result larger than the largest free space.
			return []string{"sim", "--runs", "2", "--seed", "14", "--shard", "1/2", "--out", out}
		}, false},
		{"sweep --shard", func(out string) []string {
			return []string{"sweep", "--design", "off", "--grid", "pause:0..100ms/4,lock-delay:0..100ms/4", "--runs", "1", "--shard", "0/2", "--out", out}
		}, false},
	}
	for _, tc := range tests {
		for _, free := range []int64{0, 7, 3000} {
			t.Run(tc.name+" "+strconv.FormatInt(free, 10), func(t *testing.T) {
				parent := t.TempDir()
				out := filepath.Join(parent, "out")
				if tc.file {
					require.NoError(t, os.WriteFile(out, []byte("former"), 0o644))
				}
				code, _, stderr := runCLIOnDisk(t, atomicfile.FullAfter(free), tc.args(out)...)
				last := lastLine(stderr)
				assert.Equal(t, exitBadInput, code, stderr)
				assert.Contains(t, last, "could not save")
				assert.Contains(t, last, "no space left on device")
				assert.NotContains(t, stderr, "differ")
				if tc.file {
					got, err := os.ReadFile(out)
					require.NoError(t, err)
					assert.Equal(t, "former", string(got), "the former file stays whole")
				} else if _, err := os.Stat(out); err == nil {
					// Files that were complete before the disk filled stay,
					// whole; no folder is left empty or with a part of a file.
					require.NoError(t, filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
						require.NoError(t, err)
						assert.False(t, strings.HasPrefix(d.Name(), "."), "temporary %s left", p)
						if d.IsDir() {
							entries, err := os.ReadDir(p)
							require.NoError(t, err)
							assert.NotEmpty(t, entries, "empty folder %s left", p)
						}
						return nil
					}))
				}
				entries, err := os.ReadDir(parent)
				require.NoError(t, err)
				for _, e := range entries {
					assert.False(t, strings.HasPrefix(e.Name(), "."), "temporary %s left", e.Name())
				}
			})
		}
	}
}

// TestFullDiskInTLCIsNotAVerdict: TLC ran and matched the manifest, but
// its output could not be saved: exit 2, "could not save", not a model
// that "differs from the manifest".
func TestFullDiskInTLCIsNotAVerdict(t *testing.T) {
	faketlc.New(t, "cat "+mustAbs(t, okOutput), "exit 0")
	out := filepath.Join(t.TempDir(), "tlc")
	code, _, stderr := runCLIOnDisk(t, atomicfile.FullAfter(100), "tlc", "--pin", "../../tla2tools.version", "--specs", faketlc.Specs(t), "--out", out)
	assert.Equal(t, exitBadInput, code, stderr)
	assert.Contains(t, lastLine(stderr), "could not save")
	assert.NotContains(t, stderr, "differ")
	assert.NoDirExists(t, out, "the --out it created is removed again, empty")
}
