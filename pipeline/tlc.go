package pipeline

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fencelab/fencelab/distlockspec"
	"github.com/fencelab/fencelab/internal/atomicfile"
	"github.com/fencelab/fencelab/internal/inputfile"
	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/internal/words"
	"github.com/fencelab/fencelab/report"
	"github.com/fencelab/fencelab/tlc"
	"github.com/fencelab/fencelab/trace"
)

// TLCPlan is what fencelab tlc runs: the models of the manifest in Specs
// it selected (LoadModels), with the tools of Pin, TLC's workers and time
// limit, saving into Out.
type TLCPlan struct {
	Specs, Pin, Out string
	Models          []tlc.Model
	Timeout         time.Duration
	Workers         string // auto or a number
	NoCache         bool   // run every model, reading no cached result
}

// TLC checks the committed PlusCal translations, runs each model, saves
// and prints every counterexample, and prints one summary table. It fails
// (exit 1) iff a row differs from the manifest. An --out that cannot be
// written, no Java, a jar that is not TLA+ tools exits 2 before anything
// runs. SIGINT or SIGTERM stops TLC (its whole process group), removes
// the temporary folders and exits 128+signal.
func TLC(e *Env, p TLCPlan) error {
	models := p.Models
	if err := CheckOutDir("out", p.Out); err != nil {
		return err
	}
	removeIfEmpty, err := MakeOutDir(e, p.Out)
	if err != nil {
		return err
	}
	defer removeIfEmpty()
	ctx, stop := Interruptible()
	defer stop()
	runner, err := NewTLCRunner(ctx, e, p.Pin, p.Timeout, len(models), p.NoCache)
	if err != nil {
		return err
	}
	runner.Workers = p.Workers
	rows, err := checkModels(ctx, e, runner, p.Specs, p.Out, models, func(tlc.Model) bool { return true })
	if err != nil {
		return err
	}
	if err := report.TLCTable(e.Stdout, rows); err != nil {
		return err
	}
	var bad []string
	for _, r := range rows {
		if r.Mismatch != "" {
			bad = append(bad, "model "+r.Model.Name+": "+r.Mismatch)
		}
	}
	if len(bad) > 0 {
		return Failed("%d of %s differ from the manifest: %s", len(bad), words.Count(len(rows), "model"), strings.Join(bad, "; "))
	}
	fmt.Fprintf(e.Stdout, "\nall %s match the manifest; outputs in %s\n", words.Count(len(rows), "model"), p.Out)
	return nil
}

// LoadModels reads the manifest in specs and selects one model by name, or
// when name is empty every model but the slow ones (all: every model). Every selected model's spec and cfg must
// be a file inside specs: a missing one is bad input, found before anything
// runs.
func LoadModels(specs, name string, all bool) ([]tlc.Model, error) {
	manifest, err := distlockspec.LoadManifest(filepath.Join(specs, "models.json"))
	if err != nil {
		return nil, BadInput("%v", err)
	}
	models, err := manifest.Select(name)
	if err != nil {
		return nil, BadInput("%v", err)
	}
	if name == "" && !all {
		models = manifest.Default()
		if len(models) == 0 {
			return nil, NothingChecked("every model of %s is marked slow (run them with --all, or one with --model NAME)", filepath.Join(specs, "models.json"))
		}
	}
	if err := tlc.CheckFiles(specs, models); err != nil {
		return nil, BadInput("%v", err)
	}
	return models, nil
}

// interrupted is the cause of a context cancelled by a signal.
type interrupted struct{ sig os.Signal }

func (i interrupted) Error() string { return "interrupted by " + signalName(i.sig) }

func signalName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// Interruptible returns a context cancelled, with an interrupted cause, by
// the first SIGINT or SIGTERM; until stop is called those signals no longer
// end the process at once, so TLC is stopped and the temporary folders are
// removed before fencelab exits. A second signal ends it at once.
func Interruptible() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			cancel(interrupted{s})
			// The default again: a second signal ends fencelab at once.
			signal.Reset(os.Interrupt, syscall.SIGTERM)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// Stopped turns a context cancelled by a signal while TLC ran into
// fencelab's error: exit code 128+signal, as a shell reports a process a
// signal ended.
func Stopped(ctx context.Context) error {
	return StoppedWith(ctx, "TLC stopped, its temporary folders removed")
}

// StoppedWith is Stopped for any stage, what saying what was stopped
// ("the search stopped").
func StoppedWith(ctx context.Context, what string) error {
	var i interrupted
	if !errors.As(context.Cause(ctx), &i) {
		return Failed("%v", context.Cause(ctx))
	}
	code := 130
	if s, ok := i.sig.(syscall.Signal); ok {
		code = 128 + int(s)
	}
	return &ExitError{Code: code, Err: fmt.Errorf("%v: %s", i, what)}
}

