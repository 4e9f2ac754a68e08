package pipeline

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/fencelab/fencelab/distlockspec"
	"github.com/fencelab/fencelab/internal/inputfile"
	"github.com/fencelab/fencelab/tlc"
	"github.com/fencelab/fencelab/trace"
)

// Trace is fencelab trace: it reads the trace in the file at path
// (ReadTrace), renders it in format (RenderTrace) and writes it to the
// file out, or to stdout when out is "".
func Trace(e *Env, path, out, format, title, property string, which int) error {
	data, err := ReadInput("cannot read", path, inputfile.MaxOutput)
	if err != nil {
		return err
	}
	t, err := ReadTrace(path, data, title, property, which)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := RenderTrace(&buf, t, format); err != nil {
		return fmt.Errorf("rendering the trace: %w", err)
	}
	if out == "" {
		_, err := e.Stdout.Write(buf.Bytes())
		return err
	}
	if err := e.Disk.WriteFile(out, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
		return CouldNotSave(err)
	}
	return nil
}

// ReadTrace reads TLC's output (with or without -tool), or a trace.json
// that fencelab wrote, from data, read from path: title ("": the file's
// name) and property are TLC's trace's, which (from 1) chooses among
// several counterexamples.
func ReadTrace(path string, data []byte, title, property string, which int) (*trace.Trace, error) {
	if !isJSON(data) {
		return tlcTrace(path, data, title, property, which)
	}
	t, err := trace.ReadJSON(bytes.NewReader(data))
	if err != nil {
		return nil, BadInput("%s: %v", path, err)
	}
	if title != "" {
		t.Title = title
	}
	return t, nil
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
		return nil, BadInput("%s: %v", path, err)
	}
	if !parsed.Complete {
		return nil, BadInput("%s: the TLC output is incomplete: it stops before TLC's closing \"Finished in …\" message (TLC was stopped, or the file is cut short)", path)
	}
	if len(parsed.Counterexamples) == 0 {
		return nil, BadInput("%s: no counterexample in this TLC output (TLC found no error, or stopped before printing one)", path)
	}
	if parsed, err = parsed.Select(which); err != nil {
		return nil, BadInput("%s: --counterexample %d: %v", path, which, err)
	}
	if title == "" {
		title = "TLC counterexample: " + path
		if n := len(parsed.Counterexamples); n > 1 {
			title += fmt.Sprintf(" (counterexample %d of %d)", which, n)
		}
	}
	t, err := distlockspec.Trace(parsed, distlockspec.TraceOptions{Title: title, Property: property})
	if errors.Is(err, distlockspec.ErrNoCounterexample) {
		return nil, BadInput("%s: no counterexample in this TLC output (TLC found no error, or stopped before printing one)", path)
	}
	if err != nil {
		return nil, BadInput("%s: %v", path, err)
	}
	return t, nil
}

// RenderTrace writes t in one format; "" is the step table followed by
// the lane picture.
func RenderTrace(w io.Writer, t *trace.Trace, format string) error {
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
