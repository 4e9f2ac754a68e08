package lock

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The protocol's documents, from this package's folder.
var (
	protocolDoc    = filepath.Join("..", "..", "docs", "protocol.md")
	protocolSchema = filepath.Join("..", "..", "docs", "protocol.schema.json")
)

// schema is the subset of JSON Schema 2020-12 that protocol.schema.json
// uses; validate fails on any keyword it does not know, so the schema
// cannot grow past what this test checks.
type schema map[string]any

func loadSchema(t *testing.T) schema {
	t.Helper()
	b, err := os.ReadFile(protocolSchema)
	require.NoError(t, err)
	var s schema
	require.NoError(t, json.Unmarshal(b, &s))
	return s
}

// def is the schema's $defs entry name.
func (root schema) def(name string) schema {
	defs := root["$defs"].(map[string]any)
	return schema(defs[name].(map[string]any))
}

// validate checks v (decoded by encoding/json with UseNumber) against s.
func (root schema) validate(s schema, v any) error {
	for kw, arg := range s {
		if err := root.keyword(s, kw, arg, v); err != nil {
			return err
		}
	}
	return nil
}

func (root schema) keyword(s schema, kw string, arg, v any) error {
	switch kw {
	case "$schema", "$id", "title", "description", "$defs":
		return nil
	case "$ref":
		name, ok := strings.CutPrefix(arg.(string), "#/$defs/")
		if !ok {
			return fmt.Errorf("unsupported $ref %v", arg)
		}
		return root.validate(root.def(name), v)
	case "oneOf":
		n := 0
		for _, sub := range arg.([]any) {
			if root.validate(schema(sub.(map[string]any)), v) == nil {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("matches %d of oneOf's %d", n, len(arg.([]any)))
		}
		return nil
	case "type":
		if !hasType(arg.(string), v) {
			return fmt.Errorf("%v is not of type %s", v, arg)
		}
		return nil
	case "const":
		if !sameJSON(arg, v) {
			return fmt.Errorf("%v is not %v", v, arg)
		}
		return nil
	case "enum":
		for _, e := range arg.([]any) {
			if sameJSON(e, v) {
				return nil
			}
		}
		return fmt.Errorf("%v is none of %v", v, arg)
	case "required":
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		for _, name := range arg.([]any) {
			if _, ok := obj[name.(string)]; !ok {
				return fmt.Errorf("missing %q", name)
			}
		}
		return nil
	case "properties":
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		props := arg.(map[string]any)
		for name, val := range obj {
			if p, ok := props[name]; ok {
				if err := root.validate(schema(p.(map[string]any)), val); err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
			}
		}
		return nil
	case "additionalProperties":
		obj, ok := v.(map[string]any)
		if !ok || arg != false {
			return nil
		}
		props, _ := s["properties"].(map[string]any)
		for name := range obj {
			if _, ok := props[name]; !ok {
				return fmt.Errorf("unknown field %q", name)
			}
		}
		return nil
	case "items":
		arr, ok := v.([]any)
		if !ok {
			return nil
		}
		for _, e := range arr {
			if err := root.validate(schema(arg.(map[string]any)), e); err != nil {
				return err
			}
		}
		return nil
	case "minimum", "maximum":
		n, ok := v.(json.Number)
		if !ok {
			return nil
		}
		x, _ := n.Float64()
		bound, _ := arg.(float64)
		if (kw == "minimum" && x < bound) || (kw == "maximum" && x > bound) {
			return fmt.Errorf("%v is past %s %v", n, kw, bound)
		}
		return nil
	case "minLength", "maxLength":
		str, ok := v.(string)
		if !ok {
			return nil
		}
		n := len([]rune(str))
		if bound := int(arg.(float64)); (kw == "minLength" && n < bound) || (kw == "maxLength" && n > bound) {
			return fmt.Errorf("length %d is past %s %d", n, kw, bound)
		}
		return nil
	case "minItems", "maxItems":
		arr, ok := v.([]any)
		if !ok {
			return nil
		}
		if bound := int(arg.(float64)); (kw == "minItems" && len(arr) < bound) || (kw == "maxItems" && len(arr) > bound) {
			return fmt.Errorf("%d items is past %s %d", len(arr), kw, bound)
		}
		return nil
	}
	return fmt.Errorf("keyword %q is not known to this test's validator", kw)
}

func hasType(typ string, v any) bool {
	switch typ {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		f, err := n.Float64()
		return err == nil && f == math.Trunc(f) && !strings.ContainsAny(n.String(), ".eE")
	}
	return false
}

// sameJSON compares a schema's value (float64 numbers) with a decoded one
// (json.Number).
func sameJSON(want, got any) bool {
	if n, ok := got.(json.Number); ok {
		f, err := n.Float64()
		w, isNum := want.(float64)
		return err == nil && isNum && f == w
	}
	return want == got
}

// decodeLine decodes one line as the validator reads it.
func decodeLine(t *testing.T, line string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	var v any
	require.NoError(t, dec.Decode(&v), "%s", line)
	return v
}

// docExamples are protocol.md's example lines: "→ " requests, "← "
// replies.
func docExamples(t *testing.T) (requests, replies []string) {
	t.Helper()
	b, err := os.ReadFile(protocolDoc)
	require.NoError(t, err)
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if req, ok := strings.CutPrefix(sc.Text(), "→ "); ok {
			requests = append(requests, req)
		} else if rep, ok := strings.CutPrefix(sc.Text(), "← "); ok {
			replies = append(replies, rep)
		}
	}
	return requests, replies
}

