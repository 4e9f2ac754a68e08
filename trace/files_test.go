package trace

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/fencelab/fencelab/internal/atomicfile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteFiles(t *testing.T) {
	tr := loadTrace(t, "timed.json")
	dir := filepath.Join(t.TempDir(), "a", "run")
	extra := File{Name: "extra.txt", Write: func(w io.Writer) error { _, err := io.WriteString(w, "mine\n"); return err }}
	names, err := WriteFiles(dir, tr, extra)
	require.NoError(t, err)
	assert.Equal(t, []string{"trace.txt", "trace.json", "trace.html", "trace.mmd", "extra.txt"}, names)

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, len(names), "no temporary file is left behind")
	for _, name := range names {
		info, err := os.Stat(filepath.Join(dir, name))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o644), info.Mode().Perm(), name)
	}
	renders := map[string]func(io.Writer, *Trace) error{
		TextFile: WriteText, JSONFile: WriteJSON, HTMLFile: WriteHTML, MermaidFile: WriteMermaid,
	}
	for name, render := range renders {
		var want bytes.Buffer
		require.NoError(t, render(&want, tr))
		got, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		assert.Equal(t, want.String(), string(got), name)
	}
	var back Trace
	data, err := os.ReadFile(filepath.Join(dir, JSONFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, *tr, back, "the JSON reads back as the trace")
}

func TestWriteTextIsTableThenLanes(t *testing.T) {
	tr := loadTrace(t, "tlc_distlock_2c_atmostone.json")
	var text, table, lanes bytes.Buffer
	require.NoError(t, WriteText(&text, tr))
	require.NoError(t, WriteTable(&table, tr))
	untitled := *tr
	untitled.Title = ""
	require.NoError(t, WriteLanes(&lanes, &untitled))
	assert.Equal(t, table.String()+"\n"+lanes.String(), text.String())
}

// TestWriteFilesOnAFullDisk: a disk that fills during the first file
// leaves no folder; one that fills later leaves the complete files only.
func TestWriteFilesOnAFullDisk(t *testing.T) {
	tr := loadTrace(t, "timed.json")
	root := t.TempDir()
	dir := filepath.Join(root, "cx")
	names, err := WriteFilesTo(atomicfile.FullAfter(10).Folder(dir), tr)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "could not save")
	assert.Empty(t, names)
	assert.NoDirExists(t, dir, "no empty folder")

	var text bytes.Buffer
	require.NoError(t, WriteText(&text, tr))
	names, err = WriteFilesTo(atomicfile.FullAfter(int64(text.Len())+10).Folder(dir), tr)
	require.Error(t, err)
	assert.Equal(t, []string{TextFile}, names)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "the complete file and no temporary one")
	got, err := os.ReadFile(filepath.Join(dir, TextFile))
	require.NoError(t, err)
	assert.Equal(t, text.String(), string(got))
}

func TestWriteFilesBadFolder(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	names, err := WriteFiles(filepath.Join(file, "sub"), loadTrace(t, "timed.json"))
	assert.Error(t, err)
	assert.Empty(t, names)
}
