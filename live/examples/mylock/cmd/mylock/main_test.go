package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/live/cli"
	"github.com/fencelab/fencelab/live/examples/mylock"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain is the command too: a run re-executes its own binary (this
// test binary) with the role "client" for each client process.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "client" {
		main()
	}
	os.Exit(m.Run())
}

func setups() []setup.Setup { return append(setup.All(), mylock.Setup()) }

// TestListShowsMyLock: the appended setup is listed with its row, its
// faults and its server's version, after the five services' setups.
func TestListShowsMyLock(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := cli.Run(setups(), []string{"list"}, nil, &stdout, &stderr)
	require.Equal(t, cli.ExitOK, code, stderr.String())
	out := stdout.String()
	assert.Contains(t, out, "--service mylock     --design lease              row all")
	assert.Contains(t, out, "faults: client-pause, restart-wipe\n      server: fencelab; library: fencelab")
	assert.Less(t, strings.Index(out, "--service etcd"), strings.Index(out, "--service mylock"), "appended after the registry")
	stdout.Reset()
	require.Equal(t, cli.ExitOK, cli.Run(setup.All(), []string{"list"}, nil, &stdout, &stderr))
	assert.NotContains(t, stdout.String(), "mylock", "only where appended")
}

// TestRunMyLock: one scripted client-pause run of the example lock, its
// clients processes of this binary. With the client that does not check
// its lease (--client unchecked) the pause makes two holders (row all's
// AtMostOneClientHoldLock is violated, as the models expect; the client
// acts past its validity, as expected of it) and the register refuses the
// stale write (NoLostUpdate held while the fault took effect). The
// checked client (the default) gives its section up on resuming: the
// story takes effect and every property holds.
func TestRunMyLock(t *testing.T) {
	if testing.Short() {
		t.Skip("a real run: client processes and a pause")
	}
	run := func(client string) (string, string) {
		out := t.TempDir()
		var stdout, stderr bytes.Buffer
		code := cli.Run(setups(), []string{"run", "--service", "mylock", "--design", "lease", "--fault", "client-pause", "--runs", "1", "--out", out, "--client", client}, nil, &stdout, &stderr)
		require.Equal(t, cli.ExitOK, code, "stdout: %s\nstderr: %s", stdout.String(), stderr.String())
		return stdout.String(), out
	}
	s, out := run("unchecked")
	assert.Contains(t, s, "mylock/lease+unchecked (row all) under scripted client-pause: 1 runs")
	assert.Contains(t, s, "the fault took effect in 1 of 1 runs")
	assert.Regexp(t, `AtMostOneClientHoldLock +expected violated +live violated \(1 of 1\)`, s)
	assert.Regexp(t, `NoActionPastValidity +expected violated +live violated \(1 of 1\)`, s)
	assert.Regexp(t, `NoLostUpdate +expected holds +live held while the fault took effect in 1 of 1`, s)
	assert.DirExists(t, filepath.Join(out, "mylock", "lease+unchecked", "client-pause", "run-1"), "the violating run is saved")
	assert.True(t, strings.HasSuffix(s, "\nlive: mylock/lease+unchecked under scripted client-pause, 1 run: 2 properties violated as the models say, 0 unexpected, 0 expected but not shown; the fault took effect in 1 of 1\n"),
		"the closing verdict line, last on stdout: %s", s)

	s, out = run("checked")
	assert.Contains(t, s, "mylock/lease (row all) under scripted client-pause: 1 runs")
	// The story took effect (its validity ran out while it was stopped,
	// the other was granted), and the checked client gave up on resuming:
	// no two holders, which the models' client (paused after its check)
	// does not show.
	assert.Contains(t, s, "the fault took effect in 1 of 1 runs")
	assert.Regexp(t, `NoActionPastValidity +expected holds +live held while the fault took effect in 1 of 1`, s)
	assert.Regexp(t, `AtMostOneClientHoldLock +expected violated +live held while the fault took effect in 1 of 1`, s)
	assert.NoDirExists(t, filepath.Join(out, "mylock", "lease", "client-pause", "run-1"), "nothing violated, nothing saved")
}
