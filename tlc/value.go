package tlc

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is the shape of a TLA+ value as TLC prints it.
type Kind int

// The kinds of values TLC prints in a state.
const (
	KindInt Kind = iota
	KindString
	KindBool
	KindModel    // a model value or any other bare identifier, e.g. c1
	KindRecord   // [a |-> 1, b |-> 2]
	KindFunction // (c1 :> 0 @@ c2 :> 1)
	KindSeq      // <<1, 2>>
	KindSet      // {1, 2}
	KindInterval // 1..3: Int is the lower bound, Hi the upper
)

// MaxValueDepth bounds how deeply a value may nest (a sequence in a record
// in a function …). TLC's values in real specs nest a handful of levels;
// the bound keeps the parser's stack, and every walk over a value, small
// whatever the input.
const MaxValueDepth = 200

// Value is a parsed TLA+ value.
type Value struct {
	Kind Kind
	// Int holds KindInt and KindInterval's lower bound; Hi holds
	// KindInterval's upper bound; Bool holds KindBool.
	Int, Hi int64
	Bool    bool
	// Str holds a KindString's contents (unquoted) or a KindModel's name.
	Str string
	// Fields holds a record's fields or a function's pairs, in TLC's order;
	// a record field's Key is a KindModel value naming the field.
	Fields []Field
	// Elems holds a sequence's or a set's elements.
	Elems []Value
}

// Field is one field of a record or one pair of a function.
type Field struct {
	Key, Val Value
}

// String prints v in TLA+ notation, as TLC would.
func (v Value) String() string {
	var b strings.Builder
	v.write(&b)
	return b.String()
}

func (v Value) write(b *strings.Builder) {
	switch v.Kind {
	case KindInt:
		b.WriteString(strconv.FormatInt(v.Int, 10))
	case KindString:
		b.WriteString(strconv.Quote(v.Str))
	case KindBool:
		if v.Bool {
			b.WriteString("TRUE")
		} else {
			b.WriteString("FALSE")
		}
	case KindModel:
		b.WriteString(v.Str)
	case KindInterval:
		b.WriteString(strconv.FormatInt(v.Int, 10))
		b.WriteString("..")
		b.WriteString(strconv.FormatInt(v.Hi, 10))
	case KindRecord:
		b.WriteByte('[')
		for i, f := range v.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			f.Key.write(b)
			b.WriteString(" |-> ")
			f.Val.write(b)
		}
		b.WriteByte(']')
	case KindFunction:
		b.WriteByte('(')
		for i, f := range v.Fields {
			if i > 0 {
				b.WriteString(" @@ ")
			}
			f.Key.write(b)
			b.WriteString(" :> ")
			f.Val.write(b)
		}
		b.WriteByte(')')
	case KindSeq, KindSet:
		open, end := "<<", ">>"
		if v.Kind == KindSet {
			open, end = "{", "}"
		}
		b.WriteString(open)
		for i, e := range v.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			e.write(b)
		}
		b.WriteString(end)
	}
}

// Field returns the value of a record's field name.
func (v Value) Field(name string) (Value, bool) {
	if v.Kind != KindRecord {
		return Value{}, false
	}
	for _, f := range v.Fields {
		if f.Key.Str == name {
			return f.Val, true
		}
	}
	return Value{}, false
}

// Apply returns f[key] for a function, a record (key a string or model
// value naming the field) or a sequence (key an integer).
func (v Value) Apply(key Value) (Value, bool) {
	switch v.Kind {
	case KindFunction:
		for _, f := range v.Fields {
			if f.Key.Equal(key) {
				return f.Val, true
			}
		}
	case KindRecord:
		return v.Field(key.Str)
	case KindSeq:
		if key.Kind == KindInt && key.Int >= 1 && key.Int <= int64(len(v.Elems)) {
			return v.Elems[key.Int-1], true
		}
	}
	return Value{}, false
}

// Equal reports whether v and w print the same. It compares the values
// element by element, without printing them, so that comparing nested
// values costs time linear in their size.
func (v Value) Equal(w Value) bool {
	if v.Kind != w.Kind || len(v.Fields) != len(w.Fields) || len(v.Elems) != len(w.Elems) {
		return false
	}
	switch v.Kind {
	case KindInt:
		return v.Int == w.Int
	case KindInterval:
		return v.Int == w.Int && v.Hi == w.Hi
	case KindBool:
		return v.Bool == w.Bool
	case KindString, KindModel:
		return v.Str == w.Str
	}
	for i := range v.Fields {
		if !v.Fields[i].Key.Equal(w.Fields[i].Key) || !v.Fields[i].Val.Equal(w.Fields[i].Val) {
			return false
		}
	}
	for i := range v.Elems {
		if !v.Elems[i].Equal(w.Elems[i]) {
			return false
		}
	}
	return true
}

