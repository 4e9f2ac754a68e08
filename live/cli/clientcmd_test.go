package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/internal/livetest"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClientCmdSetup: --client-cmd takes the lock of --design's setup
// (by its name or its row) and keeps the rest of it; the command reaches
// the client processes in their configuration.
func TestClientCmdSetup(t *testing.T) {
	for _, design := range []string{"all", impl.DesignFenceAll.String(), "all+unchecked"} {
		job, err := parseRun(setup.All(), []string{"--service", "redis", "--design", design, "--client-cmd", "my-lock --fast"}, &bytes.Buffer{})
		require.NoError(t, err, design)
		s := job.plans[0].Run.Setup
		assert.Equal(t, "my-lock --fast", s.ClientCommand)
		assert.Equal(t, impl.DesignFenceAll, s.Design)
		assert.Equal(t, "client command: my-lock --fast", s.LibraryVersion())
		assert.Equal(t, design == "all+unchecked", s.Unchecked)
	}
	job, err := parseRun(setup.All(), []string{"--service", "zookeeper", "--design", "revision", "--client-cmd", "x"}, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, "zookeeper/zxid-revision", job.plans[0].Run.Setup.ID(), "the row names the service's setup of it")
}

// TestMatrixClientCmd: matrix --client-cmd is one setup's matrix, its
// classic faults (and, --client both, its unchecked line), each run with
// its lock taken by the command.
func TestMatrixClientCmd(t *testing.T) {
	job, err := parseMatrix(setup.All(), []string{"--service", "redis", "--design", "off", "--client-cmd", "my-lock", "--client", "both"}, &bytes.Buffer{})
	require.NoError(t, err)
	var ids []string
	for _, p := range job.plans {
		assert.Equal(t, "my-lock", p.Run.Setup.ClientCommand)
		ids = append(ids, p.Run.Setup.ID()+" "+string(p.Run.Fault))
	}
	assert.Equal(t, []string{"redis/off client-pause", "redis/off+unchecked client-pause", "redis/off clock-step"}, ids)
}

// TestConformClientCommand: conform-client's output, a line a check, and
// its exit code, on a good example and a broken client.
func TestConformClientCommand(t *testing.T) {
	s := livetest.MustSetup(t, setup.All(), "redis", "redis-py")
	livetest.NeedSetup(t, s)
	var stdout, stderr bytes.Buffer
	code := Run(setup.All(), []string{"conform-client", "--service", "redis", "--client-cmd", s.ClientCommand}, strings.NewReader(""), &stdout, &stderr)
	assert.Equal(t, ExitOK, code, "%s%s", stdout.String(), stderr.String())
	assert.Contains(t, stdout.String(), "12 passed, 0 failed")

	stdout.Reset()
	code = Run(setup.All(), []string{"conform-client", "--service", "redis", "--client-cmd", `read -r l; echo '{"op":"hello"'`}, strings.NewReader(""), &stdout, &stderr)
	assert.Equal(t, ExitFailure, code)
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	require.Len(t, lines, 2, "%s", stdout.String())
	assert.True(t, strings.HasPrefix(lines[0], "FAIL hello: "), lines[0])
	assert.Contains(t, lines[0], `output line 1 "{\"op\":\"hello\""`)
	assert.Equal(t, "0 passed, 1 failed: the client command does not conform to docs/protocol.md", lines[1])
}
