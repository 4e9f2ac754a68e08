package main

import (
	"strings"
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

	// The timed spec's discrete condition: at margin 5, lock-delay 6 (a
	// clock unit 1s, a tick 4s) real time says safe by 1.07s, ticks say
	// violated.
	code, out, stderr := runCLI(t, "bounds", "--ttl", "8s", "--margin", "5s", "--lock-delay", "6s",
		"--max-drift", "0.25", "--max-jump", "1s", "--max-pause", "4s", "--max-delay", "4s", "--tick", "4s")
	assert.Equal(t, exitOK, code, stderr)
	assert.Regexp(t, `AtMostOneClientHoldLock +P = 4s +holds +1.066666667s`, out)
	assert.Contains(t, out, "On ticks of 4s")
	assert.Contains(t, out, "AtMostOneClientHoldLock  2 + 1 < 3: can be violated (differs from real time: the window rounds up to a tick)")
	assert.Contains(t, out, "NoLostUpdate             2 + 3 < 3: can be violated\n")
	code, _, stderr = runCLI(t, "bounds", "--ttl", "8s", "--tick", "0s")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "tick must be positive")
}

// TestBoundsDriftAsGiven: the drift line shows the drift given, never a
// neighbour: just under the refused 0.5 is not "±50%", -0 is "±0%".
func TestBoundsDriftAsGiven(t *testing.T) {
	for _, tc := range []struct{ drift, want, notWant string }{
		// No percentage reads back as this value: the fraction does.
		{"0.4999999999999999", "±0.4999999999999999,", "±50%"},
		{"49.999999999999993%", "±49.99999999999999", "±50%"},
		{"-0%", "±0%,", "-0"},
		{"-0", "±0%,", "-0"},
		{"-0ppm", "±0%,", "-0"},
		{"0.1", "±10%,", "±0.1"},
	} {
		t.Run(tc.drift, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "bounds", "--ttl", "1s", "--max-drift", tc.drift)
			assert.Equal(t, exitOK, code, stderr)
			line := strings.SplitN(stdout, "\n", 3)[1]
			assert.Contains(t, line, "clock rate drift "+tc.want)
			assert.NotContains(t, line, tc.notWant)
		})
	}
}
