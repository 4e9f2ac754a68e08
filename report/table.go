package verdict

import (
	"io"
	"strings"
	"text/tabwriter"
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
