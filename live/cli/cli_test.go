package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/live/campaign"
	"github.com/fencelab/fencelab/live/report"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/fencelab/fencelab/shard"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBadInput(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no command", nil, "no command given"},
		{"unknown command", []string{"frobnicate"}, "unknown command"},
		{"unknown flag", []string{"run", "--bogus"}, "flag provided but not defined"},
		{"missing service", []string{"run", "--design", "all"}, "--service and --design are required"},
		{"unknown service", []string{"run", "--service", "memcached", "--design", "all"}, "unknown service"},
		{"hostile service", []string{"run", "--service", strings.Repeat("x", 5000) + "\n\x1b[2J", "--design", "all"}, "unknown service"},
		{"bad runs", []string{"run", "--service", "x", "--design", "y", "--runs", "many"}, "invalid value"},
		{"stray argument", []string{"run", "--service", "x", "--design", "y", "extra"}, "unexpected argument"},
		{"list with arguments", []string{"list", "extra"}, "list takes no arguments"},
		{"shard 3/2", []string{"run", "--service", "redis", "--design", "none", "--shard", "3/2"}, "the index must be below the count"},
		{"shard 0/0", []string{"run", "--service", "redis", "--design", "none", "--shard", "0/0"}, `the count "0"`},
		{"shard a/b", []string{"matrix", "--shard", "a/b"}, `the index "a"`},
		{"shard -1/2", []string{"matrix", "--shard", "-1/2"}, `the index "-1"`},
		{"shard huge", []string{"matrix", "--shard", "1/99999999999999999999"}, "the count"},
		{"shard and readme", []string{"matrix", "--shard", "0/2", "--update-readme", "README.md"}, "--update-readme is the merge's"},
		{"merge nothing", []string{"merge"}, "no shard result folder given"},
		{"merge no folder", []string{"merge", "/nonexistent/shard"}, "is not a shard result folder"},
		{"merge a flag", []string{"merge", "--fast"}, "flag provided but not defined"},
		{"bad client", []string{"run", "--service", "redis", "--design", "none", "--client", "lazy"}, `--client "lazy" (want checked, unchecked or both)`},
		{"run both clients", []string{"run", "--service", "redis", "--design", "none", "--client", "both"}, "--client both is the matrix's"},
		{"matrix bad client", []string{"matrix", "--client", ""}, `--client ""`},
		{"no unchecked line", []string{"matrix", "--service", "zookeeper", "--client", "unchecked"}, "no setup chosen has an unchecked client line"},
		{"unchecked twice", []string{"run", "--service", "redis", "--design", "none+unchecked+unchecked"}, "unknown design"},
		{"run keep", []string{"run", "--service", "redis", "--design", "none", "--keep", "sometimes"}, `invalid value "sometimes" for flag -keep: "sometimes" (want failing, all or none)`},
		{"matrix keep", []string{"matrix", "--keep", ""}, `invalid value "" for flag -keep`},
		{"check nothing", []string{"check"}, "no run folder given"},
		{"check no folder", []string{"check", "/nonexistent/run-1"}, "/nonexistent/run-1: not a saved run's folder"},
		{"check a file", []string{"check", "cli_test.go"}, "cli_test.go: not a saved run's folder"},
		{"check a flag", []string{"check", "--all"}, "flag provided but not defined"},
		{"check a folder of no run", []string{"check", "."}, "verdicts.json: missing"},
		{"empty client-cmd", []string{"run", "--service", "redis", "--design", "off", "--client-cmd", " "}, "--client-cmd is empty"},
		{"client-cmd of two lines", []string{"run", "--service", "redis", "--design", "off", "--client-cmd", "a\nb"}, "--client-cmd must be one line"},
		{"client-cmd huge", []string{"run", "--service", "redis", "--design", "off", "--client-cmd", strings.Repeat("x", 5000)}, "--client-cmd must be one line of at most 4096 bytes"},
		{"client-cmd no design", []string{"run", "--service", "redis", "--client-cmd", "x"}, "--service and --design are required"},
		{"client-cmd unknown row", []string{"run", "--service", "redis", "--design", "moat", "--client-cmd", "x"}, `unknown design "moat" for service redis`},
		{"client-cmd row the service lacks", []string{"run", "--service", "redis", "--design", "sequencer", "--client-cmd", "x"}, "service redis has no setup of row sequencer"},
		{"client-cmd unknown service", []string{"run", "--service", "memcached", "--design", "off", "--client-cmd", "x"}, `unknown service "memcached"`},
		{"matrix client-cmd no design", []string{"matrix", "--service", "redis", "--client-cmd", "x"}, "--client-cmd needs --service and --design"},
		{"matrix design alone", []string{"matrix", "--service", "redis", "--design", "off"}, "--design is --client-cmd's"},
		{"matrix client-cmd readme", []string{"matrix", "--service", "redis", "--design", "off", "--client-cmd", "x", "--update-readme", "README.md"}, "--update-readme writes the shipped setups' block"},
		{"matrix client-cmd empty", []string{"matrix", "--service", "redis", "--design", "off", "--client-cmd", ""}, "--client-cmd is empty"},
		{"conform no service", []string{"conform-client", "--client-cmd", "x"}, "--service is required"},
		{"conform no command", []string{"conform-client", "--service", "redis"}, "--client-cmd is required"},
		{"conform empty command", []string{"conform-client", "--service", "redis", "--client-cmd", ""}, "--client-cmd is empty"},
		{"conform unknown service", []string{"conform-client", "--service", "memcached", "--client-cmd", "x"}, "unknown service"},
		{"conform stray argument", []string{"conform-client", "--service", "redis", "--client-cmd", "x", "y"}, "unexpected argument"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Run(setup.All(), tc.args, strings.NewReader(""), &stdout, &stderr)
			assert.Equal(t, ExitBadInput, code)
			line := stderr.String()
			assert.Contains(t, line, tc.want)
			assert.Equal(t, 1, strings.Count(line, "\n"), "one line: %q", line)
			assert.Less(t, len(line), 600, "a bounded line")
			assert.Empty(t, stdout.String())
		})
	}
}

