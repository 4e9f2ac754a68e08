package cli

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/internal/livetest"
	"github.com/fencelab/fencelab/live/internal/toystore"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStoreCmdSetup: --store-cmd makes the command the resource of
// --design's setup (by its name or its row), with --client-cmd or
// without; a setup with a real store of its own, or a bad command, is
// one line and exit 2.
func TestStoreCmdSetup(t *testing.T) {
	for _, design := range []string{"all", "all+unchecked"} {
		job, err := parseRun(setup.All(), []string{"--service", "redis", "--design", design, "--store-cmd", "my-store --fast"}, &bytes.Buffer{})
		require.NoError(t, err, design)
		s := job.plans[0].Run.Setup
		assert.Equal(t, "my-store --fast", s.StoreCommand)
		assert.Equal(t, impl.DesignFenceAll, s.Design)
		assert.Empty(t, s.ClientCommand)
	}
	job, err := parseRun(setup.All(), []string{"--service", "zookeeper", "--design", "revision", "--store-cmd", "x", "--client-cmd", "y"}, &bytes.Buffer{})
	require.NoError(t, err)
	s := job.plans[0].Run.Setup
	assert.Equal(t, "zookeeper/zxid-revision", s.ID(), "the row names the service's setup of it")
	assert.Equal(t, "x", s.StoreCommand)
	assert.Equal(t, "y", s.ClientCommand)

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--service", "mariadb", "--design", "getlock-durable", "--store-cmd", "x"}, "mariadb/getlock-durable has a real store already"},
		{[]string{"--service", "etcd", "--design", "lock-guarded", "--store-cmd", "x"}, "etcd/lock-guarded has a real store already"},
		{[]string{"--service", "redis", "--design", "all", "--store-cmd", " "}, "--store-cmd is empty"},
		{[]string{"--service", "redis", "--design", "all", "--store-cmd", "a\nb"}, "--store-cmd must be one line"},
		{[]string{"--service", "redis", "--design", "nope", "--store-cmd", "x"}, `unknown design "nope"`},
	} {
		var stdout, stderr bytes.Buffer
		code := Run(setup.All(), append([]string{"run"}, tc.args...), strings.NewReader(""), &stdout, &stderr)
		assert.Equal(t, ExitBadInput, code, "%v", tc.args)
		assert.Contains(t, stderr.String(), tc.want)
		assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "one line: %q", stderr.String())
	}
}

// TestSequencerRowTakesNoStoreCmd: a row whose resource asks the lock
// service cannot be a store command's claim.
func TestSequencerRowTakesNoStoreCmd(t *testing.T) {
	s := livetest.MustSetup(t, livetest.Toy(), "toy", "all")
	s.Design = impl.DesignSequencer
	_, err := s.WithStoreCommand("x")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "sequencer")
}

// TestMatrixStoreCmd: matrix --store-cmd is one setup's matrix, each run
// with the command as its resource; it needs --service and --design.
func TestMatrixStoreCmd(t *testing.T) {
	job, err := parseMatrix(setup.All(), []string{"--service", "redis", "--design", "all", "--store-cmd", "my-store"}, &bytes.Buffer{})
	require.NoError(t, err)
	var ids []string
	for _, p := range job.plans {
		assert.Equal(t, "my-store", p.Run.Setup.StoreCommand)
		ids = append(ids, p.Run.Setup.ID()+" "+string(p.Run.Fault))
	}
	assert.Equal(t, []string{"redis/all client-pause", "redis/all clock-step"}, ids)
	_, err = parseMatrix(setup.All(), []string{"--store-cmd", "my-store"}, &bytes.Buffer{})
	assert.EqualError(t, err, "--store-cmd needs --service and --design (the setup or row it claims)")
}

// TestConformStoreCommand: conform-store's output, a line a check, and
// its exit code: the toy store passes, a store that fences nothing fails
// at the stale write, one whose log is not its answers at the log, and
// bad flags are exit 2.
func TestConformStoreCommand(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := Run(nil, []string{"conform-store", "--store-cmd", toystore.Command(toystore.Good)}, strings.NewReader(""), &stdout, &stderr)
	assert.Equal(t, ExitOK, code, "%s%s", stdout.String(), stderr.String())
	assert.Contains(t, stdout.String(), "14 passed, 0 failed: the store command conforms to docs/store-protocol.md (fencelab-store/1) and fences as row all")

	for _, tc := range []struct {
		behaviour, design, fail string
	}{
		{toystore.AcceptAll, "all", "FAIL operation 4: c1 write 2, token 1: the store accepted it; a resource fencing all refused it"},
		{toystore.LogFlipped, "all", "FAIL log: store command broke fencelab-store/1: output line 13 (log): operation 1 is"},
		{toystore.WrongOp, "all", `FAIL operation 1: c1 read, token 1: store command broke fencelab-store/1: output line 2`},
		{toystore.ExitAtOnce, "all", `FAIL hello: store command broke fencelab-store/1: the store exited (exit status 3)`},
	} {
		stdout.Reset()
		code := Run(nil, []string{"conform-store", "--design", tc.design, "--store-cmd", toystore.Command(tc.behaviour)}, strings.NewReader(""), &stdout, &stderr)
		assert.Equal(t, ExitFailure, code, tc.behaviour)
		assert.Contains(t, stdout.String(), tc.fail, tc.behaviour)
		assert.Contains(t, stdout.String(), "failed: the store command does not conform", tc.behaviour)
	}

	for _, args := range [][]string{
		{"conform-store"},
		{"conform-store", "--store-cmd", "x", "--design", "nope"},
		{"conform-store", "--store-cmd", "x", "--design", "sequencer"},
		{"conform-store", "--store-cmd", "x", "extra"},
	} {
		stderr.Reset()
		code := Run(nil, args, strings.NewReader(""), &stdout, &stderr)
		assert.Equal(t, ExitBadInput, code, "%v", args)
		assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "one line: %q", stderr.String())
	}
}

