package tlc

import "strings"

// cfgKeywords are the words that open a section of a TLC config.
var cfgKeywords = map[string]bool{
	"PROPERTY": true, "PROPERTIES": true, "INVARIANT": true, "INVARIANTS": true, "CONSTANT": true, "CONSTANTS": true,
	"SPECIFICATION": true, "INIT": true, "NEXT": true, "SYMMETRY": true, "VIEW": true, "CONSTRAINT": true, "CONSTRAINTS": true,
	"ACTION_CONSTRAINT": true, "ACTION_CONSTRAINTS": true, "CHECK_DEADLOCK": true, "POSTCONDITION": true, "ALIAS": true,
}

// CfgKeyword reports whether word opens a section of a TLC config.
func CfgKeyword(word string) bool { return cfgKeywords[word] }

// StripCfgComments blanks a TLC config's comments, as TLC reads them: \*
// to the end of the line, and (* … *), which may span lines and nest.
// Each comment becomes one space (a newline stays a newline), so words on
// either side stay apart. Comment markers inside a string are text.
func StripCfgComments(cfg string) string {
	var b strings.Builder
	depth, inString := 0, false
	for i := 0; i < len(cfg); i++ {
		c := cfg[i]
		switch {
		case depth == 0 && inString:
			b.WriteByte(c)
			if c == '\\' && i+1 < len(cfg) {
				i++
				b.WriteByte(cfg[i])
			} else if c == '"' {
				inString = false
			}
		case depth == 0 && c == '"':
			inString = true
			b.WriteByte(c)
		case depth == 0 && strings.HasPrefix(cfg[i:], `\*`):
			end := strings.IndexByte(cfg[i:], '\n')
			b.WriteByte(' ')
			if end < 0 {
				return b.String()
			}
			i += end - 1
		case strings.HasPrefix(cfg[i:], "(*"):
			depth++
			i++
			if depth == 1 {
				b.WriteByte(' ')
			}
		case depth > 0 && strings.HasPrefix(cfg[i:], "*)"):
			depth--
			i++
		case depth > 0:
			if c == '\n' {
				b.WriteByte('\n')
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
