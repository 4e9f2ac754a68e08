package campaign

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/report"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// simLine is the line SaveRun ends faults.txt with when the run maps onto
// the simulator.
const simLine = "the simulator's version: " + report.SimScheduleFile + " (run it with " + report.SimCommandFile + ")\n"

// TestUpdateReadmeCopiesTheSimulatorsVersion: a linked run's
// sim-schedule.json and sim-command.txt are copied beside its faults.txt,
// which names them, and listed on its trace page; a run without them (or
// with one) gets its faults.txt's line naming them replaced, so that a
// copy never names a file it lacks.
func TestUpdateReadmeCopiesTheSimulatorsVersion(t *testing.T) {
	const (
		schedule = `{"version":1,"seed":3,"faults":[]}` + "\n"
		command  = "fencelab sim --design none --clients 2 --sections 3 --schedule sim-schedule.json\n"
		logged   = "    0.014s  client-pause   c1       pause c1 for 3s\n"
	)
	tests := []struct {
		name       string
		files      map[string]string // besides the fixture's, in the saved run
		wantFaults string
		wantCopied []string
		wantAbsent []string
	}{
		{"both", map[string]string{report.SimScheduleFile: schedule, report.SimCommandFile: command},
			logged + simLine, []string{report.SimScheduleFile, report.SimCommandFile}, nil},
		{"neither", nil,
			logged + simNotKept + "\n", nil, []string{report.SimScheduleFile, report.SimCommandFile}},
		{"the schedule alone", map[string]string{report.SimScheduleFile: schedule},
			logged + simNotKept + "\n", []string{report.SimScheduleFile}, []string{report.SimCommandFile}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := readmeFixture(t)
			mutex, err := setup.Find(setup.All(), "etcd", "mutex")
			require.NoError(t, err)
			src := report.RunDir(out, mutex, history.FaultClientPause, 1)
			require.NoError(t, os.WriteFile(filepath.Join(src, report.FaultsFile), []byte(logged+simLine), 0o644))
			for name, text := range tc.files {
				require.NoError(t, os.WriteFile(filepath.Join(src, name), []byte(text), 0o644))
			}
			cs, err := ReadSummaries(out, setup.All())
			require.NoError(t, err)
			root := t.TempDir()
			readme := writeReadme(t, root, fixtureReadme, same)
			require.NoError(t, UpdateReadme(readme, cs))

			run := filepath.Join(root, "docs", "live", "etcd", "mutex", "client-pause", "run-1")
			faults, err := os.ReadFile(filepath.Join(run, report.FaultsFile))
			require.NoError(t, err)
			assert.Equal(t, tc.wantFaults, string(faults))
			page, err := os.ReadFile(filepath.Join(run, TracePage))
			require.NoError(t, err)
			for _, name := range tc.wantCopied {
				got, err := os.ReadFile(filepath.Join(run, name))
				require.NoError(t, err)
				assert.Equal(t, tc.files[name], string(got))
				assert.Contains(t, string(page), "- ["+name+"]("+name+")")
			}
			for _, name := range tc.wantAbsent {
				assert.NoFileExists(t, filepath.Join(run, name))
			}
			assertNamesOnlyFilesBeside(t, filepath.Join(run, report.FaultsFile))
		})
	}
}

// TestKeepFaultsHonest: only the lines naming the simulator's files
// change, line ends kept, and nothing changes when both files are there.
func TestKeepFaultsHonest(t *testing.T) {
	has := func(names ...string) func(string) bool {
		return func(n string) bool { return strings.Contains(strings.Join(names, " "), n) }
	}
	noSim := "    1.000s  delay   c1   hold c1's messages\nno simulator schedule: fault 1: a delay does not map\n"
	tests := []struct {
		name   string
		faults string
		has    func(string) bool
		want   string
	}{
		{"both there", "a\n" + simLine, has(report.SimScheduleFile, report.SimCommandFile), "a\n" + simLine},
		{"neither", "a\n" + simLine, has(), "a\n" + simNotKept + "\n"},
		{"the command alone", "a\n" + simLine, has(report.SimCommandFile), "a\n" + simNotKept + "\n"},
		{"CRLF, no final newline", "a\r\n" + strings.TrimSuffix(simLine, "\n"), has(), "a\r\n" + simNotKept},
		{"CRLF", "a\r\n" + strings.TrimSuffix(simLine, "\n") + "\r\n", has(), "a\r\n" + simNotKept + "\r\n"},
		{"no line names them", noSim, has(), noSim},
		{"empty", "", has(), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, string(keepFaultsHonest([]byte(tc.faults), tc.has)))
		})
	}
}

