package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fencelab/fencelab/explore"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/atomicfile"
	"github.com/fencelab/fencelab/internal/inputfile"
	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/internal/words"
	"github.com/fencelab/fencelab/report"
	"github.com/fencelab/fencelab/sim"
	"github.com/fencelab/fencelab/tlc"
	"github.com/fencelab/fencelab/trace"
	"github.com/fencelab/fencelab/verdict"
)

const demoUsage = `fencelab demo [--out DIR] [--runs N] [--seed 1] [--clients 2,3] [--nodes 3] [--specs DIR] [--update-readme FILE]

Reaches every verdict of DESIGN.md's table three ways and prints them side
by side: the explorer on the Go implementation (2 and 3 clients), the
simulator under network delay, process pauses and clock drift (every fault
kind together, each alone, and none), and TLC on every model of the specs.
Without Java or tla2tools.jar, TLC is marked "not run" — never passed — and
the command exits 2 once everything else has run.`

// showcaseModel is the TLC counterexample the demo prints in full: seed
// 000's story of two clients that both believe they hold the lock.
const showcaseModel = "DistLock_2c_AtMostOneClientHoldLock"

func demoCommand() command {
	return command{name: "demo", summary: "every verdict of DESIGN.md's table three ways: explorer, simulator, TLC", run: runDemo}
}

