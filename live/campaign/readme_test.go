package campaign

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/golden"
	"github.com/fencelab/fencelab/live/check"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/nemesis"
	"github.com/fencelab/fencelab/live/report"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/fencelab/fencelab/trace"
	"github.com/fencelab/fencelab/verdict"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, golden.UpdateUsage)

// readmeFixture writes, through Summary.save (the matrix's own writer),
// the summaries of two campaigns into a matrix's --out folder: etcd's
// Mutex under a client pause, violated in 3 of 3 runs with run-1 saved,
// and Redis's fenced SET NX under a client pause, two holders in 2 of 3
// runs and neither of the others violated.
func readmeFixture(t *testing.T) (out string) {
	t.Helper()
	out = t.TempDir()
	mutex, err := setup.Find(setup.All(), "etcd", "mutex")
	require.NoError(t, err)
	all, err := setup.Find(setup.All(), "redis", "all")
	require.NoError(t, err)
	campaign := func(s setup.Setup, violated map[string]int, tookEffect int, saved string) {
		sum := &Summary{Setup: s, Fault: history.FaultClientPause, Nemesis: nemesis.Scripted, Runs: 3, TookEffect: tookEffect,
			Versions: "server 1.0 | <b>bold</b>", Library: "lib v1", StartUp: 140 * time.Millisecond, Elapsed: 10 * time.Second}
		for _, p := range check.Properties() {
			tally := Tally{Property: p, Expected: check.Expected(s.Design, p), Runs: 3, TookEffect: tookEffect, Violated: violated[p]}
			if tally.Expected != verdict.NotApplicable {
				// The judge decides only where the fault took effect.
				tally.Unknown = 3 - tookEffect
			}
			if tally.Violated > 0 {
				tally.FirstViolation = saved
			}
			sum.Tallies = append(sum.Tallies, tally)
		}
		require.NoError(t, sum.save(out))
	}
	saveRun := func(s setup.Setup) string {
		dir := report.RunDir(out, s, history.FaultClientPause, 1)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		for name, text := range map[string]string{
			report.HistoryFile: `{"client":0}` + "\n", report.FaultsFile: "pause client 0\n", report.VerdictsFile: "{}\n",
			trace.MermaidFile: "sequenceDiagram\n  c0->>etcd: acquire\n", check.PorcupineFile: "<html>big</html>",
		} {
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
		}
		return dir
	}
	campaign(mutex, map[string]int{impl.AtMostOneClientHoldLock: 3, impl.NoLostUpdate: 3}, 3, saveRun(mutex))
	campaign(all, map[string]int{impl.AtMostOneClientHoldLock: 2}, 2, saveRun(all))
	return out
}

const fixtureReadme = "# title\n\nbefore\n" + ReadmeBegin + "old block\n" + ReadmeEnd + "\nafter\n"

func TestLiveBlockGolden(t *testing.T) {
	out := readmeFixture(t)
	cs, err := ReadSummaries(out, setup.All())
	require.NoError(t, err)
	require.Len(t, cs, 2)
	block := LiveBlock(cs)
	golden.File(t, *update, filepath.Join("testdata", "readme_block.golden.md"), []byte(block))
	// The rows in impl.Designs' order (all before renewal), the link to
	// the copied run, the not-observed cell with its witness count, and
	// the file's strings defanged.
	assert.Less(t, strings.Index(block, "`redis/all`"), strings.Index(block, "`etcd/mutex`"))
	assert.Contains(t, block, "violated · [violated (3 of 3)](docs/live/etcd/mutex/client-pause/run-1/)")
	assert.Contains(t, block, "holds · held while the fault took effect in 2 of 3")
	assert.Contains(t, block, "violated · [violated (2 of 3)](docs/live/redis/all/client-pause/run-1/)")
	assert.NotContains(t, block, "<b>")
	assert.Equal(t, 2+2, strings.Count(block, "\n"), "a header, a rule and one line per campaign")
}