// ResolveTLC finds Java and the pinned tla2tools.jar (TLA2TOOLS_JAR, the
// verified cache, or a verified download); a missing one is bad input.
// Every command that runs TLC comes here first, so a FENCELAB_CACHE that
// cannot hold TLC's results and class archive is refused here too, before
// anything runs, rather than said to cache what it cannot.
func ResolveTLC(ctx context.Context, pin string) (tlc.Jar, string, error) {
	if err := checkCacheEnv(os.Getenv(tlc.CacheEnv)); err != nil {
		return tlc.Jar{}, "", err
	}
	java, err := tlc.FindJava()
	if err != nil {
		return tlc.Jar{}, "", BadInput("%v", err)
	}
	resolver, err := tlc.DefaultResolver(pin)
	if err != nil {
		return tlc.Jar{}, "", BadInput("%v", err)
	}
	jar, err := resolver.Resolve(ctx)
	if err != nil {
		return tlc.Jar{}, "", BadInput("%v", err)
	}
	return jar, java, nil
}

// checkCacheEnv checks FENCELAB_CACHE's value, if set: an absolute path
// to a folder fencelab can write, or that it can create (CheckFolder).
func checkCacheEnv(dir string) error {
	if dir == "" {
		return nil
	}
	if !filepath.IsAbs(dir) {
		return BadInput("%s %s must be an absolute path (or unset it to cache in the user's cache folder)", tlc.CacheEnv, quote.S(dir))
	}
	return CheckFolder(tlc.CacheEnv, dir)
}

// NewTLCRunner resolves the tools and says on stderr which jar runs how
// many models, and where TLC's results are cached (TLCCache).
func NewTLCRunner(ctx context.Context, e *Env, pin string, timeout time.Duration, models int, noCache bool) (*tlc.Runner, error) {
	jar, java, err := ResolveTLC(ctx, pin)
	if err != nil {
		return nil, err
	}
	heap, err := tlc.HeapLimit(os.Getenv, "/proc/meminfo")
	if err != nil {
		return nil, BadInput("%v", err)
	}
	cache := TLCCache(e, noCache)
	fmt.Fprintf(e.Stderr, "fencelab tlc: %s (from %s), %s, %s\n", jar.Path, jar.Source, words.Count(models, "model"), cacheNote(cache))
	return &tlc.Runner{Java: java, Jar: jar.Path, Workers: "auto", Timeout: timeout, Classes: tlc.DefaultClassArchive(),
		Cache: cache, HeapLimit: heap}, nil
}

// TLCCache is the cache of TLC's results (tlc.DefaultCache: $FENCELAB_CACHE,
// else fencelab in the user's cache folder), or nil with noCache (every
// model runs) or where there is no cache folder (said on stderr).
func TLCCache(e *Env, noCache bool) *tlc.Cache {
	if noCache {
		return nil
	}
	cache, err := tlc.DefaultCache()
	if err != nil {
		fmt.Fprintf(e.Stderr, "fencelab: TLC's results are not cached: %v\n", err)
		return nil
	}
	return cache
}

// cacheNote says where TLC's results are cached, for the line that names
// the jar.
func cacheNote(c *tlc.Cache) string {
	if c == nil {
		return "no cached results (every model runs)"
	}
	return "results cached in " + c.Dir + " (--no-cache reruns)"
}

// checkModels checks the committed translations of the models' specs and
// runs every model, printing the counterexamples of those show selects.
// It runs modelsAtOnce models at a time, each TLC process with its own
// java.io.tmpdir and metadir (tlc.Runner), and prints and returns them in
// the manifest's order, whatever order they finish in: the output is the
// same bytes as one at a time.
func checkModels(ctx context.Context, e *Env, runner *tlc.Runner, specs, outDir string, models []tlc.Model, show func(tlc.Model) bool) ([]tlc.Outcome, error) {
	stale, untranslated, err := staleSpecs(ctx, runner, specs, models)
	if err != nil {
		return nil, err
	}
	type done struct {
		row tlc.Outcome
		out bytes.Buffer // what runModel printed, written out in order
		err error        // the run could not be saved, or TLC did not run: not a verdict
	}
	results := make([]done, len(models))
	ready := make([]chan struct{}, len(models))
	for i := range ready {
		ready[i] = make(chan struct{})
	}
	slots := make(chan struct{}, modelsAtOnce())
	started := make([]bool, len(models)) // by the starting goroutine only
	step, stepsDone := NewStepProgress(e, len(models), "tlc", "model")
	defer stepsDone()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // starts each model when a slot is free, the biggest first
		defer wg.Done()
		for _, i := range biggestFirst(models) {
			m := models[i]
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				for j, c := range ready {
					if !started[j] {
						close(c)
					}
				}
				return
			}
			started[i] = true
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-slots; close(ready[i]) }()
				results[i].row, results[i].err = runModel(ctx, e.Disk, &results[i].out, runner, specs, outDir, m, stale[m.Spec], untranslated[m.Spec], show(m))
				step(m.Name + cachedMark(results[i].row.Cached))
			}()
		}
	}()
	var rows []tlc.Outcome
	for i := range models {
		<-ready[i]
		if ctx.Err() != nil {
			wg.Wait() // every started run has stopped and cleaned up
			return nil, Stopped(ctx)
		}
		if err := results[i].err; err != nil {
			wg.Wait()
			return nil, err
		}
		if _, err := e.Stdout.Write(results[i].out.Bytes()); err != nil {
			wg.Wait()
			return nil, err
		}
		rows = append(rows, results[i].row)
	}
	wg.Wait()
	return rows, nil
}

