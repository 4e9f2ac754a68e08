// Command fencelab shows, proves and tests when a distributed lock is safe:
// it explores the Go reference implementation exhaustively, simulates it
// under network delay, process pauses and clock drift, runs TLC on the
// PlusCal specs, and renders counterexample traces for people.
//
// Exit codes: 0 success (expected violations found count as success),
// 1 an unexpected verdict or a failed check, 2 bad input or a missing tool.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/pipeline"
)

// version is the release of this command; the TLA+ tools release it checks
// specs with is pinned separately in tla2tools.version.
const version = "0.1.0"

// command is one subcommand of fencelab.
type command struct {
	name    string
	summary string
	run     func(e *env, args []string) error
}

// commands lists the subcommands in the order help shows them.
func commands() []command {
	return []command{demoCommand(), designsCommand(), exploreCommand(), simCommand(), boundsCommand(), sweepCommand(), tlcCommand(), conformCommand(), traceCommand(), liveCommand(), checkCommand(), mergeCommand()}
}

func main() {
	os.Exit(run(os.Args[1:], newEnv(os.Stdout, os.Stderr)))
}

// run dispatches args to a subcommand and maps its error to an exit code,
// printing bad input as one line on stderr.
func run(args []string, e *env) int {
	if len(args) == 0 {
		return exitCode(e, "", badInput("no command given (run 'fencelab --help' for the list)"))
	}
	switch args[0] {
	case "help":
		if len(args) == 2 && args[1] == "--markdown" {
			return exitCode(e, "help", writeReference(e.Stdout))
		}
		// fencelab help COMMAND is fencelab COMMAND --help.
		if len(args) > 1 {
			return run([]string{args[1], "--help"}, e)
		}
		writeHelp(e.Stdout)
		return exitOK
	case "-h", "-help", "--help":
		writeHelp(e.Stdout)
		return exitOK
	case "-version", "--version", "version":
		fmt.Fprintf(e.Stdout, "fencelab %s\n", version)
		return exitOK
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return exitCode(e, c.name, c.run(e, args[1:]))
		}
	}
	return exitCode(e, "", badInput("unknown command %s (run 'fencelab --help' for the list)", quote.Q(args[0])))
}

func writeHelp(w io.Writer) {
	fmt.Fprintf(w, "fencelab %s — when is a distributed lock safe?\n\nUsage: fencelab <command> [flags]\n\nCommands:\n", version)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, "\nRun 'fencelab <command> --help' for a command's flags.\n"+
		"Exit codes: 0 success (expected violations count as success), 1 unexpected verdict or failed check, 2 bad input or missing tool.\n")
}

// maxMessage bounds the line exitCode prints: every value a message
// echoes is cut (quote.Q), and this is the bound of the whole line, for a
// value echoed whole anywhere else.
const maxMessage = 2048

// exitCode prints err (if any) as one line on stderr and returns the code it
// stands for.
func exitCode(e *env, cmd string, err error) int {
	if err == nil {
		return exitOK
	}
	if errors.Is(err, errHelpShown) {
		return exitOK
	}
	var passed *pipeline.PassedExit
	if errors.As(err, &passed) {
		return passed.Code
	}
	prefix := "fencelab"
	if cmd != "" {
		prefix += " " + cmd
	}
	fmt.Fprintf(e.Stderr, "%s: %s\n", prefix, quote.Cut(pipeline.OneLine(quote.Cut(err.Error(), 4*maxMessage)), maxMessage))
	var ee *pipeline.ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return exitFailure
}
