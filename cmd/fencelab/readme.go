package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/fencelab/fencelab/internal/atomicfile"
	"github.com/fencelab/fencelab/internal/inputfile"
	"github.com/fencelab/fencelab/internal/quote"
)

// The README's generated parts sit between these markers, so that they
// come from real runs (the verdict table, from fencelab demo) or from the
// flags themselves (the CLI reference), not from memory.
func readmeMarkers(name string) (begin, end string) {
	return fmt.Sprintf("<!-- BEGIN %s: generated, do not edit -->\n", name), fmt.Sprintf("<!-- END %s -->", name)
}

// readmeBlock returns the generated block name of readme.
func readmeBlock(readme, name string) (string, error) {
	begin, end := readmeMarkers(name)
	i := strings.Index(readme, begin)
	j := strings.Index(readme, end)
	if i < 0 || j < i {
		return "", fmt.Errorf("README has no %q block (markers %q … %q)", name, strings.TrimSpace(begin), end)
	}
	return readme[i+len(begin) : j], nil
}

// spliceReadme replaces the generated block name of readme with content.
func spliceReadme(readme, name, content string) (string, error) {
	old, err := readmeBlock(readme, name)
	if err != nil {
		return "", err
	}
	begin, _ := readmeMarkers(name)
	i := strings.Index(readme, begin) + len(begin)
	return readme[:i] + content + readme[i+len(old):], nil
}

// updateReadmeBlock rewrites the generated block name of the README at
// path, whole or not at all (atomicfile).
func updateReadmeBlock(disk *atomicfile.Disk, path, name, content string) error {
	data, err := inputfile.Read(path, inputfile.MaxText)
	if err != nil {
		return fmt.Errorf("reading the README %s: %w", path, err)
	}
	updated, err := spliceReadme(string(data), name, content)
	if err != nil {
		return err
	}
	return disk.WriteFile(path, func(w io.Writer) error { _, err := io.WriteString(w, updated); return err })
}

// checkReadme checks, before any work, that demo --update-readme's file
// is a README fencelab can rewrite: a regular file that holds the verdict
// table's markers, in a folder it can write, beside a docs/matrix that is
// a folder if it is there.
func checkReadme(path string) error {
	if path == "" {
		return nil
	}
	data, err := readInput("--update-readme", path, inputfile.MaxText)
	if err != nil {
		return err
	}
	if _, err := readmeBlock(string(data), "verdicts"); err != nil {
		return badInput("--update-readme %s: %v: not the README of fencelab", quote.S(path), err)
	}
	if err := checkOutFile("update-readme", path); err != nil {
		return err
	}
	if err := atomicfile.CheckFolders(filepath.Dir(path), matrixDir); err != nil {
		return badInput("--update-readme %s: %v", quote.S(path), withoutPath(err))
	}
	return nil
}
