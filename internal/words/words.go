// Package words is how fencelab writes a count of things: "1 section",
// "2 sections", "1,000 runs". Every message that counts something a user
// reads goes through Count (or Noun, beside a number written otherwise),
// so that no output says "1 sections".
package words

import (
	"strconv"
	"strings"
)

// Count is n and noun, the noun in the plural unless n is 1 or -1; n is
// written with thousands separators (1,000).
func Count(n int, noun string) string {
	return Thousands(n) + " " + Noun(n, noun)
}

// Noun is noun in the plural unless n is 1 or -1. The plural follows
// English spelling for the nouns fencelab counts: a consonant's y becomes
// ies (retry, retries; property, properties), s, x, ch and sh take es,
// anything else takes s; a noun of several words takes the plural on its
// last word ("random run" → "random runs", "TLC model" → "TLC models").
func Noun(n int, noun string) string {
	if n == 1 || n == -1 {
		return noun
	}
	if i := strings.LastIndexByte(noun, ' '); i >= 0 {
		return noun[:i+1] + Noun(n, noun[i+1:])
	}
	head := noun
	switch {
	case head == "":
		return head
	case strings.HasSuffix(head, "y") && len(head) > 1 && !strings.ContainsRune("aeiou", rune(head[len(head)-2])):
		return head[:len(head)-1] + "ies"
	case strings.HasSuffix(head, "s"), strings.HasSuffix(head, "x"), strings.HasSuffix(head, "ch"), strings.HasSuffix(head, "sh"):
		return head + "es"
	}
	return head + "s"
}

// Thousands writes n with a comma every three digits: 1234567 → 1,234,567.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
