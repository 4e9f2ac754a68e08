// Package shard splits a campaign (a simulator batch, a sweep's grid,
// conform's walks, a live campaign) into n pieces that run on n machines,
// and checks that the pieces a merge is given are one campaign's, each
// exactly once.
//
// A shard is named i/n with i counted from 0, as a Kubernetes Indexed
// Job's JOB_COMPLETION_INDEX and a CI matrix index count: shard i of n
// takes the items [⌊items·i/n⌋, ⌊items·(i+1)/n⌋), so the n shards cover
// every item once, in order, whatever items and n (a shard of a campaign
// with fewer items than shards may have none). Each shard saves a Manifest
// (shard.json): the campaign's identity (the command, its flags but
// --shard, --out and --workers, which change no result, and the fencelab
// build that ran it), its index, its items and its results. Check refuses
// pieces of different campaigns, a missing shard and a shard given twice.
package shard

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fencelab/fencelab/internal/quote"
)

// MaxCount bounds n: more machines than this share a campaign only in
// theory, and a bound keeps a typo (1/1000000000000) one line.
const MaxCount = 100_000

// Spec is shard Index of Count, Index counted from 0.
type Spec struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// Usage is the --shard flag's help, the same for every command.
const Usage = "run only shard `i/n` of the campaign, i from 0 to n-1 (a Kubernetes Indexed Job: --shard $JOB_COMPLETION_INDEX/8), and save its result for fencelab merge in --out"

// Parse reads "i/n": 0 ≤ i < n ≤ MaxCount, both decimal.
func Parse(s string) (Spec, error) {
	is, ns, ok := strings.Cut(s, "/")
	if !ok {
		return Spec{}, fmt.Errorf("--shard %s is not i/n (shard i of n, i from 0 to n-1)", quote.Q(s))
	}
	i, err := parseCount(is)
	if err != nil {
		return Spec{}, fmt.Errorf("--shard %s: the index %s is not a number from 0 to n-1", quote.Q(s), quote.Q(is))
	}
	n, err := parseCount(ns)
	if err != nil || n < 1 || n > MaxCount {
		return Spec{}, fmt.Errorf("--shard %s: the count %s is not a number from 1 to %d", quote.Q(s), quote.Q(ns), MaxCount)
	}
	if i >= n {
		return Spec{}, fmt.Errorf("--shard %s: the index must be below the count (shards are numbered 0 to %d)", quote.Q(s), n-1)
	}
	return Spec{Index: i, Count: n}, nil
}

// parseCount reads a decimal count of at most 7 digits (no sign, no
// spaces): a larger one is out of range anyway, and Atoi must not see it.
func parseCount(s string) (int, error) {
	if s == "" || len(s) > 7 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("not a count")
	}
	return strconv.Atoi(s)
}

func (s Spec) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Valid reports whether s names a shard: 0 ≤ Index < Count ≤ MaxCount.
func (s Spec) Valid() bool {
	return s.Count >= 1 && s.Count <= MaxCount && s.Index >= 0 && s.Index < s.Count
}

// Range is the items [lo, hi) of shard s of a campaign of items items.
func (s Spec) Range(items int) (lo, hi int) {
	at := func(k int) int { return int(int64(items) * int64(k) / int64(s.Count)) }
	return at(s.Index), at(s.Index + 1)
}
