package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/internal/browsertest"
	"github.com/fencelab/fencelab/internal/testbuild"
	"github.com/fencelab/fencelab/internal/tlccount"
	"github.com/fencelab/fencelab/pipeline"
)

// browserChecks counts the pages opened in Chromium and those skipped
// (no chromium: make browser-deps installs it), reported by TestMain.
var browserChecks = tlccount.Counter{What: "Browser checks"}

// requireChromium returns Chromium's path, or skips the test, counted,
// with one line naming the package. The browser tests run in make test's
// -short pass: the race build, which makes the commands that write the
// pages ten times slower, skips them (testbuild.SkipUnderRace), counted
// as checks the other pass runs.
func requireChromium(t *testing.T) string {
	t.Helper()
	if testbuild.Race {
		browserChecks.SkippedElsewhere("race build: make test's -short pass opens the pages")
	}
	testbuild.SkipUnderRace(t)
	bin, err := browsertest.Binary()
	if err != nil {
		browserChecks.Skipped(err.Error())
		t.Skip(err.Error())
	}
	browserChecks.Ran()
	return bin
}

// porcupineCheck reads the Porcupine page's row labels and whether its
// first invalid linearization point (the leftmost) is on the first screen.
const porcupineCheck = `(() => {
  const labels = [...document.querySelectorAll('#canvas svg > g > text')].map((t) => t.textContent)
  const invalid = [...document.querySelectorAll('.linearization-invalid')].filter((el) => !el.parentElement.classList.contains('hidden'))
  const rects = invalid.map((el) => el.getBoundingClientRect()).sort((a, b) => a.left - b.left)
  const r = rects[0]
  return {labels, invalid: invalid.length, onScreen: !!r && r.right > 0 && r.bottom > 0 && r.left < innerWidth && r.top < innerHeight}
})()`

// traceCheck says whether the trace page's violation line is on the first
// screen.
const traceCheck = `(() => {
  const v = document.querySelector('.violation')
  if (!v) return {violation: false, onScreen: false}
  const r = v.getBoundingClientRect()
  return {violation: true, onScreen: r.bottom > 0 && r.top < innerHeight && r.left < innerWidth}
})()`

