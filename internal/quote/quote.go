// Package quote echoes a user's value in a message with a bound: a bad
// value of 100 MB (a node name, a flag, a line of a file) is shown by its
// first bytes and its length, so that a message stays one readable line.
package quote

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// MaxEcho is how many bytes of a value a message shows.
const MaxEcho = 64

// Q quotes s as %q does, cut to its first MaxEcho bytes (at a character
// boundary) and followed by …(N bytes) when it is longer.
func Q(s string) string {
	if len(s) <= MaxEcho {
		return strconv.Quote(s)
	}
	return strconv.Quote(Prefix(s)) + fmt.Sprintf("…(%d bytes)", len(s))
}

// S is s itself, unquoted, cut as Q cuts it.
func S(s string) string { return Cut(s, MaxEcho) }

// Cut is s cut to its first n bytes (at a character boundary) and
// followed by …(N bytes) when it is longer: the bound of a whole message.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return prefix(s, n) + fmt.Sprintf("…(%d bytes)", len(s))
}

// Prefix is s's first MaxEcho bytes or fewer, ending at a character
// boundary.
func Prefix(s string) string { return prefix(s, MaxEcho) }

func prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
