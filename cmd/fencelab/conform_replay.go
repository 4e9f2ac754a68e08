package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fencelab/fencelab/conform"
	"github.com/fencelab/fencelab/tlc"
)

// replaySummary is what the replay part of fencelab conform found.
type replaySummary struct {
	replayed, notGo, failed int
	tlcTime                 time.Duration
}

// replayCounterexamples is conform's replay, TLA+ → Go: every model of the
// default run expected to be violated is checked by TLC (one worker, so
// the counterexample is the same on every run), or its output is read
// from from (a fencelab tlc --out folder), and its counterexample is
// replayed in the Go actors (conform.ReplayModel). It prints one row per
// model; a counterexample Go departs from is a failure.
func replayCounterexamples(ctx context.Context, w io.Writer, runner *tlc.Runner, specs, from string) (replaySummary, error) {
	var sum replaySummary
	m, err := tlc.LoadManifest(filepath.Join(specs, "models.json"))
	if err != nil {
		return sum, badInput("%v", err)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "replayed in Go\tTLC steps\tthe Go system")
	for _, mod := range m.Default() {
		if mod.Expected == "ok" {
			continue
		}
		if _, err := conform.ModelReplayable(specs, mod); errors.Is(err, conform.ErrNotGoSystem) {
			sum.notGo++
			fmt.Fprintf(tw, "%s\t—\tskipped: %s\n", mod.Name, skipReason(err))
			continue
		}
		var output []byte
		if from != "" {
			output, err = os.ReadFile(filepath.Join(from, mod.Name, "tlc.out"))
			if err != nil {
				return sum, badInput("--replay-from %s: no TLC output of %s (run fencelab tlc --out %s first): %v", from, mod.Name, from, errors.Unwrap(err))
			}
		} else {
			res, err := runner.Run(ctx, specs, mod)
			if ctx.Err() != nil {
				return sum, stopped(ctx)
			}
			if err != nil {
				return sum, failed("%s: %v", mod.Name, err)
			}
			sum.tlcTime += res.Wall
			if res.Mismatch != "" {
				return sum, failed("%s: TLC's result is not the manifest's: %s", mod.Name, res.Mismatch)
			}
			output = res.Output
		}
		r, err := conform.ReplayModel(specs, mod, output)
		var re *conform.ReplayError
		var other *conform.OtherOutputError
		switch {
		case errors.As(err, &other) && from != "":
			// Another spec's, property's or model's output says nothing
			// of the Go system: the file is at fault, not Go.
			return sum, badInput("--replay-from %s: %s/tlc.out is %v", from, mod.Name, err)
		case errors.As(err, &other):
			sum.failed++
			fmt.Fprintf(tw, "%s\t\tDEPARTS from TLC's counterexample: TLC's own run is %v\n", mod.Name, err)
		case errors.Is(err, conform.ErrNotGoSystem):
			sum.notGo++
			fmt.Fprintf(tw, "%s\t—\tskipped: %s\n", mod.Name, skipReason(err))
		case errors.As(err, &re):
			sum.failed++
			fmt.Fprintf(tw, "%s\t\tDEPARTS from TLC's counterexample at %v\n", mod.Name, re)
		case err != nil && from != "":
			// An output the user pointed at that is not TLC's complete
			// output is bad input, as any unreadable file is.
			return sum, badInput("--replay-from %s: %v", from, err)
		case err != nil:
			return sum, failed("%s: %v", mod.Name, err)
		default:
			sum.replayed++
			fmt.Fprintf(tw, "%s\t%d\tviolated at step %d\n", mod.Name, r.Steps, r.At)
		}
	}
	return sum, tw.Flush()
}

// skipReason is why a model's counterexample is not replayed, short enough
// for the table: the reason without its details in parentheses.
func skipReason(err error) string {
	why := strings.TrimSuffix(err.Error(), ": "+conform.ErrNotGoSystem.Error())
	if i := strings.Index(why, " ("); i > 0 {
		why = why[:i]
	}
	return why
}