// biggestFirst is the order checkModels starts models in: those the
// manifest counts the most states for first, then the others in the
// manifest's order. With two at a time, the longest run starting last
// would leave one core idle while it finishes (the 420,541-state Redlock
// model is the 74th of 82 in the manifest); the output is printed in the
// manifest's order whatever the order of the runs.
func biggestFirst(models []tlc.Model) []int {
	order := make([]int, len(models))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(models[b].DistinctStates, models[a].DistinctStates)
	})
	return order
}

// modelsAtOnce is how many TLC processes checkModels runs at a time: two
// where there are two cores or more. Most models take a second or two, a
// good part of it the JVM starting, compiling and loading the spec on one
// core; a second model uses the other core meanwhile, and a model
// expected to be violated runs one TLC worker anyway (tlc.Runner.Workers).
// Not more: each JVM sizes its heap for the whole machine.
func modelsAtOnce() int { return max(1, min(2, runtime.NumCPU())) }

// staleSpecs re-translates each spec the models use and says, per spec,
// why its committed translation is stale (nothing when it is current), or
// why it could not be checked (the translator failed): that is not called
// stale, for it is something else.
func staleSpecs(ctx context.Context, r *tlc.Runner, specs string, models []tlc.Model) (stale map[string][]string, untranslated map[string]string, err error) {
	var names []string // each spec once, in manifest order
	for _, m := range models {
		if !slices.Contains(names, m.Spec) {
			names = append(names, m.Spec)
		}
	}
	// The translator is a JVM too: modelsAtOnce specs at a time.
	whys, errs := make([]string, len(names)), make([]error, len(names))
	slots := make(chan struct{}, modelsAtOnce())
	var wg sync.WaitGroup
	for i, name := range names {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			whys[i], errs[i] = r.StaleTranslation(ctx, filepath.Join(specs, name))
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil, nil, Stopped(ctx)
	}
	stale, untranslated = map[string][]string{}, map[string]string{}
	for i, name := range names {
		if errs[i] != nil {
			untranslated[name] = errs[i].Error()
			continue
		}
		if whys[i] != "" {
			stale[name] = []string{whys[i]}
		}
	}
	return stale, untranslated, nil
}