func runDemo(e *env, args []string) error {
	fs := newFlagSet("demo")
	out := fs.String("out", "out", "folder for everything the demo writes")
	runs := fs.Int("runs", 1000, "simulator runs per design and fault setting")
	seed := fs.Uint64("seed", 1, "the simulator's first seed; run i uses seed+i")
	// 2 and 3 clients finish in seconds and match TLC's model sizes.
	clients := fs.String("clients", "2,3", "the explorer's model sizes, comma-separated, each 2 to 4")
	nodes := nodesFlag(fs, explore.DefaultNodes, "independent lock nodes of the explorer's Redlock rows, 1 to 9 (3 unless given, as in TLC's models); the simulator keeps its own, 5")
	specs := fs.String("specs", "specs", "folder with the specs, the cfgs and models.json")
	pin := fs.String("pin", "tla2tools.version", "the pinned TLA+ tools release")
	readme := fs.String("update-readme", "", "also rewrite the verdict table in this README from this run (needs TLC)")
	rest, err := parseFlags(e, fs, demoUsage, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return badInput("unexpected argument %s (usage: %s)", quote.Q(rest[0]), strings.SplitN(demoUsage, "\n", 2)[0])
	}
	// The simulator's flags are validated as fencelab sim validates them,
	// so a bad --runs reads the same from both commands.
	opts, err := parseSimFlags(e, []string{"--runs", strconv.Itoa(*runs), "--seed", strconv.FormatUint(*seed, 10), "--out", filepath.Join(*out, "sim")})
	if err != nil {
		return err
	}
	if *nodes, err = lockNodes(fs, *nodes); err != nil {
		return err
	}
	sizes, err := parseSizes(*clients)
	if err != nil {
		return err
	}
	// Validated as fencelab explore --design redlock --nodes validates it.
	redlock := explore.DefaultConfig(impl.DesignRedlock, sizes[0])
	if redlock.Nodes = explore.Nodes(impl.DesignRedlock, *nodes, true); redlock.Validate() != nil {
		return badInput("%v", redlock.Validate())
	}
	models, err := loadModels(*specs, "", false)
	if err != nil {
		return err
	}
	if err := checkOutDir("out", *out); err != nil {
		return err
	}
	if err := checkReadme(*readme); err != nil {
		return err
	}
	removeIfEmpty, err := makeOutDir(e, *out)
	if err != nil {
		return err
	}
	defer removeIfEmpty()

	w := e.stdout
	fmt.Fprintln(w, "fencelab demo — when is a lease-based lock safe, and what do fencing tokens fix?")
	fmt.Fprintln(w, "Every verdict of DESIGN.md's table, reached three ways.")

	section(w, "1/3 explorer: every interleaving of the Go implementation")
	explored, err := demoExplore(e, sizes, *nodes, filepath.Join(*out, "explore"))
	if err != nil {
		return err
	}

	section(w, "2/3 simulator: seeded runs under network delay, process pauses and clock drift")
	simulated, err := demoSimulate(e, opts)
	if err != nil {
		return err
	}

	section(w, "3/3 TLC on the PlusCal specs")
	checked, tlcMissing, tlcMismatch, err := demoTLC(e, *specs, *pin, filepath.Join(*out, "tlc"), models)
	if err != nil {
		return err
	}

	var conformed error
	if tlcMissing == nil {
		section(w, "conformance: the Go code and the specs checked against each other")
		if conformed, err = demoConformanceSection(e, *specs, *pin, filepath.Join(*out, "tlc"), models); err != nil {
			return err
		}
	}

	section(w, "DESIGN.md's table, three ways")
	var notRun []string
	if tlcMissing != nil {
		notRun = append(notRun, report.TLC)
	}
	table := report.Join(slices.Concat(checked, explored, simulated), notRun...)
	if err := table.WriteText(w); err != nil {
		return err
	}
	mdPath := filepath.Join(*out, "demo", "verdicts.md")
	if err := writeFileAll(e.disk, mdPath, table.Markdown()); err != nil {
		return couldNotSave(err)
	}
	matrixPath := filepath.Join(*out, "demo", "matrix.md")
	if err := writeFileAll(e.disk, matrixPath, table.Matrix(relativeLink(filepath.Dir(matrixPath)))); err != nil {
		return couldNotSave(err)
	}
	fmt.Fprintf(w, "\nFiles written:\n")
	fmt.Fprintf(w, "  %-48s the table above, in Markdown\n", mdPath)
	fmt.Fprintf(w, "  %-48s the same as the lock-design × fault matrix, each counterexample linked to its picture\n", matrixPath)
	files := strings.Join(trace.FileNames(), ", ")
	fmt.Fprintf(w, "  %-48s the explorer's shortest counterexamples: %s\n", filepath.Join(*out, "explore", "<design>-<n>c-<property>")+"/", files)
	fmt.Fprintf(w, "  %-48s each design's first failing run: %s, run.txt, schedule.json, porcupine.html\n", filepath.Join(*out, "sim", "<design>")+"/", files)
	if tlcMissing == nil {
		fmt.Fprintf(w, "  %-48s each model's TLC output, tlc.out, and counterexample: %s\n", filepath.Join(*out, "tlc", "<model>")+"/", files)
	}

	if disagree := table.Disagreements(); len(disagree) > 0 {
		return failed("DESIGN.md's table differs in %s: %s", words.Count(len(disagree), "verdict"), strings.Join(disagree, "; "))
	}
	if tlcMismatch != nil {
		return tlcMismatch
	}
	if conformed != nil {
		return conformed
	}
	if tlcMissing != nil {
		return badInput("TLC was not run (the TLC section above says what is missing and how to provide it); every other verdict agrees with DESIGN.md's table")
	}
	if *readme != "" {
		pages := newMatrixPages(filepath.Dir(*readme))
		matrix := table.Matrix(pages.link)
		if err := pages.save(e.disk); err != nil {
			return couldNotSave(fmt.Errorf("could not save the matrix's pictures: %w", err))
		}
		if err := updateReadmeBlock(e.disk, *readme, "verdicts", matrix); err != nil {
			return couldNotSave(err)
		}
		fmt.Fprintf(w, "\n%s: verdict table updated from this run\n", *readme)
	}
	fmt.Fprintln(w, "\nEvery verdict agrees with DESIGN.md's table.")
	return nil
}

func section(w io.Writer, title string) {
	fmt.Fprintf(w, "\n━━ %s ━━\n\n", title)
}

