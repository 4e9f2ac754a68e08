package tlc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/fencelab/fencelab/internal/inputfile"
	"github.com/fencelab/fencelab/internal/quote"
)

// Runner runs TLC's tools from one jar.
type Runner struct {
	Java string // the java executable
	Jar  string // tla2tools.jar
	// Workers is TLC's -workers value, or "auto" (the default): every core
	// for a model expected to hold, one worker for a model expected to be
	// violated. TLC's search with several workers is not deterministic:
	// which counterexample it reports, and how many states it counted
	// before, change from run to run. With one worker both are the same on
	// every run, so the counterexamples people read (the README's
	// walkthrough among them) and their figures are reproducible; a model
	// that holds is counted exactly either way and wants every core.
	Workers string
	// Timeout bounds one TLC or translator run; 0 means 10 minutes.
	Timeout time.Duration
	// Classes keeps TLC's classes in an archive the JVM maps at start
	// (ClassArchive); nil for none.
	Classes *ClassArchive
	// Cache keeps TLC's results by content (Cache); nil runs every model.
	Cache *Cache
	// HeapLimit bounds every run's heap, in bytes (HeapFor, modelHeap);
	// 0 for none known.
	HeapLimit int64
}

func (r *Runner) timeout() time.Duration {
	if r.Timeout > 0 {
		return r.Timeout
	}
	return 10 * time.Minute
}

// jvmOptions are the JVM settings of one run, chosen from what the run
// is (jvmFor).
type jvmOptions struct {
	// quickJIT stops the JVM's compilation at C1, the quick compiler
	// (shortRunJIT).
	quickJIT bool
	// heap caps the JVM's heap (-Xmx), in bytes; 0 leaves the JVM's
	// default (a quarter of the machine's memory).
	heap int64
}

// shortRunJIT stops the JVM's compilation at C1, the quick compiler. Most
// of fencelab's TLC runs (the translator, trace validation, a model of a
// few thousand states) are over in a second or two of work, most of it
// the JVM starting and SANY parsing the spec; there C2's optimising
// compiler costs more than it wins back. Measured (CPU seconds, 2 cores,
// one worker; C2 and C1 against C1 alone): a 51-state model 2.1 against
// 1.1, DistLock_3c_Witness (114,878 states) 14.1 against 9.8,
// DistLockFencing_all_3c (75,272) 9.1 against 9.1, and the timed spec's
// 300,984-state model 17.4 against 19.0. So C1 for every run but the
// models the manifest counts as big (LongModel).
const shortRunJIT = "-XX:TieredStopAtLevel=1"

// longRunStates is the distinct state count from which an ok model keeps
// both compilers: its search, not the JVM's start, is what takes time.
const longRunStates = 50_000

// LongModel reports whether m keeps C2 (see shortRunJIT): the manifest
// counts at least longRunStates distinct states for it, all of them for an
// ok model, those TLC had found when it stopped for an invariant
// violation. Measured on the violations (one worker, C2 and C1 against C1
// alone, CPU seconds, then wall seconds): DistLockRedlock_redlock_2c_Witness
// (149,097 states at the stop) 20.5 against 24.9, 17.1 against 24.1;
// DistLockRedlock_redlock_2c_NoLostUpdate (138,408) 25.2 against 26.2, 22.0
// against 25.9; its AtMostOneClientHoldLock (53,895) 12.2 against 11.0, 9.2
// against 11.1; the timed spec's 141,726 and 82,656 alike in CPU and a
// quarter less wall time. A model without a count (a liveness violation, a
// slow violation not pinned yet) runs with C1 alone.
func LongModel(m Model) bool {
	return m.DistinctStates >= longRunStates
}

// boundedHeap is the heap of every run but the slow models' and the big
// trace validations' (HeapFor). Left alone,
// the JVM takes a quarter of the machine's memory and the parallel GC
// grows its young generation into it, every fresh page a page fault: on
// a 24 GB machine, a 225,761-state model of the timed spec (one worker)
// spent 5.5 s of system time and 1.8 GB of memory, and 0.4 s and 0.6 GB
// under 1 GB (user time alike); DistLockRedlock_unique_2c (420,541
// states) took 1.7-2.2 s of system time and 2.2 GB, and 0.8 s and
// 0.9 GB under 2 GB, with no more user time. TLC keeps what outgrows its
// share of the heap on disk, so a cap costs a big model speed, not
// correctness; the slow models, the biggest, keep the JVM's default.
const boundedHeap int64 = 2 << 30

