package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fencelab/fencelab/explore"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/trace"
)

// fencingEvery runs every design and prints the matrix.
const fencingEvery = "every"

const exploreUsage = "fencelab explore [--clients 2] [--fencing off|none|writes|all|every] [--invariant NAME[,NAME]] [--sections 1] [--retries 1] [--lock-delay 0] [--symmetry] [--max-states 0] [--out out/explore]"

func exploreCommand() command {
	return command{
		name:    "explore",
		summary: "model-check the Go implementation exhaustively and compare with DESIGN.md's table",
		run:     runExplore,
	}
}

func runExplore(e *env, args []string) error {
	fs := newFlagSet("explore")
	clients := fs.Int("clients", 2, "number of clients, 2 to 4 (4 wants --symmetry: 5 to 35 million states, about 4 GB and minutes per design)")
	fencing := fs.String("fencing", fencingEvery, "design: off (no tokens), none, writes, all, or every to run them all and print the matrix")
	invariants := fs.String("invariant", "", "comma-separated invariants to check (default: all that apply): "+strings.Join(impl.InvariantNames(), ", "))
	sections := fs.Int("sections", 1, "critical sections per client, at least 1")
	retries := fs.Int("retries", 1, "rejections per section a client answers by asking again, 0 or more")
	lockDelay := fs.Duration("lock-delay", 0, "lock-delay after an expiry (0: none); the untimed model only asks whether there is one: its end may come at any moment")
	symmetry := fs.Bool("symmetry", false, "store one state per class of states that differ only by client names (as TLC's SYMMETRY): fewer states, same verdicts and shortest traces")
	maxStates := fs.Int("max-states", 0, "stop after this many distinct states (0: no limit); unfinished verdicts are unknown and fail")
	outDir := fs.String("out", filepath.Join("out", "explore"), "folder for the counterexamples, one folder each with its trace as text, JSON, HTML and Mermaid (empty: do not write)")
	rest, err := parseFlags(e, fs, exploreUsage, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return badInput("unexpected argument %q", rest[0])
	}

	var designs []impl.Design
	if *fencing == fencingEvery {
		designs = impl.Designs()
	} else {
		d, err := impl.ParseDesign(*fencing)
		if err != nil {
			return badInput("unknown fencing mode %q (want off, none, writes, all or %s)", *fencing, fencingEvery)
		}
		designs = []impl.Design{d}
	}
	var names []string
	if *invariants != "" {
		for _, n := range strings.Split(*invariants, ",") {
			names = append(names, strings.TrimSpace(n))
		}
	}
	var configs []explore.Config
	for _, d := range designs {
		c := explore.Config{
			Config:   explore.UntimedConfig(impl.Config{Design: d, Clients: *clients, Sections: *sections, Retries: *retries, LockDelay: *lockDelay}),
			Symmetry: *symmetry, MaxStates: *maxStates,
		}
		for _, n := range names {
			inv, err := impl.LookupInvariant(n)
			if err != nil {
				return badInput("%v", err)
			}
			// In the matrix a tokens-only invariant is just not applicable
			// to the design without tokens; asked for alone, it is a mistake.
			if !inv.AppliesTo(d) && len(designs) == 1 {
				return badInput("%s does not apply to %s: it needs tokens", n, d.Describe())
			}
			c.Invariants = append(c.Invariants, n)
		}
		if err := c.Validate(); err != nil {
			return badInput("%v", err)
		}
		configs = append(configs, c)
	}

	var results []*explore.Result
	for _, c := range configs {
		if e.terminal {
			// Long runs (3 and 4 clients) show where they are, on stderr
			// and only on a terminal, so stdout stays the same bytes.
			c.Progress = func(depth, distinct, queued int) {
				fmt.Fprintf(e.stderr, "\r%s: depth %d, %s distinct states, %s queued ", c.Design, depth, thousands(distinct), thousands(queued))
			}
		}
		res, err := explore.Run(c)
		if e.terminal {
			fmt.Fprint(e.stderr, "\r\033[K")
		}
		if err != nil {
			return fmt.Errorf("explore: %w", err)
		}
		results = append(results, res)
		if len(configs) == 1 {
			if err := writeResult(e.stdout, res); err != nil {
				return err
			}
		}
	}
	if len(configs) > 1 {
		if err := writeMatrix(e.stdout, results); err != nil {
			return err
		}
	}
	if *outDir != "" {
		written, err := writeTraces(*outDir, results)
		if err != nil {
			return err
		}
		if written > 0 {
			fmt.Fprintf(e.stdout, "\n%d counterexample traces written to %s, one folder each (<design>-<clients>c-<property>/: %s)\n", written, *outDir, strings.Join(trace.FileNames(), ", "))
		}
	}
	if diff := mismatches(results); len(diff) > 0 {
		return failed("%d verdicts differ from DESIGN.md's table: %s", len(diff), strings.Join(diff, "; "))
	}
	return nil
}

// expected is DESIGN.md's verdict for a property (or the deadlock check,
// which must never fail).
func expected(d impl.Design, property string) impl.Verdict {
	if property == explore.Deadlock {
		return impl.Holds
	}
	return impl.Expected(d, property)
}

