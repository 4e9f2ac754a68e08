package conform_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fencelab/fencelab/live/conform"
	"github.com/fencelab/fencelab/live/internal/livetest"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runChecks(t *testing.T, s setup.Setup) []conform.Check {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	root := t.TempDir()
	checks, err := conform.Run(ctx, conform.Config{Command: s.ClientCommand, Setup: s, TempRoot: root})
	require.NoError(t, err)
	livetest.NothingLeft(t, root)
	return checks
}

// TestConformExamples: every shipped example passes every check against
// its real server.
func TestConformExamples(t *testing.T) {
	for _, s := range setup.All() {
		if s.ClientCommand == "" {
			continue
		}
		t.Run(s.ID(), func(t *testing.T) {
			livetest.NeedSetup(t, s)
			checks := runChecks(t, s)
			require.Len(t, checks, 12, "every check ran")
			for _, c := range checks {
				assert.NoError(t, c.Err, c.Name)
			}
		})
	}
}

// TestConformExitOnClose: a client whose lock works but which exits 1
// after close fails the close checks alone.
func TestConformExitOnClose(t *testing.T) {
	s := livetest.MustSetup(t, setup.All(), "redis", "redis-py")
	livetest.NeedSetup(t, s)
	checks := runChecks(t, s.WithClientCommand(s.ClientCommand+"; exit 1"))
	require.Len(t, checks, 12)
	for _, c := range checks {
		if strings.HasPrefix(c.Name, "close:") {
			require.Error(t, c.Err, c.Name)
			assert.Contains(t, c.Err.Error(), "exited (exit status 1) after close")
		} else {
			assert.NoError(t, c.Err, c.Name)
		}
	}
}

// fake is a client command in sh answering hello, acquire and release
// with the shell commands given; close ends it.
func fake(hello, acquire, release string) string {
	return `while read -r line; do case "$line" in ` +
		`*'"hello"'*) ` + hello + `;; *'"acquire"'*) ` + acquire + `;; *'"release"'*) ` + release + `;; ` +
		`*'"close"'*) exit 0;; esac; done`
}

const (
	hello   = `echo '{"op":"hello","ok":true,"library":"fake","version":"1"}'`
	grant   = `echo '{"op":"acquire","ok":true}'`
	release = `echo '{"op":"release","ok":true}'`
)

// TestConformBrokenClients: each class of broken client fails the check
// where it breaks, with the line and what was wrong, and the checks that
// needed it do not run.
func TestConformBrokenClients(t *testing.T) {
	livetest.NeedRedis(t)
	base := livetest.MustSetup(t, setup.All(), "redis", "off")
	tests := []struct {
		name      string
		command   string
		failed    string // the start of the failing check's name
		want      string // in its error
		wantCount int    // checks run
	}{
		{"bad JSON", fake(`echo '{"op":"hello",'`, grant, release), "hello: the first", `output line 1 "{\"op\":\"hello\","`, 1},
		{"wrong op echo", fake(hello, release, release), "acquire: the first", `a reply to "release", but input line 2 was "acquire"`, 2},
		{"hangs", fake(hello, "sleep 60", release), "acquire: the first", `no reply to input line 2 ("acquire") within its timeout_ms (4999) and 1s`, 2},
		{"exits", fake(hello, "exit 3", release), "acquire: the first", `exited (exit status 3) before it replied`, 2},
		{"grants to everyone", fake(hello, grant, release), "acquire: the second", "granted while the first instance holds the lock: two holders", 4},
		{"refuses the hello", fake(`echo '{"op":"hello","ok":false,"error":"no"}'`, grant, release), "hello: the first", `input line 1 ("hello") refused: no`, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checks := runChecks(t, base.WithClientCommand(tc.command))
			require.Len(t, checks, tc.wantCount, "%v", checks)
			var failed []conform.Check
			for _, c := range checks {
				if c.Err != nil {
					failed = append(failed, c)
				}
			}
			require.NotEmpty(t, failed)
			assert.True(t, strings.HasPrefix(failed[0].Name, tc.failed), "%s", failed[0].Name)
			assert.Contains(t, failed[0].Err.Error(), tc.want)
		})
	}
}
