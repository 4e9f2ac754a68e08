//go:build unix

package main

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fencelab/fencelab/internal/faketlc"
	"github.com/fencelab/fencelab/internal/inputfile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostileFiles are the files the hostile cases point commands at, made
// once in one folder that no case may change.
type hostileFiles struct {
	dir                         string
	fifo, zeroLink, huge, aFile string
	dangling, belowFile, folder string
	unwritable                  string // a folder no one can create files in
	readOnly, readOnlyFile      string // mode without a write bit
	goodTrace, laneTwice        string
	backMinusOne                string
	specs, fifoSpecs, zeroSpecs string
	pipeModule                  string // a specs folder with a module that is a pipe
	pin                         string
	bigValue                    string // 1 MB, to be echoed by a bounded prefix
}

func newHostileFiles(t *testing.T) *hostileFiles {
	t.Helper()
	dir := t.TempDir()
	f := &hostileFiles{dir: dir}
	path := func(name string) string { return filepath.Join(dir, name) }
	write := func(name, content string) string {
		require.NoError(t, os.WriteFile(path(name), []byte(content), 0o644))
		return path(name)
	}
	f.fifo = path("fifo")
	require.NoError(t, syscall.Mkfifo(f.fifo, 0o644))
	f.zeroLink = path("tlc.out")
	require.NoError(t, os.Symlink("/dev/zero", f.zeroLink))
	// Sparse: a file above the limit costs no disk.
	f.huge = path("huge.out")
	h, err := os.Create(f.huge)
	require.NoError(t, err)
	require.NoError(t, h.Truncate(inputfile.MaxOutput+1))
	require.NoError(t, h.Close())
	f.aFile = write("a-file", "")
	f.dangling = path("dangling")
	require.NoError(t, os.Symlink(path("nowhere"), f.dangling))
	f.belowFile = filepath.Join(f.aFile, "out")
	f.folder = path("folder")
	require.NoError(t, os.Mkdir(f.folder, 0o755))
	// Not writable, for root too.
	f.unwritable = "/proc/self/fencelab-out"
	f.readOnly = path("read-only")
	require.NoError(t, os.Mkdir(f.readOnly, 0o555))
	t.Cleanup(func() { os.Chmod(f.readOnly, 0o755) })
	f.readOnlyFile = write("read-only.txt", "mine")
	require.NoError(t, os.Chmod(f.readOnlyFile, 0o444))
	f.goodTrace = write("good.json", `{"lanes": ["c1", "service"], "steps": [{"number": 1, "action": "Init"}, {"number": 2, "actor": "c1", "action": "a"}]}`)
	f.laneTwice = write("lane-twice.json", `{"lanes": ["c1", "service", "c1"], "steps": [{"number": 1, "action": "Init"}]}`)
	lasso, err := os.ReadFile("../../tlc/testdata/plain_lasso.out")
	require.NoError(t, err)
	f.backMinusOne = write("back-minus-one.out", strings.Replace(string(lasso), "Back to state 1:", "Back to state -1:", 1))
	f.specs = mustAbs(t, "../../specs")
	f.fifoSpecs = path("fifo-specs")
	require.NoError(t, os.Mkdir(f.fifoSpecs, 0o755))
	require.NoError(t, syscall.Mkfifo(filepath.Join(f.fifoSpecs, "models.json"), 0o644))
	f.pipeModule = faketlc.Specs(t)
	require.NoError(t, syscall.Mkfifo(filepath.Join(f.pipeModule, "Other.tla"), 0o644))
	f.zeroSpecs = path("zero-specs")
	require.NoError(t, os.Mkdir(f.zeroSpecs, 0o755))
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(f.zeroSpecs, "models.json")))
	f.pin = write("tla2tools.version", "version=v1.7.4\nurl=http://127.0.0.1:1/tla2tools.jar\nsha256=936a262061c914694dfd669a543be24573c45d5aa0ff20a8b96b23d01e050e88\n")
	f.bigValue = strings.Repeat("c", 1<<20)
	return f
}