// verdicts lists a result's verdicts with the deadlock check last.
func verdicts(r *explore.Result) []explore.Verdict {
	return append(append([]explore.Verdict(nil), r.Verdicts...), r.Deadlock)
}

// mismatches describes every checked verdict that differs from the table,
// an unknown one included: a verdict the explorer could not reach is not
// agreement.
func mismatches(results []*explore.Result) []string {
	var diff []string
	for _, r := range results {
		for _, v := range verdicts(r) {
			if v.Status == explore.NotChecked {
				continue
			}
			if want := expected(r.Config.Design, v.Property); !v.Status.Matches(want) {
				diff = append(diff, fmt.Sprintf("%s with %s: %s, expected %s", v.Property, r.Config.Design.Describe(), v.Status, want))
			}
		}
	}
	return diff
}

// verdictText is a verdict as the figures show it.
func verdictText(v explore.Verdict) string {
	switch {
	case v.Property == explore.Deadlock && v.Status == explore.Holds:
		return "none"
	case v.Property == explore.Deadlock && v.Status == explore.Violated:
		return fmt.Sprintf("found (%d steps)", v.Steps())
	case v.Status == explore.Violated:
		return fmt.Sprintf("violated (%d steps)", v.Steps())
	}
	return v.Status.String()
}

func expectedText(property string, want impl.Verdict) string {
	if property == explore.Deadlock {
		return "none"
	}
	return want.String()
}

func figures(r *explore.Result) string {
	rate := ""
	if s := r.Elapsed.Seconds(); s > 0 {
		rate = fmt.Sprintf(" (%s distinct states/s)", thousands(int(float64(r.Distinct)/s)))
	}
	complete := ""
	if !r.Complete {
		complete = ", stopped early at --max-states"
	}
	return fmt.Sprintf("%s distinct states, %s generated, depth %d, %s%s%s",
		thousands(r.Distinct), thousands(r.Generated), r.Depth, elapsed(r.Elapsed), rate, complete)
}

// writeResult prints one model's figures, one verdict line per property
// and each counterexample as a step table.
func writeResult(w io.Writer, r *explore.Result) error {
	fmt.Fprintf(w, "explore: %s\n%s\n\n", r.Config.Describe(), figures(r))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "property\tverdict\texpected\t")
	for _, v := range verdicts(r) {
		want := expected(r.Config.Design, v.Property)
		mark := "✓"
		switch {
		case v.Status == explore.NotChecked:
			mark = ""
		case !v.Status.Matches(want):
			mark = "✗ differs from DESIGN.md"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", v.Property, verdictText(v), expectedText(v.Property, want), mark)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, v := range verdicts(r) {
		if v.Trace == nil {
			continue
		}
		fmt.Fprintln(w)
		if err := trace.WriteTable(w, v.Trace); err != nil {
			return err
		}
	}
	return nil
}

// writeMatrix prints DESIGN.md's table as the explorer found it.
func writeMatrix(w io.Writer, results []*explore.Result) error {
	c := results[0].Config
	delay := "no lock-delay"
	if c.LockDelay > 0 {
		delay = "lock-delay"
	}
	if c.Symmetry {
		delay += ", client symmetry"
	}
	fmt.Fprintf(w, "explore: every design, %d clients, %s each, %s, %s\n\n",
		c.Clients, pluralWord(c.Sections, "section", "sections"), pluralWord(c.Retries, "retry", "retries"), delay)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	header := []string{"design", "distinct", "generated", "depth", "time"}
	for _, v := range verdicts(results[0]) {
		header = append(header, v.Property)
	}
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range results {
		row := []string{r.Config.Design.Describe(), thousands(r.Distinct), thousands(r.Generated),
			fmt.Sprint(r.Depth), elapsed(r.Elapsed)}
		for _, v := range verdicts(r) {
			cell := verdictText(v)
			if want := expected(r.Config.Design, v.Property); v.Status != explore.NotChecked && !v.Status.Matches(want) {
				cell += " ✗ expected " + expectedText(v.Property, want)
			}
			row = append(row, cell)
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(mismatches(results)) == 0 {
		fmt.Fprintln(w, "\nevery verdict agrees with DESIGN.md's table")
	}
	return nil
}

// writeTraces writes the files of every counterexample (trace.WriteFiles)
// into a folder of dir named <design>-<clients>c-<property>.
func writeTraces(dir string, results []*explore.Result) (int, error) {
	written := 0
	for _, r := range results {
		for _, v := range verdicts(r) {
			if v.Trace == nil {
				continue
			}
			if written == 0 {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return 0, badInput("cannot create the output folder: %v", err)
				}
			}
			sub := filepath.Join(dir, fmt.Sprintf("%s-%dc-%s", r.Config.Design, r.Config.Clients, v.Property))
			if _, err := trace.WriteFiles(sub, v.Trace); err != nil {
				return written, badInput("cannot write a trace: %v", err)
			}
			written++
		}
	}
	return written, nil
}

// elapsed prints a wall time to a useful precision.
func elapsed(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// thousands prints n with thin separators every three digits: 1,147,658.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
