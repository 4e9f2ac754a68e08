package tlc

import (
	"strings"
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
		// The forms TLC prints that fencelab's own specs do not use.
		{in: "1..3", want: Value{Kind: KindInterval, Int: 1, Hi: 3}},
		{in: "-2..-1", want: Value{Kind: KindInterval, Int: -2, Hi: -1}},
		{in: "1 .. 0", want: Value{Kind: KindInterval, Int: 1, Hi: 0}, print: "1..0"},
		{in: "[r |-> 1..3, s |-> {0..2}]", want: Value{Kind: KindRecord, Fields: []Field{
			{model("r"), Value{Kind: KindInterval, Int: 1, Hi: 3}},
			{model("s"), Value{Kind: KindSet, Elems: []Value{{Kind: KindInterval, Int: 0, Hi: 2}}}},
		}}},
		{in: "(1 :> 2 @@ 3 :> 4)", want: Value{Kind: KindFunction, Fields: []Field{{num(1), num(2)}, {num(3), num(4)}}}},
		{in: `(<<1, "a">> :> {} @@ <<2, "b">> :> 1..2)`, want: Value{Kind: KindFunction, Fields: []Field{
			{Value{Kind: KindSeq, Elems: []Value{num(1), str("a")}}, Value{Kind: KindSet}},
			{Value{Kind: KindSeq, Elems: []Value{num(2), str("b")}}, Value{Kind: KindInterval, Int: 1, Hi: 2}},
		}}},
		{in: "{m_1, M2, _x}", want: Value{Kind: KindSet, Elems: []Value{model("m_1"), model("M2"), model("_x")}}},
		{in: "<<-9223372036854775808>>", want: Value{Kind: KindSeq, Elems: []Value{num(-9223372036854775808)}}},
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
		{"1..", "upper bound"},
		{"1..x", "upper bound"},
		{"..3", "expected a value"},
		{"1...3", "unexpected character"},
		{"1..99999999999999999999", "out of range"},
		{"x..3", "after the value"},
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

// TestParseValueEscapes: TLC's escapes in a string read back as the
// characters they stand for.
func TestParseValueEscapes(t *testing.T) {
	for in, want := range map[string]string{
		`"a\"b"`: `a"b`, `"a\\b"`: `a\b`, `"a\nb"`: "a\nb", `"a\tb"`: "a\tb", `"\r\f"`: "\r\f", `""`: "",
	} {
		v, err := ParseValue(in)
		require.NoError(t, err, in)
		assert.Equal(t, Value{Kind: KindString, Str: want}, v, in)
	}
}

// TestParseValueDepth: every kind of container, nested to depths around
// the bound, parses up to MaxValueDepth and fails with a clear error past
// it — never a stack overflow — and the work stays linear in the input.
func TestParseValueDepth(t *testing.T) {
	containers := []struct{ name, open, close string }{
		{"sequence", "<<", ">>"},
		{"set", "{", "}"},
		{"record", "[a |-> ", "]"},
		{"function", "(1 :> ", ")"},
		{"parentheses", "(", ")"},
		{"mixed", "[f |-> (k :> <<{", "}>>)]"},
	}
	for _, c := range containers {
		per := 1
		if c.name == "mixed" {
			per = 4
		}
		for _, depth := range []int{1, 2, 17, MaxValueDepth/per - 1, MaxValueDepth / per, MaxValueDepth/per + 1, MaxValueDepth * 3, 100000} {
			in := strings.Repeat(c.open, depth) + "1" + strings.Repeat(c.close, depth)
			v, err := ParseValue(in)
			if depth*per <= MaxValueDepth {
				require.NoError(t, err, "%s nested %d deep", c.name, depth)
				if c.name != "parentheses" {
					assert.Equal(t, in, v.String())
				}
				Flatten("x", v)
				assert.True(t, v.Equal(v))
				continue
			}
			require.Error(t, err, "%s nested %d deep", c.name, depth)
			assert.Contains(t, err.Error(), "nests deeper than")
		}
	}
	// Unbalanced deep input fails the same way, and quickly.
	_, err := ParseValue(strings.Repeat("<<", 1_000_000))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nests deeper than")
}

// TestParseValueMemoryLinear: a value nested to the bound costs memory in
// proportion to its text, not to the square of its depth.
func TestParseValueMemoryLinear(t *testing.T) {
	in := strings.Repeat("<<", MaxValueDepth) + "1" + strings.Repeat(">>", MaxValueDepth)
	allocs := testing.AllocsPerRun(5, func() {
		v, err := ParseValue(in)
		if err != nil {
			t.Fatal(err)
		}
		_ = v.Equal(v)
	})
	assert.Less(t, allocs, float64(20*MaxValueDepth), "allocations per parse and compare")
}

func TestValueEqual(t *testing.T) {
	vals := []string{"1", "-1", "1..2", "1..3", `"a"`, "a", "TRUE", "FALSE", "<<>>", "{}", "<<1>>", "{1}", "[a |-> 1]", "[b |-> 1]", "(a :> 1)", "(a :> 2)", "<<1, 2>>"}
	for i, a := range vals {
		for j, b := range vals {
			va, err := ParseValue(a)
			require.NoError(t, err)
			vb, err := ParseValue(b)
			require.NoError(t, err)
			assert.Equal(t, i == j, va.Equal(vb), "%s = %s", a, b)
			assert.Equal(t, va.String() == vb.String(), va.Equal(vb), "Equal agrees with printing: %s, %s", a, b)
		}
	}
}
