package tlc

import (
	"fmt"
	"os"
	"sync"
	"testing"
)

// tlcChecks counts the TLC-backed tests that ran and those skipped (no
// Java, no jar, -short), so that a run without TLC says so loudly instead
// of an "ok" that hides it.
var tlcChecks struct {
	sync.Mutex
	ran, skipped int
	why          string
}

func countTLC(ran bool, why string) {
	tlcChecks.Lock()
	defer tlcChecks.Unlock()
	if ran {
		tlcChecks.ran++
		return
	}
	tlcChecks.skipped++
	if tlcChecks.why == "" {
		tlcChecks.why = why
	}
}

// TestMain prints how many TLC-backed checks ran, and appends the line to
// the file FENCELAB_TEST_SUMMARY names (make test prints it after go
// test, which shows a passing package's output only with -v).
func TestMain(m *testing.M) {
	code := m.Run()
	tlcChecks.Lock()
	line := fmt.Sprintf("TLC-backed checks in tlc: %d ran, %d skipped", tlcChecks.ran, tlcChecks.skipped)
	if tlcChecks.skipped > 0 {
		line += " (" + tlcChecks.why + ")"
	}
	tlcChecks.Unlock()
	fmt.Println(line)
	if path := os.Getenv("FENCELAB_TEST_SUMMARY"); path != "" {
		if f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintln(f, line)
			f.Close()
		}
	}
	os.Exit(code)
}
