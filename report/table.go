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
	"unicode/utf8"

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

// WriteText writes t for a terminal, its columns aligned two spaces apart,
// no line wider than MaxWidth: a table that would be wider has its widest
// columns narrowed and their cells wrapped at spaces onto more lines. Only
// a long cell of the last column (a message to read whole) may still run
// past MaxWidth.
func (t *Table) WriteText(w io.Writer) error {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	io.WriteString(tw, strings.Join(t.Header, "\t")+"\n")
	for _, r := range t.Rows {
		io.WriteString(tw, strings.Join(r, "\t")+"\n")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if utf8.RuneCountInString(line) > MaxWidth {
			return t.writeWrapped(w, MaxWidth)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// minColumn is the narrowest a wrapped column gets (unless its cells are
// all narrower).
const minColumn = 12

// writeWrapped writes t within width: the widest column is narrowed, one
// column at a time, until the table fits (or every column is down to
// minColumn), and each cell is wrapped at spaces within its column's width.
func (t *Table) writeWrapped(w io.Writer, width int) error {
	rows := append([][]string{t.Header}, t.Rows...)
	n := 0
	for _, r := range rows {
		n = max(n, len(r))
	}
	// A column is never narrower than its longest word, nor than
	// minColumn unless its widest cell is narrower.
	widths, least := make([]int, n), make([]int, n)
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
			for _, word := range strings.Fields(c) {
				least[i] = max(least[i], utf8.RuneCountInString(word))
			}
		}
	}
	for i := range least {
		least[i] = min(max(least[i], minColumn), widths[i])
	}
	// The last column is never narrowed: nothing to its right needs
	// aligning, and what it says (a mismatch, TLC's error with its line
	// and column) stays on one line, whole, to be read and copied.
	least[n-1] = widths[n-1]
	total := 2 * (n - 1)
	for _, c := range widths {
		total += c
	}
	for total > width {
		widest := -1
		for i := range widths {
			if widths[i] > least[i] && (widest < 0 || widths[i] > widths[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			break
		}
		widths[widest]--
		total--
	}
	var b strings.Builder
	for _, r := range rows {
		cells := make([][]string, n)
		lines := 1
		for i := range n {
			text := ""
			if i < len(r) {
				text = r[i]
			}
			cells[i] = wrapCell(text, widths[i])
			lines = max(lines, len(cells[i]))
		}
		for k := range lines {
			var line strings.Builder
			for i := range n {
				part := ""
				if k < len(cells[i]) {
					part = cells[i][k]
				}
				line.WriteString(part)
				if i < n-1 {
					line.WriteString(strings.Repeat(" ", max(0, widths[i]-utf8.RuneCountInString(part))+2))
				}
			}
			b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// wrapCell splits text into lines of at most width runes at spaces (a word
// longer than width keeps a line of its own).
func wrapCell(text string, width int) []string {
	if utf8.RuneCountInString(text) <= width {
		return []string{text}
	}
	var lines []string
	var cur string
	for _, word := range strings.Split(text, " ") {
		if cur != "" && utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(word) > width {
			lines = append(lines, cur)
			cur = ""
		}
		if cur != "" {
			cur += " "
		}
		cur += word
	}
	return append(lines, cur)
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