// jvmFor is how a model's run starts the JVM: C1 alone unless the model
// is big (LongModel), the heap following its size (ModelHeap).
func jvmFor(m Model, limit int64) jvmOptions {
	return jvmOptions{quickJIT: !LongModel(m), heap: ModelHeap(m, limit)}
}

// Model heaps (ModelHeap): a floor, and what each state the manifest
// counts adds. TLC keeps its fingerprints and its queue of states to
// explore in memory while they fit, the states themselves as Java
// objects: measured (one worker, C1, resident memory) 0.6 GB for the
// timed spec's 225,761 states under a 1 GB cap and 0.9 GB for
// DistLockRedlock_unique_2c's 420,541 under 2 GB, about 2 KB a state
// over the JVM's own few hundred MB.
const (
	modelHeapFloor    int64 = 512 << 20
	modelHeapPerState int64 = 2 << 10
)

// ModelHeap is the heap of model m's run: modelHeapFloor plus
// modelHeapPerState for each distinct state the manifest counts for it
// (for an invariant violation, those TLC holds when it stops), or
// boundedHeap for a model the manifest has no count for (a liveness
// violation, a slow violation not pinned yet); never more than limit
// (0: no limit). A model that outgrows its heap is slower, not wrong: TLC
// keeps on disk what does not fit.
func ModelHeap(m Model, limit int64) int64 {
	heap := boundedHeap
	if m.DistinctStates > 0 {
		heap = modelHeapFloor + modelHeapPerState*m.DistinctStates
	}
	if limit > 0 && heap > limit {
		heap = limit
	}
	return heap
}

// shortRun is how every run that is not a model's starts the JVM: the
// translator and trace validation are short.
func shortRun() jvmOptions { return jvmOptions{quickJIT: true, heap: boundedHeap} }

// heapFlag is the -Xmx flag of a heap in bytes, in whole MiB.
func heapFlag(heap int64) string {
	return fmt.Sprintf("-Xmx%dm", max(1, heap>>20))
}

// HeapFor is the heap a TLC run needs whose spec holds a module of
// constants of moduleBytes bytes (trace validation's data module, which
// grows with the traces): TLC parses it into a syntax tree and keeps
// every value, about 250 bytes of heap per byte of text, over the
// boundedHeap every run gets. Measured (TLC 2.19, 2 workers, C1): 1,000
// walks of design all with 3 clients, a 12.05 MB module, ran 163 s with
// a peak of 4.0 GB resident under a 6 GB cap and ran out of a 2 GB one
// (the GC thrashed until the 10-minute limit). The heap is bounded by
// limit (MachineHeapLimit): a run that needs more is refused, with both
// figures, before it starts.
func HeapFor(moduleBytes, limit int64) (int64, error) {
	need := boundedHeap + 250*moduleBytes
	if limit > 0 && need > limit {
		return 0, fmt.Errorf("%w: TLC would need about %.1f GB of heap for a %.1f MB module of traces, more than the %.1f GB this machine allows it (half its memory): validate fewer traces at a time",
			ErrTooBig, float64(need)/(1<<30), float64(moduleBytes)/1e6, float64(limit)/(1<<30))
	}
	return need, nil
}

// ErrTooBig marks a run refused because it would need more heap than the
// machine allows (HeapFor): too much work asked at once, not a failure.
var ErrTooBig = errors.New("too big for this machine")

// MachineHeapLimit is the largest heap fencelab gives one TLC run: half
// the machine's memory (MemTotal in meminfo, /proc/meminfo on Linux), or
// 0 (no limit known) where that cannot be read.
func MachineHeapLimit(meminfo string) int64 {
	data, err := os.ReadFile(meminfo)
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil || kb <= 0 || kb > 1<<40 {
				return 0
			}
			return kb << 10 / 2
		}
	}
	return 0
}

// HeapLimitEnv names the environment variable that sets the largest heap
// of one TLC run (HeapLimit), instead of half the machine's memory.
const HeapLimitEnv = "FENCELAB_TLC_HEAP_LIMIT"