// TestProtocolDocExamplesMatchTheSchema: every example line of
// docs/protocol.md is valid against docs/protocol.schema.json as what it
// is (a request or a reply), and every reply the Go adapter's parser
// (ParseReply) accepts too; the doc covers every request and reply kind.
func TestProtocolDocExamplesMatchTheSchema(t *testing.T) {
	root := loadSchema(t)
	requests, replies := docExamples(t)
	var kinds []string
	for _, line := range requests {
		v := decodeLine(t, line)
		assert.NoError(t, root.validate(root.def("request"), v), "%s", line)
		assert.NoError(t, root.validate(root, v), "%s", line)
		kinds = append(kinds, "→"+v.(map[string]any)["op"].(string))
	}
	for _, line := range replies {
		v := decodeLine(t, line)
		assert.NoError(t, root.validate(root.def("reply"), v), "%s", line)
		_, err := ParseReply([]byte(line))
		assert.NoError(t, err, "%s", line)
		kinds = append(kinds, fmt.Sprintf("←%s/%v", v.(map[string]any)["op"], v.(map[string]any)["ok"]))
	}
	for _, want := range []string{"→hello", "→acquire", "→release", "→close", "←hello/true", "←hello/false",
		"←acquire/true", "←acquire/false", "←release/true", "←release/false"} {
		assert.Contains(t, kinds, want, "the doc has an example of each kind")
	}
}

// TestParseReplyAgreesWithTheSchema: on replies good and bad, of every
// class of breach, the Go parser and the schema give the same answer.
func TestParseReplyAgreesWithTheSchema(t *testing.T) {
	root := loadSchema(t)
	tests := []struct {
		line string
		ok   bool
	}{
		{`{"op":"hello","ok":true,"library":"x","version":"1"}`, true},
		{`{"op":"acquire","ok":true}`, true},
		{`{"op":"acquire","ok":true,"token":9007199254740991,"value":"","validity_ms":1}`, true},
		{`{"op":"release","ok":true}`, true},
		{`{"op":"release","ok":false,"error":"gone"}`, true},
		{`{"op":"hello","ok":true,"library":"x"}`, false},              // missing field
		{`{"op":"hello","ok":true,"library":"","version":"1"}`, false}, // empty library
		{`{"op":"acquire","ok":true,"validity":500}`, false},           // unknown field
		{`{"op":"acquire","ok":true,"token":-1}`, false},               // negative token
		{`{"op":"acquire","ok":true,"token":1.5}`, false},              // fractional token
		{`{"op":"acquire","ok":true,"token":9007199254740992}`, false}, // past 2^53-1
		{`{"op":"acquire","ok":true,"token":null}`, false},             // null
		{`{"op":"acquire","ok":true,"validity_ms":0}`, false},          // no validity
		{`{"op":"acquire","ok":true,"token":"7"}`, false},              // a string token
		{`{"op":"acquire","ok":"true"}`, false},                        // a string ok
		{`{"op":"acquire","ok":false}`, false},                         // a refusal without error
		{`{"op":"acquire","ok":false,"error":""}`, false},              // an empty error
		{`{"op":"acquire","ok":false,"error":"x","token":1}`, false},   // a refusal with a token
		{`{"op":"release","ok":true,"token":1}`, false},                // a release with a token
		{`{"op":"hello","ok":true,"library":"x","version":"1","token":1}`, false},
		{`{"op":"close","ok":true}`, false}, // close has no reply
		{`{"op":"grab","ok":false,"error":"x"}`, false},
		{`{"ok":true}`, false},
		{`[{"op":"release","ok":true}]`, false},
		{`"release"`, false},
		{`{"op":"release","ok":true,"error":"` + strings.Repeat("x", 10) + `"}`, false},
		{`{"op":"release","ok":false,"error":"` + strings.Repeat("é", 500) + `"}`, true},
		{`{"op":"release","ok":false,"error":"` + strings.Repeat("é", 501) + `"}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.line[:min(len(tc.line), 50)], func(t *testing.T) {
			schemaErr := root.validate(root.def("reply"), decodeLine(t, tc.line))
			_, parseErr := ParseReply([]byte(tc.line))
			assert.Equal(t, tc.ok, schemaErr == nil, "schema: %v", schemaErr)
			assert.Equal(t, tc.ok, parseErr == nil, "ParseReply: %v", parseErr)
		})
	}
}

// TestRequestsMatchTheSchema: what the adapter writes is a request by the
// schema, and nothing it writes is a reply.
func TestRequestsMatchTheSchema(t *testing.T) {
	root := loadSchema(t)
	for _, req := range []request{
		{Op: "hello", V: ProtocolVersion, Client: "c1", Service: "redis", Key: "k", TTLms: 500, Addrs: []string{"127.0.0.1:1"}},
		{Op: "acquire", TimeoutMs: 1},
		{Op: "release", TimeoutMs: maxTimeout.Milliseconds()},
		{Op: "close"},
	} {
		b, err := json.Marshal(req)
		require.NoError(t, err)
		v := decodeLine(t, string(b))
		assert.NoError(t, root.validate(root.def("request"), v), "%s", b)
		assert.Error(t, root.validate(root.def("reply"), v), "%s", b)
	}
	// The schema's ops are the adapter's.
	ops := root.def("refused")["properties"].(map[string]any)["op"].(map[string]any)["enum"].([]any)
	assert.True(t, slices.Equal([]any{"hello", "acquire", "release"}, ops))
}
