package pipeline

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fencelab/fencelab/explore"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/atomicfile"
	"github.com/fencelab/fencelab/internal/inputfile"
	"github.com/fencelab/fencelab/internal/words"
	"github.com/fencelab/fencelab/report"
	"github.com/fencelab/fencelab/sim"
	"github.com/fencelab/fencelab/tlc"
	"github.com/fencelab/fencelab/trace"
	"github.com/fencelab/fencelab/verdict"
)

// ShowcaseModel is the TLC counterexample the demo prints in full: two
// clients that both believe they hold the lock.
const ShowcaseModel = "DistLock_2c_AtMostOneClientHoldLock"

// DemoPlan is what fencelab demo runs: the explorer's model sizes and
// Redlock nodes, the simulator's options, TLC on the specs' default
// models, and the README to rewrite from the run ("" for none).
type DemoPlan struct {
	Out, Specs, Pin string
	Sizes           []int // the explorer's clients, one matrix each
	Nodes           int   // the explorer's Redlock nodes, 0 for its default
	Sim             *SimOptions
	Readme          string
	NoCache         bool // run every TLC model and check, reading no cached result
}

// Demo reaches every verdict of DESIGN.md's table three ways — the
// explorer, the simulator, TLC (and, with TLC, the conformance of the Go
// code and the specs) — prints them side by side and writes the joined
// table. Without TLC, it runs everything else and returns bad input.
func Demo(e *Env, p DemoPlan) (err error) {
	models, err := LoadModels(p.Specs, "", false)
	if err != nil {
		return err
	}
	if err := CheckOutDir("out", p.Out); err != nil {
		return err
	}
	if err := CheckReadme(p.Readme); err != nil {
		return err
	}
	removeIfEmpty, err := MakeOutDir(e, p.Out)
	if err != nil {
		return err
	}
	defer removeIfEmpty()

	w := e.Stdout
	fmt.Fprintln(w, "fencelab demo — when is a lease-based lock safe, and what do fencing tokens fix?")
	fmt.Fprintln(w, "Every verdict of DESIGN.md's table, reached three ways.")

	parts := &partTimes{}
	defer func() {
		if err == nil { // a failure's stderr is its one line
			parts.write(e.Stderr)
		}
	}()
	section(w, "1/3 explorer: every interleaving of the Go implementation")
	parts.start("explorer")
	explored, err := demoExplore(e, p.Sizes, p.Nodes, filepath.Join(p.Out, "explore"))
	if err != nil {
		return err
	}

	section(w, "2/3 simulator: seeded runs under network delay, process pauses and clock drift")
	parts.start("simulator")
	simulated, err := demoSimulate(e, p.Sim)
	if err != nil {
		return err
	}

	section(w, "3/3 TLC on the PlusCal specs")
	parts.start("TLC models")
	checked, tlcMissing, tlcMismatch, err := demoTLC(e, p.Specs, p.Pin, filepath.Join(p.Out, "tlc"), models, p.NoCache)
	if err != nil {
		return err
	}

	var conformed error
	if tlcMissing == nil {
		section(w, "conformance: the Go code and the specs checked against each other")
		parts.start("conformance")
		if conformed, err = demoConformanceSection(e, p.Specs, p.Pin, filepath.Join(p.Out, "tlc"), models, p.NoCache); err != nil {
			return err
		}
	}

	parts.start("table")
	section(w, "DESIGN.md's table, three ways")
	var notRun []string
	if tlcMissing != nil {
		notRun = append(notRun, report.TLC)
	}
	table := report.Join(slices.Concat(checked, explored, simulated), notRun...)
	if err := table.WriteText(w); err != nil {
		return err
	}
	mdPath := filepath.Join(p.Out, "demo", "verdicts.md")
	if err := writeFileAll(e.Disk, mdPath, table.Markdown()); err != nil {
		return CouldNotSave(err)
	}
	matrixPath := filepath.Join(p.Out, "demo", "matrix.md")
	if err := writeFileAll(e.Disk, matrixPath, table.Matrix(relativeLink(filepath.Dir(matrixPath)))); err != nil {
		return CouldNotSave(err)
	}
	fmt.Fprintf(w, "\nFiles written:\n")
	fmt.Fprintf(w, "  %-48s the table above, in Markdown\n", mdPath)
	fmt.Fprintf(w, "  %-48s the same as the lock-design × property matrix, each counterexample linked to its page (trace.html)\n", matrixPath)
	files := strings.Join(trace.FileNames(), ", ")
	fmt.Fprintf(w, "  %-48s the explorer's shortest counterexamples: %s\n", filepath.Join(p.Out, "explore", "<design>-<n>c-<property>")+"/", files)
	fmt.Fprintf(w, "  %-48s each design's first failing run: %s, run.txt, schedule.json, porcupine.html\n", filepath.Join(p.Out, "sim", "<design>")+"/", files)
	if tlcMissing == nil {
		fmt.Fprintf(w, "  %-48s each model's TLC output, tlc.out, and counterexample: %s\n", filepath.Join(p.Out, "tlc", "<model>")+"/", files)
	}

	summary := demoSummary(table, len(explored), p.Sim, len(models), tlcMissing, tlcMismatch, conformed)
	section(w, "summary")
	fmt.Fprint(w, summary)
	if err := writeFileAll(e.Disk, filepath.Join(p.Out, "demo", SummaryFile), summary); err != nil {
		return CouldNotSave(err)
	}

	if disagree := table.Disagreements(); len(disagree) > 0 {
		return Failed("DESIGN.md's table differs in %s: %s", words.Count(len(disagree), "verdict"), strings.Join(disagree, "; "))
	}
	if tlcMismatch != nil {
		return tlcMismatch
	}
	if conformed != nil {
		return conformed
	}
	if tlcMissing != nil {
		return BadInput("TLC was not run (the TLC section above says what is missing and how to provide it); every other verdict agrees with DESIGN.md's table")
	}
	if p.Readme != "" {
		if err := updateReadme(e, p.Readme, table); err != nil {
			return err
		}
		fmt.Fprintf(w, "\n%s: verdict table (%s) and its picture (%s) updated from this run\n", p.Readme, MatrixPage, MatrixPicture)
	}
	fmt.Fprintln(w, "\nEvery verdict agrees with DESIGN.md's table.")
	return nil
}

