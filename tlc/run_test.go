package tlc

import (
	"context"
	"fmt"
	"github.com/fencelab/fencelab/internal/testexec"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEveryJavaRunHasAPrivateTmpdir: each run of java is given its own
// java.io.tmpdir, which exists while it runs and is gone afterwards, so
// concurrent TLC runs never share the folder TLC unpacks its modules into.
func TestEveryJavaRunHasAPrivateTmpdir(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "java")
	// The fake java prints its arguments and whether the tmpdir exists.
	script := "#!/bin/sh\nfor a in \"$@\"; do case $a in -Djava.io.tmpdir=*) d=${a#-Djava.io.tmpdir=}; echo \"tmpdir $d\"; [ -d \"$d\" ] && echo exists;; esac; done\n"
	testexec.Write(t, fake, []byte(script))
	r := &Runner{Java: fake, Jar: "tla2tools.jar"}
	var dirs []string
	for range 2 {
		out, code, err := r.java(context.Background(), dir, shortRun(), "tlc2.TLC")
		require.NoError(t, err)
		require.Equal(t, 0, code)
		lines := strings.Fields(string(out))
		require.Equal(t, []string{"tmpdir", lines[1], "exists"}, lines, "output: %s", out)
		dirs = append(dirs, lines[1])
		_, err = os.Stat(lines[1])
		assert.True(t, os.IsNotExist(err), "the tmpdir is removed after the run")
	}
	assert.NotEqual(t, dirs[0], dirs[1], "each run has its own")
}

// TestErrorDetail: a run that ends in an error shows where and what, as
// TLC printed it — SANY's parse error, its first semantic error, TLC's
// config and evaluation errors with their position — in one printable
// line of bounded length; output with no explained error gives "".
func TestErrorDetail(t *testing.T) {
	msg := func(code, sev int, body string) string {
		return fmt.Sprintf("@!@!@STARTMSG %d:%d @!@!@\n%s\n@!@!@ENDMSG %d @!@!@\n", code, sev, body, code)
	}
	tests := []struct {
		name, out, want string
	}{
		{"parse error", msg(2220, 0, "Starting SANY...") + "Parsing file /home/u/specs/Lock.tla\n***Parse Error***\nWas expecting \"==== or more Module body\"\nEncountered \"grant\" at line 42, column 7 and token \"=\" \n\nResidual stack trace follows:\n" + msg(3002, 1, "Parsing or semantic analysis failed."),
			`Lock.tla line 42, column 7: encountered "grant"; was expecting "==== or more Module body"`},
		{"parse error without a position", "***Parse Error***\nsomething odd\n", "the spec: parse error"},
		{"semantic errors", "Semantic errors:\n\n*** Errors: 3\n\nline 9, col 12 to line 9, col 14 of module Lock\n\nUnknown operator: `foo'.\n\n\nline 10, col 1 to line 10, col 3 of module Lock\n\nMore.\n" + msg(3002, 1, "Parsing or semantic analysis failed."),
			"Lock.tla line 9, column 12: Unknown operator: `foo'. (and 2 more semantic errors)"},
		{"one semantic error", "Semantic errors:\n\n*** Errors: 1\n\nline 3, col 1 to line 3, col 4 of module M\n\nMultiply-defined symbol 'x'\n",
			"M.tla line 3, column 1: Multiply-defined symbol 'x'"},
		{"undefined invariant in the cfg", msg(2185, 0, "Starting...") + msg(2229, 1, "The invariant Safe specified in the configuration file\nis not defined in the specification."),
			"The invariant Safe specified in the configuration file is not defined in the specification."},
		{"cfg syntax error, nested", "@!@!@STARTMSG 1000:1 @!@!@\nTLC threw an unexpected exception.\nThe exception was a tlc2.tool.ConfigFileException\n: " + msg(5006, 0, "TLC found an error in the configuration file at line 7\nIt was expecting a keyword, but did not find it.") + "@!@!@ENDMSG 1000 @!@!@\n",
			"the cfg line 7: TLC found an error in the configuration file at line 7 It was expecting a keyword, but did not find it."},
		{"evaluation error with its position", "@!@!@STARTMSG 1000:1 @!@!@\nTLC threw an unexpected exception.\n: " + msg(2154, 0, "Cannot add a string to a number") + "@!@!@ENDMSG 1000 @!@!@\n" + msg(2121, 1, "The behavior up to this point is:") + msg(2217, 4, "1: <Initial predicate>\nx = 0") + msg(2103, 1, "The error occurred when TLC was evaluating the nested\nexpressions at the following positions:\n0. Line 5, column 9 to line 5, column 20 in Lock\n1. Line 5, column 14 to line 5, column 20 in Lock"),
			"Lock.tla line 5, column 9: Cannot add a string to a number"},
		{"only the generic failure", msg(3002, 1, "Parsing or semantic analysis failed."), "parsing or semantic analysis failed"},
		{"nothing explained", msg(2185, 0, "Starting...") + msg(2186, 0, "Finished in 1s"), ""},
		{"empty", "", ""},
		{"control characters dropped", msg(2229, 1, "bad \x1b[31mred\x1b[0m\x07 name"), "bad [31mred [0m name"},
		{"unbalanced framing", "@!@!@ENDMSG 12 @!@!@\n@!@!@STARTMSG 2229:1 @!@!@\nno end", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, ErrorDetail([]byte(tc.out)))
		})
	}
	long := ErrorDetail([]byte(msg(2229, 1, strings.Repeat("é", 1000))))
	assert.LessOrEqual(t, len(long), maxDetail+len("…"))
	assert.True(t, strings.HasSuffix(long, "…"))
	assert.True(t, utf8.ValidString(long))
}

