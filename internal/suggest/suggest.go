// Package suggest finds the names nearest to a mistyped one, so that a
// message can say "did you mean …" instead of listing every name.
package suggest

import (
	"cmp"
	"slices"
	"strings"
)

// maxCompared bounds the length of a name compared: edit distance costs
// the product of the lengths, and a name far longer than every candidate
// is near none of them.
const maxCompared = 256

// Nearest returns up to n of candidates nearest to name by edit distance
// (Levenshtein, ignoring case), nearest first and in candidates' order
// among equals; a candidate that contains name counts as near. Only
// candidates within a third of their length (at least 2 edits) are
// returned: none when nothing is close.
func Nearest(name string, candidates []string, n int) []string {
	if len(name) > maxCompared || name == "" {
		return nil
	}
	type scored struct {
		name string
		dist int
		at   int
	}
	lower := strings.ToLower(name)
	var near []scored
	for i, c := range candidates {
		lc := strings.ToLower(c)
		d := distance(lower, lc)
		if len(lower) >= 3 && strings.Contains(lc, lower) {
			d = min(d, 1)
		}
		if d <= max(2, len(c)/3) {
			near = append(near, scored{c, d, i})
		}
	}
	slices.SortStableFunc(near, func(a, b scored) int { return cmp.Compare(a.dist, b.dist) })
	var out []string
	for _, s := range near[:min(n, len(near))] {
		out = append(out, s.name)
	}
	return out
}

// distance is the Levenshtein distance of a and b in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
