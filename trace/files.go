package trace

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// The files of a counterexample, named the same whichever runtime found
// it. WriteFiles writes them in this order.
const (
	TextFile    = "trace.txt"  // WriteText: the step table, then the lane picture
	JSONFile    = "trace.json" // WriteJSON: the Trace itself
	HTMLFile    = "trace.html" // WriteHTML: the sequence picture and the step table
	MermaidFile = "trace.mmd"  // WriteMermaid: a sequenceDiagram for Markdown
)

// FileNames is the names of a trace's files, in the order WriteFiles
// writes them.
func FileNames() []string { return []string{TextFile, JSONFile, HTMLFile, MermaidFile} }

// File is a runtime's own file written beside a trace's (the simulator's
// Porcupine page and fault schedule, TLC's output): its name in the
// folder and what writes it.
type File struct {
	Name  string
	Write func(io.Writer) error
}

// WriteFiles writes t into dir, creating dir if need be, as TextFile,
// JSONFile, HTMLFile and MermaidFile, then each of extras. Each file is
// written whole or not at all (WriteFileAtomic). It returns the names of
// the files written, in order, also when it stops at an error.
func WriteFiles(dir string, t *Trace, extras ...File) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", dir, err)
	}
	render := map[string]func(io.Writer, *Trace) error{
		TextFile: WriteText, JSONFile: WriteJSON, HTMLFile: WriteHTML, MermaidFile: WriteMermaid,
	}
	var files []File
	for _, name := range FileNames() {
		files = append(files, File{name, func(w io.Writer) error { return render[name](w, t) }})
	}
	files = append(files, extras...)
	var names []string
	for _, f := range files {
		if err := WriteFileAtomic(filepath.Join(dir, f.Name), f.Write); err != nil {
			return names, err
		}
		names = append(names, f.Name)
	}
	return names, nil
}

// WriteText renders t as text for a terminal or a file: the step table
// (with the title), a blank line, then the lane picture.
func WriteText(w io.Writer, t *Trace) error {
	if err := WriteTable(w, t); err != nil {
		return err
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return err
	}
	untitled := *t
	untitled.Title = ""
	return WriteLanes(w, &untitled)
}

// WriteJSON writes t as indented JSON, the form every runtime's trace
// reads back from.
func WriteJSON(w io.Writer, t *Trace) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(t)
}

// WriteFileAtomic writes path with write through a temporary file in the
// same folder, renamed over path once complete: a reader sees the old
// file or the whole new one, never a part, and a failed write leaves
// nothing behind.
func WriteFileAtomic(path string, write func(io.Writer) error) (err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("write %s: %w", path, err)
		}
	}()
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