// HeapLimit is the largest heap one TLC run gets: $FENCELAB_TLC_HEAP_LIMIT
// (a size: 8g, 6144m, or bytes; at least 256m) when it is set, else half
// the machine's memory (MachineHeapLimit of meminfo), read once per
// command; 0 when neither is known (the JVM's default then).
func HeapLimit(getenv func(string) string, meminfo string) (int64, error) {
	v := strings.TrimSpace(getenv(HeapLimitEnv))
	if v == "" {
		return MachineHeapLimit(meminfo), nil
	}
	num, unit := v, int64(1)
	switch strings.ToLower(v[len(v)-1:]) {
	case "k":
		num, unit = v[:len(v)-1], 1<<10
	case "m":
		num, unit = v[:len(v)-1], 1<<20
	case "g":
		num, unit = v[:len(v)-1], 1<<30
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > (1<<50)/unit || n*unit < 256<<20 {
		return 0, fmt.Errorf("%s must be a size of at least 256m (like 8g or 6144m), got %.20q", HeapLimitEnv, v)
	}
	return n * unit, nil
}

// waitDelay bounds the wait, once java has exited or been stopped, for the
// processes it started to release its output (exec.Cmd.WaitDelay).
const waitDelay = 2 * time.Second

// java runs the jar's class main with args in dir, with the class
// archive's flags (Classes) when there is one: see run. A run that was to
// write the archive and whose JVM refused to start is repeated without it.
func (r *Runner) java(ctx context.Context, dir string, opts jvmOptions, main string, args ...string) ([]byte, int, error) {
	archive := r.Classes.begin(r.Java, r.Jar, main)
	out, code, err := r.run(ctx, dir, opts, archive.flags, main, args...)
	if r.Classes.end(archive, err == nil, out) {
		return r.run(ctx, dir, opts, nil, main, args...)
	}
	return out, code, err
}

// run runs the jar's class main with args in dir and returns what it
// printed and its exit code. The launcher runs in a process group of its
// own: on the time limit, or when ctx is cancelled (SIGINT, SIGTERM), the
// whole group is killed, and the wait for its output is bounded, so a
// launcher that forks a child holding the output pipe cannot outlive the
// limit; after every run, whatever the group still holds is killed. The
// run's private temporary folder is always removed.
func (r *Runner) run(ctx context.Context, dir string, opts jvmOptions, archiveFlags []string, main string, args ...string) ([]byte, int, error) {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	// Every run gets a private java.io.tmpdir: TLC 1.7.4 unpacks its
	// standard modules into the temporary folder, and two runs sharing
	// one (make demo beside make tlc, parallel tests) read each other's
	// half-written files and report false parse errors.
	tmp, err := os.MkdirTemp("", "fencelab-java-")
	if err != nil {
		return nil, -1, fmt.Errorf("creating a temporary folder: %w", err)
	}
	defer os.RemoveAll(tmp)
	// The parallel GC is what TLC asks for (it warns otherwise). UTF-8
	// whatever the locale: Java 17 takes its default charset from it
	// (file.encoding; sun.stdout/stderr.encoding for its output), and
	// under LC_ALL=C, LANG=C or no locale the translator wrote every
	// non-ASCII byte of a spec's comments as "?".
	flags := []string{"-XX:+UseParallelGC", "-Dfile.encoding=UTF-8", "-Dsun.stdout.encoding=UTF-8", "-Dsun.stderr.encoding=UTF-8"}
	if opts.quickJIT {
		flags = append(flags, shortRunJIT)
	}
	if opts.heap > 0 {
		flags = append(flags, heapFlag(opts.heap))
	}
	flags = append(flags, archiveFlags...)
	full := append(append(flags, "-Djava.io.tmpdir="+tmp, "-cp", r.Jar, main), args...)
	cmd := exec.CommandContext(ctx, r.Java, full...)
	cmd.Dir = dir
	ownGroup(cmd)
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = waitDelay
	// Bounded: a java that prints without end is stopped at the limit,
	// not read into memory until it runs out.
	buf := &cappedBuffer{limit: inputfile.MaxOutput, full: cancel}
	cmd.Stdout = buf
	cmd.Stderr = buf
	err = cmd.Run()
	_ = killGroup(cmd) // nothing it started outlives the run
	switch {
	case buf.overflow:
		return buf.Bytes(), -1, fmt.Errorf("%s printed more than %d bytes, more than TLC prints; it was stopped: %w", main, buf.limit, ErrNotTLC)
	case parent.Err() != nil:
		return buf.Bytes(), -1, fmt.Errorf("%s stopped: %w", main, context.Cause(parent))
	case errors.Is(err, exec.ErrWaitDelay):
		return buf.Bytes(), -1, fmt.Errorf("%s exited, but processes it started kept its output open; they were stopped and the output is incomplete", main)
	case ctx.Err() != nil:
		return buf.Bytes(), -1, fmt.Errorf("%s did not finish within %s; it was stopped", main, r.timeout())
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return buf.Bytes(), exit.ExitCode(), nil
	}
	if err != nil {
		return buf.Bytes(), -1, fmt.Errorf("running %s: %w", r.Java, err)
	}
	return buf.Bytes(), 0, nil
}

// ErrNotTLC means the process run as TLC did not behave as TLC does: the
// tools are broken, and the run says nothing about the model.
var ErrNotTLC = errors.New("not the TLA+ tools")

// cappedBuffer keeps what a process prints up to limit bytes; past it,
// it calls full (which stops the process) and drops the rest.
type cappedBuffer struct {
	bytes.Buffer
	limit    int
	full     func()
	overflow bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if c.Len()+len(p) > c.limit {
		if !c.overflow {
			c.overflow = true
			c.full()
		}
		return len(p), nil
	}
	return c.Buffer.Write(p)
}

// StaleTranslation re-translates the PlusCal algorithm of the spec at path
// in a temporary copy and compares the result with the committed file. It
// returns a description of the difference ("" when the committed
// translation is current) or an error if the translator fails. A spec
// written in plain TLA+ (no "--algorithm") has nothing to translate.
func (r *Runner) StaleTranslation(ctx context.Context, path string) (string, error) {
	orig, err := inputfile.Read(path, inputfile.MaxText)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	if !bytes.Contains(orig, []byte("--algorithm")) && !bytes.Contains(orig, []byte("--fair algorithm")) {
		return "", nil
	}
	dir, err := os.MkdirTemp("", "fencelab-pcal-")
	if err != nil {
		return "", fmt.Errorf("creating a temporary folder: %w", err)
	}
	defer os.RemoveAll(dir)
	name := filepath.Base(path)
	if err := os.WriteFile(filepath.Join(dir, name), orig, 0o644); err != nil {
		return "", fmt.Errorf("copying %s: %w", name, err)
	}
	// The translation is the translator's output for the spec's bytes:
	// kept in the cache under the jar's, java's and the spec's content,
	// and compared afresh each time.
	args := []string{"-nocfg", name}
	var key string
	if r.Cache != nil {
		if k, err := r.Cache.Key(r.Java, r.Jar, dir, "pcal.trans", args, []string{name}); err == nil {
			key = k
			if e, ok := r.Cache.Get(key); ok && e.Code == 0 {
				return translationDiff(name, orig, e.Output), nil
			}
		}
	}
	out, code, err := r.java(ctx, dir, shortRun(), "pcal.trans", args...)
	if err != nil {
		return "", err
	}
	if code != 0 {
		return "", fmt.Errorf("the PlusCal translator failed on %s (exit %d): %s", name, code, lastLines(out, 5))
	}
	fresh, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return "", fmt.Errorf("reading the fresh translation: %w", err)
	}
	if key != "" {
		_ = r.Cache.Put(key, Entry{Output: fresh}) // unwritable: the next run translates again
	}
	return translationDiff(name, orig, fresh), nil
}

