package campaign

import (
	"encoding/json"
	"flag"
	"fmt"
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
	"github.com/fencelab/fencelab/sim"
	"github.com/fencelab/fencelab/trace"
	"github.com/fencelab/fencelab/verdict"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, golden.UpdateUsage)

// pauseModel is the model's telling of 3 runs of s under a client pause
// of c2 in its first think, past the simulator's lease (the schedule
// report.TellSim made of a make live run of etcd/mutex): the simulator's
// verdicts computed, not written by hand.
func pauseModel(t *testing.T, s setup.Setup) Model {
	t.Helper()
	sched := &sim.Schedule{Version: sim.ScheduleVersion, Seed: 1, Faults: []sim.Fault{
		{Kind: sim.FaultPause, Node: impl.ClientNode(1), At: 19301176 * time.Nanosecond, Duration: 3 * time.Second}}}
	violated, err := report.RetellSim(s.Design, 2, 3, 0, sched, check.Properties())
	require.NoError(t, err)
	return Model{Stories: []Story{{Clients: 2, Sections: 3, Schedule: sched, Runs: 3, Violated: violated}}, None: []NoStory{}}
}

// serverPauseModel is 3 runs whose faults do not map.
func serverPauseModel() Model {
	return Model{Stories: []Story{}, None: []NoStory{{Reason: "fault 1: a server pause does not map", Runs: 3}}}
}

