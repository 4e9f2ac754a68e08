//go:build unix

package main

import (
	"bufio"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/internal/faketlc"
)

// TestSignalStopsTheExplorerStage: SIGTERM or SIGINT to fencelab explore
// (a search of minutes: Redlock with 3 clients), or to fencelab conform in
// its explorer stage (every design's counterexamples), ends the search and
// the process with 128+signal and one line saying so.
//
// explore is signalled once its search has printed its progress on the
// pipe (after 10 s), which is the other half of what is checked: a long
// search on a pipe is not silent. conform's searches stop at their first
// counterexamples, in seconds or in more than 10 on a busy machine, so it
// is signalled on the line that opens its explorer stage; its fake TLC
// never answers, so the signal, not a finished run, is what ends it.
func TestSignalStopsTheExplorerStage(t *testing.T) {
	bin := buildFencelab(t)
	// conform needs a jar to start: the fake's.
	faketlc.New(t, "exec sleep 600", "exit 0")
	for _, tc := range []struct {
		name     string
		args     []string
		progress string // the line to signal on: its start
		last     string // the last line of stderr, after the signal's name
	}{
		{"explore", []string{"explore", "--design", "redlock", "--clients", "3", "--out", ""}, "explore redlock: depth ", ": the search stopped, its files on disk removed"},
		{"conform", []string{"conform", "--pin", mustAbs(t, "../../tla2tools.version"), "--specs", mustAbs(t, "../../specs"), "--walks", "0", "--sim-runs", "0", "--sim-failing", "0", "--replay=false"}, "fencelab conform: TLC's results cached in ", ": conform stopped"},
	} {
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
			t.Run(tc.name+"/"+signalName(sig), func(t *testing.T) {
				tmp := t.TempDir()
				args := tc.args
				if tc.name == "conform" {
					args = append(args, "--out", filepath.Join(t.TempDir(), "out"))
				}
				cmd := exec.Command(bin, args...)
				cmd.Env = cleanEnv(t, "TMPDIR="+tmp)
				stderr, err := cmd.StderrPipe()
				require.NoError(t, err)
				require.NoError(t, cmd.Start())
				lines := make(chan string)
				go func() {
					defer close(lines)
					for sc := bufio.NewScanner(stderr); sc.Scan(); {
						lines <- sc.Text()
					}
				}()
				killed := false
				defer func() {
					if !killed {
						_ = cmd.Process.Kill()
						for range lines { // drain, so the reader ends
						}
						_ = cmd.Wait()
					}
				}()
				// The line within 2 minutes (both cores busy): the process
				// is in its search.
				var seen []string
				for found := false; !found; {
					select {
					case l, ok := <-lines:
						require.True(t, ok, "stderr closed before a progress line: %q", seen)
						seen = append(seen, l)
						found = strings.HasPrefix(l, tc.progress)
					case <-time.After(2 * time.Minute):
						t.Fatalf("no progress line on the pipe within 2 minutes: %q", seen)
					}
				}
				require.NoError(t, cmd.Process.Signal(sig))
				signalled := time.Now()
				var rest []string
				outlived := time.After(time.Minute)
				for open := true; open; {
					select {
					case l, ok := <-lines:
						if open = ok; ok {
							rest = append(rest, l)
						}
					case <-outlived:
						t.Fatalf("the process outlived the signal by a minute; stderr since: %q", rest)
					}
				}
				err = cmd.Wait()
				killed = true
				// A generous bound: the search checks between two chunks of
				// states, a fraction of a second apart; it is about not
				// ignoring the signal, not about speed.
				assert.Less(t, time.Since(signalled), 20*time.Second, "the process outlived the signal")
				var exit *exec.ExitError
				require.True(t, errors.As(err, &exit), "exit: %v", err)
				assert.Equal(t, 128+int(sig), exit.ExitCode())
				require.NotEmpty(t, rest)
				assert.Equal(t, "fencelab "+tc.name+": interrupted by "+signalName(sig)+tc.last, rest[len(rest)-1])
				assert.Empty(t, dirEntries(t, tmp), "the search's files left behind")
			})
		}
	}
}

func signalName(s syscall.Signal) string {
	if s == syscall.SIGINT {
		return "SIGINT"
	}
	return "SIGTERM"
}

func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := filepath.Glob(filepath.Join(dir, "*"))
	require.NoError(t, err)
	return entries
}