// translationDiff compares a committed spec with the translator's fresh
// copy of it: only the translation (from "\* BEGIN TRANSLATION" to "\*
// END TRANSLATION", the whole file where there are no such lines), the
// part pcal.trans writes. The rest is the author's text, which the
// translator copies through the JVM's encoding: a JVM started without
// UTF-8 (LC_ALL=C) writes every non-ASCII byte of a comment as "?", and
// that is no stale translation. It returns "" when the translations are
// the same, else where they first differ.
func translationDiff(name string, orig, fresh []byte) string {
	a, aFrom := translation(string(orig))
	b, _ := translation(string(fresh))
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return fmt.Sprintf("%s line %d differs from a fresh translation (committed %s, fresh %s); run pcal.trans on it", name, aFrom+i+1, quote.Q(strings.TrimSpace(a[i])), quote.Q(strings.TrimSpace(b[i])))
		}
	}
	if len(a) != len(b) {
		return fmt.Sprintf("%s's translation has %d lines, a fresh translation %d; run pcal.trans on it", name, len(a), len(b))
	}
	return ""
}

// translation is the lines of a spec's PlusCal translation and the index
// of its first line in the file; the whole file when it marks none.
func translation(spec string) ([]string, int) {
	lines := strings.Split(strings.ReplaceAll(spec, "\r\n", "\n"), "\n")
	begin, end := -1, -1
	for i, l := range lines {
		switch t := strings.TrimSpace(l); {
		case begin < 0 && strings.HasPrefix(t, `\* BEGIN TRANSLATION`):
			begin = i
		case begin >= 0 && strings.HasPrefix(t, `\* END TRANSLATION`):
			end = i
		}
		if end >= 0 {
			break
		}
	}
	if begin < 0 || end < 0 {
		return lines, 0
	}
	return lines[begin : end+1], begin
}

