package campaign

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/atomicfile"
	"github.com/fencelab/fencelab/internal/inputfile"
	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/live/check"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/nemesis"
	"github.com/fencelab/fencelab/live/report"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/fencelab/fencelab/shard"
	"github.com/fencelab/fencelab/trace"
	"github.com/fencelab/fencelab/verdict"
)

// The README's live block sits between these markers, as the main
// binary's generated blocks do (pipeline/readme.go): written by
// UpdateReadme from a matrix's summaries, never by hand.
const (
	ReadmeBegin = "<!-- BEGIN live: generated, do not edit -->\n"
	ReadmeEnd   = "<!-- END live -->"
)

// LivePage is the page beside the README that holds the live column's
// per-property detail (LiveDetail), between the same markers as the
// README's grid: every property's line per campaign, the model's word
// and the live one, links to the runs.
const LivePage = "docs/live.md"

// DocsDir is where UpdateReadme copies the small files of the failing runs
// the live block links to, beside the README (docs/live/<service>/<setup>/
// <fault>/run-<seed>/).
const DocsDir = "docs/live"

// Bounds of what UpdateReadme reads: a summary.json is a few kB, a saved
// run's small files tens of kB.
const (
	maxSummary = 1 << 20
	maxRunFile = 4 << 20
)

// Campaign is one summary.json of a matrix's --out folder: a setup under
// a fault, with the folder its runs were saved in.
type Campaign struct {
	Setup   setup.Setup
	Summary SavedSummary
	// Dir is the folder of summary.json and of the campaign's saved runs.
	Dir string
}

// runFolder is the name RunDir gives a run's folder.
var runFolder = regexp.MustCompile(`^run-[0-9]{1,20}$`)

// ReadSummaries reads the summary.json of every setup of setups under
// every fault found in out (the --out of fencelab-live matrix), in the
// order of setups and AllFaults. It looks only at the paths RunDir makes
// of known setups and faults, never walks the folder, and checks each
// summary against its setup: a summary that names another setup, row or
// fault, counts that do not add up, or an unknown property is an error.
// Each setup's unchecked client line (setup.WithUncheckedClient), when
// the matrix ran it, follows the setup's own.
func ReadSummaries(out string, setups []setup.Setup) ([]Campaign, error) {
	// A shard's folder holds summaries of its part of each campaign
	// only: "1 runs" of a campaign of 2. Its campaigns are the merge's.
	if _, err := os.Lstat(filepath.Join(out, shard.FileName)); err == nil {
		return nil, fmt.Errorf("%s is one shard's result (it holds %s): fencelab-live merge the shards, then read the merged folder", quote.S(out), shard.FileName)
	}
	var cs []Campaign
	var lines []setup.Setup
	for _, s := range setups {
		lines = append(lines, s, s.WithUncheckedClient())
	}
	for _, s := range lines {
		for _, f := range history.AllFaults() {
			dir := filepath.Join(out, s.Service, s.Name, string(f))
			file := filepath.Join(dir, SummaryFile)
			info, err := os.Lstat(file)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("summary %s: %w", file, err)
			}
			if !info.Mode().IsRegular() {
				return nil, fmt.Errorf("summary %s is %s, not a file", file, inputfile.Kind(info.Mode()))
			}
			data, err := inputfile.Read(file, maxSummary)
			if err != nil {
				return nil, fmt.Errorf("summary %s: %w", file, err)
			}
			sum, err := parseSummary(data, s, f)
			if err != nil {
				return nil, fmt.Errorf("summary %s: %w", file, err)
			}
			cs = append(cs, Campaign{Setup: s, Summary: sum, Dir: dir})
		}
	}
	return cs, nil
}