func TestUpdateReadmeWritesTheBlockAndCopiesTheRun(t *testing.T) {
	out := readmeFixture(t)
	cs, err := ReadSummaries(out, setup.All())
	require.NoError(t, err)
	root := t.TempDir()
	readme := filepath.Join(root, "README.md")
	require.NoError(t, os.WriteFile(readme, []byte(fixtureReadme), 0o644))
	mine := filepath.Join(root, "docs", "live", "etcd", "notes.txt")
	require.NoError(t, os.MkdirAll(filepath.Dir(mine), 0o755))
	require.NoError(t, os.WriteFile(mine, []byte("mine"), 0o644))

	require.NoError(t, UpdateReadme(readme, cs))
	got, err := os.ReadFile(readme)
	require.NoError(t, err)
	assert.Equal(t, "# title\n\nbefore\n"+ReadmeBegin+LiveBlock(cs)+ReadmeEnd+"\nafter\n", string(got))
	run := filepath.Join(root, "docs", "live", "etcd", "mutex", "client-pause", "run-1")
	for _, name := range []string{report.HistoryFile, report.FaultsFile, report.VerdictsFile, TracePage} {
		assert.FileExists(t, filepath.Join(run, name))
	}
	assert.NoFileExists(t, filepath.Join(run, check.PorcupineFile), "the HTML pages stay in the matrix's folder")
	assert.NoFileExists(t, filepath.Join(run, trace.MermaidFile), "the picture is in trace.md")
	page, err := os.ReadFile(filepath.Join(run, TracePage))
	require.NoError(t, err)
	assert.Contains(t, string(page), "```mermaid\nsequenceDiagram")
	assert.FileExists(t, mine, "nothing it did not write is removed")

	// Twice is the same as once: the block replaced, not appended.
	require.NoError(t, UpdateReadme(readme, cs))
	again, err := os.ReadFile(readme)
	require.NoError(t, err)
	assert.Equal(t, string(got), string(again))
}

func TestUpdateReadmeRefusesBeforeWritingAnything(t *testing.T) {
	out := readmeFixture(t)
	cs, err := ReadSummaries(out, setup.All())
	require.NoError(t, err)
	tests := []struct {
		name   string
		readme string
		prep   func(t *testing.T, root string)
		want   string
	}{
		{"no markers", "# a README of someone else\n", nil, "has no live block"},
		{"end before begin", ReadmeEnd + "\n" + ReadmeBegin, nil, "has no live block"},
		{"two blocks", fixtureReadme + fixtureReadme, nil, "has no live block"},
		{"docs/live is a link", fixtureReadme, func(t *testing.T, root string) {
			require.NoError(t, os.MkdirAll(filepath.Join(root, "docs"), 0o755))
			require.NoError(t, os.Symlink(t.TempDir(), filepath.Join(root, "docs", "live")))
		}, "not a folder"},
		{"a run folder on the way is a file", fixtureReadme, func(t *testing.T, root string) {
			require.NoError(t, os.MkdirAll(filepath.Join(root, "docs", "live", "etcd"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(root, "docs", "live", "etcd", "mutex"), nil, 0o644))
		}, "not a folder"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			readme := filepath.Join(root, "README.md")
			require.NoError(t, os.WriteFile(readme, []byte(tc.readme), 0o644))
			if tc.prep != nil {
				tc.prep(t, root)
			}
			err := UpdateReadme(readme, cs)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			got, rerr := os.ReadFile(readme)
			require.NoError(t, rerr)
			assert.Equal(t, tc.readme, string(got), "the README untouched")
			assert.NoDirExists(t, filepath.Join(root, "docs", "live", "etcd", "mutex", "client-pause"), "no run copied")
		})
	}
}