func lastLines(out []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " / ")
}

// Result is one model's run: what TLC printed and what it means.
type Result struct {
	Model  Model
	Got    Got
	Output []byte  // TLC's raw output
	Parsed *Output // nil if the output could not be parsed
	// ParseErr is why the output could not be parsed.
	ParseErr error
	Wall     time.Duration
	// Cached says the output was read from the Cache, not printed by a
	// run now: it is judged as a fresh one; Wall is the run's that
	// printed it.
	Cached bool
	// Mismatch is "" when the run matches the manifest, else why not.
	Mismatch string
}

// Run checks one model with TLC: the spec folder's .tla files and the
// model's cfg are copied to a fresh folder with a fresh metadir, TLC runs
// there with -tool, and the result is judged against the manifest. Every
// file is read through specsDir as a root: a name or a symbolic link that
// leads outside it is refused.
func (r *Runner) Run(ctx context.Context, specsDir string, m Model) (*Result, error) {
	if err := ValidFileName(m.Spec, ".tla"); err != nil {
		return nil, fmt.Errorf("model %s: spec: %w", m.Name, err)
	}
	if err := ValidFileName(m.Cfg, ".cfg"); err != nil {
		return nil, fmt.Errorf("model %s: cfg: %w", m.Name, err)
	}
	root, err := os.OpenRoot(specsDir)
	if err != nil {
		return nil, fmt.Errorf("the specs folder: %w", err)
	}
	defer root.Close()
	cfgText, err := readIn(root, specsDir, m.Cfg)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", m.Name, err)
	}
	if err := regularIn(root, specsDir, m.Spec); err != nil {
		return nil, fmt.Errorf("model %s: %w", m.Name, err)
	}
	entries, err := os.ReadDir(specsDir)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", specsDir, err)
	}
	dir, err := os.MkdirTemp("", "fencelab-tlc-")
	if err != nil {
		return nil, fmt.Errorf("creating a temporary folder: %w", err)
	}
	defer os.RemoveAll(dir)
	copyIn := func(name string, data []byte) error {
		return os.WriteFile(filepath.Join(dir, name), data, 0o644)
	}
	for _, e := range entries {
		// Every module the spec may extend; each read inside the root.
		if filepath.Ext(e.Name()) != ".tla" || ValidFileName(e.Name(), ".tla") != nil {
			continue
		}
		data, err := readIn(root, specsDir, e.Name())
		if err != nil {
			return nil, fmt.Errorf("model %s: %w", m.Name, err)
		}
		if err := copyIn(e.Name(), data); err != nil {
			return nil, fmt.Errorf("copying %s: %w", e.Name(), err)
		}
	}
	if err := copyIn(m.Cfg, cfgText); err != nil {
		return nil, fmt.Errorf("copying %s: %w", m.Cfg, err)
	}
	if err := keepModules(dir, []string{m.Spec, m.Cfg}); err != nil {
		return nil, fmt.Errorf("model %s: %w", m.Name, err)
	}
	workers := r.Workers
	if workers == "" || workers == "auto" {
		workers = "auto"
		if m.Expected != ResultOK {
			workers = "1"
		}
	}
	// -lncheck final: TLC checks the temporal properties once, on the
	// whole state graph. By default it also checks them while it searches,
	// each time enough wall time has passed, so a liveness violation was
	// reported after a number of states that depended on how busy the
	// machine was: DistLock_2c_Liveness_Unfair after 1,800 distinct
	// states on a loaded machine, 3,705 on another run, 3,716 (the whole
	// graph) on a quiet one, and now always 3,716. (The lasso TLC prints
	// for a liveness violation still differs from run to run, one worker
	// or not: 29 and 32 states for one model in three runs.)
	// The metadir is named relative to the run's folder, TLC's working
	// directory: the options, which the cache's key holds, never name
	// the temporary folder.
	ran, err := r.cachedTLC(ctx, dir, jvmFor(m, r.HeapLimit), []string{m.Spec, m.Cfg}, "-tool", "-workers", workers, "-lncheck", "final",
		"-metadir", "states", "-config", m.Cfg, m.Spec)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", m.Name, err)
	}
	out, code := ran.Output, ran.Code
	res := &Result{Model: m, Output: out, Wall: ran.Wall, Cached: ran.Cached}
	res.Got, res.Parsed, res.ParseErr = Interpret(out, code, string(cfgText))
	res.Mismatch = Judge(m, res.Got)
	return res, nil
}

