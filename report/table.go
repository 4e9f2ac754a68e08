// Package report is fencelab's one home for tables: the simulator's
// summaries (SimTable, NPCTable, FirstSeeds), the explorer's verdicts and
// matrix (ExploreResult, ExploreMatrix), TLC's summary (TLCTable) and the
// demo's DESIGN.md table reached three ways (Join), each rendered through
// one Table type for a terminal (aligned columns) or for Markdown.
//
// Why a package of its own, beside package verdict rather than inside it:
// every table here is a table of verdicts, but drawing one needs the
// runtimes' results (sim.Summary, explore.Result, tlc.Outcome), and the
// runtimes import verdict — so verdict keeps only the vocabulary and
// imports nothing from the project, and report, importing everything,
// sits on top, where the command line calls it. The runtimes themselves
// print no tables.
package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fencelab/fencelab/verdict"
)

// Table is a table for people: a header and rows of cells.
type Table struct {
	Header []string
	Rows   [][]string
}

// NewTable starts a table with the header's columns.
func NewTable(header ...string) *Table { return &Table{Header: header} }

// Add appends a row.
func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

// WriteText writes t for a terminal, its columns aligned two spaces apart.
func (t *Table) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	io.WriteString(tw, strings.Join(t.Header, "\t")+"\n")
	for _, r := range t.Rows {
		io.WriteString(tw, strings.Join(r, "\t")+"\n")
	}
	return tw.Flush()
}

// Markdown is t as a Markdown table.
func (t *Table) Markdown() string {
	var b strings.Builder
	row := func(cells []string) { b.WriteString("| " + strings.Join(cells, " | ") + " |\n") }
	row(t.Header)
	b.WriteString("|" + strings.Repeat("---|", len(t.Header)) + "\n")
	for _, r := range t.Rows {
		row(r)
	}
	return b.String()
}

// Percent formats n of total as "n (p%)", or "0".
func Percent(n, total int) string {
	if n == 0 || total == 0 {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%d (%.1f%%)", n, 100*float64(n)/float64(total))
}

// thousands prints n with a comma every three digits: 1,147,658.
func thousands(n int) string { return verdict.Thousands(n) }

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
