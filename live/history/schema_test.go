package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var docs = filepath.Join("..", "..", "docs")

// jsonFields are the JSON names of a struct's fields, embedded ones
// included.
func jsonFields(t reflect.Type) []string {
	var names []string
	for f := range t.Fields() {
		if f.Anonymous {
			names = append(names, jsonFields(f.Type)...)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		names = append(names, name)
	}
	return names
}

// TestSchemaIsTheReaders: docs/history.schema.json names, for each kind
// of line, exactly the fields the reader decodes and the ones it
// requires.
func TestSchemaIsTheReaders(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(docs, "history.schema.json"))
	require.NoError(t, err)
	var schema struct {
		Defs map[string]struct {
			Required   []string                   `json:"required"`
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"$defs"`
	}
	require.NoError(t, json.Unmarshal(data, &schema))
	types := map[string]reflect.Type{
		"run": reflect.TypeFor[header](), "op": reflect.TypeFor[Record](), "fault": reflect.TypeFor[FaultRecord](),
		"exit": reflect.TypeFor[ClientExit](), "resource": reflect.TypeFor[Access](),
	}
	for kind, typ := range types {
		def, ok := schema.Defs[kind]
		require.True(t, ok, kind)
		want := jsonFields(typ)
		if kind != "run" {
			want = append(want, "kind")
		}
		var got []string
		for name := range def.Properties {
			got = append(got, name)
		}
		assert.ElementsMatch(t, want, got, kind)
		req := slices.Clone(def.Required)
		assert.ElementsMatch(t, required()[kind], req, kind)
	}
	assert.Len(t, required(), len(types))
}

// TestSchemaValidatesWhatTheHarnessWrites: every line a history file is
// written with, and the example in docs/history.md, is valid by the
// schema (Python's jsonschema, where installed), and the example reads;
// a line the reader refuses is invalid by the schema too.
func TestSchemaValidatesWhatTheHarnessWrites(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(docs, "history.md"))
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(doc), "```json\n")
	require.True(t, ok, "docs/history.md has an example")
	example, _, _ := strings.Cut(rest, "```")
	f, err := ReadFile(strings.NewReader(example))
	require.NoError(t, err, "the docs' example reads")
	assert.Equal(t, "all", f.Design)

	var b bytes.Buffer
	full := &File{Service: "redis", Design: "all", TTL: 1e9, Fence: "all", History: *sample(),
		Resource: []Access{{Client: 0, Op: OpWrite, Accepted: true, Token: 1, Value: 1}}}
	require.NoError(t, full.WriteJSONL(&b))

	python, err := exec.LookPath("python3")
	if err != nil || exec.Command(python, "-c", "import jsonschema").Run() != nil {
		t.Skip("python3 with jsonschema (Debian python3-jsonschema) is not installed")
	}
	validate := func(lines string) error {
		const script = `import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
for n, line in enumerate(sys.stdin, 1):
    try:
        jsonschema.validate(json.loads(line), schema)
    except jsonschema.ValidationError as e:
        sys.exit("line %d: %s" % (n, e.message))`
		cmd := exec.Command(python, "-c", script, filepath.Join(docs, "history.schema.json"))
		cmd.Stdin = strings.NewReader(lines)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return errors.New(string(out))
		}
		return nil
	}
	assert.NoError(t, validate(b.String()))
	assert.NoError(t, validate(example))
	for _, bad := range []string{
		`{"kind":"op","client":0,"op":"steal","ev":"call","wall":1}`,
		`{"kind":"op","client":0,"op":"read","ev":"call"}`,
		`{"kind":"op","client":0,"op":"read","ev":"call","wall":1,"tokn":2}`,
		`{"kind":"run","start":1,"end":2,"clients":0}`,
		`{"kind":"resource","client":0,"op":"write"}`,
	} {
		assert.Error(t, validate(bad+"\n"), bad)
	}
}
