package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/fencelab/fencelab/distlockspec"
	"github.com/fencelab/fencelab/internal/inputfile"
	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/tlc"
	"github.com/fencelab/fencelab/trace"
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
	out := fs.String("out", "", "write to this file instead of stdout")
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
	if err := checkOutFile("out", *out); err != nil {
		return err
	}
	path := rest[0]
	data, err := readInput("cannot read", path, inputfile.MaxOutput)
	if err != nil {
		return err
	}
	var t *trace.Trace
	if isJSON(data) {
		if t, err = trace.ReadJSON(bytes.NewReader(data)); err != nil {
			return badInput("%s: %v", path, err)
		}
		if *title != "" {
			t.Title = *title
		}
	} else if t, err = tlcTrace(path, data, *title, *property, *which); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := renderTrace(&buf, t, *format); err != nil {
		return fmt.Errorf("rendering the trace: %w", err)
	}
	if *out == "" {
		_, err := e.stdout.Write(buf.Bytes())
		return err
	}
	if err := e.disk.WriteFile(*out, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
		return couldNotSave(err)
	}
	return nil
}

// isJSON tells a trace.json from TLC's output: JSON starts with '{'.
func isJSON(data []byte) bool {
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	return len(trimmed) > 0 && trimmed[0] == '{'
}

// tlcTrace parses TLC's output and converts the chosen counterexample.
func tlcTrace(path string, data []byte, title, property string, which int) (*trace.Trace, error) {
	parsed, err := tlc.ParseOutput(bytes.NewReader(data))
	if err != nil {
		return nil, badInput("%s: %v", path, err)
	}
	if !parsed.Complete {
		return nil, badInput("%s: the TLC output is incomplete: it stops before TLC's closing \"Finished in …\" message (TLC was stopped, or the file is cut short)", path)
	}
	if len(parsed.Counterexamples) == 0 {
		return nil, badInput("%s: no counterexample in this TLC output (TLC found no error, or stopped before printing one)", path)
	}
	if parsed, err = parsed.Select(which); err != nil {
		return nil, badInput("%s: --counterexample %d: %v", path, which, err)
	}
	if title == "" {
		title = "TLC counterexample: " + path
		if n := len(parsed.Counterexamples); n > 1 {
			title += fmt.Sprintf(" (counterexample %d of %d)", which, n)
		}
	}
	t, err := distlockspec.Trace(parsed, distlockspec.TraceOptions{Title: title, Property: property})
	if errors.Is(err, distlockspec.ErrNoCounterexample) {
		return nil, badInput("%s: no counterexample in this TLC output (TLC found no error, or stopped before printing one)", path)
	}
	if err != nil {
		return nil, badInput("%s: %v", path, err)
	}
	return t, nil
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
