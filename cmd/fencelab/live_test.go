package main

import (
	"github.com/fencelab/fencelab/internal/testexec"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/pipeline"
	"github.com/stretchr/testify/assert"
)

// fakeLive puts on PATH (alone) a fencelab-live that prints its arguments
// and exits with the code its first argument names.
func fakeLive(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\necho \"args: $*\"\necho \"to stderr\" >&2\ncase \"$1\" in\n  exit-*) exit \"${1#exit-}\";;\n  signal) kill -TERM $$;;\nesac\n"
	testexec.Write(t, filepath.Join(dir, pipeline.LiveBinary), []byte(script))
	t.Setenv("PATH", dir)
}

func TestLivePassesArgumentsAndExitCode(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh for the fake fencelab-live")
	}
	fakeLive(t)
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"run", "--service", "redis", "--design", "none", "--fault", "client-pause"}, exitOK},
		{[]string{"exit-1", "x y"}, exitFailure},
		{[]string{"exit-2"}, exitBadInput},
		{[]string{"exit-130"}, 130},
		{[]string{"signal"}, 128 + 15},
		{[]string{"run", "--help"}, exitOK}, // a command's help is fencelab-live's
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append([]string{"live"}, tc.args...)...)
			assert.Equal(t, tc.code, code)
			assert.Equal(t, "args: "+strings.Join(tc.args, " ")+"\n", stdout)
			assert.Equal(t, "to stderr\n", stderr, "fencelab adds nothing to what fencelab-live says")
		})
	}
}

func TestLiveWithoutTheBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	code, stdout, stderr := runCLI(t, "live", "run", "--service", "redis", "--design", "none")
	assert.Equal(t, exitBadInput, code)
	assert.Empty(t, stdout)
	assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
	assert.Contains(t, stderr, "fencelab-live is not beside fencelab nor on PATH")
	assert.Contains(t, stderr, "make live")
	assert.Contains(t, stderr, "cd live && go build -o ../bin/fencelab-live ./cmd/fencelab-live")

	// Its own help and a missing command need no binary.
	code, stdout, _ = runCLI(t, "live", "--help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "fencelab live run --service redis --design none --fault client-pause")
	assert.Contains(t, stdout, "  check    saved runs judged again from their files alone")
	assert.Contains(t, stdout, "--keep failing|all|none")
	code, _, stderr = runCLI(t, "live")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "no live command given")
}
