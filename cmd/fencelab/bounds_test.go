package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBoundsCommand(t *testing.T) {
	// The timed spec's numbers (DESIGN.md), with a clock unit of 1ms: one
	// tick of lock-delay inside the condition for AtMostOneClientHoldLock.
	code, stdout, stderr := runCLI(t, "bounds", "--ttl", "8ms", "--margin", "3ms", "--lock-delay", "9ms",
		"--max-drift", "0.25", "--max-jump", "1ms", "--max-pause", "4ms", "--max-delay", "4ms")
	assert.Equal(t, exitOK, code, stderr)
	assert.Empty(t, stderr)
	assert.Contains(t, stdout, "AtMostOneClientHoldLock  P = 4ms")
	assert.Regexp(t, `AtMostOneClientHoldLock +P = 4ms +holds +800µs +2.4ms +8ms`, stdout)
	assert.Regexp(t, `NoLostUpdate +2P\+D = 12ms +can be +-7.2ms +8.4ms: none +18ms`, stdout)
	assert.Contains(t, stdout, "One holder at a time, but a stale write can still land")

	code, again, _ := runCLI(t, "bounds", "--ttl", "1s", "--max-pause", "3s")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, again, "Not safe without fencing")
	_, twice, _ := runCLI(t, "bounds", "--ttl", "1s", "--max-pause", "3s")
	assert.Equal(t, again, twice, "same flags, same bytes")
}
