package store

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/internal/jsonschema"
)

// The resource protocol's documents, from this package's folder.
var (
	storeProtocolDoc    = filepath.Join("..", "..", "docs", "store-protocol.md")
	storeProtocolSchema = filepath.Join("..", "..", "docs", "store-protocol.schema.json")
)

func loadStoreSchema(t *testing.T) jsonschema.Schema {
	return jsonschema.MustLoad(t, storeProtocolSchema)
}

func decodeStoreLine(t *testing.T, line string) any { return jsonschema.MustDecode(t, line) }

// TestStoreProtocolDocExamplesMatchTheSchema: every example line of
// docs/store-protocol.md is valid against docs/store-protocol.schema.json
// as what it is (a request or a reply), every reply is one the harness's
// parser (ParseStoreReply) accepts too, and the page has an example of
// every kind.
func TestStoreProtocolDocExamplesMatchTheSchema(t *testing.T) {
	kinds := jsonschema.CheckDoc(t, loadStoreSchema(t), storeProtocolDoc, func(line []byte) error {
		_, err := ParseStoreReply(line)
		return err
	})
	for _, want := range []string{"→hello", "→read", "→write", "→log", "→close", "←hello/true", "←hello/false",
		"←read/true", "←read/false/refused", "←read/false", "←write/true", "←write/false/refused", "←log/true"} {
		assert.Contains(t, kinds, want, "the doc has an example of each kind")
	}
}

// TestParseStoreReplyAgreesWithTheSchema: on replies good and bad, of
// every class of breach, the harness's parser and the schema agree.
func TestParseStoreReplyAgreesWithTheSchema(t *testing.T) {
	root := loadStoreSchema(t)
	op := `{"client":0,"kind":"write","token":1,"value":1,"accepted":true}`
	tests := []struct {
		line string
		ok   bool
	}{
		{`{"op":"hello","ok":true,"store":"x"}`, true},
		{`{"op":"read","ok":true,"value":-9007199254740991}`, true},
		{`{"op":"write","ok":true}`, true},
		{`{"op":"read","ok":false,"refused":true}`, true},
		{`{"op":"write","ok":false,"error":"disk full"}`, true},
		{`{"op":"log","ok":true,"ops":[]}`, true},
		{`{"op":"log","ok":true,"ops":[` + op + `]}`, true},
		{`{"op":"log","ok":false,"error":"gone"}`, true}, // valid, and a breach all the same
		{`{"op":"hello","ok":true}`, false},              // no store
		{`{"op":"hello","ok":true,"store":""}`, false},   // empty store
		{`{"op":"read","ok":true}`, false},               // no value
		{`{"op":"read","ok":true,"value":1.5}`, false},   // fractional
		{`{"op":"read","ok":true,"value":"1"}`, false},   // a string
		{`{"op":"read","ok":true,"value":null}`, false},  // null
		{`{"op":"read","ok":true,"value":9007199254740992}`, false},
		{`{"op":"write","ok":true,"value":1}`, false},                  // a write reply has no value
		{`{"op":"read","ok":false}`, false},                            // neither refused nor error
		{`{"op":"read","ok":false,"refused":false}`, false},            // refused is true
		{`{"op":"read","ok":false,"refused":true,"error":"x"}`, false}, // both
		{`{"op":"hello","ok":false,"refused":true}`, false},            // only reads and writes are refused
		{`{"op":"read","ok":true,"refused":true,"value":1}`, false},
		{`{"op":"read","ok":false,"error":""}`, false},
		{`{"op":"read","ok":false,"error":"` + strings.Repeat("é", 501) + `"}`, false},
		{`{"op":"close","ok":true}`, false},
		{`{"op":"grab","ok":true}`, false},
		{`{"ok":true}`, false},
		{`[{"op":"write","ok":true}]`, false},
		{`{"op":"write","ok":true,"extra":1}`, false},
		{`{"op":"log","ok":true}`, false},
		{`{"op":"log","ok":true,"ops":[{"client":0,"kind":"write","token":1,"value":1}]}`, false},                   // no decision
		{`{"op":"log","ok":true,"ops":[{"client":246,"kind":"write","token":1,"value":1,"accepted":true}]}`, false}, // client out of range
		{`{"op":"log","ok":true,"ops":[{"client":0,"kind":"cas","token":1,"value":1,"accepted":true}]}`, false},
		{`{"op":"log","ok":true,"ops":[{"client":0,"kind":"read","token":-1,"value":1,"accepted":true}]}`, false},
		{`{"op":"log","ok":true,"ops":[{"client":0,"kind":"read","token":1,"value":1,"accepted":true,"at":3}]}`, false},
		{`{"op":"log","ok":true,"ops":[` + op + `],"value":1}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.line[:min(len(tc.line), 60)], func(t *testing.T) {
			schemaErr := root.Validate(root.Def("reply"), decodeStoreLine(t, tc.line))
			_, parseErr := ParseStoreReply([]byte(tc.line))
			assert.Equal(t, tc.ok, schemaErr == nil, "schema: %v", schemaErr)
			assert.Equal(t, tc.ok, parseErr == nil, "ParseStoreReply: %v", parseErr)
		})
	}
}

// TestStoreRequestsMatchTheSchema: what the harness writes is a request
// by the schema, and nothing it writes is a reply.
func TestStoreRequestsMatchTheSchema(t *testing.T) {
	root := loadStoreSchema(t)
	zero, client, token, value := int64(0), 3, uint64(maxJSONInt), int64(-maxJSONInt)
	reqs := []storeRequest{
		{Op: "read", Client: &client, Token: &token},
		{Op: "write", Client: &client, Token: &token, Value: &value},
		{Op: "log"},
	}
	for _, mode := range []impl.FenceMode{impl.FenceNone, impl.FenceWrites, impl.FenceAll, impl.FenceCAS, impl.FenceVersion} {
		reqs = append(reqs, storeRequest{Op: "hello", V: StoreProtocolVersion, Mode: mode.String(), Row: "all", Counter: &zero})
	}
	for _, req := range reqs {
		b, err := json.Marshal(req)
		require.NoError(t, err)
		v := decodeStoreLine(t, string(b))
		assert.NoError(t, root.Validate(root.Def("request"), v), "%s", b)
		assert.Error(t, root.Validate(root.Def("reply"), v), "%s", b)
	}
	// A read of client 0 with no token still sends both (omitempty of a
	// pointer keeps a zero).
	c0, t0 := 0, uint64(0)
	b, err := json.Marshal(storeRequest{Op: "read", Client: &c0, Token: &t0})
	require.NoError(t, err)
	assert.Equal(t, `{"op":"read","client":0,"token":0}`, string(b))
	assert.NoError(t, root.Validate(root.Def("request"), decodeStoreLine(t, string(b))))
}