// Interpret reads a TLC run's output and exit code into a Got. The exit
// code decides the result; the output gives the violated invariant's name,
// the statistics and stale-translation warnings. A liveness violation's
// property is the cfg's single PROPERTY, since TLC does not name it.
func Interpret(out []byte, code int, cfg string) (Got, *Output, error) {
	g := Got{ExitCode: code, Result: ResultForExit(code), Distinct: -1, Depth: -1}
	switch g.Result {
	case ResultOK, ResultInvariant, ResultLiveness, ResultDeadlock:
	default:
		// A parse, config or evaluation error, an assertion: say where
		// and what, as TLC printed it.
		g.Detail = ErrorDetail(out)
	}
	parsed, err := ParseOutput(bytes.NewReader(out))
	if err != nil {
		if g.Result == ResultOK || violation(g.Result) {
			// An exit code alone is no verdict: TLC's words are.
			g.Result, g.Detail = ResultNoVerdict, clip(printable(err.Error()), maxDetail)
		}
		return g, nil, err
	}
	if why := unsupported(g.Result, parsed); why != "" {
		g.Result, g.Detail = ResultNoVerdict, why
	}
	g.Distinct, g.Depth, g.Trace, g.Workers = parsed.Distinct, parsed.Depth, len(parsed.States), parsed.Workers
	for _, w := range parsed.Warnings {
		if strings.Contains(w, "translation") {
			g.Stale = append(g.Stale, w)
		}
	}
	switch g.Result {
	case ResultInvariant:
		g.Property = parsed.Invariant
	case ResultLiveness:
		if props := CfgProperties(cfg); len(props) == 1 && parsed.Temporal {
			g.Property = props[0]
		}
	}
	return g, parsed, nil
}

// violation reports whether result is a property's violation.
func violation(result string) bool {
	return result == ResultInvariant || result == ResultLiveness || result == ResultDeadlock
}

// unsupported says why an output does not back the result its exit code
// names, "" when it does. TLC says a model holds with "Model checking
// completed. No error has been found." and ends every run with "Finished
// in …"; a violation is named in an error message. An output cut short,
// another program's, or one that contradicts the exit code gives no
// verdict, whatever the code.
func unsupported(result string, o *Output) string {
	if result != ResultOK && !violation(result) {
		return ""
	}
	if !o.Complete {
		return "the output stops before TLC's closing \"Finished in …\" (TLC was stopped, or the output is cut short)"
	}
	switch result {
	case ResultOK:
		if !o.NoError {
			return "TLC exited 0 but its output lacks \"Model checking completed. No error has been found.\""
		}
	case ResultInvariant:
		if o.Invariant == "" {
			return "TLC exited 12 (an invariant violated) but its output names no violated invariant"
		}
	case ResultDeadlock:
		if !o.Deadlock {
			return "TLC exited 11 (a deadlock) but its output reports none"
		}
	case ResultLiveness:
		if !o.Temporal {
			return "TLC exited 13 (a temporal property violated) but its output reports none"
		}
	}
	if o.NoError && result != ResultOK {
		return fmt.Sprintf("TLC exited with a violation (%s) but its output says no error was found", result)
	}
	return ""
}

// maxDetail bounds ErrorDetail's text.
const maxDetail = 300

// ErrorDetail says, in one line, where and what the first error in a TLC
// run's output is: SANY's parse error ("DistLock.tla line 264, column 29:
// encountered "writes"; was expecting …"), its first semantic error, or
// TLC's first error message (a config or evaluation error, an assertion)
// with the position TLC gives for it. It returns "" when the output holds
// no error TLC explained. Control characters are dropped.
func ErrorDetail(out []byte) string {
	lines := strings.Split(strings.ReplaceAll(string(out), "\r\n", "\n"), "\n")
	detail := sanyParseError(lines)
	if detail == "" {
		detail = sanySemanticError(lines)
	}
	if detail == "" {
		detail = tlcErrorMessage(lines)
	}
	return clip(printable(detail), maxDetail)
}

