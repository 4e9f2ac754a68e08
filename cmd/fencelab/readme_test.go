package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/golden"
	"github.com/fencelab/fencelab/pipeline"
	"github.com/fencelab/fencelab/report"
)

const readmePath = "../../README.md"

// matrixPagePath is the page of the README's full verdict table.
const matrixPagePath = "../../" + pipeline.MatrixPage

// TestREADMEVerdictTable checks that the README's full matrix (its page
// under docs/), written by 'fencelab demo --update-readme', still says what
// DESIGN.md's table says in every cell of every checker, and has every
// row: a change of expectations, or a new row, cannot leave it behind.
func TestREADMEVerdictTable(t *testing.T) {
	data, err := os.ReadFile(matrixPagePath)
	require.NoError(t, err)
	block, err := pipeline.ReadmeBlock(string(data), "verdicts")
	require.NoError(t, err)
	props := impl.InvariantNames()
	var rows []string
	for _, line := range strings.Split(strings.TrimSpace(block), "\n")[2:] {
		if !strings.HasPrefix(line, "|") {
			break // the notes below the table
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		require.Len(t, cells, 1+3*len(props), line)
		rows = append(rows, cells[0])
		for k, p := range props {
			for i, cell := range cells[1+3*k : 4+3*k] {
				checker := [...]string{"TLC", "explorer", "simulator"}[i]
				word := strings.SplitN(strings.TrimPrefix(cell, "["), " ", 2)[0]
				if strings.HasPrefix(cells[0], "any design") {
					if i < 2 {
						assert.Equal(t, "n/a", word, "%s / %s / %s", cells[0], p, checker)
					} else {
						assert.Equal(t, "holds", word, "%s / %s / %s", cells[0], p, checker)
					}
					continue
				}
				d := designByDescription(t, cells[0])
				assert.Equal(t, impl.Expected(d, p).String(), word, "%s / %s: %s says %q", cells[0], p, checker, cell)
				if strings.HasPrefix(cell, "[") {
					target := cell[strings.Index(cell, "](")+2 : len(cell)-1]
					_, err := os.Stat(filepath.Join(filepath.Dir(matrixPagePath), target))
					assert.NoError(t, err, "%s / %s / %s links to a picture that is not there", cells[0], p, checker)
				}
			}
		}
	}
	var want []string
	for _, d := range impl.Designs() {
		want = append(want, d.Describe())
	}
	assert.Equal(t, append(want, "any design, simulator without faults"), rows, "a row per design, then the simulator without faults")
}

// TestREADMEMatrixNotes: the full matrix's "—" cells and the notes under
// it are the ones the code writes today, one note per reason — they depend
// on the design rows alone, so no run is needed to know them.
func TestREADMEMatrixNotes(t *testing.T) {
	data, err := os.ReadFile(matrixPagePath)
	require.NoError(t, err)
	block, err := pipeline.ReadmeBlock(string(data), "verdicts")
	require.NoError(t, err)
	want := report.Join(nil).Matrix(nil)
	notes := func(md string) []string {
		var out []string
		for _, line := range strings.Split(md, "\n") {
			if strings.HasPrefix(line, "(") {
				out = append(out, line)
			}
		}
		return out
	}
	dashes := regexp.MustCompile(`— \([0-9]+\)`)
	assert.Equal(t, notes(want), notes(block), "the notes under the table")
	assert.Equal(t, dashes.FindAllString(want, -1), dashes.FindAllString(block, -1), "the cells that do not apply, each with its note")
}

// TestREADMEMatrixPicture: the picture on the README's first screen is
// what fencelab draws from the two tables it shows — the full matrix's
// page and the live page's (docs/live.md) live block — and the README shows it, linked to
// the page. make live-readme and make readme redraw it (-update).
func TestREADMEMatrixPicture(t *testing.T) {
	readme, err := os.ReadFile(readmePath)
	require.NoError(t, err)
	page, err := os.ReadFile(matrixPagePath)
	require.NoError(t, err)
	livePage, err := os.ReadFile("../../" + pipeline.LivePage)
	require.NoError(t, err)
	svg, err := pipeline.DrawMatrix(string(page), string(livePage))
	require.NoError(t, err)
	golden.File(t, *update, "../../"+pipeline.MatrixPicture, []byte(svg))
	block, err := pipeline.ReadmeBlock(string(readme), "matrix")
	require.NoError(t, err)
	assert.Equal(t, pipeline.MatrixPictureBlock(), block)
}

func designByDescription(t *testing.T, s string) impl.Design {
	t.Helper()
	for _, d := range impl.Designs() {
		if d.Describe() == s {
			return d
		}
	}
	t.Fatalf("no design is described as %q", s)
	return 0
}

// walkthroughFixture is TLC's output for the README's walkthrough: the
// showcase model checked with one worker, so the counterexample is the
// same on every run (tlc.Runner's "auto" workers). make readme refreshes
// it from the demo's run; TestTLCWalkthroughIsReproducible (with a jar)
// checks that a fresh run still gives it.
const walkthroughFixture = "../../tlc/testdata/tool_DistLock_2c_AtMostOneClientHoldLock.out"

// counterexamplesPath is the page that reads TLC's walkthrough step by
// step; the README keeps its sequence picture.
const counterexamplesPath = "../../docs/counterexamples.md"

// walkthrough renders the fixture as the README shows it: the step table
// and the Mermaid picture, titled by the model rather than a file path.
func walkthrough(t *testing.T, format string) string {
	t.Helper()
	code, stdout, stderr := runCLI(t, "trace", "--format", format, "--title", pipeline.ShowcaseModel, walkthroughFixture)
	require.Equal(t, exitOK, code, stderr)
	fence := "text"
	if format == "mermaid" {
		fence = "mermaid"
	}
	return "```" + fence + "\n" + stdout + "```\n"
}

// TestREADMEWalkthrough checks the TLC walkthrough — its step table in
// docs/counterexamples.md and its sequence picture in the README —
// against the committed TLC output, so the story's step numbers are the
// ones a user gets. -update
// rewrites them (make readme).
func TestREADMEWalkthrough(t *testing.T) {
	for _, block := range []struct{ name, format, file string }{{"walkthrough-table", "table", counterexamplesPath}, {"walkthrough-mermaid", "mermaid", readmePath}} {
		want := walkthrough(t, block.format)
		if *update {
			require.NoError(t, pipeline.UpdateReadmeBlock(nil, block.file, block.name, want))
		}
		data, err := os.ReadFile(block.file)
		require.NoError(t, err)
		got, err := pipeline.ReadmeBlock(string(data), block.name)
		require.NoError(t, err)
		assert.Equal(t, want, got, "the README's walkthrough differs from the TLC output it is drawn from: run make readme")
	}
}
