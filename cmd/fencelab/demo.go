package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fencelab/fencelab/explore"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/sim"
	"github.com/fencelab/fencelab/tlc"
)

const demoUsage = `fencelab demo [--out DIR] [--runs N] [--clients 2,3] [--specs DIR] [--update-readme FILE]

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
	// 2 and 3 clients finish in seconds and match TLC's model sizes.
	clients := fs.String("clients", "2,3", "the explorer's model sizes, comma-separated, each 2 to 4")
	specs := fs.String("specs", "specs", "folder with the specs, the cfgs and models.json")
	pin := fs.String("pin", "tla2tools.version", "the pinned TLA+ tools release")
	readme := fs.String("update-readme", "", "also rewrite the verdict table in this README from this run (needs TLC)")
	rest, err := parseFlags(e, fs, demoUsage, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return badInput("unexpected argument %q (usage: %s)", rest[0], strings.SplitN(demoUsage, "\n", 2)[0])
	}
	// The simulator's flags are validated as fencelab sim validates them,
	// so a bad --runs reads the same from both commands.
	opts, err := parseSimFlags(e, []string{"--runs", strconv.Itoa(*runs), "--out", filepath.Join(*out, "sim")})
	if err != nil {
		return err
	}
	sizes, err := parseSizes(*clients)
	if err != nil {
		return err
	}
	models, err := loadModels(*specs, "")
	if err != nil {
		return err
	}

	w := e.stdout
	fmt.Fprintln(w, "fencelab demo — when is a lease-based lock safe, and what do fencing tokens fix?")
	fmt.Fprintln(w, "Every verdict of DESIGN.md's table, reached three ways.")

	section(w, "1/3 explorer: every interleaving of the Go implementation")
	explored, err := demoExplore(e, sizes, filepath.Join(*out, "explore"))
	if err != nil {
		return err
	}

	section(w, "2/3 simulator: seeded runs under network delay, process pauses and clock drift")
	simulated, err := demoSimulate(e, opts)
	if err != nil {
		return err
	}

	section(w, "3/3 TLC on the PlusCal specs")
	tlcRows, tlcMissing, err := demoTLC(e, *specs, *pin, filepath.Join(*out, "tlc"), models)
	if err != nil {
		return err
	}

	section(w, "DESIGN.md's table, three ways")
	checks, err := modelInvariants(*specs, models)
	if err != nil {
		return err
	}
	table := verdictTable(explored, simulated, tlcRows, checks, tlcMissing != nil)
	if err := table.writeText(w); err != nil {
		return err
	}
	mdPath := filepath.Join(*out, "demo", "verdicts.md")
	if err := writeFileAll(mdPath, table.markdown()); err != nil {
		return failed("%w", err)
	}
	fmt.Fprintf(w, "\nFiles written:\n")
	fmt.Fprintf(w, "  %-48s the table above, in Markdown\n", mdPath)
	fmt.Fprintf(w, "  %-48s the explorer's shortest counterexamples (JSON, and HTML sequence pictures)\n", filepath.Join(*out, "explore")+"/")
	fmt.Fprintf(w, "  %-48s each design's first failing run: timeline.txt, sequence.html, porcupine.html, schedule.json\n", filepath.Join(*out, "sim", "<design>")+"/")
	if tlcMissing == nil {
		fmt.Fprintf(w, "  %-48s TLC's output and counterexample per model: trace.txt, trace.html, trace.mmd, trace.json\n", filepath.Join(*out, "tlc", "<model>")+"/")
	}

	if disagree := table.disagreements(); len(disagree) > 0 {
		return failed("%d verdicts differ from DESIGN.md's table: %s", len(disagree), strings.Join(disagree, "; "))
	}
	if tlcMissing != nil {
		return badInput("TLC was not run (the TLC section above says what is missing and how to provide it); every other verdict agrees with DESIGN.md's table")
	}
	if *readme != "" {
		if err := updateReadmeBlock(*readme, "verdicts", table.markdown()); err != nil {
			return failed("%w", err)
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
			return nil, badInput("clients: %q is not a number", part)
		}
		if err := explore.DefaultConfig(impl.DesignFenceAll, n).Validate(); err != nil {
			return nil, badInput("%v", err)
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}

// demoExplore runs the explorer on every design for each model size and
// prints one matrix per size.
func demoExplore(e *env, sizes []int, outDir string) ([]*explore.Result, error) {
	var all []*explore.Result
	for i, clients := range sizes {
		var results []*explore.Result
		for _, d := range impl.Designs() {
			res, err := explore.Run(explore.DefaultConfig(d, clients))
			if err != nil {
				return nil, fmt.Errorf("explore: %w", err)
			}
			results = append(results, res)
		}
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		if err := writeMatrix(e.stdout, results); err != nil {
			return nil, err
		}
		if _, err := writeTraces(outDir, results); err != nil {
			return nil, err
		}
		all = append(all, results...)
	}
	return all, nil
}

// simulated is what the demo's simulator runs found.
type simulated struct {
	faults  *sim.Summary   // every fault kind together
	none    *sim.Summary   // no faults
	singles []*sim.Summary // each kind alone (the NPC table)
}

func demoSimulate(e *env, o *simOptions) (*simulated, error) {
	w := e.stdout
	var s simulated
	progress, done := newProgress(e, o.runs*len(o.designs)*5, "sim")
	defer done()
	var err error
	if s.faults, err = o.batch(o.cfg.Faults, progress).Run(); err != nil {
		return nil, err
	}
	o.writeHeader(w, s.faults.Faults.String())
	if err := s.faults.WriteTable(w); err != nil {
		return nil, err
	}
	if err := o.firstFailures(e, s.faults); err != nil {
		return nil, err
	}
	if s.singles, err = o.npcSummaries(progress); err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "\nThe NPC table — each fault kind alone, %d runs per cell:\n\n", o.runs)
	if err := sim.WriteNPCTable(w, s.singles); err != nil {
		return nil, err
	}
	if s.none, err = o.batch(sim.NoFaults, progress).Run(); err != nil {
		return nil, err
	}
	runs, _, _ := s.none.Totals()
	fmt.Fprintf(w, "\nWithout faults: %s in %d runs (%d per design).\n", noFaultOutcome(s.none), runs, o.runs)
	return &s, nil
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
// the rest of the demo goes on; it never counts as a pass.
func demoTLC(e *env, specs, pin, outDir string, models []tlc.Model) (rows []tlcRow, missing error, err error) {
	ctx := context.Background()
	runner, err := newTLCRunner(ctx, e, pin, 10*time.Minute, len(models))
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) && ee.code == exitBadInput {
			fmt.Fprintf(e.stdout, "TLC not run: %s\n", oneLine(err.Error()))
			return nil, err, nil
		}
		return nil, nil, err
	}
	rows, err = checkModels(ctx, e, runner, specs, outDir, models, func(m tlc.Model) bool { return m.Name == showcaseModel })
	if err != nil {
		return nil, nil, err
	}
	writeSummary(e, rows)
	return rows, nil, nil
}

// A verdictRow is one cell of DESIGN.md's table, reached three ways.
type verdictRow struct {
	design, property string
	expected         impl.Verdict
	cells            [3]verdictCell // TLC, explorer, simulator
}

// verdictCell is one method's verdict: its text, whether the method
// reached one (checked), and whether it agrees with DESIGN.md. A method
// that did not run is not checked: it neither agrees nor contradicts, and
// the demo reports it as not run.
type verdictCell struct {
	text    string
	agrees  bool
	checked bool
}

type verdicts3 []verdictRow

// verdictTable lays DESIGN.md's table out row by row — one row per design
// and property, and the simulator without faults last — with the verdict
// of each method.
func verdictTable(explored []*explore.Result, s *simulated, rows []tlcRow, checks map[string][]string, tlcMissing bool) verdicts3 {
	var table verdicts3
	for _, d := range impl.Designs() {
		for _, inv := range impl.Invariants() {
			r := verdictRow{design: d.Describe(), property: inv.Name, expected: impl.Expected(d, inv.Name)}
			if r.expected == impl.NotApplicable {
				r.cells = [3]verdictCell{{text: "—", agrees: true}, {text: "—", agrees: true}, {text: "—", agrees: true}}
				table = append(table, r)
				continue
			}
			r.cells[0] = tlcCell(d, inv.Name, r.expected, rows, checks, tlcMissing)
			r.cells[1] = exploreCell(d, inv.Name, r.expected, explored)
			r.cells[2] = simCell(d, inv.Name, r.expected, s.faults)
			table = append(table, r)
		}
	}
	for _, inv := range impl.Invariants() {
		r := verdictRow{design: "any design, simulator without faults", property: inv.Name, expected: impl.Holds}
		r.cells[0] = verdictCell{text: "n/a (untimed)", agrees: true}
		r.cells[1] = verdictCell{text: "n/a (untimed)", agrees: true}
		r.cells[2] = noFaultCell(inv.Name, s.none)
		table = append(table, r)
	}
	return table
}

// tlcCell is TLC's verdict on property in design d: every model of the
// design that checks the property, each matching its manifest entry.
func tlcCell(d impl.Design, property string, want impl.Verdict, rows []tlcRow, checks map[string][]string, missing bool) verdictCell {
	if missing {
		return verdictCell{text: "not run"}
	}
	var sizes []int
	var figures []string
	var models int
	var most int64
	got := impl.NotApplicable
	for _, r := range rows {
		m := r.model
		// The timed models' verdicts depend on their bounds, not on the
		// design alone: they are not part of the table.
		if m.Family != "" || m.Design != d.String() || !modelChecks(m, checks[m.Name], property) {
			continue
		}
		if r.mismatch != "" {
			return verdictCell{text: fmt.Sprintf("✗ %s: %s", m.Name, r.got), checked: true}
		}
		v := impl.Holds
		if m.Expected == tlc.ResultInvariant {
			v = impl.Violated
			figures = append(figures, fmt.Sprintf("%d steps", r.steps))
		}
		if got != impl.NotApplicable && got != v {
			return verdictCell{text: "✗ models disagree", checked: true}
		}
		got = v
		sizes = append(sizes, clientsOf(m.Name))
		models++
		most = max(most, r.distinct)
	}
	if got == impl.NotApplicable {
		// The table promises every verdict three ways: a missing model is
		// a gap in the specs' manifest, not a pass.
		return verdictCell{text: "✗ no model checks it", checked: true}
	}
	if got == impl.Holds {
		// Several models (with and without symmetry, with liveness) check
		// it: say how many, and the largest state space.
		figures = []string{fmt.Sprintf("%d models, up to %s states", models, thousands(int(most)))}
	}
	return verdictCell{text: cellText(got.String(), figures, sizes), agrees: got == want, checked: true}
}

// cellText is a verdict with its figures and the model sizes behind it:
// "violated (7 steps; 2 and 3 clients)".
func cellText(verdict string, figures []string, sizes []int) string {
	slices.Sort(sizes)
	sizes = slices.Compact(sizes)
	var names []string
	for _, n := range sizes {
		names = append(names, strconv.Itoa(n))
	}
	figures = slices.Compact(slices.Clone(figures))
	list := names[len(names)-1]
	if len(names) > 1 {
		list = strings.Join(names[:len(names)-1], ", ") + " and " + list
	}
	return fmt.Sprintf("%s (%s; %s clients)", verdict, strings.Join(figures, ", "), list)
}

// modelChecks reports whether a model's verdict speaks about property: it
// is the violated invariant, or an ok model checks it among invariants.
func modelChecks(m tlc.Model, invariants []string, property string) bool {
	switch m.Expected {
	case tlc.ResultInvariant:
		return m.Property == property
	case tlc.ResultOK:
		return slices.Contains(invariants, property)
	}
	return false
}

// modelInvariants reads the invariants each model's cfg checks.
func modelInvariants(specs string, models []tlc.Model) (map[string][]string, error) {
	checks := make(map[string][]string, len(models))
	for _, m := range models {
		cfg, err := os.ReadFile(filepath.Join(specs, m.Cfg))
		if err != nil {
			return nil, badInput("model %s: %v", m.Name, err)
		}
		checks[m.Name] = tlc.CfgInvariants(string(cfg))
	}
	return checks, nil
}

// clientsOf reads the client count from a model name such as
// DistLock_3c_NoLostUpdate.
func clientsOf(name string) int {
	for _, part := range strings.Split(name, "_") {
		if n, err := strconv.Atoi(strings.TrimSuffix(part, "c")); err == nil && strings.HasSuffix(part, "c") {
			return n
		}
	}
	return 0
}

func exploreCell(d impl.Design, property string, want impl.Verdict, results []*explore.Result) verdictCell {
	var sizes []int
	var figures []string
	agrees := true
	for _, r := range results {
		if r.Config.Design != d {
			continue
		}
		v, _ := r.Verdict(property)
		agrees = agrees && v.Status.Matches(want)
		sizes = append(sizes, r.Config.Clients)
		switch v.Status {
		case explore.Violated:
			figures = append(figures, fmt.Sprintf("%d steps", v.Steps()))
		case explore.Holds:
			figures = append(figures, thousands(r.Distinct)+" states")
		default:
			figures = append(figures, v.Status.String())
		}
	}
	verdict := want.String()
	if !agrees {
		verdict = "✗"
	}
	return verdictCell{text: cellText(verdict, figures, sizes), agrees: agrees, checked: true}
}

func simCell(d impl.Design, property string, want impl.Verdict, sum *sim.Summary) verdictCell {
	for _, ds := range sum.Designs {
		if ds.Design != d {
			continue
		}
		n := ds.Violations[propIndex(property)]
		found := impl.Holds
		if n > 0 {
			found = impl.Violated
		}
		return verdictCell{text: fmt.Sprintf("%s (%d of %d runs)", found, n, ds.Runs), agrees: found == want, checked: true}
	}
	return verdictCell{text: "not run"}
}

func noFaultCell(property string, sum *sim.Summary) verdictCell {
	n, runs := 0, 0
	for _, ds := range sum.Designs {
		if impl.Expected(ds.Design, property) == impl.NotApplicable {
			continue
		}
		n += ds.Violations[propIndex(property)]
		runs += ds.Runs
	}
	found := impl.Holds
	if n > 0 {
		found = impl.Violated
	}
	return verdictCell{text: fmt.Sprintf("%s (%d of %d runs)", found, n, runs), agrees: n == 0, checked: true}
}

// propIndex is a property's index in impl.Invariants(), which the
// simulator's counts follow.
func propIndex(property string) int {
	for i, inv := range impl.Invariants() {
		if inv.Name == property {
			return i
		}
	}
	return -1
}

func (t verdicts3) disagreements() []string {
	var out []string
	for _, r := range t {
		for i, c := range r.cells {
			if c.checked && !c.agrees {
				method := [...]string{"TLC", "explorer", "simulator"}[i]
				out = append(out, fmt.Sprintf("%s: %s in %s gave %s, expected %s", method, r.property, r.design, c.text, r.expected))
			}
		}
	}
	return out
}

func (t verdicts3) writeText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "design\tproperty\tDESIGN.md\tTLC\texplorer\tsimulator")
	for _, r := range t {
		fmt.Fprintf(tw, "%s\t%s\t%s", r.design, r.property, r.expected)
		for _, c := range r.cells {
			fmt.Fprintf(tw, "\t%s", c.text)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// markdown is the table for README.md.
func (t verdicts3) markdown() string {
	var b strings.Builder
	b.WriteString("| design | property | DESIGN.md | TLC | explorer | simulator |\n|---|---|---|---|---|---|\n")
	for _, r := range t {
		fmt.Fprintf(&b, "| %s | %s | %s |", r.design, r.property, r.expected)
		for _, c := range r.cells {
			fmt.Fprintf(&b, " %s |", c.text)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// writeFileAll writes content to path, creating its folder.
func writeFileAll(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(path), err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