func TestReadSummariesRefusesForgedSummaries(t *testing.T) {
	tests := []struct {
		name string
		edit func(s string) string
		want string
	}{
		{"another setup", func(s string) string { return strings.Replace(s, `"etcd/mutex"`, `"redis/all"`, 1) }, "names setup"},
		{"another row", func(s string) string { return strings.Replace(s, `"row": "renewal"`, `"row": "all"`, 1) }, "names row"},
		{"more violations than runs", func(s string) string { return strings.Replace(s, `"violated": 3`, `"violated": 9`, 1) }, "violated in 9"},
		{"more violated and unknown than runs", func(s string) string { return strings.Replace(s, `"unknown": 0`, `"unknown": 1`, 1) }, "violated in 3, unknown in 1 of 3"},
		{"held in runs the fault did not take effect in", func(s string) string {
			return strings.ReplaceAll(s, `"took_effect": 3`, `"took_effect": 1`)
		}, "held in 3 of 3 runs, the fault took effect in 1"},
		{"a first violation outside", func(s string) string {
			return strings.Replace(s, `client-pause/run-1"`, `client-pause/run-1/../../../../../../etc"`, 1)
		}, "not a run's folder"},
		{"safe where the setup claims nothing", func(s string) string {
			return strings.Replace(s, `"unknown": 0,`, `"unknown": 0, "safe": 1,`, 1)
		}, "safe in 1 of 3 runs"},
		{"an unknown field", func(s string) string { return strings.Replace(s, `"runs": 3,`, `"runs": 3, "x": 1,`, 1) }, "unknown field"},
		{"not JSON", func(string) string { return "\x00\x01" }, "not a summary"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := readmeFixture(t)
			file := filepath.Join(out, "etcd", "mutex", "client-pause", SummaryFile)
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			edited := tc.edit(string(data))
			require.NotEqual(t, string(data), edited, "the edit applies")
			require.NoError(t, os.WriteFile(file, []byte(edited), 0o644))
			_, err = ReadSummaries(out, setup.All())
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestReadSummariesReadsSummariesFromBeforeNoActionPastValidity: a
// summary saved before the judge decided NoActionPastValidity (one
// property fewer) still reads; one missing another property does not.
func TestReadSummariesReadsSummariesFromBeforeNoActionPastValidity(t *testing.T) {
	for _, tc := range []struct {
		drop string
		ok   bool
	}{{impl.NoActionPastValidity, true}, {impl.NoLostUpdate, false}} {
		t.Run(tc.drop, func(t *testing.T) {
			out := readmeFixture(t)
			file := filepath.Join(out, "etcd", "mutex", "client-pause", SummaryFile)
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			var sum map[string]any
			require.NoError(t, json.Unmarshal(data, &sum))
			tallies := sum["properties"].([]any)
			n := len(tallies)
			sum["properties"] = slices.DeleteFunc(tallies, func(x any) bool { return x.(map[string]any)["property"] == tc.drop })
			require.Len(t, sum["properties"], n-1)
			data, err = json.Marshal(sum)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(file, data, 0o644))
			cs, err := ReadSummaries(out, setup.All())
			if !tc.ok {
				require.Error(t, err)
				assert.Contains(t, err.Error(), `property 3 is "NoActionPastValidity" (want NoLostUpdate)`)
				return
			}
			require.NoError(t, err)
			require.Len(t, cs, 2)
			assert.Contains(t, LiveBlock(cs), "`etcd/mutex`")
		})
	}
}

// TestUpdateReadmeKeepsLineEnds: a README with CRLF line ends has its
// live block as one with LF ends has, written with CRLF ends; a README
// with neither marker is refused whatever its line ends.
func TestUpdateReadmeKeepsLineEnds(t *testing.T) {
	out := readmeFixture(t)
	cs, err := ReadSummaries(out, setup.All())
	require.NoError(t, err)
	crlf := func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
	lf := func(s string) string { return s }
	for _, tc := range []struct {
		name string
		ends func(string) string
	}{{"LF", lf}, {"CRLF", crlf}} {
		t.Run(tc.name, func(t *testing.T) {
			readme := filepath.Join(t.TempDir(), "README.md")
			require.NoError(t, os.WriteFile(readme, []byte(tc.ends(fixtureReadme)), 0o644))
			require.NoError(t, UpdateReadme(readme, cs))
			got, err := os.ReadFile(readme)
			require.NoError(t, err)
			assert.Equal(t, tc.ends("# title\n\nbefore\n"+ReadmeBegin+LiveBlock(cs)+ReadmeEnd+"\nafter\n"), string(got))

			none := tc.ends("# a README of someone else\n")
			require.NoError(t, os.WriteFile(readme, []byte(none), 0o644))
			err = UpdateReadme(readme, cs)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "has no live block")
		})
	}
}