// readmeFixture writes, through Summary.save (the matrix's own writer),
// the summaries of three campaigns into a matrix's --out folder: etcd's
// Mutex under a client pause, violated in 3 of 3 runs with run-1 saved
// (its model story told), the same under a server pause that took effect
// in none (no model story), and Redis's fenced SET NX under a client
// pause, two holders in 2 of 3 runs and neither of the others violated
// (the story the unchecked client's).
func readmeFixture(t *testing.T) (out string) {
	t.Helper()
	out = t.TempDir()
	mutex, err := setup.Find(setup.All(), "etcd", "mutex")
	require.NoError(t, err)
	all, err := setup.Find(setup.All(), "redis", "all")
	require.NoError(t, err)
	campaign := func(s setup.Setup, f history.Fault, model Model, violated map[string]int, tookEffect int, saved string) {
		sum := &Summary{Setup: s, Fault: f, Nemesis: nemesis.Scripted, Runs: 3, TookEffect: tookEffect,
			Versions: "server 1.0 | <b>bold</b>", Library: "lib v1", StartUp: 140 * time.Millisecond, Elapsed: 10 * time.Second, Model: model}
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
		sum.modelWords()
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
	campaign(mutex, history.FaultClientPause, pauseModel(t, mutex), map[string]int{impl.AtMostOneClientHoldLock: 3, impl.NoLostUpdate: 3}, 3, saveRun(mutex))
	campaign(mutex, history.FaultServerPause, serverPauseModel(), nil, 0, "")
	campaign(all, history.FaultClientPause, pauseModel(t, all), map[string]int{impl.AtMostOneClientHoldLock: 2}, 2, saveRun(all))
	return out
}

const (
	fixtureReadme = "# title\n\nbefore\n" + ReadmeBegin + "old block\n" + ReadmeEnd + "\nafter\n"
	fixturePage   = "# live\n\n" + ReadmeBegin + "old detail\n" + ReadmeEnd + "\nend\n"
)

// writeReadme writes text as root's README.md and fixturePage as the
// LivePage beside it (with ends' line ends), and returns the README's
// path.
func writeReadme(t *testing.T, root, text string, ends func(string) string) string {
	t.Helper()
	readme := filepath.Join(root, "README.md")
	require.NoError(t, os.WriteFile(readme, []byte(text), 0o644))
	page := filepath.Join(root, filepath.FromSlash(LivePage))
	require.NoError(t, os.MkdirAll(filepath.Dir(page), 0o755))
	require.NoError(t, os.WriteFile(page, []byte(ends(fixturePage)), 0o644))
	return readme
}

func same(s string) string { return s }

func TestLiveBlockGolden(t *testing.T) {
	out := readmeFixture(t)
	cs, err := ReadSummaries(out, setup.All())
	require.NoError(t, err)
	require.Len(t, cs, 3)
	block := LiveBlock(cs)
	golden.File(t, *update, filepath.Join("testdata", "readme_block.golden.md"), []byte(block))
	// A grid: the lines in impl.Designs' order (all before renewal), a
	// column per fault run, each cell the live word linked to the copied
	// run and the model's word for that fault — the simulator's on the
	// story, the unchecked client's story for the checked Redis client,
	// the row's where the fault does not map.
	assert.Less(t, strings.Index(block, "`redis/all`"), strings.Index(block, "`etcd/mutex`"))
	assert.True(t, strings.HasPrefix(block, "| Setup (row) | client-pause | server-pause |\n"), block)
	assert.Contains(t, block, "| `etcd/mutex` (`renewal`) | [violated 3/3 A L](docs/live/etcd/mutex/client-pause/run-1/) · sim ✗ A L | inconclusive 0/3 · row ✗ A L |")
	assert.Contains(t, block, "| `redis/all` (`all`) | [violated 2/3 A](docs/live/redis/all/client-pause/run-1/) · sim* ✗ A | |")
	assert.NotContains(t, block, " **≠ ", "no disagreement")
	assert.Equal(t, 2+2+2, strings.Count(block, "\n"), "a header, a rule, one line per setup, a blank line and the legend")

	detail := LiveDetail(cs)
	golden.File(t, *update, filepath.Join("testdata", "live_detail.golden.md"), []byte(detail))
	// The detail: every property per campaign, the model's word for the
	// story beside the live one, links relative to LivePage, the file's
	// strings defanged.
	assert.Contains(t, detail, "violated on this story (sim, 3 of 3 runs) · [violated (3 of 3)](live/etcd/mutex/client-pause/run-1/)")
	assert.Contains(t, detail, "violated (the row's; no model story: fault 1: a server pause does not map) · inconclusive (the fault took effect in 0 of 3)")
	assert.Contains(t, detail, "· held while the fault took effect in 2 of 3")
	assert.NotContains(t, detail, "<b>")
	assert.Equal(t, 2+3, strings.Count(detail, "\n"), "a header, a rule and one line per campaign")
}

// TestLiveBlockFitsFortyLines: the grid of the whole scripted matrix —
// every setup of the registry under each of its faults, and the
// unchecked client line of each lease with a fixed end — stays under 40
// lines with its legend, one line per setup and client line.
func TestLiveBlockFitsFortyLines(t *testing.T) {
	var cs []Campaign
	lines := 0
	for _, s := range setup.All() {
		variants := []setup.Setup{s}
		if s.Leased {
			variants = append(variants, s.WithUncheckedClient())
		}
		lines++ // the unchecked client's words share its setup's line
		for _, line := range variants {
			for _, f := range s.Faults {
				sum := SavedSummary{Setup: line.ID(), Row: line.Design.String(), Fault: f, Nemesis: nemesis.Scripted, Runs: 3, TookEffect: 3}
				for _, p := range check.Properties() {
					sum.Tallies = append(sum.Tallies, SavedTally{Property: p, Runs: 3, TookEffect: 3})
				}
				cs = append(cs, Campaign{Setup: line, Summary: sum})
			}
		}
	}
	block := LiveBlock(cs)
	assert.Less(t, strings.Count(block, "\n"), 40, block)
	assert.Equal(t, lines, strings.Count(block, "\n| `"), "one line per setup")
	assert.Contains(t, block, "<br>unchecked client: ", "the unchecked client's word under the checked one's")
	assert.NotContains(t, block, setup.UncheckedSuffix+"`", "no line of its own")
}

func TestUpdateReadmeWritesTheBlockAndCopiesTheRun(t *testing.T) {
	out := readmeFixture(t)
	cs, err := ReadSummaries(out, setup.All())
	require.NoError(t, err)
	root := t.TempDir()
	readme := writeReadme(t, root, fixtureReadme, same)
	mine := filepath.Join(root, "docs", "live", "etcd", "notes.txt")
	require.NoError(t, os.MkdirAll(filepath.Dir(mine), 0o755))
	require.NoError(t, os.WriteFile(mine, []byte("mine"), 0o644))

	require.NoError(t, UpdateReadme(readme, cs))
	got, err := os.ReadFile(readme)
	require.NoError(t, err)
	assert.Equal(t, "# title\n\nbefore\n"+ReadmeBegin+LiveBlock(cs)+ReadmeEnd+"\nafter\n", string(got))
	detail, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(LivePage)))
	require.NoError(t, err)
	assert.Equal(t, "# live\n\n"+ReadmeBegin+LiveDetail(cs)+ReadmeEnd+"\nend\n", string(detail))
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
		{"no live page", fixtureReadme, func(t *testing.T, root string) {
			require.NoError(t, os.Remove(filepath.Join(root, filepath.FromSlash(LivePage))))
		}, "live.md"},
		{"a live page without markers", fixtureReadme, func(t *testing.T, root string) {
			require.NoError(t, os.WriteFile(filepath.Join(root, filepath.FromSlash(LivePage)), []byte("# mine\n"), 0o644))
		}, "has no live block"},
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
			readme := writeReadme(t, root, tc.readme, same)
			page, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(LivePage)))
			require.NoError(t, err)
			if tc.prep != nil {
				tc.prep(t, root)
			}
			err = UpdateReadme(readme, cs)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			got, rerr := os.ReadFile(readme)
			require.NoError(t, rerr)
			assert.Equal(t, tc.readme, string(got), "the README untouched")
			if after, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(LivePage))); err == nil && !strings.HasPrefix(string(after), "# mine") {
				assert.Equal(t, string(page), string(after), "the live page untouched")
			}
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
		// The model's words: recomputed from the stories by running the
		// simulator, never taken from the file.
		{"a story the simulator does not violate", func(s string) string {
			return strings.Replace(s, `"violated": [
          "AtMostOneClientHoldLock",
          "NoLostUpdate"
        ]`, `"violated": []`, 1)
		}, "the simulator violates [AtMostOneClientHoldLock NoLostUpdate]"},
		{"the model's word rewritten", func(s string) string {
			return strings.Replace(s, `"model": "violated on this story (sim, 3 of 3 runs)"`, `"model": "holds on this story (sim, 3 of 3 runs)"`, 1)
		}, "the model's word is"},
		{"a story of more runs", func(s string) string {
			return strings.Replace(s, `"runs": 3,
        "violated"`, `"runs": 4,
        "violated"`, 1)
		}, "the model's stories tell 4 runs of 3"},
		{"a schedule the simulator refuses", func(s string) string { return strings.Replace(s, `"duration": "3s"`, `"duration": "-3s"`, 1) }, "model story 1"},
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
			require.Len(t, cs, 3)
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
			root := t.TempDir()
			readme := writeReadme(t, root, tc.ends(fixtureReadme), tc.ends)
			require.NoError(t, UpdateReadme(readme, cs))
			got, err := os.ReadFile(readme)
			require.NoError(t, err)
			assert.Equal(t, tc.ends("# title\n\nbefore\n"+ReadmeBegin+LiveBlock(cs)+ReadmeEnd+"\nafter\n"), string(got))
			page, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(LivePage)))
			require.NoError(t, err)
			assert.Equal(t, tc.ends("# live\n\n"+ReadmeBegin+LiveDetail(cs)+ReadmeEnd+"\nend\n"), string(page))

			none := tc.ends("# a README of someone else\n")
			require.NoError(t, os.WriteFile(readme, []byte(none), 0o644))
			err = UpdateReadme(readme, cs)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "has no live block")
		})
	}
}

