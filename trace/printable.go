package trace

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable returns s with every character that would act on a terminal
// or reorder text rather than show — control characters (C0, DEL, C1),
// bidirectional formatting characters, bytes that are not UTF-8 — written
// as a visible escape (\n, \t, \x1b, \u202e, \xff). Text from other
// people's TLC outputs and trace files reaches every rendering only
// through it.
func Printable(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80 && unicode.IsControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.IsControl(r) || isBidi(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || unicode.IsControl(r) || isBidi(r) {
			return true
		}
		i += size
	}
	return false
}

// isBidi reports the characters that change the direction text is shown
// in (the "Trojan Source" characters) and the zero-width marks.
func isBidi(r rune) bool {
	return (r >= 0x200b && r <= 0x200f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0xfeff
}

// printable returns a copy of t whose every text is Printable; each
// renderer draws that copy.
func printable(t *Trace) *Trace {
	c := *t
	c.Title = Printable(t.Title)
	c.Lanes = mapStrings(t.Lanes)
	c.Steps = make([]Step, len(t.Steps))
	for i, s := range t.Steps {
		s.Actor, s.Action = Printable(s.Actor), Printable(s.Action)
		changes := make([]Change, len(s.Changes))
		for j, ch := range s.Changes {
			changes[j] = Change{Path: Printable(ch.Path), Old: Printable(ch.Old), New: Printable(ch.New)}
		}
		s.Changes = changes
		c.Steps[i] = s
	}
	c.Arrows = make([]Arrow, len(t.Arrows))
	for i, a := range t.Arrows {
		a.From, a.To, a.Label = Printable(a.From), Printable(a.To), Printable(a.Label)
		c.Arrows[i] = a
	}
	c.Notes = make([]Note, len(t.Notes))
	for i, n := range t.Notes {
		n.Lane, n.Text, n.Kind = Printable(n.Lane), Printable(n.Text), NoteKind(Printable(string(n.Kind)))
		c.Notes[i] = n
	}
	if v := t.Violation; v != nil {
		cv := *v
		cv.Property, cv.Explanation, cv.Involved = Printable(v.Property), Printable(v.Explanation), mapStrings(v.Involved)
		c.Violation = &cv
	}
	return &c
}

func mapStrings(ss []string) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = Printable(s)
	}
	return out
}