// parseSummary decodes a summary.json of setup s under fault f and checks
// that it is one.
func parseSummary(data []byte, s setup.Setup, f history.Fault) (SavedSummary, error) {
	var sum SavedSummary
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sum); err != nil {
		return sum, fmt.Errorf("not a summary: %w", err)
	}
	switch {
	case sum.Setup != s.ID():
		return sum, fmt.Errorf("names setup %s, found in %s's folder", quote.Q(sum.Setup), s.ID())
	case sum.Row != s.Design.String():
		return sum, fmt.Errorf("names row %s, %s is row %s", quote.Q(sum.Row), s.ID(), s.Design)
	case sum.Fault != f:
		return sum, fmt.Errorf("names fault %s, found in %s's folder", quote.Q(string(sum.Fault)), f)
	case sum.Nemesis != nemesis.Scripted && sum.Nemesis != nemesis.Random:
		return sum, fmt.Errorf("nemesis %s (want %s or %s)", quote.Q(sum.Nemesis), nemesis.Scripted, nemesis.Random)
	case sum.Runs < 1 || sum.Runs > 100000:
		return sum, fmt.Errorf("runs %d (want 1 to 100000)", sum.Runs)
	case sum.TookEffect < 0 || sum.TookEffect > sum.Runs:
		return sum, fmt.Errorf("took effect in %d of %d runs", sum.TookEffect, sum.Runs)
	}
	props := check.Properties()
	if len(sum.Tallies) == len(props)-1 {
		// A summary from before the judge decided NoActionPastValidity.
		props = slices.DeleteFunc(props, func(p string) bool { return p == impl.NoActionPastValidity })
	}
	if len(sum.Tallies) != len(props) {
		return sum, fmt.Errorf("%d properties (want %d: %s)", len(sum.Tallies), len(props), strings.Join(props, ", "))
	}
	for i, t := range sum.Tallies {
		held := Tally{Runs: t.Runs, Violated: t.Violated, Unknown: t.Unknown}.Held()
		switch {
		case t.Property != props[i]:
			return sum, fmt.Errorf("property %d is %s (want %s)", i+1, quote.Q(t.Property), props[i])
		case t.Runs != sum.Runs || t.TookEffect != sum.TookEffect:
			return sum, fmt.Errorf("%s: %d runs, took effect in %d (the summary says %d, %d)", t.Property, t.Runs, t.TookEffect, sum.Runs, sum.TookEffect)
		case t.Violated < 0 || t.Unknown < 0 || t.Violated+t.Unknown > t.Runs:
			return sum, fmt.Errorf("%s: violated in %d, unknown in %d of %d runs", t.Property, t.Violated, t.Unknown, t.Runs)
		case check.Expected(s.Design, t.Property) != verdict.NotApplicable && held > t.TookEffect:
			// The judge decides Holds only where the fault took effect: a
			// "held" count above that would be a cell the runs never made.
			return sum, fmt.Errorf("%s: held in %d of %d runs, the fault took effect in %d", t.Property, held, t.Runs, t.TookEffect)
		case t.Safe < 0 || t.Safe > t.Unknown || (t.Safe > 0 && s.Safe[f] == ""):
			// A run counts as safe only where the setup claims its
			// service is, and only among the runs left undecided.
			return sum, fmt.Errorf("%s: safe in %d of %d runs (unknown in %d; the setup claims safety against %s: %t)", t.Property, t.Safe, t.Runs, t.Unknown, f, s.Safe[f] != "")
		case t.FirstViolation != "" && !runFolder.MatchString(filepath.Base(t.FirstViolation)):
			return sum, fmt.Errorf("%s: first violation %s is not a run's folder", t.Property, quote.Q(t.FirstViolation))
		}
	}
	if sum.Model != nil {
		if err := sum.Model.verify(s.Design, sum.Runs); err != nil {
			return sum, err
		}
		c := Campaign{Setup: s, Summary: sum}
		for _, t := range sum.Tallies {
			// The words written are recomputed: a file that says the
			// model agrees where its own stories do not is refused.
			got, _ := c.tally(t.Property)
			if t.Model != got.ModelString() || t.Disagrees != got.Disagrees() {
				return sum, fmt.Errorf("%s: the summary says the model's word is %s (disagreeing %v), its stories say %s (disagreeing %v)",
					t.Property, quote.Q(t.Model), t.Disagrees, quote.Q(got.ModelString()), got.Disagrees())
			}
		}
	}
	return sum, nil
}

// BlockProperties are the live block's columns: the three invariants of
// the verdict table (linearizability stays in the campaigns' output).
func BlockProperties() []string {
	return []string{impl.AtMostOneClientHoldLock, impl.TokenIsMonotonical, impl.NoLostUpdate}
}

