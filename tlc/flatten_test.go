package tlc

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/trace"
)

func mustParse(t *testing.T, s string) Value {
	t.Helper()
	v, err := ParseValue(s)
	require.NoError(t, err)
	return v
}

func TestFlatten(t *testing.T) {
	tests := []struct {
		name, value string
		want        []trace.Var
	}{
		{"counter", "3", []trace.Var{{Path: "counter", Value: "3"}}},
		{"lock_held", "(c1 :> FALSE @@ c2 :> TRUE)", []trace.Var{{Path: "lock_held[c1]", Value: "FALSE"}, {Path: "lock_held[c2]", Value: "TRUE"}}},
		{"distLock", `[status |-> "Acquired", id |-> c1]`, []trace.Var{{Path: "distLock.status", Value: `"Acquired"`}, {Path: "distLock.id", Value: "c1"}}},
		{"request_queue", `<<[type |-> "acquire"]>>`, []trace.Var{{Path: "request_queue[1].type", Value: `"acquire"`}}},
		{"q", "<<>>", []trace.Var{{Path: "q", Value: "<<>>"}}},
		{"s", "{1, 2}", []trace.Var{{Path: "s", Value: "{1, 2}"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Flatten(tc.name, mustParse(t, tc.value)))
		})
	}
}

func TestFlattenPairShowsInnermostChange(t *testing.T) {
	tests := []struct {
		desc, name, prev, next string
		want                   []trace.Change
	}{
		{
			desc: "one element of a function", name: "lock_held",
			prev: "(c1 :> FALSE @@ c2 :> FALSE)", next: "(c1 :> TRUE @@ c2 :> FALSE)",
			want: []trace.Change{{Path: "lock_held[c1]", Old: "FALSE", New: "TRUE"}},
		},
		{
			desc: "a field inside a function", name: "responses_queue",
			prev: `(c1 :> <<[status |-> "granted", token |-> 1]>>)`, next: `(c1 :> <<[status |-> "granted", token |-> 2]>>)`,
			want: []trace.Change{{Path: "responses_queue[c1][1].token", Old: "1", New: "2"}},
		},
		{
			desc: "a queue that was taken from is shown whole", name: "request_queue",
			prev: `<<"a", "b">>`, next: `<<"b">>`,
			want: []trace.Change{{Path: "request_queue", Old: `<<"a", "b">>`, New: `<<"b">>`}},
		},
		{
			desc: "an empty queue that got a message is shown whole", name: "request_queue",
			prev: `<<>>`, next: `<<"a">>`,
			want: []trace.Change{{Path: "request_queue", Old: "<<>>", New: `<<"a">>`}},
		},
		{
			desc: "a log appended to shows the new element", name: "accepted",
			prev: `<<[op |-> "read"]>>`, next: `<<[op |-> "read"], [op |-> "write"]>>`,
			want: []trace.Change{{Path: "accepted[2]", New: `[op |-> "write"]`}},
		},
		{
			desc: "a changed type of value", name: "x",
			prev: "1", next: `"one"`,
			want: []trace.Change{{Path: "x", Old: "1", New: `"one"`}},
		},
		{
			desc: "nothing changed", name: "x",
			prev: "[a |-> 1]", next: "[a |-> 1]",
			want: nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			p, n := FlattenPair(tc.name, mustParse(t, tc.prev), mustParse(t, tc.next))
			assert.Equal(t, tc.want, trace.Diff(p, n))
		})
	}
}
