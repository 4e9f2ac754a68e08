package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fencelab/fencelab/explore"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/words"
	"github.com/fencelab/fencelab/trace"
	"github.com/fencelab/fencelab/verdict"
)

// ExploreExpected is what DESIGN.md expects of a property the explorer
// checks: impl.Expected, and Holds for the deadlock check, which must
// never fail.
func ExploreExpected(d impl.Design, property string) verdict.Status {
	if property == explore.Deadlock {
		return verdict.Holds
	}
	return impl.Expected(d, property)
}

// ExploreMismatches describes every checked verdict that differs from the
// table, an unknown one included: a verdict the explorer could not reach
// is not agreement. A witness a complete search did not reach comes first:
// it makes every holds of its model vacuous.
func ExploreMismatches(results []*explore.Result) []string {
	var diff []string
	for _, r := range results {
		if missing := r.Unreached(); missing != "" {
			diff = append(diff, fmt.Sprintf("%s not reached with %s: no holds of it counts", missing, r.Config.Design.Describe()))
		}
		for _, w := range r.Witnesses {
			if w.Contradicts() {
				diff = append(diff, fmt.Sprintf("%s reached with %s, expected unreachable: %s", w.Goal, r.Config.Design.Describe(), w.Unreachable))
			}
		}
		for _, v := range r.Verdicts() {
			if unsettled(v) {
				continue
			}
			if want := ExploreExpected(r.Config.Design, v.Property); !v.Agrees(want) {
				diff = append(diff, fmt.Sprintf("%s with %s: %s, expected %s", v.Property, r.Config.Design.Describe(), v.Status, want))
			}
		}
	}
	return diff
}

// unsettled reports whether v is not to be compared with DESIGN.md: not
// checked (left out by --invariant). A verdict left unknown is compared,
// and fails, whatever stopped the search — --first included: an unknown
// is never a success.
func unsettled(v verdict.Verdict) bool {
	return v.Status == verdict.NotChecked
}

// exploreText is a verdict as the explorer's tables show it.
func exploreText(v verdict.Verdict) string {
	switch {
	case v.Property == explore.Deadlock && v.Status == verdict.Holds:
		return "none"
	case v.Property == explore.Deadlock && v.Status == verdict.Violated:
		return fmt.Sprintf("found (%s)", words.Count(v.Steps(), "step"))
	case v.Status == verdict.Violated:
		return fmt.Sprintf("violated (%s)", words.Count(v.Steps(), "step"))
	}
	return v.Status.String()
}

func expectedText(property string, want verdict.Status) string {
	if property == explore.Deadlock {
		return "none"
	}
	return want.String()
}

func exploreFigures(r *explore.Result) string {
	rate := ""
	if s := r.Elapsed.Seconds(); s > 0 {
		rate = fmt.Sprintf(" (%s distinct states/s)", thousands(int(float64(r.Distinct)/s)))
	}
	complete := ""
	switch r.Stopped {
	case explore.StoppedAtMaxStates:
		complete = ", stopped early at --max-states"
	case explore.StoppedAtFirst:
		complete = ", stopped at the first violation (--first)"
	}
	return fmt.Sprintf("%s distinct states, %s generated, depth %d, %s%s%s\n%s",
		thousands(r.Distinct), thousands(r.Generated), r.Depth, elapsed(r.Elapsed), rate, complete, collision(r))
}

// ExploreResult writes one model's figures, one verdict line per property
// and each counterexample as a step table.
func ExploreResult(w io.Writer, r *explore.Result) error {
	fmt.Fprintf(w, "explore: %s\n%s\n\n", r.Config.Describe(), exploreFigures(r))
	if r.Asymmetry != "" {
		fmt.Fprintf(w, "✗ %s: searched again without symmetry\n\n", r.Asymmetry)
	}
	t := NewTable("property", "verdict", "expected", "")
	for _, v := range r.Verdicts() {
		want := ExploreExpected(r.Config.Design, v.Property)
		mark := "✓"
		switch {
		case unsettled(v):
			mark = ""
		case !v.Agrees(want):
			mark = "✗ differs from DESIGN.md"
		}
		t.Add(v.Property, exploreText(v), expectedText(v.Property, want), mark)
	}
	if err := t.WriteText(w); err != nil {
		return err
	}
	// The witnesses in a table of their own, so that the verdicts' stays
	// as it was.
	fmt.Fprintln(w)
	wt := NewTable("witness", "found", "expected", "")
	for _, wit := range r.Witnesses {
		mark, want := "✓", "reached"
		if wit.Unreachable != "" {
			want = "not reached"
		}
		switch {
		case wit.Vacuous():
			mark = "✗ every holds is vacuous"
		case wit.Contradicts():
			mark = "✗ " + wit.Unreachable
		case !wit.Reached && !wit.Complete:
			mark = ""
		}
		wt.Add(wit.Goal, wit.String(), want, mark)
	}
	if err := wt.WriteText(w); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%s\n", witnessLegend(r.Witnesses))
	for _, f := range r.All() {
		if f.Trace == nil {
			continue
		}
		fmt.Fprintln(w)
		if err := trace.WriteTable(w, f.Trace); err != nil {
			return err
		}
	}
	return nil
}

