package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/fencelab/fencelab/live/report"
	"github.com/fencelab/fencelab/live/run"
	"github.com/fencelab/fencelab/tlc"
)

// tlcRunner is the TLC --tlc runs: the jar TLA2TOOLS_JAR names, java on
// PATH.
func tlcRunner() (*tlc.Runner, error) {
	jar := os.Getenv("TLA2TOOLS_JAR")
	if jar == "" {
		return nil, errors.New("TLA2TOOLS_JAR is not set: name tla2tools.jar")
	}
	if err := tlc.CheckJar(jar); err != nil {
		return nil, fmt.Errorf("TLA2TOOLS_JAR: %w", err)
	}
	java, err := tlc.FindJava()
	if err != nil {
		return nil, err
	}
	return &tlc.Runner{Java: java, Jar: jar}, nil
}

// checkHistoryUsage is check-history's usage line.
const checkHistoryUsage = "fencelab-live check-history [--design ROW] [--ttl D] [--out DIR] [--check-timeout D] [--tlc] HISTORY   (a history file, docs/history.md, judged)"

// checkHistoryCommand judges one history file (docs/history.md) — a run
// of the harness, a user's own harness, production logs turned into it —
// with the live judge, prints each verdict beside the row's, and writes
// the trace and Porcupine pages into --out: exit 0 when every verdict is
// one the row allows, 1 when a property the row says holds is violated,
// 2 on a malformed history (one line naming the line).
func checkHistoryCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fencelab-live check-history", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	design := fs.String("design", "", "the design row the verdicts are lined up with (default: the history header's \"design\")")
	out := fs.String("out", filepath.Join("out", "check"), "the folder the trace and Porcupine pages are written to")
	ttl := fs.Duration("ttl", 0, "the lease the clients asked for (default: the history header's \"ttl_ns\")")
	withTLC := fs.Bool("tlc", false, "also ask TLC whether the row's spec can make the resource's log (TLA2TOOLS_JAR names the jar; a short history)")
	specs := fs.String("specs", "specs", "the folder of the TLA+ specs, for --tlc")
	timeout := fs.Duration("check-timeout", run.DefaultCheckTimeout, "Porcupine's time bound for each linearizability check")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			showUsage(stdout, fs, checkHistoryUsage)
			return ExitOK
		}
		return badCmd(stderr, "check-history", "%v", err)
	}
	switch {
	case fs.NArg() != 1:
		return badCmd(stderr, "check-history", "want one history file, got %d arguments (%s)", fs.NArg(), checkHistoryUsage)
	case *out == "":
		return badCmd(stderr, "check-history", "--out is empty: name the folder for the pages")
	case *ttl < 0:
		return badCmd(stderr, "check-history", "--ttl %v: want a positive duration", *ttl)
	case *timeout <= 0:
		return badCmd(stderr, "check-history", "--check-timeout %v: want a positive duration", *timeout)
	}
	var runner *tlc.Runner
	if *withTLC {
		var err error
		if runner, err = tlcRunner(); err != nil {
			return badCmd(stderr, "check-history", "--tlc: %v", err)
		}
	}
	path := fs.Arg(0)
	f, err := report.ReadHistoryFile(path)
	if err != nil {
		return badCmd(stderr, "check-history", "%v", err)
	}
	if *ttl > 0 {
		f.TTL = *ttl
	}
	c, err := report.CheckHistory(f, *design, *timeout)
	if err != nil {
		return badCmd(stderr, "check-history", "%.200s: %v", path, err)
	}
	if err := c.Write(stdout, path); err != nil {
		return badCmd(stderr, "check-history", "%v", err)
	}
	names, err := c.WritePages(*out, "history "+filepath.Base(path)+" (row "+c.Design.String()+")")
	if err != nil {
		return badCmd(stderr, "check-history", "the pages: %v", err)
	}
	fmt.Fprintf(stdout, "  pages in %s: %s\n", *out, strings.Join(names, ", "))
	explained := true
	if runner != nil {
		v, err := report.ValidateTLC(context.Background(), runner, *specs, c)
		if err != nil {
			return badCmd(stderr, "check-history", "--tlc: %v", err)
		}
		explained = v.Explained
		verb := "explains"
		if !v.Explained {
			verb = "has no behaviour that makes"
		}
		fmt.Fprintf(stdout, "  TLC: DistLockFencing.tla, row %s, %s the resource's log (%d operations)\n", c.Design, verb, v.Ops)
	}
	if !explained {
		fmt.Fprintf(stderr, "fencelab-live check-history: no behaviour of row %s's spec makes the history's resource log\n", c.Design)
		return ExitFailure
	}
	if len(c.Unexpected()) > 0 {
		fmt.Fprintf(stderr, "fencelab-live check-history: %s violated where row %s says it holds\n", strings.Join(c.Unexpected(), ", "), c.Design)
		return ExitFailure
	}
	return ExitOK
}
