package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/pipeline"
	"golang.org/x/term"
)

// Exit codes, documented in the README and in 'fencelab --help'.
const (
	exitOK       = pipeline.ExitOK
	exitFailure  = pipeline.ExitFailure
	exitBadInput = pipeline.ExitBadInput
)

// env is what a command may touch of the outside world.
type env struct {
	pipeline.Env
	// reference is set while the CLI reference is written (help
	// --markdown): the flags' help then says "one per CPU", not this
	// machine's count, so that docs/cli.md is the same everywhere.
	reference bool
}

func newEnv(stdout, stderr *os.File) *env {
	return &env{Env: pipeline.Env{Stdout: stdout, Stderr: stderr, Terminal: term.IsTerminal(int(stderr.Fd()))}}
}

// badInput reports bad flags, values or files, or a missing tool: exit 2.
func badInput(format string, args ...any) error { return pipeline.BadInput(format, args...) }

// errHelpShown means a command printed its usage on request: exit 0.
var errHelpShown = errors.New("help shown")

// newFlagSet returns a flag set that reports errors instead of printing
// them, so every bad flag becomes one line on stderr.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("fencelab "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args, printing the usage and defaults to stdout on -h.
// Flags may come before and after positional arguments (fencelab trace
// FILE --format html); "--" ends the flags, and everything after it is
// positional. Positional arguments are returned in order.
func parseFlags(e *env, fs *flag.FlagSet, usage string, args []string) ([]string, error) {
	var positional []string
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			writeUsage(e.Stdout, fs, usage)
			return nil, errHelpShown
		}
		if err != nil {
			return nil, badInput("%s", quote.Message(err.Error()))
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// writeUsage prints a command's usage line and its flags with defaults; a
// command without flags has no "Flags:" heading.
func writeUsage(w io.Writer, fs *flag.FlagSet, usage string) {
	fmt.Fprintf(w, "Usage: %s\n", usage)
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		return
	}
	fmt.Fprint(w, "\nFlags:\n")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}
