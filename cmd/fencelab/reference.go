package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/fencelab/fencelab/pipeline"
)

//go:generate sh -c "go run . help --markdown > ../../docs/cli.md.new && mv ../../docs/cli.md.new ../../docs/cli.md"

// writeReference writes the CLI reference, docs/cli.md: what 'fencelab
// --help' and each 'fencelab <command> --help' print, in Markdown, so
// that the reference cannot drift from the flags (TestCLIReference).
func writeReference(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# fencelab command-line reference\n\n" +
		"<!-- Generated from the commands' own help by 'fencelab help --markdown' (go generate ./cmd/fencelab); do not edit. -->\n\n" +
		"Every command, its flags and their defaults, as `fencelab <command> --help` prints them.\n\n")
	help := func(args ...string) error {
		var stdout, stderr strings.Builder
		if code := run(args, &env{Env: pipeline.Env{Stdout: &stdout, Stderr: &stderr}, reference: true}); code != exitOK {
			return fmt.Errorf("fencelab %s exited %d: %s", strings.Join(args, " "), code, stderr.String())
		}
		fmt.Fprintf(&b, "```text\n$ fencelab %s\n%s```\n", strings.Join(args, " "), stdout.String())
		return nil
	}
	if err := help("--help"); err != nil {
		return err
	}
	for _, c := range commands() {
		fmt.Fprintf(&b, "\n## fencelab %s\n\n%s.\n\n", c.name, upperFirst(c.summary))
		if err := help(c.name, "--help"); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// upperFirst starts s with a capital letter, for a summary as a sentence.
func upperFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