// lineCol matches SANY's and TLC's positions: "at line 264, column 29",
// "line 4, col 16 to line 4, col 16 of module P", "Line 5, column 9 to
// line 5, column 20 in E".
var (
	encountered = regexp.MustCompile(`^Encountered (.*) at line (\d+), column (\d+)`)
	semanticAt  = regexp.MustCompile(`^line (\d+), col (\d+) to line \d+, col \d+ of module (\S+)`)
	evalAt      = regexp.MustCompile(`^\d+\. Line (\d+), column (\d+) to line \d+, column \d+ in (\S+)`)
	parsingFile = regexp.MustCompile(`^Parsing file (.+)$`)
	errStartMsg = regexp.MustCompile(`@!@!@STARTMSG (\d+):(\d+) @!@!@`)
	errEndMsg   = regexp.MustCompile(`@!@!@ENDMSG (\d+) @!@!@`)
	cfgLine     = regexp.MustCompile(`configuration file at line (\d+)`)
)

// sanyParseError reads a "***Parse Error***" block.
func sanyParseError(lines []string) string {
	file := ""
	for i, l := range lines {
		if m := parsingFile.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			file = filepath.Base(m[1])
		}
		if strings.TrimSpace(l) != "***Parse Error***" {
			continue
		}
		var expecting, where, what string
		for _, b := range lines[i+1 : min(len(lines), i+12)] {
			b = strings.TrimSpace(b)
			if rest, ok := strings.CutPrefix(b, "Was expecting "); ok {
				expecting = rest
			}
			if m := encountered.FindStringSubmatch(b); m != nil {
				where, what = fmt.Sprintf("%s line %s, column %s", orModule(file), m[2], m[3]), m[1]
			}
		}
		parts := []string{}
		if what != "" {
			parts = append(parts, "encountered "+what)
		}
		if expecting != "" {
			parts = append(parts, "was expecting "+expecting)
		}
		if len(parts) == 0 {
			parts = append(parts, "parse error")
		}
		if where == "" {
			where = orModule(file)
		}
		return where + ": " + strings.Join(parts, "; ")
	}
	return ""
}

func orModule(file string) string {
	if file == "" {
		return "the spec"
	}
	return file
}

// sanySemanticError reads the first error of a "Semantic errors:" block.
func sanySemanticError(lines []string) string {
	in, count := false, ""
	for i, l := range lines {
		l = strings.TrimSpace(l)
		switch {
		case l == "Semantic errors:":
			in = true
		case in && strings.HasPrefix(l, "*** Errors:"):
			count = strings.TrimSpace(strings.TrimPrefix(l, "*** Errors:"))
		case in:
			m := semanticAt.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			msg := ""
			for _, b := range lines[i+1:] {
				if b = strings.TrimSpace(b); b != "" {
					msg = b
					break
				}
			}
			more := ""
			if n, err := strconv.Atoi(count); err == nil && n > 1 {
				more = fmt.Sprintf(" (and %d more semantic errors)", n-1)
			}
			return fmt.Sprintf("%s.tla line %s, column %s: %s%s", m[3], m[1], m[2], msg, more)
		}
	}
	return ""
}

// tlcErrorMessage reads TLC's first error message (-tool framing,
// severity 1), the innermost one when messages nest, and the position of a
// following "error occurred when TLC was evaluating" message (2103).
func tlcErrorMessage(lines []string) string {
	type msg struct {
		code, severity int
		body           []string
	}
	var stack []*msg
	var errs []*msg
	var position string
	for _, l := range lines {
		for l != "" {
			start := errStartMsg.FindStringSubmatchIndex(l)
			end := errEndMsg.FindStringIndex(l)
			switch {
			case start != nil && (end == nil || start[0] < end[0]):
				if len(stack) > 0 {
					stack[len(stack)-1].body = append(stack[len(stack)-1].body, l[:start[0]])
				}
				code, _ := strconv.Atoi(l[start[2]:start[3]])
				sev, _ := strconv.Atoi(l[start[4]:start[5]])
				stack = append(stack, &msg{code: code, severity: sev})
				l = l[start[1]:]
			case end != nil:
				if len(stack) == 0 {
					l = ""
					continue
				}
				top := stack[len(stack)-1]
				top.body = append(top.body, l[:end[0]])
				stack = stack[:len(stack)-1]
				if top.code == 2103 && position == "" {
					for _, b := range top.body {
						if m := evalAt.FindStringSubmatch(strings.TrimSpace(b)); m != nil {
							position = fmt.Sprintf("%s.tla line %s, column %s", m[3], m[1], m[2])
							break
						}
					}
				}
				// A wrapper (1000) whose text is only boilerplate yields
				// to the message it holds, which ended first.
				if top.severity == 1 && top.code != 2103 && top.code != 2121 && top.code != 3002 {
					errs = append(errs, top)
				} else if top.severity == 0 && len(stack) > 0 && stack[len(stack)-1].severity == 1 {
					errs = append(errs, top)
				}
				l = l[end[1]:]
			default:
				if len(stack) > 0 {
					stack[len(stack)-1].body = append(stack[len(stack)-1].body, l)
				}
				l = ""
			}
		}
	}
	if len(errs) == 0 {
		for _, l := range lines {
			if strings.Contains(l, "Parsing or semantic analysis failed") {
				return "parsing or semantic analysis failed"
			}
		}
		return ""
	}
	text := strings.Join(strings.Fields(strings.Join(errs[0].body, " ")), " ")
	if m := cfgLine.FindStringSubmatch(text); m != nil && position == "" {
		position = "the cfg line " + m[1]
	}
	if position != "" {
		return position + ": " + text
	}
	return text
}

