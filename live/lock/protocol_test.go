package lock

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/live/internal/jsonschema"
)

// The protocol's documents, from this package's folder.
var (
	protocolDoc    = filepath.Join("..", "..", "docs", "protocol.md")
	protocolSchema = filepath.Join("..", "..", "docs", "protocol.schema.json")
)

func loadSchema(t *testing.T) jsonschema.Schema { return jsonschema.MustLoad(t, protocolSchema) }

func decodeLine(t *testing.T, line string) any { return jsonschema.MustDecode(t, line) }

// TestProtocolDocExamplesMatchTheSchema: every example line of
// docs/protocol.md is valid against docs/protocol.schema.json as what it
// is (a request or a reply), and every reply the Go adapter's parser
// (ParseReply) accepts too; the doc covers every request and reply kind.
func TestProtocolDocExamplesMatchTheSchema(t *testing.T) {
	kinds := jsonschema.CheckDoc(t, loadSchema(t), protocolDoc, func(line []byte) error {
		_, err := ParseReply(line)
		return err
	})
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
			schemaErr := root.Validate(root.Def("reply"), decodeLine(t, tc.line))
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
		assert.NoError(t, root.Validate(root.Def("request"), v), "%s", b)
		assert.Error(t, root.Validate(root.Def("reply"), v), "%s", b)
	}
	// The schema's ops are the adapter's.
	ops := root.Def("refused")["properties"].(map[string]any)["op"].(map[string]any)["enum"].([]any)
	assert.True(t, slices.Equal([]any{"hello", "acquire", "release"}, ops))
}