// runModel runs one model, judges it against the manifest, saves its
// output and counterexample, and, if show, prints the counterexample's
// step table. A failed save, or an output that is not TLC's, is its
// error (exit 2), not the row's mismatch: neither says anything about the
// model.
func runModel(ctx context.Context, disk *atomicfile.Disk, stdout io.Writer, r *tlc.Runner, specs, outDir string, m tlc.Model, stale []string, untranslated string, show bool) (tlc.Outcome, error) {
	row := tlc.Outcome{Model: m, Distinct: -1, Depth: -1}
	var invariants []string // what the model checks; a missing cfg fails the run below
	if cfg, err := inputfile.Read(filepath.Join(specs, m.Cfg), inputfile.MaxText); err == nil {
		invariants = tlc.CfgInvariants(string(cfg))
	}
	res, err := r.Run(ctx, specs, m)
	if errors.Is(err, tlc.ErrNotTLC) {
		return row, BadInput("%v", err)
	}
	if err != nil {
		row.Got, row.Mismatch, row.Verdicts = "not run", err.Error(), tlc.NotRun(err.Error(), invariants)
		return row, nil
	}
	res.Got.Stale = append(res.Got.Stale, stale...)
	res.Got.Untranslated = untranslated
	row.Got, row.Distinct, row.Depth, row.Wall, row.Cached = res.Got.Text(), res.Got.Distinct, res.Got.Depth, res.Wall, res.Cached
	steps := 0 // the counterexample's actions: its states but the initial one
	if res.Parsed != nil && len(res.Parsed.States) > 0 {
		steps = len(res.Parsed.States) - 1
	}
	row.Verdicts = tlc.Verdicts(res.Got, invariants, steps)
	row.Mismatch = tlc.Judge(m, res.Got)
	if err := tlc.ValidModelName(m.Name); err != nil { // never a path outside outDir
		row.Mismatch = err.Error()
		return row, nil
	}
	dir := filepath.Join(outDir, m.Name)
	if err := saveRun(disk, dir, res); err != nil {
		return row, CouldNotSave(err)
	}
	if res.ParseErr != nil {
		// What java printed is not TLC's: the tools are broken (a damaged
		// jar, a java that is not Java), which says nothing of the model.
		return row, BadInput("model %s: java printed something that is not TLC's output (%v; saved in %s): check the jar (%s) and java (%s)",
			m.Name, res.ParseErr, filepath.Join(dir, "tlc.out"), quote.S(r.Jar), quote.S(r.Java))
	}
	if res.Got.Result == tlc.ResultNoVerdict || (res.Got.Result == tlc.ResultOK && res.Got.Distinct < 0) {
		// TLC ends every search it finished with its result and its state
		// count: an output without them, or that contradicts its exit
		// code, is not TLC's whole output, and says nothing of the model.
		return row, BadInput("model %s: java exited %d without TLC's closing state count and result (%s; saved in %s): check the jar (%s) and java (%s)",
			m.Name, res.Got.ExitCode, res.Got.Detail, filepath.Join(dir, "tlc.out"), quote.S(r.Jar), quote.S(r.Java))
	}
	if show && res.Parsed != nil && len(res.Parsed.States) > 0 {
		t, err := distlockspec.Trace(res.Parsed, traceOptions(m, res))
		if err == nil {
			fmt.Fprintf(stdout, "── %s: %s ──\n", m.Name, res.Got.Text())
			if err := trace.WriteTable(stdout, t); err != nil {
				row.Mismatch = err.Error()
			}
			fmt.Fprintf(stdout, "(saved in %s)\n\n", dir)
		}
	}
	return row, nil
}

func traceOptions(m tlc.Model, res *tlc.Result) distlockspec.TraceOptions {
	return distlockspec.TraceOptions{
		Title:    fmt.Sprintf("%s (%s, %s): %s", m.Name, m.Spec, m.Cfg, res.Got.Text()),
		Property: res.Got.Property,
	}
}

// saveRun writes TLC's raw output (tlc.out) and, when there is a
// counterexample, the trace's files beside it (trace.WriteFiles) into a
// staged folder that then takes dir's place, whatever was there
// (atomicfile.Stage). Nothing outside dir's parent is touched (dir is
// --out/<model name>, and a model name is one plain path element), and a
// failed write leaves the former results as they were.
func saveRun(disk *atomicfile.Disk, dir string, res *tlc.Result) error {
	st, err := disk.Stage(dir)
	if err != nil {
		return fmt.Errorf("could not save %s: %w", dir, err)
	}
	defer st.Abandon()
	if err := writeRun(st.Folder(), res); err != nil {
		return err
	}
	if err := st.Commit(nil); err != nil {
		return fmt.Errorf("could not save %s: %w", dir, err)
	}
	return nil
}

// writeRun writes a run's files into folder, an empty one.
func writeRun(folder *atomicfile.Folder, res *tlc.Result) error {
	writeOutput := func(w io.Writer) error { _, err := w.Write(res.Output); return err }
	if err := folder.WriteFile("tlc.out", writeOutput); err != nil {
		return err
	}
	if res.Parsed == nil || len(res.Parsed.States) == 0 {
		return nil
	}
	t, err := distlockspec.Trace(res.Parsed, traceOptions(res.Model, res))
	if err != nil {
		return fmt.Errorf("converting the counterexample: %w", err)
	}
	if _, err := trace.WriteFilesTo(folder, t); err != nil {
		return err
	}
	return nil
}

// cachedMark is what a line about a TLC run read from the cache ends
// with, as go test's "(cached)".
func cachedMark(cached bool) string {
	if cached {
		return " (cached)"
	}
	return ""
}

// TLCWorkersPerCore bounds TLC's workers (fencelab tlc --workers): TLC's workers are threads that
// each keep a core busy, so more than a few per core only wait and take
// memory; a count far above it (100000) would run TLC for a long while
// to fail instead of being refused.
const TLCWorkersPerCore = 4

// CheckTLCWorkers checks a --workers value of fencelab tlc: auto, or a whole number from
// 1 to TLCWorkersPerCore per core of the machine's cores.
func CheckTLCWorkers(value string, cores int) error {
	if value == "auto" {
		return nil
	}
	most := TLCWorkersPerCore * max(cores, 1)
	n, err := strconv.Atoi(value)
	if err != nil || n < 1 || n > most {
		return BadInput("--workers must be auto or a number from 1 to %d (%d per core, %s here), got %s",
			most, TLCWorkersPerCore, words.Count(cores, "core"), quote.Q(value))
	}
	return nil
}
