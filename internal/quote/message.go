package quote

import (
	"regexp"
	"strconv"
	"strings"
)

// quoted is a Go-quoted string in a message, as the flag package quotes a
// bad value: `invalid value "…" for flag -runs`.
var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// Message cuts each quoted value in msg to a bounded prefix
// (Q), and each unquoted word longer than a quoted one may be (an
// unknown flag's name), so a flag given 100 MB is not echoed whole.
func Message(msg string) string {
	msg = quoted.ReplaceAllStringFunc(msg, func(q string) string {
		if s, err := strconv.Unquote(q); err == nil {
			return Q(s)
		}
		return q
	})
	words := strings.Split(msg, " ")
	for i, w := range words {
		if len(w) > 4*MaxEcho {
			words[i] = S(w)
		}
	}
	return strings.Join(words, " ")
}