// updateReadme writes the run's matrix: each counterexample's page into
// docs/matrix, the full table into MatrixPage, its picture (with the live
// marks of LivePage's live block) into MatrixPicture, and the README's
// block that shows the picture.
func updateReadme(e *Env, readme string, table report.Verdicts) error {
	root := filepath.Dir(readme)
	pages := newMatrixPages(root)
	matrix := table.Matrix(pages.link)
	if err := pages.save(e.Disk); err != nil {
		return CouldNotSave(fmt.Errorf("could not save the matrix's pictures: %w", err))
	}
	page := filepath.Join(root, filepath.FromSlash(MatrixPage))
	if err := UpdateReadmeBlock(e.Disk, page, "verdicts", matrix); err != nil {
		return CouldNotSave(err)
	}
	pageText, err := inputfile.Read(page, inputfile.MaxText)
	if err != nil {
		return CouldNotSave(err)
	}
	liveText, err := inputfile.Read(filepath.Join(root, filepath.FromSlash(LivePage)), inputfile.MaxText)
	if err != nil {
		return CouldNotSave(err)
	}
	svg, err := DrawMatrix(string(pageText), string(liveText))
	if err != nil {
		return CouldNotSave(fmt.Errorf("could not draw the matrix's picture: %w", err))
	}
	if err := writeFileAll(e.Disk, filepath.Join(root, filepath.FromSlash(MatrixPicture)), svg); err != nil {
		return CouldNotSave(err)
	}
	if err := UpdateReadmeBlock(e.Disk, readme, "matrix", MatrixPictureBlock()); err != nil {
		return CouldNotSave(err)
	}
	return nil
}

// SummaryFile is the demo's closing lines, one per part, saved in the
// demo's folder so that make demo can repeat them after the live part.
const SummaryFile = "summary.txt"

// demoSummary is one line per part of the demo with its outcome: the
// explorer's, the simulator's and TLC's verdicts against DESIGN.md's
// table, the manifest and conformance.
func demoSummary(table report.Verdicts, explored int, o *SimOptions, models int, tlcMissing, tlcMismatch, conformed error) string {
	differ := map[string]int{}
	for _, d := range table.Disagreements() {
		checker, _, _ := strings.Cut(d, ":")
		differ[checker]++
	}
	outcome := func(checker string) string {
		if n := differ[checker]; n > 0 {
			return fmt.Sprintf("✗ %s against DESIGN.md's table", words.Count(n, "verdict"))
		}
		return "every verdict as DESIGN.md's table expects"
	}
	var b strings.Builder
	line := func(part, format string, args ...any) {
		fmt.Fprintf(&b, "  %-12s %s\n", part, fmt.Sprintf(format, args...))
	}
	line(report.Explorer, "%s, every interleaving: %s", words.Count(explored, "model"), outcome(report.Explorer))
	runs := o.Runs * len(o.Designs)
	line(report.Simulator, "%s runs with every fault kind together, %s with one kind alone (the NPC table), %s without faults: %s", words.Thousands(runs), words.Thousands(3*runs), words.Thousands(runs), outcome(report.Simulator))
	switch {
	case tlcMissing != nil:
		line(report.TLC, "not run (never passed): %s", OneLine(tlcMissing.Error()))
		line("conformance", "not run: it needs TLC")
		return b.String()
	case tlcMismatch != nil:
		line(report.TLC, "✗ %s", OneLine(tlcMismatch.Error()))
	case differ[report.TLC] > 0:
		line(report.TLC, "%s: %s", words.Count(models, "model"), outcome(report.TLC))
	default:
		line(report.TLC, "%s, each as the manifest expects: %s", words.Count(models, "model"), outcome(report.TLC))
	}
	if conformed != nil {
		line("conformance", "✗ %s", OneLine(conformed.Error()))
	} else {
		line("conformance", "the Go code and the specs agree on every row checked")
	}
	return b.String()
}