// TestErrorDetailReachesTheJudge: a parse error's location and message is
// in the judge's one line and in the verdict's detail, not only "spec
// parse error (exit 150)".
func TestErrorDetailReachesTheJudge(t *testing.T) {
	got, _, err := Interpret(readFixture(t, "tool_parse_error.out"), 150, "")
	require.NoError(t, err)
	want := `DistLock.tla line 264, column 29: encountered "writes"; was expecting "==== or more Module body"`
	assert.Equal(t, want, got.Detail)
	why := Judge(Model{Expected: ResultInvariant, Property: "NoLostUpdate"}, got)
	assert.Equal(t, "expected invariant NoLostUpdate, TLC gave spec parse error (exit 150): "+want, why)
	v := Verdicts(got, []string{"NoLostUpdate"}, 0)
	assert.Contains(t, v.Get("NoLostUpdate").Detail, want)
	ok, _, err := Interpret(readFixture(t, "tool_DistLockFencing_all_2c.out"), 0, "")
	require.NoError(t, err)
	assert.Empty(t, ok.Detail, "no detail for a run that ended as TLC should")
}

// TestWorkersPerModel: "auto" runs a model expected to be violated with one
// worker (its counterexample and figures are then the same on every run)
// and a model expected to hold on every core; an explicit number is used
// as given.
func TestWorkersPerModel(t *testing.T) {
	dir := t.TempDir()
	// The fake java writes down the -workers value it was given.
	specs, fake := specsAndFakeJava(t, dir, "INVARIANT Inv", "while [ $# -gt 0 ]; do if [ \"$1\" = -workers ]; then echo \"workers $2\" >> "+filepath.Join(dir, "log")+"; fi; shift; done")
	tests := []struct {
		workers, expected, want string
	}{
		{"auto", ResultInvariant, "1"},
		{"", ResultLiveness, "1"},
		{"auto", ResultOK, "auto"},
		{"", ResultOK, "auto"},
		{"2", ResultInvariant, "2"},
		{"2", ResultOK, "2"},
	}
	for _, tc := range tests {
		require.NoError(t, os.RemoveAll(filepath.Join(dir, "log")))
		r := &Runner{Java: fake, Jar: "tla2tools.jar", Workers: tc.workers}
		_, err := r.Run(context.Background(), specs, Model{Name: "m", Spec: "S.tla", Cfg: "m.cfg", Expected: tc.expected, Property: "Inv"})
		require.NoError(t, err)
		log, err := os.ReadFile(filepath.Join(dir, "log"))
		require.NoError(t, err)
		assert.Equal(t, "workers "+tc.want+"\n", string(log), "workers %q, expected %s", tc.workers, tc.expected)
	}
}

