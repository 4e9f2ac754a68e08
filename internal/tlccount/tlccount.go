// Package tlccount counts the TLC-backed tests of a test binary that ran
// and those skipped (no Java, no jar, -short), so that a run without TLC
// says so loudly instead of an "ok" that hides it. It is test support: the
// tlc and cmd/fencelab tests import it; the product does not.
package tlccount

import (
	"fmt"
	"os"
	"sync"
)

// Counter counts one package's TLC-backed checks. The zero value is ready;
// What names other checks counted the same way ("Browser checks").
type Counter struct {
	What         string // the checks counted; "" is "TLC-backed checks"
	mu           sync.Mutex
	ran, skipped int
	// here counts the skips for a reason of this run (no jar, no
	// chromium), not because the checks run in make test's other pass
	// (ShortMode, SkippedElsewhere).
	here int
	why  string
}

// ShortMode is the reason of a check that -short skips: make test's race
// pass runs it.
const ShortMode = "-short mode"

// Ran counts a check that ran; Skipped one that did not, and why (the
// first reason is the one reported).
func (c *Counter) Ran() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ran++
}

// Skipped counts a check that did not run, and why.
func (c *Counter) Skipped(why string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.skipped++
	if why != ShortMode {
		c.here++
	}
	if c.why == "" {
		c.why = why
	}
}

// SkippedElsewhere counts a check skipped because make test's other pass
// runs it (the race build skips what the -short pass runs), and why.
func (c *Counter) SkippedElsewhere(why string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.skipped++
	if c.why == "" {
		c.why = why
	}
}

// Line is the summary of package pkg, e.g. "TLC-backed checks in tlc: 0
// ran, 6 skipped (no tla2tools.jar: …)".
func (c *Counter) Line(pkg string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	what := c.What
	if what == "" {
		what = "TLC-backed checks"
	}
	line := fmt.Sprintf("%s in %s: %d ran, %d skipped", what, pkg, c.ran, c.skipped)
	if c.skipped > 0 {
		line += " (" + c.why + ")"
	}
	return line
}

// Report prints the summary and appends it to the file that
// FENCELAB_TEST_SUMMARY names, if any: make test prints that file after go
// test, which shows a passing package's output only with -v.
//
// make test runs two passes with the same file: a pass in which no check
// ran and every skip was for the other pass (ShortMode, SkippedElsewhere)
// prints its line but leaves the file to the pass that ran them.
func (c *Counter) Report(pkg string) {
	line := c.Line(pkg)
	fmt.Println(line)
	c.mu.Lock()
	elsewhere := c.ran == 0 && c.here == 0
	c.mu.Unlock()
	if path := os.Getenv("FENCELAB_TEST_SUMMARY"); path != "" && !elsewhere {
		if f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintln(f, line)
			f.Close()
		}
	}
}
