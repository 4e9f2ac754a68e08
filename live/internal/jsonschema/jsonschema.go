// Package jsonschema is the small JSON Schema validator the protocol
// tests share: the keywords fencelab's protocol schemas use, and nothing
// more.
package jsonschema

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
)

// Load reads a schema file.
func Load(path string) (Schema, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Schema
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// MustLoad is Load that fails the test.
func MustLoad(t testing.TB, path string) Schema {
	t.Helper()
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// MustDecode is Decode that fails the test.
func MustDecode(t testing.TB, line string) any {
	t.Helper()
	v, err := Decode(line)
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return v
}

// DocExamples are a protocol page's example lines: "→ " requests, "← "
// replies.
func DocExamples(t testing.TB, path string) (requests, replies []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if req, ok := strings.CutPrefix(line, "→ "); ok {
			requests = append(requests, req)
		} else if rep, ok := strings.CutPrefix(line, "← "); ok {
			replies = append(replies, rep)
		}
	}
	return requests, replies
}

// Decode decodes one JSON line as Validate reads it (numbers kept as
// json.Number).
func Decode(line string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// Schema is the subset of JSON Schema 2020-12 that fencelab's protocol
// schemas use (docs/protocol.schema.json, docs/store-protocol.schema.json);
// Validate fails on any keyword it does not know, so a schema cannot grow
// past what the tests check.
type Schema map[string]any

// Def is the schema's $defs entry name.
func (root Schema) Def(name string) Schema {
	defs := root["$defs"].(map[string]any)
	return Schema(defs[name].(map[string]any))
}

// Validate checks v (decoded by Decode) against s, root's or one of its
// $defs.
func (root Schema) Validate(s Schema, v any) error {
	for kw, arg := range s {
		if err := root.keyword(s, kw, arg, v); err != nil {
			return err
		}
	}
	return nil
}

func (root Schema) keyword(s Schema, kw string, arg, v any) error {
	switch kw {
	case "$schema", "$id", "title", "description", "$defs":
		return nil
	case "$ref":
		name, ok := strings.CutPrefix(arg.(string), "#/$defs/")
		if !ok {
			return fmt.Errorf("unsupported $ref %v", arg)
		}
		return root.Validate(root.Def(name), v)
	case "oneOf":
		n := 0
		for _, sub := range arg.([]any) {
			if root.Validate(Schema(sub.(map[string]any)), v) == nil {
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
				if err := root.Validate(Schema(p.(map[string]any)), val); err != nil {
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
			if err := root.Validate(Schema(arg.(map[string]any)), e); err != nil {
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

// CheckDoc validates every example line of a protocol page (path)
// against root: a "→ " line is a request ($defs/request, and root's
// whole), a "← " line a reply ($defs/reply) that parse, the harness's
// own reader, accepts too. It returns the examples' kinds, for the test
// to check that the page shows each: "→op", "←op/ok", and "←op/ok/refused"
// for a reply with "refused".
func CheckDoc(t testing.TB, root Schema, path string, parse func(line []byte) error) []string {
	t.Helper()
	requests, replies := DocExamples(t, path)
	var kinds []string
	for _, line := range requests {
		v := MustDecode(t, line)
		for _, s := range []Schema{root.Def("request"), root} {
			if err := root.Validate(s, v); err != nil {
				t.Errorf("%s: %v", line, err)
			}
		}
		m, _ := v.(map[string]any)
		kinds = append(kinds, fmt.Sprintf("→%v", m["op"]))
	}
	for _, line := range replies {
		v := MustDecode(t, line)
		if err := root.Validate(root.Def("reply"), v); err != nil {
			t.Errorf("%s: %v", line, err)
		}
		if err := parse([]byte(line)); err != nil {
			t.Errorf("%s: the harness refuses it: %v", line, err)
		}
		m, _ := v.(map[string]any)
		kind := fmt.Sprintf("←%v/%v", m["op"], m["ok"])
		if m["refused"] != nil {
			kind += "/refused"
		}
		kinds = append(kinds, kind)
	}
	return kinds
}