// tally is a summary's property as the campaign counted it; the expected
// verdict is the models' (Expected), never the file's.
func (c Campaign) tally(property string) (Tally, SavedTally) {
	for _, t := range c.Summary.Tallies {
		if t.Property == property {
			return Tally{Property: property, Expected: check.ExpectedOf(c.Setup.Design, c.Setup.Unchecked, property), Runs: t.Runs, Violated: t.Violated,
				TookEffect: t.TookEffect, Unknown: t.Unknown, Safe: t.Safe, Mechanism: c.Setup.Safe[c.Summary.Fault], Model: c.modelWord(property)}, t
		}
	}
	return Tally{Property: property, Expected: check.ExpectedOf(c.Setup.Design, c.Setup.Unchecked, property), Model: c.modelWord(property)}, SavedTally{}
}

// noModelKept is the reason a summary written before the model's stories
// were kept has none.
const noModelKept = "not kept by the fencelab-live that wrote this summary"

// modelWord is the model's word on property for the campaign: from its
// verified stories (parseSummary), or none kept.
func (c Campaign) modelWord(property string) ModelWord {
	if c.Summary.Model == nil {
		m := Model{None: []NoStory{{Reason: noModelKept, Runs: c.Summary.Runs}}}
		return m.wordOn(property, c.Setup, c.Summary.Fault)
	}
	return c.Summary.Model.wordOn(property, c.Setup, c.Summary.Fault)
}

// runLink is the README-relative folder a violated cell links to: the
// campaign's first violating run, copied under DocsDir; "" when none was
// saved.
func (c Campaign) runLink(t SavedTally) string {
	if t.Violated == 0 || t.FirstViolation == "" {
		return ""
	}
	return path.Join(DocsDir, c.Setup.Service, c.Setup.Name, string(c.Summary.Fault), filepath.Base(t.FirstViolation)) + "/"
}

// sortedByRow is cs grouped by design row in impl.Designs' order, the
// matrix's order kept within a row.
func sortedByRow(cs []Campaign) []Campaign {
	order := map[impl.Design]int{}
	for i, d := range impl.Designs() {
		order[d] = i
	}
	sorted := slices.Clone(cs)
	slices.SortStableFunc(sorted, func(a, b Campaign) int { return order[a.Setup.Design] - order[b.Setup.Design] })
	return sorted
}

// propLetters are the grid's short names of BlockProperties.
var propLetters = map[string]string{impl.AtMostOneClientHoldLock: "A", impl.TokenIsMonotonical: "T", impl.NoLostUpdate: "L"}

// letters are the short names of ps, in BlockProperties order.
func letters(ps []string) string {
	var ls []string
	for _, p := range BlockProperties() {
		if slices.Contains(ps, p) {
			ls = append(ls, propLetters[p])
		}
	}
	return strings.Join(ls, " ")
}