// schedule writes a one-fault schedule with the given fault JSON.
func (f *hostileFiles) schedule(t *testing.T, fault string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "schedule.json")
	require.NoError(t, os.WriteFile(p, []byte(`{"version": 1, "seed": 1, "faults": [`+fault+`]}`), 0o644))
	return p
}

// listing is every path under dir with its size, to tell that nothing
// in it changed.
func listing(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		out = append(out, p+" "+info.Mode().String()+" "+strconv.FormatInt(info.Size(), 10))
		return nil
	}))
	return out
}

// TestHostileInputEveryCommand: hostile input to every command — files
// that never end or block (/dev/zero, a link to it, a named pipe), files
// above the limit, unusable --out folders and files, values of a
// megabyte, malformed schedules, node names and traces, a broken TLC — is
// refused up front: exit 2, exactly one line on stderr, no panic or stack
// trace, a bounded message, nothing created anywhere (the working folder,
// TMPDIR, the inputs and this package's folder stay as they were), within
// a time bound.
func TestHostileInputEveryCommand(t *testing.T) {
	f := newHostileFiles(t)
	pkg, err := os.Getwd()
	require.NoError(t, err)
	pkgBefore := listing(t, pkg)
	inputsBefore := listing(t, f.dir)
	big := f.bigValue
	node := func(name string) string {
		return `{"kind": "pause", "node": "` + name + `", "at": "1s", "duration": "1s"}`
	}
	sim := func(args ...string) []string { return append([]string{"sim", "--design", "all"}, args...) }
	type hostile struct {
		name string
		args func(t *testing.T) []string
		want string
	}
	fixed := func(args ...string) func(*testing.T) []string { return func(*testing.T) []string { return args } }
	tests := []hostile{
		// Inputs that never end, block, or are too large.
		{"trace /dev/zero", fixed("trace", "/dev/zero"), "a character device, not a regular file"},
		{"trace a tlc.out linked to /dev/zero", fixed("trace", f.zeroLink), "a character device, not a regular file"},
		{"trace a named pipe", fixed("trace", f.fifo), "a named pipe, not a regular file"},
		{"trace a file above the limit", fixed("trace", f.huge), "more than the limit of 67108864"},
		{"trace a folder", fixed("trace", f.folder), "a folder, not a regular file"},
		{"trace a missing file", fixed("trace", filepath.Join(f.dir, "missing.out")), "no such file"},
		{"sim --schedule a named pipe", fixed(sim("--schedule", f.fifo)...), "a named pipe, not a regular file"},
		{"sim --schedule /dev/zero", fixed(sim("--schedule", "/dev/zero")...), "a character device"},
		{"sim --schedule above the limit", fixed(sim("--schedule", f.huge)...), "more than the limit of 16777216"},
		{"tlc, models.json a named pipe", fixed("tlc", "--specs", f.fifoSpecs, "--pin", "PIN"), "a named pipe, not a regular file"},
		{"tlc, models.json linked to /dev/zero", fixed("tlc", "--specs", f.zeroSpecs, "--pin", "PIN"), "a character device, not a regular file"},
		{"tlc --pin a named pipe", fixed("tlc", "--specs", f.specs, "--pin", f.fifo, "--out", filepath.Join(f.dir, "unused")), "a named pipe, not a regular file"},
		{"tlc --pin /dev/zero", fixed("tlc", "--specs", f.specs, "--pin", "/dev/zero", "--out", filepath.Join(f.dir, "unused")), "a character device, not a regular file"},
		{"conform --pin a named pipe", fixed("conform", "--specs", f.specs, "--pin", f.fifo, "--out", filepath.Join(f.dir, "unused")), "a named pipe, not a regular file"},
		{"tlc, a module of the specs folder a named pipe", fixed("tlc", "--specs", f.pipeModule, "--pin", "PIN"), "Other.tla is a named pipe, not a regular file"},
		{"demo, models.json a named pipe", fixed("demo", "--specs", f.fifoSpecs, "--pin", "PIN"), "a named pipe, not a regular file"},
		{"demo --update-readme a named pipe", fixed("demo", "--specs", f.specs, "--pin", "PIN", "--update-readme", f.fifo), "a named pipe, not a regular file"},
		{"demo --update-readme without the matrix's picture", fixed("demo", "--specs", f.specs, "--pin", "PIN", "--update-readme", f.goodTrace), `no "matrix" block`},

		// Malformed content.
		{"trace.json with a lane twice", fixed("trace", f.laneTwice), `the lane "c1" is listed twice`},
		{"TLC output: Back to state -1", fixed("trace", f.backMinusOne), "Back to state -1"},
		{"schedule: a pause with by", func(t *testing.T) []string {
			return sim("--schedule", f.schedule(t, `{"kind": "pause", "node": "c1", "at": "1s", "duration": "1s", "by": "1s"}`))
		}, `"by" does not belong to a pause`},
		{"schedule: a drift with at", func(t *testing.T) []string {
			return sim("--schedule", f.schedule(t, `{"kind": "drift", "node": "c1", "ppm": 5, "at": "1s"}`))
		}, `"at" does not belong to a drift`},
		{"schedule: a jump with ppm", func(t *testing.T) []string {
			return sim("--schedule", f.schedule(t, `{"kind": "jump", "node": "c1", "at": "1s", "by": "1s", "ppm": 0}`))
		}, `"ppm" does not belong to a jump`},
	}
	for _, name := range []string{"c+1", "c01", "c0", " c1", "C1", "c1 ", "service1", "c-1"} {
		tests = append(tests, hostile{"schedule: node " + name, func(t *testing.T) []string { return sim("--schedule", f.schedule(t, node(name))) }, `unknown node "` + name + `"`})
	}
	tests = append(tests, []hostile{
		{"schedule: a node of a megabyte", func(t *testing.T) []string { return sim("--schedule", f.schedule(t, node(big))) }, `…(1048576 bytes)`},

		// Values of a megabyte are echoed by a bounded prefix.
		{"unknown command of a megabyte", fixed(big), `…(1048576 bytes)`},
		{"unknown flag of a megabyte", fixed("bounds", "--"+big), `…(1048577 bytes)`},
		{"bounds: a value of a megabyte", fixed("bounds", "--max-pause", big), `…(1048576 bytes)`},
		{"designs: an argument of a megabyte", fixed("designs", big), `…(1048576 bytes)`},
		{"explore: a design of a megabyte", fixed("explore", "--design", big), `…(1048576 bytes)`},
		{"explore: an invariant of a megabyte", fixed("explore", "--invariant", big), `…(1048576 bytes)`},
		{"sim: a design of a megabyte", fixed("sim", "--design", big), `…(1048576 bytes)`},
		{"sim: faults of a megabyte", fixed("sim", "--faults", big), `…(1048576 bytes)`},
		{"sweep: a grid of a megabyte", fixed("sweep", "--grid", big), `…(1048576 bytes)`},
		{"trace: a format of a megabyte", fixed("trace", "--format", big, f.goodTrace), `…(1048576 bytes)`},
		{"tlc: a model of a megabyte", fixed("tlc", "--specs", f.specs, "--pin", "PIN", "--model", big), `…(1048576 bytes)`},
		{"tlc: an unknown model is answered with the nearest", fixed("tlc", "--specs", f.specs, "--pin", "PIN", "--model", "DistLock_2c_NoLostUpdat"), "did you mean DistLock_2c_NoLostUpdate"},
		{"trace: a path of a megabyte", fixed("trace", filepath.Join(f.dir, big)), `…(`},
		{"sim: a schedule path of a megabyte", fixed(sim("--schedule", filepath.Join(f.dir, big))...), `…(`},
		{"tlc: a specs path of a megabyte", fixed("tlc", "--specs", filepath.Join(f.dir, big), "--pin", "PIN"), `…(`},
		{"tlc: a pin path of a megabyte", fixed("tlc", "--specs", f.specs, "--pin", filepath.Join(f.dir, big), "--out", filepath.Join(f.dir, "unused")), `…(`},
		{"explore: an --out of a megabyte", fixed("explore", "--design", "off", "--out", filepath.Join(f.dir, big)), `…(`},
		{"sweep: runs without end", fixed("sweep", "--runs", "1000000000"), "runs must be at most 100000 per cell"},
		{"sweep: a billion workers", fixed("sweep", "--workers", "1000000000"), "workers must be at most 1024"},
		{"conform: walks of a megabyte", fixed("conform", "--walks", big), `…(1048576 bytes)`},
	}...)

	// Every --out that cannot be used, for every command that has one.
	outCommands := []struct {
		name string
		args []string
	}{
		{"sim", []string{"sim"}},
		{"sweep", []string{"sweep"}},
		{"explore", []string{"explore", "--design", "off"}},
		{"tlc", []string{"tlc", "--specs", f.specs, "--pin", "PIN"}},
		{"conform", []string{"conform", "--specs", f.specs, "--pin", "PIN"}},
		{"demo", []string{"demo", "--specs", f.specs, "--pin", "PIN"}},
	}
	outs := []struct{ name, path, want string }{
		{"empty", "", "--out is empty: name a folder"},
		{"a file", f.aFile, "a regular file, not a folder"},
		{"below a file", f.belowFile, "cannot be created"},
		{"a dangling link", f.dangling, "a symbolic link to nothing"},
		{"not writable", f.unwritable, "cannot be written"},
		{"read-only", f.readOnly, "is read-only (mode 0555)"},
		{"below a read-only folder", filepath.Join(f.readOnly, "out"), "is read-only (mode 0555)"},
	}
	for _, c := range outCommands {
		for _, o := range outs {
			if o.path == "" && c.name == "explore" {
				continue // explore --out "": write nothing, by design
			}
			tests = append(tests, hostile{c.name + " --out " + o.name, fixed(append(slices.Clone(c.args), "--out", o.path)...), o.want})
		}
	}
	for _, o := range []struct{ name, path, want string }{
		{"/dev/full", "/dev/full", "a character device, not a regular file"},
		{"a named pipe", f.fifo, "a named pipe, not a regular file"},
		{"a folder", f.folder, "a folder, not a regular file"},
		{"a dangling link", f.dangling, "a symbolic link to nothing"},
		{"below a file", filepath.Join(f.aFile, "trace.txt"), "not a directory"},
		{"a read-only file", f.readOnlyFile, "is read-only (mode 0444)"},
		{"in a read-only folder", filepath.Join(f.readOnly, "trace.txt"), "is read-only (mode 0555)"},
	} {
		tests = append(tests, hostile{"trace --out " + o.name, fixed("trace", "--out", o.path, f.goodTrace), o.want})
	}

	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cwd := t.TempDir()
			t.Chdir(cwd) // a default --out (out/...) would land here
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			t.Setenv("TLA2TOOLS_JAR", "")
			t.Setenv("HOME", t.TempDir())
			t.Setenv("XDG_CACHE_HOME", t.TempDir())
			args := tc.args(t)
			for i, a := range args {
				if a == "PIN" {
					args[i] = f.pin
				}
			}
			type result struct {
				code           int
				stdout, stderr string
			}
			done := make(chan result, 1)
			start := time.Now()
			go func() {
				code, stdout, stderr := runCLI(t, args...)
				done <- result{code, stdout, stderr}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(60 * time.Second):
				t.Fatalf("still running after 60 s (a blocked read?)")
			}
			assertBadInput(t, r.code, r.stderr, tc.want)
			assert.NotContains(t, r.stderr, "goroutine ", "no stack trace")
			assert.NotContains(t, r.stderr, "panic", "no panic")
			assert.Less(t, len(r.stderr), 2*maxMessage, "a bounded message")
			assert.Less(t, time.Since(start), 30*time.Second, "refused up front")
			assert.Empty(t, listing(t, cwd)[1:], "nothing created in the working folder")
			assert.Empty(t, listing(t, tmp)[1:], "nothing left in TMPDIR")
		})
	}
	assert.Equal(t, inputsBefore, listing(t, f.dir), "the inputs are as they were")
	assert.Equal(t, pkgBefore, listing(t, pkg), "nothing created in the package's folder")
}

