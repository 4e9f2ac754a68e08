package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/fencelab/fencelab/tlc"
	"github.com/fencelab/fencelab/trace"
)

const traceUsage = "fencelab trace [--format table|lanes|mermaid|html|json] [--out FILE] [--property NAME] <tlc-output-file>"

func traceCommand() command {
	return command{name: "trace", summary: "show a TLC counterexample: step table, lane picture, Mermaid, HTML or JSON", run: runTrace}
}

// runTrace reads TLC's output (with or without -tool) and renders its
// counterexample.
func runTrace(e *env, args []string) error {
	fs := newFlagSet("trace")
	format := fs.String("format", "", "table, lanes, mermaid, html or json (default: the step table and the lane picture)")
	out := fs.String("out", "", "write to this file instead of stdout")
	property := fs.String("property", "", "the violated temporal property's name (TLC does not print it)")
	title := fs.String("title", "", "the trace's title (default: the file name)")
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
		return badInput("unknown --format %q (use table, lanes, mermaid, html or json)", *format)
	}
	path := rest[0]
	data, err := os.ReadFile(path)
	if err != nil {
		return badInput("cannot read %s: %v", path, err)
	}
	parsed, err := tlc.ParseOutput(bytes.NewReader(data))
	if err != nil {
		return badInput("%s: %v", path, err)
	}
	if *title == "" {
		*title = "TLC counterexample: " + path
	}
	t, err := parsed.Trace(tlc.TraceOptions{Title: *title, Property: *property})
	if errors.Is(err, tlc.ErrNoCounterexample) {
		return badInput("%s: no counterexample in this TLC output (TLC found no error, or stopped before printing one)", path)
	}
	if err != nil {
		return badInput("%s: %v", path, err)
	}
	var buf bytes.Buffer
	if err := renderTrace(&buf, t, *format); err != nil {
		return fmt.Errorf("rendering the trace: %w", err)
	}
	if *out == "" {
		_, err := e.stdout.Write(buf.Bytes())
		return err
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		return badInput("cannot write %s: %v", *out, err)
	}
	return nil
}

// renderTrace writes t in one format; "" is the step table followed by
// the lane picture.
func renderTrace(w io.Writer, t *trace.Trace, format string) error {
	switch format {
	case "table":
		return trace.WriteTable(w, t)
	case "lanes":
		return trace.WriteLanes(w, t)
	case "mermaid":
		return trace.WriteMermaid(w, t)
	case "html":
		return trace.WriteHTML(w, t)
	case "json":
		return trace.WriteJSON(w, t)
	}
	return trace.WriteText(w, t)
}
