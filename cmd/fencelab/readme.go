package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/fencelab/fencelab/internal/inputfile"
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

// updateReadmeBlock rewrites the generated block name of the README at path.
func updateReadmeBlock(path, name, content string) error {
	data, err := inputfile.Read(path, inputfile.MaxText)
	if err != nil {
		return fmt.Errorf("reading the README %s: %w", path, err)
	}
	updated, err := spliceReadme(string(data), name, content)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, []byte(updated), 0o644); err != nil {
		return fmt.Errorf("writing the README: %w", err)
	}
	return nil
}
