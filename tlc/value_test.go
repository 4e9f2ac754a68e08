package tlc

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseValue(t *testing.T) {
	model := func(s string) Value { return Value{Kind: KindModel, Str: s} }
	str := func(s string) Value { return Value{Kind: KindString, Str: s} }
	num := func(n int64) Value { return Value{Kind: KindInt, Int: n} }
	tests := []struct {
		in    string
		want  Value
		print string // "" means the input prints back unchanged
	}{
		{in: "0", want: num(0)},
		{in: "-42", want: num(-42)},
		{in: "TRUE", want: Value{Kind: KindBool, Bool: true}},
		{in: "FALSE", want: Value{Kind: KindBool}},
		{in: "c1", want: model("c1")},
		{in: `"Available"`, want: str("Available")},
		{in: `"a \"quoted\" \\ word"`, want: str(`a "quoted" \ word`)},
		{in: "<<>>", want: Value{Kind: KindSeq}},
		{in: "{}", want: Value{Kind: KindSet}},
		{in: "<<1, -2, c3>>", want: Value{Kind: KindSeq, Elems: []Value{num(1), num(-2), model("c3")}}},
		{in: `{"a", "b"}`, want: Value{Kind: KindSet, Elems: []Value{str("a"), str("b")}}},
		{
			in:   `[status |-> "Acquired", id |-> c1]`,
			want: Value{Kind: KindRecord, Fields: []Field{{model("status"), str("Acquired")}, {model("id"), model("c1")}}},
		},
		{
			in:   "(c1 :> FALSE @@ c2 :> TRUE)",
			want: Value{Kind: KindFunction, Fields: []Field{{model("c1"), Value{Kind: KindBool}}, {model("c2"), Value{Kind: KindBool, Bool: true}}}},
		},
		{
			in:   "(c1 :> 0)",
			want: Value{Kind: KindFunction, Fields: []Field{{model("c1"), num(0)}}},
		},
		{
			in: `(c1 :> <<[id |-> c1, type |-> "acquire"]>> @@ c2 :> <<>>)`,
			want: Value{Kind: KindFunction, Fields: []Field{
				{model("c1"), Value{Kind: KindSeq, Elems: []Value{{Kind: KindRecord, Fields: []Field{{model("id"), model("c1")}, {model("type"), str("acquire")}}}}}},
				{model("c2"), Value{Kind: KindSeq}},
			}},
		},
		{
			// TLC breaks long values over lines; whitespace only separates tokens.
			in:    "<< [op |-> \"read\",\n     token |-> 2],\n   [op |-> \"write\", token |-> 1] >>",
			want:  Value{Kind: KindSeq, Elems: []Value{{Kind: KindRecord, Fields: []Field{{model("op"), str("read")}, {model("token"), num(2)}}}, {Kind: KindRecord, Fields: []Field{{model("op"), str("write")}, {model("token"), num(1)}}}}},
			print: `<<[op |-> "read", token |-> 2], [op |-> "write", token |-> 1]>>`,
		},
		{in: "(1 :> {2, 3})", want: Value{Kind: KindFunction, Fields: []Field{{num(1), Value{Kind: KindSet, Elems: []Value{num(2), num(3)}}}}}},
		{in: " ( 7 ) ", want: num(7), print: "7"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseValue(tc.in)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			want := tc.print
			if want == "" {
				want = tc.in
			}
			assert.Equal(t, want, got.String())
		})
	}
}

func TestParseValueMalformed(t *testing.T) {
	tests := []struct{ in, wantErr string }{
		{"", "expected a value"},
		{"   ", "expected a value"},
		{"<<1, 2", `expected ">>"`},
		{"[a |-> ]", "expected a value"},
		{"[a = 1]", "unexpected character"},
		{"[a :> 1]", `expected "|->"`},
		{"[1 |-> 2]", "expected a field name"},
		{"(c1 :> )", "expected a value"},
		{"(c1 :> 1 @@ )", "expected a value"},
		{`"unterminated`, "unterminated string"},
		{"1 2", "after the value"},
		{"{1,}", "expected a value"},
		{"@", "unexpected character"},
		{"-", "without digits"},
		{"99999999999999999999", "out of range"},
		{"(1", `expected ")"`},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			_, err := ParseValue(tc.in)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
}

func TestValueAccessors(t *testing.T) {
	v, err := ParseValue(`[lock |-> (c1 :> TRUE @@ c2 :> FALSE), q |-> <<"x", "y">>]`)
	require.NoError(t, err)
	lock, ok := v.Field("lock")
	require.True(t, ok)
	held, ok := lock.Apply(Value{Kind: KindModel, Str: "c2"})
	require.True(t, ok)
	assert.Equal(t, "FALSE", held.String())
	q, _ := v.Field("q")
	second, ok := q.Apply(Value{Kind: KindInt, Int: 2})
	require.True(t, ok)
	assert.Equal(t, `"y"`, second.String())
	_, ok = q.Apply(Value{Kind: KindInt, Int: 3})
	assert.False(t, ok, "index past the end")
	_, ok = v.Field("missing")
	assert.False(t, ok)
	_, ok = q.Field("x")
	assert.False(t, ok, "a sequence has no fields")
}