// distinct drops the repeated elements of a set, keeping the first of
// each: in TLA+ {c1, c2, c1} is the two-element set {c1, c2}, and TLC
// checks a cfg's {c1, c2, c1} with two clients. Elements are the same
// when they print the same (Equal's structural equality).
func distinct(elems []Value) []Value {
	seen := make(map[string]bool, len(elems))
	out := elems[:0]
	for _, e := range elems {
		k := e.String()
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, e)
	}
	return out
}

// ParseValue parses one TLA+ value as TLC prints it (a set's repeated
// elements counted once, distinct): integers (also
// negative), intervals (1..3), strings, TRUE/FALSE, model values, records,
// functions written with :> and @@, sequences and sets. Anything else,
// trailing text, or nesting deeper than MaxValueDepth is an error naming
// the offset.
func ParseValue(s string) (Value, error) {
	p := &parser{lx: lexer{src: s}}
	p.next()
	v, err := p.value()
	if err != nil {
		return Value{}, err
	}
	if p.tok.kind != tokEOF {
		return Value{}, p.errorf("unexpected %s after the value", p.tok)
	}
	return v, nil
}

type tokKind int

const (
	tokEOF tokKind = iota
	tokInt
	tokString
	tokIdent
	tokPunct // one of << >> [ ] { } ( ) , |-> :> @@ ..
)

type token struct {
	kind tokKind
	text string // punctuation or identifier; a string's contents; an integer's digits
	pos  int
}

func (t token) String() string {
	switch t.kind {
	case tokEOF:
		return "end of input"
	case tokString:
		return strconv.Quote(t.text)
	default:
		return fmt.Sprintf("%q", t.text)
	}
}

// lexer splits TLC's printed values into tokens; whitespace (including the
// line breaks TLC inserts in long values) separates tokens only.
type lexer struct {
	src string
	pos int
}

// punctuation lists the multi-character tokens first, so "<<" is not read as "<".
var punctuation = []string{"<<", ">>", "|->", ":>", "@@", "..", "[", "]", "{", "}", "(", ")", ","}

func (l *lexer) next() (token, error) {
	for l.pos < len(l.src) && strings.ContainsRune(" \t\r\n", rune(l.src[l.pos])) {
		l.pos++
	}
	start := l.pos
	if l.pos >= len(l.src) {
		return token{kind: tokEOF, pos: start}, nil
	}
	rest := l.src[l.pos:]
	for _, p := range punctuation {
		if strings.HasPrefix(rest, p) {
			l.pos += len(p)
			return token{kind: tokPunct, text: p, pos: start}, nil
		}
	}
	c := rest[0]
	switch {
	case c == '"':
		return l.str()
	case c == '-' || isDigit(c):
		i := 1
		for i < len(rest) && isDigit(rest[i]) {
			i++
		}
		if c == '-' && i == 1 {
			return token{}, fmt.Errorf("offset %d: '-' without digits", start)
		}
		l.pos += i
		return token{kind: tokInt, text: rest[:i], pos: start}, nil
	case isIdentStart(c):
		i := 1
		for i < len(rest) && isIdentPart(rest[i]) {
			i++
		}
		l.pos += i
		return token{kind: tokIdent, text: rest[:i], pos: start}, nil
	}
	return token{}, fmt.Errorf("offset %d: unexpected character %q", start, c)
}