// gridCell is a campaign's cell of the README's grid: the live word over
// the block's properties, then the model's word for that fault.
//
// The live word: "violated k/N P…" (k the most runs any property was
// violated in, P the properties violated, linked to the first failing
// run), else "held h/N" (h the fewest runs any applicable property was
// decided to hold in), else "safe: <mechanism> s/N" (s the fewest runs
// any applicable property showed the setup's claimed mechanism at work
// in, Tally.Safe), else "inconclusive m/N" (the fault took effect in
// m). The model's word: the source — "sim" the simulator on the runs' own
// schedules, "sim*" the unchecked client's story (report.StoryCaveat),
// "row" the row's verdict where the fault does not map — then "✗ P…" for
// the properties it violates ("~ P…" those violated on some runs' stories
// only), or "✓". A disagreement (Tally.Disagrees)
// or an unexpected violation (Tally.Unexpected) is named in bold.
func (c Campaign) gridCell() string {
	var violated, modelViolated, modelSome, disagree, unexpected []string
	maxViolated, minHeld, minSafe, applicable := 0, c.Summary.Runs, c.Summary.Runs, 0
	source, mechanism := "", ""
	for _, p := range BlockProperties() {
		t, _ := c.tally(p)
		if t.Expected == verdict.NotApplicable {
			continue
		}
		applicable++
		if t.Violated > 0 {
			violated = append(violated, p)
			maxViolated = max(maxViolated, t.Violated)
		}
		minHeld = min(minHeld, t.Held())
		minSafe = min(minSafe, t.Safe)
		mechanism = t.Mechanism
		story, fromStory := t.Model.Story(t.Expected)
		switch {
		case story == verdict.Violated:
			modelViolated = append(modelViolated, p)
		case story == verdict.Unknown && fromStory:
			modelSome = append(modelSome, p) // violated on some runs' stories
		}
		switch {
		case fromStory && t.Model.Caveat != "":
			source = "sim*"
		case fromStory && source == "":
			source = "sim"
		case !fromStory && source == "":
			source = "row"
		}
		if t.Disagrees() {
			disagree = append(disagree, p)
		}
		if t.Unexpected() {
			unexpected = append(unexpected, p)
		}
	}
	runs := c.Summary.Runs
	var live string
	switch {
	case applicable == 0:
		live = "—"
	case len(violated) > 0:
		live = fmt.Sprintf("violated %d/%d %s", maxViolated, runs, letters(violated))
		for _, p := range BlockProperties() {
			_, saved := c.tally(p)
			if link := c.runLink(saved); link != "" {
				live = fmt.Sprintf("[%s](%s)", live, link)
				break
			}
		}
	case minHeld > 0:
		live = fmt.Sprintf("held %d/%d", minHeld, runs)
	case mechanism != "" && minSafe > 0:
		live = fmt.Sprintf("safe: %s %d/%d", cell(mechanism), minSafe, runs)
	default:
		live = fmt.Sprintf("inconclusive %d/%d", c.Summary.TookEffect, runs)
	}
	var model []string
	if len(modelViolated) > 0 {
		model = append(model, "✗ "+letters(modelViolated))
	}
	if len(modelSome) > 0 {
		model = append(model, "~ "+letters(modelSome))
	}
	if len(model) == 0 {
		model = append(model, "✓")
	}
	cellText := live
	if source != "" {
		cellText += " · " + source + " " + strings.Join(model, " ")
	}
	if len(disagree) > 0 {
		cellText += " **≠ " + letters(disagree) + "**"
	}
	if len(unexpected) > 0 {
		cellText += " **UNEXPECTED " + letters(unexpected) + "**"
	}
	return cellText
}

// gridLegend is the README grid's legend, under it.
const gridLegend = "A cell: the live word over the runs (the checked client's; \"unchecked client:\" under it, the client that does not check its lease) (`violated k/N` and the properties, linked to the first failing run; `held h/N`, " +
	"decided to hold where the fault took effect; `safe: <mechanism> s/N`, the mechanism the setup claims seen at work in s runs; `inconclusive m/N`, the fault took effect in m) · the model's word for that fault: " +
	"`sim` the simulator on the runs' own schedules, `sim*` the unchecked client's story (the checked client checks its clock on resuming), " +
	"`row` the row's verdict (the fault does not map onto the simulator); `✗` the properties it violates, `~` those it violates on some runs' stories only, `✓` none. " +
	"A AtMostOneClientHoldLock, T TokenIsMonotonical, L NoLostUpdate. **≠**: the model violates it on this very story, live held it " +
	"with the fault in effect in every run (exit 1). Every property's line per campaign: [docs/live.md](" + LivePage + ").\n"

