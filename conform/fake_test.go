package conform

import (
	"errors"
	"github.com/fencelab/fencelab/internal/testexec"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/tlc"
)

// tlcVersion is the line every TLC output starts with.
const tlcVersion = "TLC2 Version 2.19 of 08 August 2024 (rev: 5a47802)\n"

// fakeChecker is a Checker whose "java" prints TLC's version line, then
// out, and exits with code: the judgement of TLC's output, without TLC.
func fakeChecker(t *testing.T, out string, code int) *Checker {
	t.Helper()
	return fakeJava(t, tlcVersion+out, code)
}

// fakeJava is a Checker whose "java" prints out exactly.
func fakeJava(t *testing.T, out string, code int) *Checker {
	t.Helper()
	dir := t.TempDir()
	outFile := filepath.Join(dir, "out.txt")
	require.NoError(t, os.WriteFile(outFile, []byte(out), 0o644))
	java := filepath.Join(dir, "java")
	script := "#!/bin/sh\ncat " + outFile + "\nexit " + strconv.Itoa(code) + "\n"
	testexec.Write(t, java, []byte(script))
	return &Checker{TLC: &tlc.Runner{Java: java, Jar: "unused.jar"}, SpecsDir: specsDir}
}

const completed = "Model checking completed. No error has been found.\n" + finished

const finished = "Finished in 2416ms at (2026-11-25 20:10:02)\n"

// TestCheckJudgesOutput: a trace is accepted only if TLC completed and
// printed its acceptance; a TLC run that failed, or did not say it
// completed, judges nothing, whatever it printed.
func TestCheckJudgesOutput(t *testing.T) {
	c, ts := goldenTraces(t)
	ts = ts[:3]
	for _, tc := range []struct {
		name     string
		out      string
		code     int
		accepted []bool
		err      bool
	}{
		{"all accepted", `<<"fencelab-accepted", 1>>` + "\n" + `<<"fencelab-accepted", 2>>` + "\n" + `<<"fencelab-accepted", 3>>` + "\n" + completed, 0, []bool{true, true, true}, false},
		{"one unprinted", `<<"fencelab-accepted", 1>>` + "\n" + `<<"fencelab-accepted", 3>>` + "\n" + completed, 0, []bool{true, false, true}, false},
		{"out of range and junk", `<<"fencelab-accepted", 4>>` + "\n" + `<<"fencelab-accepted", 0>>` + "\n" + `x <<"fencelab-accepted", 2>>` + "\n" + completed, 0, []bool{false, false, false}, false},
		{"TLC error", `<<"fencelab-accepted", 1>>` + "\nError: TLC threw an unexpected exception.\n", 255, nil, true},
		{"exit 0 without completion", `<<"fencelab-accepted", 1>>` + "\n", 0, nil, true},
		{"exit 0 without the result line", `<<"fencelab-accepted", 1>>` + "\n" + finished, 0, nil, true},
		{"exit 0, cut before Finished", `<<"fencelab-accepted", 1>>` + "\nModel checking completed. No error has been found.\n", 0, nil, true},
		{"a run over a minute", `<<"fencelab-accepted", 1>>` + "\n" + `<<"fencelab-accepted", 2>>` + "\n" + `<<"fencelab-accepted", 3>>` + "\nModel checking completed. No error has been found.\nFinished in 01min 34s at (2026-11-26 02:20:23)\n", 0, []bool{true, true, true}, false},
		{"exit 0, Finished inside another line", `<<"fencelab-accepted", 1>>` + "\nModel checking completed. No error has been found.\nx Finished in 1s at (\n", 0, nil, true},
		{"an invariant violated", `<<"fencelab-accepted", 1>>` + "\nError: Invariant X is violated.\n" + completed, 12, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := fakeChecker(t, tc.out, tc.code)
			run, err := k.Check(t.Context(), c, ts)
			if tc.err {
				require.Error(t, err)
				assert.True(t, errors.Is(err, ErrTLC))
				assert.Empty(t, run.Verdict, "no verdicts from a failed run")
				return
			}
			require.NoError(t, err)
			require.Len(t, run.Verdict, len(ts))
			for i, v := range run.Verdict {
				assert.Equal(t, tc.accepted[i], v.Accepted, "trace %d", i+1)
			}
		})
	}
}

// TestCheckRefusesWhatIsNotTLC: an output without TLC's version line is
// not TLC's (a damaged jar, a java that is not Java), even one that says
// it completed: tlc.ErrNotTLC, no verdicts.
func TestCheckRefusesWhatIsNotTLC(t *testing.T) {
	c, ts := goldenTraces(t)
	for _, out := range []string{"garbage\n", `<<"fencelab-accepted", 1>>` + "\n" + completed} {
		run, err := fakeJava(t, out, 0).Check(t.Context(), c, ts[:1])
		require.Error(t, err)
		assert.ErrorIs(t, err, tlc.ErrNotTLC)
		assert.ErrorIs(t, err, ErrTLC)
		assert.Empty(t, run.Verdict)
	}
}

// TestDiagnoseReadsMatchedLines: the first unmatched line is one past the
// last line TLC printed as matched.
func TestDiagnoseReadsMatchedLines(t *testing.T) {
	_, ts := goldenTraces(t)
	k := fakeChecker(t, `<<"fencelab-matched", 1, 1>>`+"\n"+`<<"fencelab-matched", 1, 2>>`+"\n"+`<<"fencelab-matched", 1, 5>>`+"\n"+completed, 0)
	matched, err := k.Diagnose(t.Context(), ts[0])
	require.NoError(t, err)
	assert.Equal(t, 5, matched)
	k = fakeChecker(t, `<<"fencelab-accepted", 1>>`+"\n"+completed, 0)
	_, err = k.Diagnose(t.Context(), ts[0])
	assert.ErrorContains(t, err, "accepted when searched alone")
}
