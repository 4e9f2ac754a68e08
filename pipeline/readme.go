package pipeline

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/fencelab/fencelab/internal/atomicfile"
	"github.com/fencelab/fencelab/internal/inputfile"
	"github.com/fencelab/fencelab/internal/quote"
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

// CheckReadme checks, before any work, that demo --update-readme's file
// is a README fencelab can rewrite: a regular file that holds the verdict
// table's markers, in a folder it can write, beside a docs/matrix that is
// a folder if it is there.
func CheckReadme(path string) error {
	if path == "" {
		return nil
	}
	data, err := ReadInput("--update-readme", path, inputfile.MaxText)
	if err != nil {
		return err
	}
	if _, err := ReadmeBlock(string(data), "verdicts"); err != nil {
		return BadInput("--update-readme %s: %v: not the README of fencelab", quote.S(path), err)
	}
	if err := CheckOutFile("update-readme", path); err != nil {
		return err
	}
	if err := atomicfile.CheckFolders(filepath.Dir(path), matrixDir); err != nil {
		return BadInput("--update-readme %s: %v", quote.S(path), WithoutPath(err))
	}
	return nil
}