// fileName is a saved run's file name as faults.txt would name one.
var fileName = regexp.MustCompile(`[A-Za-z0-9_.-]+\.(?:jsonl|json|txt|md|html|mmd)\b`)

// assertNamesOnlyFilesBeside: every file the faults.txt at path names is
// beside it.
func assertNamesOnlyFilesBeside(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	for _, name := range fileName.FindAllString(string(data), -1) {
		assert.FileExists(t, filepath.Join(filepath.Dir(path), name), "%s names %s", path, name)
	}
}

// TestCommittedFaultsNameOnlyFilesBeside: every faults.txt under docs/live
// (the README's copied runs) names only files beside it. With -update,
// each is first made so as the README step makes its copies
// (keepFaultsHonest): runs copied before the simulator's files were lose
// the line naming them.
func TestCommittedFaultsNameOnlyFilesBeside(t *testing.T) {
	var paths []string
	err := filepath.WalkDir(filepath.Join("..", "..", DocsDir), func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && d.Name() == report.FaultsFile {
			paths = append(paths, path)
		}
		return err
	})
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, path := range paths {
		if *update {
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			honest := keepFaultsHonest(data, func(name string) bool {
				info, err := os.Stat(filepath.Join(filepath.Dir(path), name))
				return err == nil && info.Mode().IsRegular()
			})
			require.NoError(t, os.WriteFile(path, honest, 0o644))
		}
		assertNamesOnlyFilesBeside(t, path)
	}
}

// TestRunPageHasTheModelsWordForTheRun: a copied run's page lists each
// property's row verdict, the run's, and the simulator's on the run's own
// story, recomputed from its sim-schedule.json (a committed make live run
// of etcd/mutex under a client pause, whose story the simulator
// violates as the run did); a schedule the simulator refuses stops the
// readme before anything is written.
func TestRunPageHasTheModelsWordForTheRun(t *testing.T) {
	committed := filepath.Join("..", "..", "docs", "live", "etcd", "mutex", "client-pause", "run-1")
	for _, tc := range []struct {
		name, schedule, want string
	}{
		{"the committed run", "", ""},
		{"a pause of a client the run does not have", `"node": "c9"`, report.SimScheduleFile},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := readmeFixture(t)
			mutex, err := setup.Find(setup.All(), "etcd", "mutex")
			require.NoError(t, err)
			src := report.RunDir(out, mutex, history.FaultClientPause, 1)
			for _, name := range []string{report.VerdictsFile, report.JudgedFile, report.SimScheduleFile, report.SimCommandFile, report.HistoryFile, report.FaultsFile} {
				data, err := os.ReadFile(filepath.Join(committed, name))
				require.NoError(t, err)
				if name == report.SimScheduleFile && tc.schedule != "" {
					edited := regexp.MustCompile(`"node": "c[0-9]"`).ReplaceAllString(string(data), tc.schedule)
					require.NotEqual(t, string(data), edited)
					data = []byte(edited)
				}
				require.NoError(t, os.WriteFile(filepath.Join(src, name), data, 0o644))
			}
			cs, err := ReadSummaries(out, setup.All())
			require.NoError(t, err)
			root := t.TempDir()
			readme := writeReadme(t, root, fixtureReadme, same)
			err = UpdateReadme(readme, cs)
			run := filepath.Join(root, "docs", "live", "etcd", "mutex", "client-pause", "run-1")
			if tc.want != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.want)
				assert.NoDirExists(t, run, "nothing copied")
				return
			}
			require.NoError(t, err)
			page, err := os.ReadFile(filepath.Join(run, TracePage))
			require.NoError(t, err)
			for _, line := range []string{
				"| AtMostOneClientHoldLock | violated | violated | violated |",
				"| TokenIsMonotonical | — | — | — |",
				"| NoLostUpdate | violated | violated | violated |",
				"| NoActionPastValidity | holds | holds | — |",
			} {
				assert.Contains(t, string(page), line+"\n")
			}
		})
	}
}