// TestJVMOptions: trace validation and a model of fewer than
// longRunStates states start the JVM with C1 alone (shortRunJIT); a model
// the manifest counts at longRunStates states or more keeps both
// compilers. A model's heap follows its state count (ModelHeap), capped
// by the runner's limit; every run keeps the parallel GC.
func TestJVMOptions(t *testing.T) {
	// The fake java prints its JVM flags: the arguments before -cp.
	specs, fake := specsAndFakeJava(t, t.TempDir(), "INVARIANT Inv", "while [ $# -gt 0 ] && [ \"$1\" != -cp ]; do case $1 in -X*) echo \"$1\";; esac; shift; done")
	const gc = "-XX:+UseParallelGC\n"
	quick := func(heap string) string { return gc + shortRunJIT + "\n-Xmx" + heap + "\n" }
	full := func(heap string) string { return gc + "-Xmx" + heap + "\n" }
	tests := []struct {
		name  string
		m     Model
		limit int64
		want  string
	}{
		{"violated: no count, the bounded heap", Model{Expected: ResultInvariant, Property: "Inv"}, 0, quick("2048m")},
		{"small, holds", Model{Expected: ResultOK, DistinctStates: 3716}, 0, quick("519m")}, // 512 MiB + 3,716 × 2 KiB
		{"just below", Model{Expected: ResultOK, DistinctStates: longRunStates - 1}, 0, quick("609m")},
		{"at the bound", Model{Expected: ResultOK, DistinctStates: longRunStates}, 0, full("609m")},
		{"big", Model{Expected: ResultOK, DistinctStates: 300984}, 0, full("1099m")},
		{"slow", Model{Expected: ResultOK, DistinctStates: 5295957, Slow: true}, 0, full("10855m")},
		{"slow, capped by the limit", Model{Expected: ResultOK, DistinctStates: 5295957, Slow: true}, 6 << 30, full("6144m")},
		{"violated, capped by the limit", Model{Expected: ResultInvariant, Property: "Inv"}, 1 << 30, quick("1024m")},
		{"violated after few states", Model{Expected: ResultInvariant, Property: "Inv", DistinctStates: 51}, 0, quick("512m")},
		{"violated after many states", Model{Expected: ResultInvariant, Property: "Inv", DistinctStates: 149097}, 0, full("803m")}, // 512 MiB + 149,097 × 2 KiB
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.m
			m.Name, m.Spec, m.Cfg = "m", "S.tla", "m.cfg"
			r := &Runner{Java: fake, Jar: "tla2tools.jar", HeapLimit: tc.limit}
			assert.Equal(t, m.DistinctStates >= longRunStates, LongModel(m))
			res, err := r.Run(context.Background(), specs, m)
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(res.Output))
		})
	}
	r := &Runner{Java: fake, Jar: "tla2tools.jar"}
	out, _, err := r.TLC(context.Background(), specs, "-config", "m.cfg", "S.tla")
	require.NoError(t, err)
	assert.Equal(t, quick("2048m"), string(out), "trace validation")
	ran, err := r.Validate(context.Background(), specs, 5<<30, "S.tla", "m.cfg")
	require.NoError(t, err)
	assert.Equal(t, quick("5120m"), string(ran.Output), "trace validation of many traces")
	ran, err = r.Validate(context.Background(), specs, 1<<20, "S.tla", "m.cfg")
	require.NoError(t, err)
	assert.Equal(t, quick("2048m"), string(ran.Output), "never below the bounded heap")
}