// partTimes measures the demo's parts: wall time, and CPU time (user and
// system) of fencelab and the TLC runs it waited for, which on a shared
// machine says what a part costs where the wall time says how long it
// waited.
type partTimes struct {
	names     []string
	wall, cpu []time.Duration
	at        time.Time
	cpuAt     time.Duration
}

// start ends the part running, if any, and starts the part name.
func (p *partTimes) start(name string) {
	p.stop()
	p.names = append(p.names, name)
	p.at, p.cpuAt = time.Now(), processCPU()
}

func (p *partTimes) stop() {
	if len(p.names) > len(p.wall) {
		p.wall = append(p.wall, time.Since(p.at))
		p.cpu = append(p.cpu, processCPU()-p.cpuAt)
	}
}

// write says on w, in one line, each part's wall and CPU time.
func (p *partTimes) write(w io.Writer) {
	p.stop()
	var parts []string
	var wall, cpu time.Duration
	for i, name := range p.names {
		parts = append(parts, fmt.Sprintf("%s %.1f s (CPU %.1f s)", name, p.wall[i].Seconds(), p.cpu[i].Seconds()))
		wall += p.wall[i]
		cpu += p.cpu[i]
	}
	fmt.Fprintf(w, "fencelab demo: %.1f s wall, %.1f s CPU: %s\n", wall.Seconds(), cpu.Seconds(), strings.Join(parts, "; "))
}

func section(w io.Writer, title string) {
	fmt.Fprintf(w, "\n━━ %s ━━\n\n", title)
}

// demoExplore runs the explorer on every design for each model size (the
// Redlock rows with nodes lock nodes, 0 for the explorer's default) and
// prints one matrix per size.
func demoExplore(e *Env, sizes []int, nodes int, outDir string) ([]report.Reached, error) {
	var all []*explore.Result
	step, stepsDone := NewStepProgress(e, 0, "explore", "model")
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
				// clients: 860,742 in all).
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
			fmt.Fprintln(e.Stdout)
		}
		if err := report.ExploreMatrix(e.Stdout, results); err != nil {
			return nil, err
		}
		if _, err := writeTraces(e.Disk, outDir, results); err != nil {
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
func demoSimulate(e *Env, o *SimOptions) ([]report.Reached, error) {
	w := e.Stdout
	progress, done := NewProgress(e, o.Runs*len(o.Designs)*5, "sim")
	defer done()
	faults, err := o.batch(o.Cfg.Faults, progress).Run()
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
	fmt.Fprintf(w, "\nThe NPC table — each fault kind alone, %s per cell:\n\n", words.Count(o.Runs, "run"))
	if err := report.NPCTable(w, singles); err != nil {
		return nil, err
	}
	none, err := o.batch(sim.NoFaults, progress).Run()
	if err != nil {
		return nil, err
	}
	runs, _, _ := none.Totals()
	fmt.Fprintf(w, "\nWithout faults: %s in %s (%d per design).\n", noFaultOutcome(none), words.Count(runs, "run"), o.Runs)
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
func demoTLC(e *Env, specs, pin, outDir string, models []tlc.Model, noCache bool) (checked []report.Reached, missing, mismatch, err error) {
	ctx, stop := Interruptible()
	defer stop()
	runner, err := NewTLCRunner(ctx, e, pin, 10*time.Minute, len(models), noCache)
	if err != nil {
		if IsBadInput(err) {
			fmt.Fprintf(e.Stdout, "TLC not run: %s\n", OneLine(err.Error()))
			return nil, err, nil, nil
		}
		return nil, nil, nil, err
	}
	rows, err := checkModels(ctx, e, runner, specs, outDir, models, func(m tlc.Model) bool { return m.Name == ShowcaseModel })
	if err != nil {
		return nil, nil, nil, err
	}
	if err := report.TLCTable(e.Stdout, rows); err != nil {
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
		return Failed("the manifest differs in %s: %s", words.Count(len(bad), "TLC model"), strings.Join(bad, "; "))
	}
	return nil
}

// relativeLink links a counterexample from a Markdown file in dir: to the
// page beside its picture (trace.html, which draws the picture and the
// steps in any browser), not to the raw Mermaid file.
func relativeLink(dir string) func(design, property, checker, picture string) string {
	return func(_, _, _, picture string) string {
		rel, err := filepath.Rel(dir, filepath.Join(filepath.Dir(picture), trace.HTMLFile))
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
	// Linked from MatrixPage, which sits beside docs/matrix.
	return path.Base(matrixDir) + "/" + name
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