// TestBrokenTLCIsBadInput: a java that prints garbage (whatever its exit
// code), and a TLA2TOOLS_JAR with one flipped bit, are bad input (exit 2,
// one line), not a model that "differs from the manifest".
func TestBrokenTLCIsBadInput(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"garbage, exit 0", "echo garbage; exit 0", "not TLC's output"},
		{"garbage, exit 12", "head -c 3000 /dev/urandom; exit 12", "not TLC's output"},
		{"an evaluation error without TLC's framing", "echo 'Error: Evaluating'; exit 75", "not TLC's output"},
		{"TLC's version line, then nothing, exit 0", "echo 'TLC2 Version 2.19 of 08 August 2024 (rev: 5a47802)'; exit 0", "without TLC's closing state count"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			faketlc.New(t, tc.body, "exit 0")
			code, _, stderr := runCLI(t, "tlc", "--pin", "../../tla2tools.version", "--specs", faketlc.Specs(t), "--out", t.TempDir())
			stderr = strings.TrimPrefix(stderr, stderr[:strings.Index(stderr, "\n")+1]) // the jar line
			assertBadInput(t, code, stderr, tc.want)
			assert.NotContains(t, stderr, "differs from the manifest")
		})
	}
	t.Run("conform, garbage", func(t *testing.T) {
		faketlc.New(t, "echo garbage; exit 0", "exit 0")
		code, _, stderr := runCLI(t, "conform", "--walks", "1", "--explore=false", "--sim-runs", "0", "--sim-failing", "0", "--replay=false",
			"--specs", "../../specs", "--pin", "../../tla2tools.version", "--out", t.TempDir())
		assertBadInput(t, code, lastLine(stderr), "not TLC's output")
	})
	t.Run("a jar with a flipped bit", func(t *testing.T) {
		fake := faketlc.New(t, "cat "+mustAbs(t, okOutput), "exit 0")
		// A jar holding the two mains and, stored uncompressed, a class
		// whose bytes are known, so one of them can be flipped.
		out, err := os.Create(fake.Jar)
		require.NoError(t, err)
		zw := zip.NewWriter(out)
		for _, n := range []string{"tlc2/TLC.class", "pcal/trans.class"} {
			w, err := zw.Create(n)
			require.NoError(t, err)
			_, err = w.Write([]byte("class " + n))
			require.NoError(t, err)
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: "tlc2/Other.class", Method: zip.Store})
		require.NoError(t, err)
		_, err = w.Write(bytes.Repeat([]byte("A"), 4096))
		require.NoError(t, err)
		require.NoError(t, zw.Close())
		require.NoError(t, out.Close())
		data, err := os.ReadFile(fake.Jar)
		require.NoError(t, err)
		at := bytes.Index(data, bytes.Repeat([]byte("A"), 4096))
		require.Positive(t, at)
		data[at+2048] ^= 0x01
		require.NoError(t, os.WriteFile(fake.Jar, data, 0o644))

		code, _, stderr := runCLI(t, "tlc", "--pin", "../../tla2tools.version", "--specs", faketlc.Specs(t), "--out", t.TempDir())
		assertBadInput(t, code, stderr, "tlc2/Other.class cannot be read")
		assert.Empty(t, fake.Runs(t), "java never ran")
	})
}