// TestClientLines: --client picks the client lines; the unchecked line is
// named apart (+unchecked, in IDs and so in folders and README rows) and
// the matrix runs it beside the checked one only where they differ.
func TestClientLines(t *testing.T) {
	run := func(client string) *liveJob {
		job, err := parseRun(setup.All(), []string{"--service", "redis", "--design", "none", "--client", client}, &bytes.Buffer{})
		require.NoError(t, err)
		require.Len(t, job.plans, 1)
		return job
	}
	s := run("checked").plans[0].Run.Setup
	assert.False(t, s.Unchecked)
	assert.Equal(t, "redis/none", s.ID())
	s = run("unchecked").plans[0].Run.Setup
	assert.True(t, s.Unchecked)
	assert.Equal(t, "redis/none+unchecked", s.ID())
	job, err := parseRun(setup.All(), []string{"--service", "redis", "--design", "none+unchecked"}, &bytes.Buffer{})
	require.NoError(t, err)
	assert.True(t, job.plans[0].Run.Setup.Unchecked, "the line's name is the flag's equal")

	lines := func(client string) (ids []string) {
		job, err := parseMatrix(setup.All(), []string{"--service", "redis", "--client", client}, &bytes.Buffer{})
		require.NoError(t, err)
		for _, p := range job.plans {
			ids = append(ids, p.Run.Setup.ID()+" "+string(p.Run.Fault))
		}
		return ids
	}
	checked, unchecked, both := lines("checked"), lines("unchecked"), lines("both")
	assert.Len(t, checked, 20, "5 Go redis setups × 2 faults, redis-py and redis-semaphore × 5 (a pause, a delay, a blackhole, a wiped restart, a clock step)")
	assert.Len(t, unchecked, 6, "each leased setup under the client pause")
	for _, id := range unchecked {
		assert.Contains(t, id, "+unchecked client-pause")
	}
	assert.ElementsMatch(t, append(checked, unchecked...), both)
	zk, err := parseMatrix(setup.All(), []string{"--service", "zookeeper", "--client", "both"}, &bytes.Buffer{})
	require.NoError(t, err)
	for _, p := range zk.plans {
		assert.False(t, p.Run.Setup.Unchecked, "a session lock has no fixed end: one line")
	}
}

func TestClientRoleRejectsBadConfig(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := Run(setup.All(), []string{"client"}, strings.NewReader(`{"client": 0, "clients": 2, "sections": 0}`), &stdout, &stderr)
	assert.Equal(t, ExitFailure, code)
	assert.Contains(t, stderr.String(), "client configuration")
	assert.Equal(t, 1, strings.Count(stderr.String(), "\n"))
}

func TestListNamesFaultsAndRows(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := Run(setup.All(), []string{"list"}, nil, &stdout, &stderr)
	assert.Equal(t, ExitOK, code)
	for _, want := range []string{"client-pause", "restart-wipe", "unique-cas", "TokenIsMonotonical holds", "RegisterLinearizable"} {
		assert.Contains(t, stdout.String(), want)
	}
}

func TestReadmeRefusesAFileWithoutMarkers(t *testing.T) {
	dir := t.TempDir()
	readme := filepath.Join(dir, "README.md")
	const text = "# someone else's README\n"
	require.NoError(t, os.WriteFile(readme, []byte(text), 0o644))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"readme", []string{"readme", "--out", dir, readme}, "has no live block"},
		{"matrix, before its first run", []string{"matrix", "--service", "etcd", "--runs", "1", "--out", dir, "--update-readme", readme}, "has no live block"},
		{"no file", []string{"readme", "--out", dir}, "want one README file"},
		{"a folder", []string{"readme", "--out", dir, dir}, "README"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Run(setup.All(), tc.args, strings.NewReader(""), &stdout, &stderr)
			assert.Equal(t, ExitBadInput, code)
			assert.Contains(t, stderr.String(), tc.want)
			assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "one line: %q", stderr.String())
			got, err := os.ReadFile(readme)
			require.NoError(t, err)
			assert.Equal(t, text, string(got))
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Len(t, entries, 1, "nothing written beside the README")
		})
	}
}