// parseSizes reads --clients: model sizes for the explorer, each checked
// by the explorer's own Validate, so a bad size reads as in fencelab explore.
func parseSizes(s string) ([]int, error) {
	var sizes []int
	for _, part := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil {
			return nil, badInput("clients: %s is not a number", quote.Q(part))
		}
		if err := explore.DefaultConfig(impl.DesignFenceAll, n).Validate(); err != nil {
			return nil, badInput("%v", err)
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}

// demoExplore runs the explorer on every design for each model size (the
// Redlock rows with nodes lock nodes, 0 for the explorer's default) and
// prints one matrix per size.
func demoExplore(e *env, sizes []int, nodes int, outDir string) ([]report.Reached, error) {
	var all []*explore.Result
	step, stepsDone := newStepProgress(e, 0, "explore", "model")
	defer stepsDone()
	for i, clients := range sizes {
		var results []*explore.Result
		for _, d := range impl.Designs() {
			if clients > explore.RoutineClients(d) {
				continue
			}
			if d.Redlock() && clients > 2 {
				// N nodes' answers and releases in flight: 3 clients are
				// past 3 million states at depth 17 of about 50 (2
				// clients: 420,541 in all).
				continue
			}
			// With client symmetry and sleep sets, as fencelab explore
			// by default.
			c := explore.DefaultConfig(d, clients)
			c.Symmetry, c.SleepSets = true, true
			c.Nodes = explore.Nodes(d, nodes, true)
			res, err := explore.Run(c)
			if err != nil {
				return nil, fmt.Errorf("explore: %w", err)
			}
			step(fmt.Sprintf("%s, %s", d, words.Count(clients, "client")))
			results = append(results, res)
		}
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		if err := report.ExploreMatrix(e.stdout, results); err != nil {
			return nil, err
		}
		if _, err := writeTraces(e.disk, outDir, results); err != nil {
			return nil, err
		}
		all = append(all, results...)
	}
	reached := report.Explored(all)
	for i, r := range all {
		for _, v := range r.Verdicts() {
			if v.Status == verdict.Violated && v.Property != explore.Deadlock {
				if reached[i].Pictures == nil {
					reached[i].Pictures = map[string]string{}
				}
				reached[i].Pictures[v.Property] = filepath.Join(outDir, fmt.Sprintf("%s-%dc-%s", r.Config.Design, r.Config.Clients, v.Property), "trace.mmd")
			}
		}
	}
	return reached, nil
}

// demoSimulate runs the simulator with every fault kind together, each
// alone (the NPC table) and none, prints their tables and returns the
// verdicts with all faults and without any.
func demoSimulate(e *env, o *simOptions) ([]report.Reached, error) {
	w := e.stdout
	progress, done := newProgress(e, o.runs*len(o.designs)*5, "sim")
	defer done()
	faults, err := o.batch(o.cfg.Faults, progress).Run()
	if err != nil {
		return nil, err
	}
	o.writeHeader(w, faults.Faults.String())
	if err := report.SimTable(w, faults); err != nil {
		return nil, err
	}
	if err := o.firstFailures(e, faults); err != nil {
		return nil, err
	}
	singles, err := o.npcSummaries(progress)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "\nThe NPC table — each fault kind alone, %s per cell:\n\n", words.Count(o.runs, "run"))
	if err := report.NPCTable(w, singles); err != nil {
		return nil, err
	}
	none, err := o.batch(sim.NoFaults, progress).Run()
	if err != nil {
		return nil, err
	}
	runs, _, _ := none.Totals()
	fmt.Fprintf(w, "\nWithout faults: %s in %s (%d per design).\n", noFaultOutcome(none), words.Count(runs, "run"), o.runs)
	return append(report.Simulated(faults), report.Simulated(none)...), nil
}

// noFaultOutcome says what the runs without faults broke: nothing, when the
// implementation's timing assumptions hold.
func noFaultOutcome(sum *sim.Summary) string {
	if bad := sum.Unexpected(); len(bad) > 0 {
		return "✗ " + strings.Join(bad, "; ")
	}
	return "no property violated, no stall, every history linearizable"
}

// demoTLC runs every model when Java and the jar are there. A missing tool
// is returned as missing, printed in one line with how to provide it, so
// the rest of the demo goes on; it never counts as a pass. SIGINT or
// SIGTERM while TLC runs stops it as in fencelab tlc.
func demoTLC(e *env, specs, pin, outDir string, models []tlc.Model) (checked []report.Reached, missing, mismatch, err error) {
	ctx, stop := interruptible()
	defer stop()
	runner, err := newTLCRunner(ctx, e, pin, 10*time.Minute, len(models))
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) && ee.code == exitBadInput {
			fmt.Fprintf(e.stdout, "TLC not run: %s\n", oneLine(err.Error()))
			return nil, err, nil, nil
		}
		return nil, nil, nil, err
	}
	rows, err := checkModels(ctx, e, runner, specs, outDir, models, func(m tlc.Model) bool { return m.Name == showcaseModel })
	if err != nil {
		return nil, nil, nil, err
	}
	if err := report.TLCTable(e.stdout, rows); err != nil {
		return nil, nil, nil, err
	}
	checked, err = report.Checked(rows)
	if err != nil {
		return nil, nil, nil, err
	}
	for i := range checked {
		for _, v := range checked[i].Verdicts {
			pic := filepath.Join(outDir, checked[i].Model, "trace.mmd")
			if _, statErr := os.Stat(pic); v.Status == verdict.Violated && statErr == nil {
				if checked[i].Pictures == nil {
					checked[i].Pictures = map[string]string{}
				}
				checked[i].Pictures[v.Property] = pic
			}
		}
	}
	return checked, nil, tlcMismatches(rows), nil
}

