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
	why          string
}

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
func (c *Counter) Report(pkg string) {
	line := c.Line(pkg)
	fmt.Println(line)
	if path := os.Getenv("FENCELAB_TEST_SUMMARY"); path != "" {
		if f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintln(f, line)
			f.Close()
		}
	}
}