// TestHeapFollowsTheWork: the heap of a trace validation grows with its
// module of traces, from the bounded heap of every run, and a run that
// would need more than the machine allows is refused, saying both.
func TestHeapFollowsTheWork(t *testing.T) {
	const gb = 1 << 30
	tests := []struct {
		module, limit int64
		want          int64 // 0: refused
	}{
		{0, 12 * gb, boundedHeap},
		{12_000, 12 * gb, boundedHeap + 3_000_000},          // one walk
		{12_054_189, 12 * gb, boundedHeap + 250*12_054_189}, // 1,000 walks: 5.0 GB
		{12_054_189, 4 * gb, 0},                             // the same on an 8 GB machine
		{120_000_000, 0, boundedHeap + 250*120_000_000},     // no limit known
		{120_000_000, 12 * gb, 0},                           // 10,000 walks on 24 GB
	}
	for _, tc := range tests {
		got, err := HeapFor(tc.module, tc.limit)
		if tc.want == 0 {
			require.Error(t, err, "%d bytes under %d", tc.module, tc.limit)
			assert.Contains(t, err.Error(), "GB of heap")
			assert.Contains(t, err.Error(), "fewer traces")
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, tc.want, got)
	}
	mem := filepath.Join(t.TempDir(), "meminfo")
	require.NoError(t, os.WriteFile(mem, []byte("MemTotal:       24576000 kB\nMemFree: 1 kB\n"), 0o644))
	assert.Equal(t, int64(24576000)<<10/2, MachineHeapLimit(mem))
	assert.Zero(t, MachineHeapLimit(filepath.Join(t.TempDir(), "none")))
	require.NoError(t, os.WriteFile(mem, []byte("MemTotal: lots kB\n"), 0o644))
	assert.Zero(t, MachineHeapLimit(mem))
}

// TestLivenessCheckedOnTheWholeGraph: every model run asks TLC to check
// its temporal properties once, at the end (-lncheck final), so that where
// a liveness violation is found does not depend on the wall clock.
func TestLivenessCheckedOnTheWholeGraph(t *testing.T) {
	// The fake java prints the -lncheck value it was given.
	specs, fake := specsAndFakeJava(t, t.TempDir(), "PROPERTY Live", "while [ $# -gt 0 ]; do if [ \"$1\" = -lncheck ]; then echo \"lncheck $2\"; fi; shift; done")
	r := &Runner{Java: fake, Jar: "tla2tools.jar"}
	for _, m := range []Model{
		{Name: "m", Spec: "S.tla", Cfg: "m.cfg", Expected: ResultLiveness, Property: "Live"},
		{Name: "m", Spec: "S.tla", Cfg: "m.cfg", Expected: ResultOK, DistinctStates: 1 << 20},
	} {
		res, err := r.Run(context.Background(), specs, m)
		require.NoError(t, err)
		assert.Equal(t, "lncheck final\n", string(res.Output), "expected %s", m.Expected)
	}
}

// specsAndFakeJava writes, under dir, a specs folder with an empty module
// S.tla and the cfg m.cfg, and a fake java running the shell script body;
// it returns the folder and the java.
func specsAndFakeJava(t *testing.T, dir, cfg, body string) (specs, java string) {
	t.Helper()
	specs = filepath.Join(dir, "specs")
	require.NoError(t, os.MkdirAll(specs, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(specs, "S.tla"), []byte("---- MODULE S ----\n====\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(specs, "m.cfg"), []byte(cfg+"\n"), 0o644))
	java = filepath.Join(dir, "java")
	testexec.Write(t, java, []byte("#!/bin/sh\n"+body+"\n"))
	return specs, java
}