// TestDisagreementWithTheModelsStory: a campaign whose model story
// violates AtMostOneClientHoldLock and NoLostUpdate (the simulator on its
// runs' schedule) while no live run did, the fault in effect in all 3,
// disagrees: it fails the campaign (exit 1), says so in its output, its
// grid cell and its detail line; its summary cannot hide it. The same
// runs with the fault in effect in 2 of 3, or with the checked Redis
// client's story (the unchecked client's), do not disagree.
func TestDisagreementWithTheModelsStory(t *testing.T) {
	mutex, err := setup.Find(setup.All(), "etcd", "mutex")
	require.NoError(t, err)
	all, err := setup.Find(setup.All(), "redis", "all")
	require.NoError(t, err)
	summary := func(s setup.Setup, tookEffect int) *Summary {
		sum := &Summary{Setup: s, Fault: history.FaultClientPause, Nemesis: nemesis.Scripted, Runs: 3, TookEffect: tookEffect, Model: pauseModel(t, s)}
		for _, p := range check.Properties() {
			tally := Tally{Property: p, Expected: check.Expected(s.Design, p), Runs: 3, TookEffect: tookEffect}
			if tally.Expected != verdict.NotApplicable {
				tally.Unknown = 3 - tookEffect
			}
			sum.Tallies = append(sum.Tallies, tally)
		}
		sum.modelWords()
		return sum
	}
	for _, tc := range []struct {
		name      string
		sum       *Summary
		disagrees []string
	}{
		{"the story violates, live held in 3 of 3", summary(mutex, 3), []string{impl.AtMostOneClientHoldLock, impl.NoLostUpdate}},
		{"the fault took effect in 2 of 3", summary(mutex, 2), nil},
		{"the unchecked client's story", summary(all, 3), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, tl := range tc.sum.Tallies {
				if tl.Disagrees() {
					got = append(got, tl.Property)
				}
			}
			assert.Equal(t, tc.disagrees, got)
			assert.Equal(t, len(tc.disagrees) > 0, tc.sum.Failed(), "a disagreement fails the campaign")
			var b strings.Builder
			require.NoError(t, tc.sum.Write(&b))
			assert.Equal(t, len(tc.disagrees), strings.Count(b.String(), "DISAGREES"), b.String())
			assert.Equal(t, len(tc.disagrees) > 0, strings.Contains(tc.sum.Verdict(nil), fmt.Sprintf(", %d disagreeing with the model's story;", len(tc.disagrees))), tc.sum.Verdict(nil))

			out := t.TempDir()
			require.NoError(t, tc.sum.save(out))
			cs, err := ReadSummaries(out, setup.All())
			require.NoError(t, err)
			require.Len(t, cs, 1)
			if len(tc.disagrees) == 0 {
				assert.NotContains(t, LiveBlock(cs), " **≠ ")
				return
			}
			assert.Contains(t, LiveBlock(cs), "held 3/3 · sim ✗ A L **≠ A L**")
			assert.Contains(t, LiveDetail(cs), "held while the fault took effect in 3 of 3 **DISAGREES with the model's story**")

			// A summary that hides it is refused.
			file := filepath.Join(out, "etcd", "mutex", "client-pause", SummaryFile)
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			hidden := strings.ReplaceAll(string(data), `"disagrees": true`, `"disagrees": false`)
			require.NotEqual(t, string(data), hidden)
			require.NoError(t, os.WriteFile(file, []byte(hidden), 0o644))
			_, err = ReadSummaries(out, setup.All())
			require.Error(t, err)
			assert.Contains(t, err.Error(), "disagreeing true")
		})
	}
}