// printable drops control characters and collapses white space.
func printable(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == unicode.ReplacementChar {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// clip cuts s to n bytes at a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Ran is one TLC run: what it printed, its exit code, and how long it
// took; Cached when it was read from the Cache (Wall is then the time of
// the run that printed it).
type Ran struct {
	Output []byte
	Code   int
	Wall   time.Duration
	Cached bool
}

// cachedTLC runs TLC with args in dir, on the spec and cfg of roots (and
// the modules they reach), or reads the result of an identical earlier
// run from r.Cache. Every finished run is kept (Cacheable). A cache that
// cannot be read or written is no cache: the run happens, and its
// verdict stands.
func (r *Runner) cachedTLC(ctx context.Context, dir string, opts jvmOptions, roots []string, args ...string) (Ran, error) {
	var key string
	if r.Cache != nil {
		if k, err := r.Cache.Key(r.Java, r.Jar, dir, "tlc2.TLC", args, roots); err == nil {
			key = k
			if e, ok := r.Cache.Get(key); ok && Cacheable(e.Output, e.Code) {
				return Ran{Output: e.Output, Code: e.Code, Wall: e.Wall, Cached: true}, nil
			}
		}
	}
	start := time.Now()
	out, code, err := r.java(ctx, dir, opts, "tlc2.TLC", args...)
	ran := Ran{Output: out, Code: code, Wall: time.Since(start)}
	if err != nil {
		return ran, err
	}
	if key != "" && Cacheable(out, code) {
		_ = r.Cache.Put(key, Entry{Output: out, Code: code, Wall: ran.Wall}) // a full disk costs the next run time, not this one its verdict
	}
	return ran, nil
}

// keepModules removes from dir, a run's private copy of the specs, every
// .tla file the run on roots does not reach (Modules): TLC sees exactly
// the files the cache's key holds.
func keepModules(dir string, roots []string) error {
	keep, _, err := Modules(dir, roots)
	if err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if filepath.Ext(e.Name()) == ".tla" && !slices.Contains(keep, e.Name()) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// Validate runs TLC in dir on spec with cfg and options (which must not
// name dir: "-metadir states", relative to it), with the heap capped at
// heap bytes (HeapFor), through the Cache: for a check that is not a
// model of the manifest, whose work grows with its input (package
// conform's trace validation). dir must hold the spec, the cfg and the
// modules they reach; any other module in it is removed, so that TLC
// reads only what the cache's key holds.
func (r *Runner) Validate(ctx context.Context, dir string, heap int64, spec, cfg string, options ...string) (Ran, error) {
	opts := shortRun()
	opts.heap = max(heap, boundedHeap)
	// As for a model: TLC finds only the modules the key holds.
	if err := keepModules(dir, []string{spec, cfg}); err != nil {
		return Ran{Code: -1}, err
	}
	args := append(slices.Clone(options), "-config", cfg, spec)
	return r.cachedTLC(ctx, dir, opts, []string{spec, cfg}, args...)
}

// TLC runs TLC with args in dir (which holds the spec, its cfg and the
// modules it extends) under the same private temporary folder, process
// group and time limit as Run, and returns what it printed and its exit
// code. It is for checks that are not models of the manifest (package
// conform's trace validation).
func (r *Runner) TLC(ctx context.Context, dir string, args ...string) ([]byte, int, error) {
	return r.java(ctx, dir, shortRun(), "tlc2.TLC", args...)
}
