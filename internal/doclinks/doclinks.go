// Package doclinks checks the relative links of Markdown pages: every link
// to a file or folder must reach one that exists, and every #anchor must
// name a heading of the page it points into (GitHub's way of turning a
// heading into an anchor). The project's tests run it on the README and
// the pages under docs/, so that moving or renaming a page cannot leave a
// link behind.
package doclinks

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
)

// Broken is one link that does not resolve.
type Broken struct {
	Page   string // the page the link is on, as given
	Line   int    // 1-based
	Target string // the link as written
	Why    string
}

func (b Broken) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", b.Page, b.Line, b.Target, b.Why)
}

// linkRE matches an inline link or image, [text](target) or
// ![alt](target), with an optional "title" after the target.
var linkRE = regexp.MustCompile(`\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)

// inlineCodeRE matches a code span, whose text is not Markdown.
var inlineCodeRE = regexp.MustCompile("`[^`]*`")

// Check reads each page and returns every relative link on it that does
// not resolve. Links with a scheme (https:, mailto:) are not followed.
// Text inside fenced code blocks and code spans is not Markdown and is
// skipped.
func Check(pages []string) ([]Broken, error) {
	anchors := map[string]map[string]bool{} // page path → its anchors
	anchorsOf := func(path string) (map[string]bool, error) {
		if a, ok := anchors[path]; ok {
			return a, nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		a := Anchors(string(data))
		anchors[path] = a
		return a, nil
	}
	var broken []Broken
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", page, err)
		}
		for _, l := range links(string(data)) {
			if strings.Contains(l.target, "://") || strings.HasPrefix(l.target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(l.target, "#")
			target := page
			if file != "" {
				target = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
			}
			info, err := os.Stat(target)
			if err != nil {
				broken = append(broken, Broken{page, l.line, l.target, "no such file or folder"})
				continue
			}
			if anchor == "" {
				continue
			}
			if info.IsDir() || filepath.Ext(target) != ".md" {
				broken = append(broken, Broken{page, l.line, l.target, "an anchor into something that is not a Markdown page"})
				continue
			}
			a, err := anchorsOf(target)
			if err != nil {
				return nil, fmt.Errorf("reading %s: %w", target, err)
			}
			if !a[anchor] {
				broken = append(broken, Broken{page, l.line, l.target, "no heading has this anchor"})
			}
		}
	}
	return broken, nil
}

type link struct {
	line   int
	target string
}

// links are the links of a page outside code, in order.
func links(page string) []link {
	var out []link
	for i, line := range prose(page) {
		line = inlineCodeRE.ReplaceAllString(line, "")
		for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
			out = append(out, link{i + 1, m[1]})
		}
	}
	return out
}

// prose is the page's lines with those of fenced code blocks blanked, so
// that line numbers stay the page's.
func prose(page string) []string {
	lines := strings.Split(page, "\n")
	fence := ""
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		switch {
		case fence == "" && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")):
			fence = trimmed[:3]
			lines[i] = ""
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			lines[i] = ""
		}
	}
	return lines
}

// Anchors are the anchors of a page's headings ("# A title" and the like,
// outside code), as GitHub makes them: Slug of the heading's text, with
// "-1", "-2", … after a repeated one.
func Anchors(page string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, line := range prose(page) {
		text, ok := heading(line)
		if !ok {
			continue
		}
		slug := Slug(text)
		if n := seen[slug]; n > 0 {
			out[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

// heading is the text of an ATX heading line (one to six '#', a space).
func heading(line string) (string, bool) {
	level := len(line) - len(strings.TrimLeft(line, "#"))
	if level == 0 || level > 6 || len(line) == level || line[level] != ' ' {
		return "", false
	}
	return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(line[level:]), "#")), true
}

// Slug is GitHub's anchor of a heading: lower case, letters, digits, '-'
// and '_' kept, spaces turned into '-', everything else dropped. Code
// spans' backquotes are dropped with the rest of the punctuation.
func Slug(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}