// TestMergeBadShards: shard folders that are not one whole campaign are
// one line each, exit 2, and nothing is merged.
func TestMergeBadShards(t *testing.T) {
	build, err := shard.ThisBuild(liveVersion)
	require.NoError(t, err)
	dir := t.TempDir()
	write := func(name string, id shard.Identity, i, n int) string {
		m, err := shard.New(id, shard.Spec{Index: i, Count: n}, 4, campaign.ShardResult{})
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, m.Write(&b))
		d := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(d, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(d, shard.FileName), b.Bytes(), 0o644))
		return d
	}
	id := shard.Identity{Command: "live run", Args: []string{"--design=none", "--runs=4", "--service=redis"}, Build: build}
	other := id
	other.Args = []string{"--design=all", "--runs=4", "--service=redis"}
	s0, s1 := write("s0", id, 0, 2), write("s1", id, 1, 2)
	o1 := write("o1", other, 1, 2)
	truncated := write("t1", id, 1, 2)
	data, err := os.ReadFile(filepath.Join(truncated, shard.FileName))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(truncated, shard.FileName), data[:len(data)/2], 0o644))
	for _, tc := range []struct {
		name string
		dirs []string
		want string
	}{
		{"missing", []string{s0}, "1 of 2 shards missing: 1"},
		{"duplicate", []string{s0, s1, s0}, "shard 0/2 given twice"},
		{"other campaign", []string{s0, o1}, "shards of different campaigns"},
		{"truncated", []string{s0, truncated}, "not a whole shard result"},
		{"its runs not the plan's", []string{s0, s1}, "0 campaigns, not the plan's 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "merged")
			var stdout, stderr bytes.Buffer
			code := Run(setup.All(), append([]string{"merge", "--out", out}, tc.dirs...), strings.NewReader(""), &stdout, &stderr)
			assert.Equal(t, ExitBadInput, code)
			assert.Contains(t, stderr.String(), tc.want)
			assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "one line: %q", stderr.String())
			assert.Empty(t, stdout.String())
			assert.NoDirExists(t, out)
		})
	}
}

// TestCheckCommittedRun: check judges a committed run again (exit 0, its
// verdicts printed); the same run with one saved verdict changed exits 1
// and says which; a good run beside a broken one is exit 2, one line.
func TestCheckCommittedRun(t *testing.T) {
	committed := filepath.Join("..", "..", "docs", "live", "redis", "none", "client-pause", "run-1")
	var stdout, stderr bytes.Buffer
	code := Run(setup.All(), []string{"check", committed}, nil, &stdout, &stderr)
	assert.Equal(t, ExitOK, code, stderr.String())
	assert.Contains(t, stdout.String(), "NoLostUpdate             expected violated  judged violated")
	assert.Contains(t, stdout.String(), "the same verdicts as verdicts.json")
	assert.Empty(t, stderr.String())

	planted := t.TempDir()
	for _, name := range []string{report.HistoryFile, report.VerdictsFile} {
		data, err := os.ReadFile(filepath.Join(committed, name))
		require.NoError(t, err)
		if name == report.VerdictsFile {
			i := strings.Index(string(data), `"status": "violated"`)
			require.Positive(t, i)
			data = []byte(string(data[:i]) + `"status": "holds"` + string(data[i+len(`"status": "violated"`):]))
		}
		require.NoError(t, os.WriteFile(filepath.Join(planted, name), data, 0o644))
	}
	stdout.Reset()
	code = Run(setup.All(), []string{"check", committed, planted}, nil, &stdout, &stderr)
	assert.Equal(t, ExitFailure, code)
	// The first violated verdict of the saved file was planted as holds
	// (which property that is follows the committed run, which make live
	// rewrites).
	assert.Regexp(t, `DIFFERENT from verdicts.json:\n    [A-Za-z]+: saved holds \(expected violated`, stdout.String())
	assert.Equal(t, "fencelab-live check: the judge's verdicts are not the saved ones\n", stderr.String())

	stdout.Reset()
	stderr.Reset()
	require.NoError(t, os.Remove(filepath.Join(planted, report.HistoryFile)))
	code = Run(setup.All(), []string{"check", committed, planted}, nil, &stdout, &stderr)
	assert.Equal(t, ExitBadInput, code)
	assert.Contains(t, stderr.String(), "history.jsonl: missing")
	assert.Equal(t, 1, strings.Count(stderr.String(), "\n"))
	assert.Empty(t, stdout.String())
}