// tlcMismatches fails the demo as fencelab tlc fails when any model
// differs from the manifest — a model outside the verdict table too (a
// witness, a variant, the timed spec), which the joined table alone would
// not show.
func tlcMismatches(rows []tlc.Outcome) error {
	var bad []string
	for _, r := range rows {
		if r.Mismatch != "" {
			bad = append(bad, r.Model.Name+" ("+r.Mismatch+")")
		}
	}
	if len(bad) > 0 {
		return failed("the manifest differs in %s: %s", words.Count(len(bad), "TLC model"), strings.Join(bad, "; "))
	}
	return nil
}

// relativeLink links a picture from a Markdown file in dir.
func relativeLink(dir string) func(design, property, checker, picture string) string {
	return func(_, _, _, picture string) string {
		rel, err := filepath.Rel(dir, picture)
		if err != nil {
			return ""
		}
		return filepath.ToSlash(rel)
	}
}

// matrixDir is where the README's matrix keeps its counterexample
// pictures, beside the README: one Markdown page per cell, with the
// Mermaid sequence picture the checker drew.
const matrixDir = "docs/matrix"

// matrixPageMark is a sentence every page matrixPictures writes holds: a
// page without it in docs/matrix is someone else's and is never removed.
const matrixPageMark = "from `fencelab demo`'s run that wrote the README's matrix."

// matrixPages collects a page per linked picture, to be written into
// docs/matrix beside the README in root by save; link links the README's
// cells to them.
type matrixPages struct {
	dir     string
	pages   map[string]string // file name → page
	failure error
}

func newMatrixPages(root string) *matrixPages {
	return &matrixPages{dir: filepath.Join(root, filepath.FromSlash(matrixDir)), pages: map[string]string{}}
}

func (m *matrixPages) link(design, property, checker, picture string) string {
	flag := design
	for _, d := range impl.Designs() {
		if d.Describe() == design {
			flag = d.String()
		}
	}
	if flag == design {
		return "" // the simulator without faults: no design, no picture
	}
	mmd, err := inputfile.Read(picture, inputfile.MaxOutput)
	if err != nil {
		m.failure = errors.Join(m.failure, fmt.Errorf("%s: %w", picture, err))
		return ""
	}
	name := fmt.Sprintf("%s-%s-%s.md", flag, property, strings.ToLower(checker))
	m.pages[name] = fmt.Sprintf("# %s violated — %s (%s)\n\nThe shortest counterexample %s found, %s\n\n```mermaid\n%s```\n",
		property, design, checker, checker, matrixPageMark, mmd)
	return matrixDir + "/" + name
}

// save writes every page into docs/matrix, each whole (atomicfile), then
// removes the pages of an older run that this one did not write: only
// files that hold matrixPageMark, never a folder, never anything else.
func (m *matrixPages) save(disk *atomicfile.Disk) error {
	if m.failure != nil {
		return m.failure
	}
	folder := disk.Folder(m.dir)
	for _, name := range slices.Sorted(maps.Keys(m.pages)) {
		page := m.pages[name]
		if err := folder.WriteFile(name, func(w io.Writer) error { _, err := io.WriteString(w, page); return err }); err != nil {
			return err
		}
	}
	entries, err := os.ReadDir(m.dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if _, fresh := m.pages[name]; fresh || !e.Type().IsRegular() || filepath.Ext(name) != ".md" {
			continue
		}
		path := filepath.Join(m.dir, name)
		if old, err := inputfile.Read(path, inputfile.MaxOutput); err == nil && strings.Contains(string(old), matrixPageMark) {
			if err := os.Remove(path); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeFileAll writes content to path, creating its folder: whole or not
// at all (atomicfile).
func writeFileAll(disk *atomicfile.Disk, path, content string) error {
	return disk.Folder(filepath.Dir(path)).WriteFile(filepath.Base(path), func(w io.Writer) error {
		_, err := io.WriteString(w, content)
		return err
	})
}