// ExploreMatrix writes DESIGN.md's table as the explorer found it, one row
// per design.
func ExploreMatrix(w io.Writer, results []*explore.Result) error {
	c := results[0].Config
	delay := "no lock-delay"
	if c.LockDelay > 0 {
		delay = "lock-delay"
	}
	for _, r := range results {
		if r.Config.ServiceLockDelay() != c.LockDelay {
			delay += " (" + r.Config.Design.String() + ": its service's own)"
		}
	}
	if c.Validity != explore.DefaultValidityOf(c.Design) {
		delay += ", validity from the " + c.Validity.String()
	}
	if c.Symmetry {
		delay += ", client symmetry"
	}
	if c.SleepSets {
		delay += ", sleep sets"
	}
	fmt.Fprintf(w, "explore: every design, %d clients, %s each, %s, %s\n\n",
		c.Clients, pluralWord(c.Sections, "section", "sections"), pluralWord(c.Retries, "retry", "retries"), delay)
	// Two tables, the search's figures and then the verdicts, rather than
	// one 130 columns wide: each fits in MaxWidth.
	figures := NewTable("design", "distinct", "generated", "depth", "time")
	verdicts := NewTable("design")
	for _, v := range results[0].Verdicts() {
		verdicts.Header = append(verdicts.Header, v.Property)
	}
	for _, r := range results {
		figures.Add(r.Config.Design.Describe(), thousands(r.Distinct), thousands(r.Generated),
			fmt.Sprint(r.Depth), elapsed(r.Elapsed))
		row := []string{r.Config.Design.Describe()}
		for _, v := range r.Verdicts() {
			cell := exploreText(v)
			if want := ExploreExpected(r.Config.Design, v.Property); !unsettled(v) && !v.Agrees(want) {
				cell += " ✗ expected " + expectedText(v.Property, want)
			}
			row = append(row, cell)
		}
		verdicts.Add(row...)
	}
	if err := figures.WriteText(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if err := verdicts.WriteText(w); err != nil {
		return err
	}
	// The witnesses: a third table, each goal's shortest path per design.
	fmt.Fprintln(w)
	witnesses := NewTable("design")
	// The designs look for different goals (a restart row has one of its
	// own): a column per goal any of them looks for, "—" where a design
	// does not.
	var names []string
	var all []explore.Witness
	for _, r := range results {
		for _, wit := range r.Witnesses {
			if !slices.Contains(names, wit.Goal) {
				names, all = append(names, wit.Goal), append(all, wit)
			}
		}
	}
	witnesses.Header = append(witnesses.Header, names...)
	for _, r := range results {
		row := []string{r.Config.Design.Describe()}
		for _, name := range names {
			cell := "—"
			for _, wit := range r.Witnesses {
				if wit.Goal == name {
					cell = wit.String()
					if wit.Vacuous() || wit.Contradicts() {
						cell += " ✗"
					}
				}
			}
			row = append(row, cell)
		}
		witnesses.Add(row...)
	}
	if err := witnesses.WriteText(w); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%s\n", witnessLegend(all))
	for _, r := range results {
		if r.Asymmetry != "" {
			fmt.Fprintf(w, "\n✗ %s: %s: searched again without symmetry\n", r.Config.Design.Describe(), r.Asymmetry)
		}
	}
	if len(ExploreMismatches(results)) == 0 {
		fmt.Fprintln(w, "\nevery verdict agrees with DESIGN.md's table")
	}
	return nil
}

// witnessLegend says what the witnesses are and why they are there.
func witnessLegend(ws []explore.Witness) string {
	var b strings.Builder
	b.WriteString("witnesses (\"sometimes\" goals, each named as the specs' invariant that negates it: TLC finds that invariant violated where the goal is reached; a holds counts only if they are reached):")
	for _, w := range ws {
		fmt.Fprintf(&b, "\n  %s: %s", w.Goal, w.What)
	}
	for _, w := range ws {
		if w.Unreachable != "" {
			fmt.Fprintf(&b, "\n  expected not reached: %s (%s)", w.Goal, w.Unreachable)
		}
	}
	return b.String()
}

// collision states the chance that two of the distinct states shared a
// fingerprint, as TLC does at the end of a run.
func collision(r *explore.Result) string {
	return fmt.Sprintf("fingerprint collision probability (calculated as TLC's optimistic estimate): %.1e", r.Collision)
}
