package pipeline

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/fencelab/fencelab/internal/atomicfile"
	"github.com/fencelab/fencelab/internal/inputfile"
	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/report"
)

// ReadmeMarkers are the markers the README's generated parts sit between,
// so that they come from real runs (the verdict table, from fencelab demo),
// not from memory.
func ReadmeMarkers(name string) (begin, end string) {
	return fmt.Sprintf("<!-- BEGIN %s: generated, do not edit -->\n", name), fmt.Sprintf("<!-- END %s -->", name)
}

// ReadmeBlock returns the generated block name of readme.
func ReadmeBlock(readme, name string) (string, error) {
	begin, end := ReadmeMarkers(name)
	i := strings.Index(readme, begin)
	j := strings.Index(readme, end)
	if i < 0 || j < i {
		return "", fmt.Errorf("README has no %q block (markers %q … %q)", name, strings.TrimSpace(begin), end)
	}
	return readme[i+len(begin) : j], nil
}

// SpliceReadme replaces the generated block name of readme with content.
func SpliceReadme(readme, name, content string) (string, error) {
	old, err := ReadmeBlock(readme, name)
	if err != nil {
		return "", err
	}
	begin, _ := ReadmeMarkers(name)
	i := strings.Index(readme, begin) + len(begin)
	return readme[:i] + content + readme[i+len(old):], nil
}

// UpdateReadmeBlock rewrites the generated block name of the README at
// path, whole or not at all (atomicfile).
func UpdateReadmeBlock(disk *atomicfile.Disk, path, name, content string) error {
	data, err := inputfile.Read(path, inputfile.MaxText)
	if err != nil {
		return fmt.Errorf("reading the README %s: %w", path, err)
	}
	updated, err := SpliceReadme(string(data), name, content)
	if err != nil {
		return err
	}
	return disk.WriteFile(path, func(w io.Writer) error { _, err := io.WriteString(w, updated); return err })
}

// The README's matrix is a picture (the "matrix" block links it) of the
// full verdict table, which is the "verdicts" block of MatrixPage; both
// paths are beside the README.
const (
	MatrixPage    = "docs/matrix.md"
	MatrixPicture = "docs/img/matrix.svg"
	// LivePage holds the live column property by property (its "live"
	// block, written by fencelab-live readme beside the README's grid),
	// whose marks the picture shows.
	LivePage = "docs/live.md"
)

// MatrixPictureBlock is the README's "matrix" block: the picture, linked
// to the page of full tables.
func MatrixPictureBlock() string {
	return "[![Every design row × property: the marks of TLC, the explorer, the simulator and live](" + MatrixPicture + ")](" + MatrixPage + ")\n"
}

// DrawMatrix is the picture of the matrix, drawn from the committed
// tables it shows: page, MatrixPage's text (its "verdicts" block), and
// livePage, LivePage's text (its "live" block: every property's line per
// live campaign; the README's own live block is a grid of setups and
// faults, one word a cell).
func DrawMatrix(page, livePage string) (string, error) {
	verdicts, err := ReadmeBlock(page, "verdicts")
	if err != nil {
		return "", fmt.Errorf("%s: %w", MatrixPage, err)
	}
	live, err := ReadmeBlock(livePage, "live")
	if err != nil {
		return "", fmt.Errorf("%s: %w", LivePage, err)
	}
	p, err := report.NewPicture(verdicts, live)
	if err != nil {
		return "", err
	}
	return p.SVG(), nil
}

// CheckReadme checks, before any work, that demo --update-readme's file
// is a README fencelab can rewrite: a regular file that holds the matrix
// picture's markers, in a folder it can write, beside a MatrixPage that
// holds the verdict table's markers and a LivePage whose live block the
// picture can read, and a docs/matrix and docs/img that are folders if
// they are there.
func CheckReadme(path string) error {
	if path == "" {
		return nil
	}
	data, err := ReadInput("--update-readme", path, inputfile.MaxText)
	if err != nil {
		return err
	}
	if _, err := ReadmeBlock(string(data), "matrix"); err != nil {
		return BadInput("--update-readme %s: %v: not the README of fencelab", quote.S(path), err)
	}
	if err := CheckOutFile("update-readme", path); err != nil {
		return err
	}
	root := filepath.Dir(path)
	for _, dir := range []string{matrixDir, filepath.ToSlash(filepath.Dir(MatrixPicture))} {
		if err := atomicfile.CheckFolders(root, dir); err != nil {
			return BadInput("--update-readme %s: %v", quote.S(path), WithoutPath(err))
		}
	}
	page, err := inputfile.Read(filepath.Join(root, filepath.FromSlash(MatrixPage)), inputfile.MaxText)
	if err == nil {
		_, err = ReadmeBlock(string(page), "verdicts")
	}
	if err != nil {
		return BadInput("--update-readme %s: %s beside it: %v", quote.S(path), MatrixPage, WithoutPath(err))
	}
	livePage, err := inputfile.Read(filepath.Join(root, filepath.FromSlash(LivePage)), inputfile.MaxText)
	var live string
	if err == nil {
		live, err = ReadmeBlock(string(livePage), "live")
	}
	if err == nil {
		_, err = report.LiveMarks(live)
	}
	if err != nil {
		return BadInput("--update-readme %s: the matrix's picture cannot read the live block of %s beside it: %v", quote.S(path), LivePage, WithoutPath(err))
	}
	return nil
}