// pythonStore is the example store's command, or a skip where python3 is
// missing (make live-deps installs it).
func pythonStore(t *testing.T, args string) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed (make live-deps)")
	}
	script, err := filepath.Abs(filepath.Join("..", "examples", "python", "fenced_store.py"))
	require.NoError(t, err)
	return py + " " + script + args
}

// TestConformStorePythonExample: the example store on SQLite conforms to
// row all; its unfenced variant does not.
func TestConformStorePythonExample(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := Run(nil, []string{"conform-store", "--store-cmd", pythonStore(t, "")}, strings.NewReader(""), &stdout, &stderr)
	assert.Equal(t, ExitOK, code, "%s%s", stdout.String(), stderr.String())
	assert.Contains(t, stdout.String(), "14 passed, 0 failed")
	stdout.Reset()
	code = Run(nil, []string{"conform-store", "--store-cmd", pythonStore(t, " --unfenced")}, strings.NewReader(""), &stdout, &stderr)
	assert.Equal(t, ExitFailure, code, "%s%s", stdout.String(), stderr.String())
	assert.Contains(t, stdout.String(), "FAIL operation 4: c1 write 2, token 1: the store accepted it")
	// The example fences all: claiming writes, it refuses what that row
	// accepts.
	stdout.Reset()
	code = Run(nil, []string{"conform-store", "--design", "writes", "--store-cmd", pythonStore(t, "")}, strings.NewReader(""), &stdout, &stderr)
	assert.Equal(t, ExitFailure, code, "%s%s", stdout.String(), stderr.String())
	assert.Contains(t, stdout.String(), "FAIL operation 4: c1 write 2, token 1: the store refused it; a resource fencing writes accepted it")
}

// TestRunStorePythonExample: the example store as the resource of a real
// run, Redis's lock, a client paused past its lease (the unchecked
// client, whose stale write reaches the store): the fenced store refuses
// it and NoLostUpdate holds with the fault in effect; the unfenced one
// accepts it and NoLostUpdate is violated (exit 1).
func TestRunStorePythonExample(t *testing.T) {
	if testing.Short() {
		t.Skip("real runs: redis-server and client processes")
	}
	livetest.NeedRedis(t)
	for _, tc := range []struct {
		args string
		code int
		want string
	}{
		{"", ExitOK, "NoLostUpdate             expected holds     live held while the fault took effect in 1 of 1"},
		{" --unfenced", ExitFailure, "NoLostUpdate             expected holds     live violated (1 of 1)"},
	} {
		t.Run("store"+tc.args, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Run(setup.All(), []string{"run", "--store-cmd", pythonStore(t, tc.args), "--service", "redis", "--design", "all",
				"--client", "unchecked", "--fault", "client-pause", "--runs", "1", "--out", t.TempDir()}, strings.NewReader(""), &stdout, &stderr)
			require.Equal(t, tc.code, code, "%s%s", stdout.String(), stderr.String())
			assert.Contains(t, stdout.String(), "store command: sqlite3")
			assert.Contains(t, stdout.String(), tc.want)
			if tc.args == "" {
				assert.Regexp(t, `[1-9]\d* operations refused`, stdout.String(), "the stale write refused")
			}
		})
	}
}

// TestHelpListsStoreCmd: fencelab-live --help and run -h name
// --store-cmd, and the usage names conform-store.
func TestHelpListsStoreCmd(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"run", "-h"}, {"matrix", "-h"}, {"conform-store", "-h"}} {
		var stdout, stderr bytes.Buffer
		code := Run(setup.All(), args, strings.NewReader(""), &stdout, &stderr)
		assert.Equal(t, ExitOK, code, "%v", args)
		assert.Contains(t, stdout.String(), "-store-cmd", "%v", args)
	}
}