// LiveBlock is the README's live block, a grid: one line per setup (its
// unchecked client's word under the checked one's in the same cell), grouped by design row in impl.Designs'
// order, one column per fault the matrix ran, each cell a campaign's
// gridCell; the legend under it. The per-property detail is LiveDetail.
func LiveBlock(cs []Campaign) string {
	sorted := sortedByRow(cs)
	var faults []history.Fault
	for _, f := range history.AllFaults() {
		if slices.ContainsFunc(sorted, func(c Campaign) bool { return c.Summary.Fault == f }) {
			faults = append(faults, f)
		}
	}
	// A setup's line holds its unchecked client's campaigns too, after
	// the checked client's in their cells: the two part only under a
	// client pause, and a line of their own each would double the grid.
	type line struct {
		s     setup.Setup
		cells map[history.Fault][]Campaign
	}
	var lines []*line
	index := map[string]*line{}
	for _, c := range sorted {
		base := c.Setup
		if c.Setup.Unchecked {
			base.Name = strings.TrimSuffix(base.Name, setup.UncheckedSuffix)
			base.Unchecked = false
		}
		key := base.ID() + " " + c.Summary.Nemesis
		l := index[key]
		if l == nil {
			l = &line{s: base, cells: map[history.Fault][]Campaign{}}
			index[key] = l
			lines = append(lines, l)
		}
		l.cells[c.Summary.Fault] = append(l.cells[c.Summary.Fault], c)
	}
	var b strings.Builder
	b.WriteString("| Setup (row) |")
	for _, f := range faults {
		fmt.Fprintf(&b, " %s |", f)
	}
	b.WriteString("\n|---|")
	for range faults {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, l := range lines {
		fmt.Fprintf(&b, "| `%s` (`%s`) |", l.s.ID(), l.s.Design)
		for _, f := range faults {
			cell := l.cells[f]
			slices.SortStableFunc(cell, func(a, b Campaign) int {
				return cmp.Compare(b2i(a.Setup.Unchecked), b2i(b.Setup.Unchecked))
			})
			var words []string
			for _, c := range cell {
				w := c.gridCell()
				if c.Setup.Unchecked {
					w = "unchecked client: " + w
				}
				words = append(words, w)
			}
			if len(words) == 0 {
				b.WriteString(" |")
				continue
			}
			fmt.Fprintf(&b, " %s |", strings.Join(words, "<br>"))
		}
		b.WriteString("\n")
	}
	if len(sorted) == 0 {
		b.WriteString("\n(no campaign found: run `make live`, then `fencelab-live readme README.md`)\n")
		return b.String()
	}
	b.WriteString("\n" + gridLegend)
	return b.String()
}

// LiveDetail is LivePage's block: one line per campaign, grouped by
// design row, for each property the model's word for the campaign's own
// story (Tally.ModelString) beside the live one, and where each line came
// from; links relative to LivePage.
func LiveDetail(cs []Campaign) string {
	sorted := sortedByRow(cs)
	var b strings.Builder
	b.WriteString("| Row | Live setup, fault, runs | Server; client library |")
	for _, p := range BlockProperties() {
		fmt.Fprintf(&b, " %s: model · live |", p)
	}
	b.WriteString("\n|---|---|---|")
	for range BlockProperties() {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, c := range sorted {
		fmt.Fprintf(&b, "| `%s` | `%s` %s, %s, %d runs | %s; %s |", c.Setup.Design, c.Setup.ID(), c.Summary.Nemesis, c.Summary.Fault,
			c.Summary.Runs, cell(c.Summary.Versions), cell(c.Summary.Library))
		for _, p := range BlockProperties() {
			t, saved := c.tally(p)
			live := t.String()
			if link := c.runLink(saved); link != "" {
				live = fmt.Sprintf("[%s](%s)", live, strings.TrimPrefix(link, path.Dir(LivePage)+"/"))
			}
			if t.Unexpected() {
				live += " **UNEXPECTED**"
			}
			if t.Disagrees() {
				live += " **DISAGREES with the model's story**"
			}
			// The model's word never holds " · ", which parts it from the
			// live one (the matrix picture reads the cell so).
			fmt.Fprintf(&b, " %s · %s |", strings.ReplaceAll(cell(t.ModelString()), " · ", ", "), live)
		}
		b.WriteString("\n")
	}
	if len(sorted) == 0 {
		b.WriteString("\n(no campaign found: run `make live`, then `fencelab-live readme README.md`)\n")
	}
	return b.String()
}

// cell makes a value from a file safe in a table cell: one line, no
// column bar, no markup of its own, a bounded length.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.NewReplacer("|", "/", "<", "‹", ">", "›", "[", "(", "]", ")", "`", "'").Replace(s)
	return quote.Cut(s, 120)
}

// CheckReadme reports, before any work, why the README at file cannot
// take the live block: not a regular file (or a link to one) fencelab can
// replace, no markers, a LivePage beside it without them, or a docs/live
// beside it that is not a folder.
func CheckReadme(file string) error {
	if _, _, err := readReadme(file); err != nil {
		return err
	}
	if _, _, err := readPage(filepath.Join(filepath.Dir(file), filepath.FromSlash(LivePage)), "the live page"); err != nil {
		return err
	}
	return checkFolders(filepath.Dir(file), DocsDir)
}

// readReadme reads the README and checks it holds the live block's
// markers, in order, once each. A README with CRLF line ends is read as
// one with LF ends, and crlf says so (UpdateReadme writes it back with
// CRLF).
func readReadme(file string) (text string, crlf bool, err error) {
	return readPage(file, "README")
}

// readPage is readReadme of any page with the live block's markers, what
// naming it in errors.
func readPage(file, what string) (text string, crlf bool, err error) {
	if err := atomicfile.CheckTarget(file); err != nil {
		return "", false, fmt.Errorf("%s %s: %w", what, quote.S(file), err)
	}
	data, err := inputfile.Read(file, inputfile.MaxText)
	if err != nil {
		return "", false, fmt.Errorf("%s %s: %w", what, quote.S(file), err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	crlf = strings.HasSuffix(first, "\r")
	text = strings.ReplaceAll(string(data), "\r\n", "\n")
	i, j := strings.Index(text, ReadmeBegin), strings.Index(text, ReadmeEnd)
	if i < 0 || j < i+len(ReadmeBegin) || strings.Count(text, ReadmeBegin) != 1 || strings.Count(text, ReadmeEnd) != 1 {
		return "", false, fmt.Errorf("%s %s has no live block (one line %q, later one %q): nothing written", what, quote.S(file), strings.TrimSpace(ReadmeBegin), ReadmeEnd)
	}
	return text, crlf, nil
}

// checkFolders is atomicfile.CheckFolders, saying that nothing was
// written.
func checkFolders(root, rel string) error {
	if err := atomicfile.CheckFolders(root, rel); err != nil {
		return fmt.Errorf("%w: nothing written", err)
	}
	return nil
}

// docFiles are the small files of a saved run copied under DocsDir (not
// the HTML pages: a hundred kB a run); required ones must be there. The
// Mermaid picture is read to go into TracePage, not copied beside it.
// The simulator's version of the run (report.TellSim) comes along where
// the run has it: faults.txt names it.
var docFiles = []struct {
	name     string
	required bool
}{
	{report.HistoryFile, true}, {report.VerdictsFile, true}, {report.FaultsFile, true}, {report.ScheduleFile, false}, {report.JudgedFile, false},
	{report.SimScheduleFile, false}, {report.SimCommandFile, false},
	{trace.MermaidFile, false},
}

// simNotKept replaces, in a copied faults.txt, the line naming the
// simulator's files when the run does not have both of them (a run saved
// or copied before they were): a copy names no file it lacks.
const simNotKept = "the simulator's version: not kept with this copy of the run"

// keepFaultsHonest is faults.txt with each line that names one of the
// simulator's files replaced by simNotKept, unless has says both are
// there; anything else is left as it is.
func keepFaultsHonest(faults []byte, has func(name string) bool) []byte {
	if has(report.SimScheduleFile) && has(report.SimCommandFile) {
		return faults
	}
	lines := strings.SplitAfter(string(faults), "\n")
	for i, l := range lines {
		if strings.Contains(l, report.SimScheduleFile) || strings.Contains(l, report.SimCommandFile) {
			lines[i] = simNotKept + l[len(strings.TrimRight(l, "\r\n")):]
		}
	}
	return []byte(strings.Join(lines, ""))
}

// TracePage is the page written beside a copied run: the trace picture as
// a Mermaid block (rendered where Markdown is) and the list of files.
const TracePage = "trace.md"

// runCopy is one failing run to copy: its files read, not yet written.
type runCopy struct {
	dest  string // README-relative, slash separated
	files map[string][]byte
}

// readRun reads the small files of the run folder src.
func readRun(src, dest string) (runCopy, error) {
	rc := runCopy{dest: dest, files: map[string][]byte{}}
	for _, f := range docFiles {
		file := filepath.Join(src, f.name)
		info, err := os.Lstat(file)
		if errors.Is(err, fs.ErrNotExist) && !f.required {
			continue
		}
		if err != nil {
			return rc, fmt.Errorf("saved run: %w", err)
		}
		if !info.Mode().IsRegular() {
			return rc, fmt.Errorf("saved run: %s is %s, not a file", file, inputfile.Kind(info.Mode()))
		}
		data, err := inputfile.Read(file, maxRunFile)
		if err != nil {
			return rc, fmt.Errorf("saved run: %w", err)
		}
		rc.files[f.name] = data
	}
	rc.files[report.FaultsFile] = keepFaultsHonest(rc.files[report.FaultsFile], func(name string) bool {
		_, ok := rc.files[name]
		return ok
	})
	var page strings.Builder
	fmt.Fprintf(&page, "# %s\n\nA failing live run, copied by `fencelab-live readme` from the matrix's output (the HTML pages stay there).\n\n", path.Base(dest))
	pvs, err := report.PageVerdicts(rc.files[report.VerdictsFile], rc.files[report.JudgedFile], rc.files[report.SimScheduleFile])
	if err != nil {
		return rc, fmt.Errorf("saved run %s: %w", src, err)
	}
	if len(pvs) > 0 {
		// The run's own line of every property: the row's word, the
		// run's, and the simulator's on the run's story, recomputed.
		page.WriteString("| Property | the row | this run | the simulator on this run's story |\n|---|---|---|---|\n")
		for _, v := range pvs {
			model := v.Model
			if model == "" {
				model = "—"
			}
			fmt.Fprintf(&page, "| %s | %s | %s | %s |\n", cell(v.Property), cell(v.Expected), cell(v.Live), model)
		}
		page.WriteString("\n")
	}
	if mmd, ok := rc.files[trace.MermaidFile]; ok {
		fmt.Fprintf(&page, "```mermaid\n%s\n```\n\n", strings.TrimRight(string(mmd), "\n"))
		delete(rc.files, trace.MermaidFile)
	}
	for _, f := range docFiles {
		if _, ok := rc.files[f.name]; ok {
			fmt.Fprintf(&page, "- [%s](%s)\n", f.name, f.name)
		}
	}
	rc.files[TracePage] = []byte(page.String())
	return rc, nil
}

// UpdateReadme writes LiveBlock(cs) into the README at file, between its
// markers, LiveDetail(cs) into LivePage beside it, between the same
// markers, and copies the small files of every run a cell links to under
// DocsDir beside it. Everything is checked and read before anything is
// written: a README without the markers, a docs/live on the way that is
// not a folder, a saved run that is missing or not made of files, and
// nothing is written. Each file is written whole (atomicfile); nothing is
// ever removed — a run folder of an older matrix stays until its owner
// removes it.
func UpdateReadme(file string, cs []Campaign) error {
	text, crlf, err := readReadme(file)
	if err != nil {
		return err
	}
	root := filepath.Dir(file)
	pageFile := filepath.Join(root, filepath.FromSlash(LivePage))
	page, pageCRLF, err := readPage(pageFile, "the live page")
	if err != nil {
		return err
	}
	var copies []runCopy
	seen := map[string]bool{}
	for _, c := range cs {
		for _, p := range BlockProperties() {
			_, saved := c.tally(p)
			link := c.runLink(saved)
			if link == "" || seen[link] {
				continue
			}
			seen[link] = true
			dest := strings.TrimSuffix(link, "/")
			if err := checkFolders(root, dest); err != nil {
				return err
			}
			rc, err := readRun(filepath.Join(c.Dir, filepath.Base(saved.FirstViolation)), dest)
			if err != nil {
				return fmt.Errorf("%s under %s: %w", c.Setup.ID(), c.Summary.Fault, err)
			}
			copies = append(copies, rc)
		}
	}
	updated := splice(text, LiveBlock(cs), crlf)
	updatedPage := splice(page, LiveDetail(cs), pageCRLF)
	for _, rc := range copies {
		folder := atomicfile.NewFolder(filepath.Join(root, filepath.FromSlash(rc.dest)))
		for _, name := range slices.Sorted(maps.Keys(rc.files)) {
			data := rc.files[name]
			if err := folder.WriteFile(name, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
				return err
			}
		}
	}
	if err := atomicfile.WriteFile(pageFile, func(w io.Writer) error { _, err := io.WriteString(w, updatedPage); return err }); err != nil {
		return err
	}
	return atomicfile.WriteFile(file, func(w io.Writer) error { _, err := io.WriteString(w, updated); return err })
}

// splice is text (read by readReadme) with block between its markers,
// its line ends CRLF again if crlf.
func splice(text, block string, crlf bool) string {
	i := strings.Index(text, ReadmeBegin) + len(ReadmeBegin)
	j := strings.Index(text, ReadmeEnd)
	updated := text[:i] + block + text[j:]
	if crlf {
		updated = strings.ReplaceAll(updated, "\n", "\r\n")
	}
	return updated
}

// b2i orders false before true.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