// TestPagesInABrowser opens every kind of HTML page and SVG picture
// fencelab writes in headless Chromium: the simulator's trace and
// Porcupine pages, the explorer's counterexample page, trace --format
// html, the sweep's picture (a small grid and the README's), the
// README's picture of the matrix, and holds
// each to no script error, nothing drawn outside its canvas, and — for
// the pages of a violation — the first violation on the first screen; the
// Porcupine page labels its rows as the bars do (c1, c2).
func TestPagesInABrowser(t *testing.T) {
	bin := requireChromium(t)
	dir := t.TempDir()
	simOut, exploreOut, sweepOut := filepath.Join(dir, "sim"), filepath.Join(dir, "explore"), filepath.Join(dir, "sweep")
	// Seed 14 loses an update in design off (one run, its whole trace).
	code, _, stderr := runCLI(t, "sim", "--design", "off", "--replay", "14", "--out", simOut)
	require.Equal(t, exitOK, code, stderr)
	// A run that holds: a linearizable history, nothing to jump to.
	code, _, stderr = runCLI(t, "sim", "--design", "all", "--faults", "none", "--replay", "1", "--out", filepath.Join(dir, "sim-holds"))
	require.Equal(t, exitOK, code, stderr)
	code, _, stderr = runCLI(t, "explore", "--design", "none", "--clients", "2", "--out", exploreOut)
	require.Equal(t, exitOK, code, stderr)
	// The smallest grids (1×1, 1×2, 2×2), where titles, labels and the
	// legend are widest beside the cells.
	grids := map[string]string{"1x1": "pause:100ms..100ms/1,lock-delay:0..0/1", "1x2": "pause:100ms..100ms/1,lock-delay:0..800ms/2",
		"2x2": "pause:0..400ms/2,lock-delay:0..800ms/2"}
	for name, grid := range grids {
		code, _, stderr = runCLI(t, "sweep", "--grid", grid, "--runs", "1", "--design", "off,all,renewal", "--out", filepath.Join(sweepOut, name))
		require.Contains(t, []int{exitOK, exitFailure}, code, stderr)
	}
	tracePage := filepath.Join(dir, "walkthrough.html")
	code, _, stderr = runCLI(t, "trace", walkthroughFixture, "--format", "html", "--out", tracePage)
	require.Equal(t, exitOK, code, stderr)
	explorePages, err := filepath.Glob(filepath.Join(exploreOut, "*", "*.html"))
	require.NoError(t, err)
	require.NotEmpty(t, explorePages, "explore wrote a counterexample page")

	type page struct {
		path, check string
		overlaps    bool
	}
	pages := []page{
		{filepath.Join(simOut, "off", "porcupine.html"), porcupineCheck, false},
		{filepath.Join(simOut, "off", "trace.html"), traceCheck, false},
		{filepath.Join(dir, "sim-holds", "all", "porcupine.html"), porcupineCheck, false},
		{explorePages[0], traceCheck, false},
		{tracePage, traceCheck, false},
	}
	// The sweep's pictures, each measured against its own canvas, in one
	// page (one Chromium).
	t.Run("sweep pictures", func(t *testing.T) {
		t.Parallel()
		svgs := []string{filepath.Join(sweepOut, "1x1", "sweep.svg"), filepath.Join(sweepOut, "1x2", "sweep.svg"),
			filepath.Join(sweepOut, "2x2", "sweep.svg"), "../../docs/img/sweep/sweep.svg",
			"../../" + pipeline.MatrixPicture} // the README's picture of the matrix
		rep := browsertest.OpenSVGs(t, bin, svgs, true)
		assert.Empty(t, rep.Errors, "script errors")
		assert.Empty(t, rep.Outside, "drawn outside the canvas")
		assert.Empty(t, rep.Overlaps, "overlapping texts")
		assert.Greater(t, rep.Texts, 4*10, "every picture drew its titles, labels and legend")
	})
	for _, p := range pages {
		t.Run(filepath.Base(filepath.Dir(p.path))+"/"+filepath.Base(p.path), func(t *testing.T) {
			t.Parallel() // one Chromium each, two at a time on two cores
			_, err := os.Stat(p.path)
			require.NoError(t, err)
			rep := browsertest.Open(t, bin, p.path, p.check, p.overlaps)
			assert.Empty(t, rep.Errors, "script errors")
			assert.Empty(t, rep.Outside, "drawn outside the canvas")
			assert.Empty(t, rep.Overlaps, "overlapping texts")
			assert.Positive(t, rep.Texts, "the page drew its picture")
			holds := strings.Contains(p.path, "sim-holds")
			switch {
			case p.check == porcupineCheck && holds:
				var c struct {
					Labels  []string
					Invalid int
				}
				require.NoError(t, json.Unmarshal(rep.Check, &c))
				assert.Contains(t, c.Labels, "c1")
				assert.NotContains(t, c.Labels, "0")
				assert.Zero(t, c.Invalid, "a linearizable history has no invalid point")
			case p.check == porcupineCheck:
				var c struct {
					Labels   []string
					Invalid  int
					OnScreen bool
				}
				require.NoError(t, json.Unmarshal(rep.Check, &c))
				assert.Contains(t, c.Labels, "c1")
				assert.Contains(t, c.Labels, "c2")
				assert.NotContains(t, c.Labels, "0", "rows named as the bars do, not Porcupine's numbers")
				assert.Positive(t, c.Invalid, "the run's history is not linearizable: an invalid point is drawn")
				assert.True(t, c.OnScreen, "the first violation is on the first screen (%v × %v)", rep.Screen[0], rep.Screen[1])
			case p.check == traceCheck:
				var c struct{ Violation, OnScreen bool }
				require.NoError(t, json.Unmarshal(rep.Check, &c))
				assert.True(t, c.Violation && c.OnScreen, "the violation is said on the first screen")
			}
		})
	}
}

// TestBrowserReportCatchesDefects holds the browser check itself to pages
// that break each rule: a script error, a text drawn beyond its canvas,
// two texts on top of each other. A check that cannot fail is no check.
func TestBrowserReportCatchesDefects(t *testing.T) {
	bin := requireChromium(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.html")
	require.NoError(t, os.WriteFile(bad, []byte(`<!DOCTYPE html><html><head><title>bad</title></head><body>
<svg width="100" height="50" viewBox="0 0 100 50"><text x="90" y="20">far beyond the right edge</text><text x="5" y="40">one</text><text x="6" y="41">two</text></svg>
<script>undefinedFunction()</script></body></html>`), 0o644))
	rep := browsertest.Open(t, bin, bad, "", true)
	assert.NotEmpty(t, rep.Errors, "the script error")
	assert.True(t, strings.Contains(strings.Join(rep.Outside, " "), "far beyond"), "%v", rep.Outside)
	assert.NotEmpty(t, rep.Overlaps, "one and two overlap")
}