// TestReadSummariesWithoutTheModel: a summary written before the model's
// stories were kept reads, each property with the row's word, marked as
// the row's.
func TestReadSummariesWithoutTheModel(t *testing.T) {
	out := readmeFixture(t)
	file := filepath.Join(out, "etcd", "mutex", "client-pause", SummaryFile)
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	var sum map[string]any
	require.NoError(t, json.Unmarshal(data, &sum))
	delete(sum, "model")
	for _, tl := range sum["properties"].([]any) {
		delete(tl.(map[string]any), "model")
	}
	data, err = json.Marshal(sum)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, data, 0o644))
	cs, err := ReadSummaries(out, setup.All())
	require.NoError(t, err)
	assert.Contains(t, LiveBlock(cs), "[violated 3/3 A L](docs/live/etcd/mutex/client-pause/run-1/) · row ✗ A L |")
	assert.Contains(t, LiveDetail(cs), "violated (the row's; no model story: "+noModelKept+") · [violated (3 of 3)]")
}

// TestGridCellMixedStories: where the simulator violates a property on
// some of a campaign's stories only, the cell says so ("~"), never "✓".
func TestGridCellMixedStories(t *testing.T) {
	mutex, err := setup.Find(setup.All(), "etcd", "mutex")
	require.NoError(t, err)
	violating := pauseModel(t, mutex).Stories[0]
	violating.Runs = 2
	quiet := Story{Clients: 2, Sections: 3, Schedule: &sim.Schedule{Version: sim.ScheduleVersion, Seed: 1, Faults: []sim.Fault{}}, Runs: 1, Violated: []string{}}
	sum := SavedSummary{Setup: mutex.ID(), Row: mutex.Design.String(), Fault: history.FaultClientPause, Nemesis: nemesis.Scripted, Runs: 3, TookEffect: 3,
		Model: &Model{Stories: []Story{violating, quiet}}}
	for _, p := range check.Properties() {
		sum.Tallies = append(sum.Tallies, SavedTally{Property: p, Runs: 3, TookEffect: 3})
	}
	c := Campaign{Setup: mutex, Summary: sum}
	require.NoError(t, c.Summary.Model.verify(mutex.Design, 3))
	assert.Equal(t, "held 3/3 · sim ~ A L", c.gridCell())
	got, _ := c.tally(impl.NoLostUpdate)
	assert.Equal(t, "violated on 2 of 3 runs' stories (sim)", got.ModelString())
	assert.False(t, got.Disagrees(), "not every story violates it")
}
