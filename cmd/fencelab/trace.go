package main

import (
	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/pipeline"
)

const traceUsage = "fencelab trace [--format table|lanes|mermaid|html|json] [--out FILE] [--property NAME] [--counterexample N] <tlc-output-file | trace.json>"

func traceCommand() command {
	return command{name: "trace", summary: "show a TLC counterexample or a trace.json: step table, lane picture, Mermaid, HTML or JSON", run: runTrace}
}

// runTrace reads TLC's output (with or without -tool), or a trace.json
// that fencelab wrote, and renders its counterexample.
func runTrace(e *env, args []string) error {
	fs := newFlagSet("trace")
	format := fs.String("format", "", "table, lanes, mermaid, html or json (default: the step table and the lane picture)")
	out := outFlag(fs, "", "file", "the rendering (default: stdout)")
	property := fs.String("property", "", "the violated temporal property's name (TLC does not print it)")
	title := fs.String("title", "", "the trace's title (default: the file name)")
	which := fs.Int("counterexample", 1, "which counterexample, when TLC printed several (-continue)")
	rest, err := parseFlags(e, fs, traceUsage, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return badInput("expected one TLC output file (usage: %s)", traceUsage)
	}
	switch *format {
	case "", "table", "lanes", "mermaid", "html", "json":
	default:
		return badInput("unknown --format %s (use table, lanes, mermaid, html or json)", quote.Q(*format))
	}
	if err := pipeline.CheckOutFile("out", *out); err != nil {
		return err
	}
	return pipeline.Trace(&e.Env, rest[0], *out, *format, *title, *property, *which)
}