// str reads a TLA+ string literal with TLC's escapes.
func (l *lexer) str() (token, error) {
	start := l.pos
	var b strings.Builder
	for i := l.pos + 1; i < len(l.src); i++ {
		c := l.src[i]
		switch c {
		case '"':
			l.pos = i + 1
			return token{kind: tokString, text: b.String(), pos: start}, nil
		case '\\':
			if i+1 >= len(l.src) {
				return token{}, fmt.Errorf("offset %d: unterminated string", start)
			}
			i++
			switch e := l.src[i]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'f':
				b.WriteByte('\f')
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return token{}, fmt.Errorf("offset %d: unterminated string", start)
}

func isDigit(c byte) bool      { return c >= '0' && c <= '9' }
func isIdentStart(c byte) bool { return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') }
func isIdentPart(c byte) bool  { return isIdentStart(c) || isDigit(c) }

// parser is a recursive-descent parser over the lexer's tokens.
type parser struct {
	lx    lexer
	tok   token
	err   error
	depth int // containers open around the current token
}

func (p *parser) next() {
	if p.err != nil {
		return
	}
	t, err := p.lx.next()
	if err != nil {
		p.err = err
		p.tok = token{kind: tokEOF, pos: p.lx.pos}
		return
	}
	p.tok = t
}

func (p *parser) errorf(format string, args ...any) error {
	if p.err != nil {
		return p.err
	}
	return fmt.Errorf("offset %d: %s", p.tok.pos, fmt.Sprintf(format, args...))
}

func (p *parser) is(punct string) bool { return p.tok.kind == tokPunct && p.tok.text == punct }

func (p *parser) expect(punct string) error {
	if !p.is(punct) {
		return p.errorf("expected %q, found %s", punct, p.tok)
	}
	p.next()
	return p.err
}

// value parses a value and, if ":>" follows, the function it starts
// (TLC always parenthesises functions, but a bare "a :> b" is accepted).
func (p *parser) value() (Value, error) {
	v, err := p.primary()
	if err != nil {
		return Value{}, err
	}
	if p.is(":>") {
		return p.function(v)
	}
	return v, nil
}

func (p *parser) function(first Value) (Value, error) {
	fn := Value{Kind: KindFunction}
	key := first
	for {
		if err := p.expect(":>"); err != nil {
			return Value{}, err
		}
		val, err := p.primary()
		if err != nil {
			return Value{}, err
		}
		fn.Fields = append(fn.Fields, Field{Key: key, Val: val})
		if !p.is("@@") {
			return fn, nil
		}
		p.next()
		if key, err = p.primary(); err != nil {
			return Value{}, err
		}
	}
}

func (p *parser) primary() (Value, error) {
	if p.err != nil {
		return Value{}, p.err
	}
	t := p.tok
	switch t.kind {
	case tokInt:
		n, err := strconv.ParseInt(t.text, 10, 64)
		if err != nil {
			return Value{}, p.errorf("integer %s out of range", t.text)
		}
		p.next()
		if p.err != nil || !p.is("..") {
			return Value{Kind: KindInt, Int: n}, p.err
		}
		p.next()
		hi := p.tok
		if hi.kind != tokInt {
			return Value{}, p.errorf("expected the interval's upper bound, found %s", hi)
		}
		m, err := strconv.ParseInt(hi.text, 10, 64)
		if err != nil {
			return Value{}, p.errorf("integer %s out of range", hi.text)
		}
		p.next()
		return Value{Kind: KindInterval, Int: n, Hi: m}, p.err
	case tokString:
		p.next()
		return Value{Kind: KindString, Str: t.text}, p.err
	case tokIdent:
		p.next()
		switch t.text {
		case "TRUE":
			return Value{Kind: KindBool, Bool: true}, p.err
		case "FALSE":
			return Value{Kind: KindBool}, p.err
		}
		return Value{Kind: KindModel, Str: t.text}, p.err
	case tokPunct:
		switch t.text {
		case "<<", "{", "[", "(":
			if p.depth >= MaxValueDepth {
				return Value{}, p.errorf("the value nests deeper than %d levels", MaxValueDepth)
			}
			p.depth++
			defer func() { p.depth-- }()
		}
		switch t.text {
		case "<<":
			p.next()
			elems, err := p.list(">>")
			return Value{Kind: KindSeq, Elems: elems}, err
		case "{":
			p.next()
			elems, err := p.list("}")
			return Value{Kind: KindSet, Elems: distinct(elems)}, err
		case "[":
			p.next()
			return p.record()
		case "(":
			p.next()
			v, err := p.value()
			if err != nil {
				return Value{}, err
			}
			return v, p.expect(")")
		}
	}
	return Value{}, p.errorf("expected a value, found %s", t)
}

// list parses comma-separated values up to the closing punctuation.
func (p *parser) list(end string) ([]Value, error) {
	var elems []Value
	if p.is(end) {
		p.next()
		return elems, p.err
	}
	for {
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		elems = append(elems, v)
		if p.is(",") {
			p.next()
			continue
		}
		return elems, p.expect(end)
	}
}

func (p *parser) record() (Value, error) {
	rec := Value{Kind: KindRecord}
	for {
		if p.tok.kind != tokIdent {
			return Value{}, p.errorf("expected a field name, found %s", p.tok)
		}
		key := Value{Kind: KindModel, Str: p.tok.text}
		p.next()
		if err := p.expect("|->"); err != nil {
			return Value{}, err
		}
		val, err := p.value()
		if err != nil {
			return Value{}, err
		}
		rec.Fields = append(rec.Fields, Field{Key: key, Val: val})
		if p.is(",") {
			p.next()
			continue
		}
		return rec, p.expect("]")
	}
}
