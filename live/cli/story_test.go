package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/setup"
	"github.com/fencelab/fencelab/verdict"
)

// TestStoryBadInput: each bad input is one line on stderr and exit 2.
func TestStoryBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"nothing", nil, `--setup ""`},
		{"no design", []string{"--setup", "redis", "--property", impl.NoLostUpdate}, "want SERVICE/DESIGN"},
		{"empty service", []string{"--setup", "/none", "--property", impl.NoLostUpdate}, "want SERVICE/DESIGN"},
		{"unknown service", []string{"--setup", "memcached/x", "--property", impl.NoLostUpdate}, "unknown service"},
		{"unknown design", []string{"--setup", "redis/nope", "--property", impl.NoLostUpdate}, "unknown design"},
		{"hostile setup", []string{"--setup", "redis/" + strings.Repeat("x", 5000) + "\n\x1b[2J", "--property", impl.NoLostUpdate}, "unknown design"},
		{"no property", []string{"--setup", "redis/none"}, "--property \"\": want one of AtMostOneClientHoldLock, TokenIsMonotonical, NoLostUpdate"},
		{"unknown property", []string{"--setup", "redis/none", "--property", "Safety"}, `--property "Safety"`},
		{"a property the row keeps", []string{"--setup", "redis/all", "--property", impl.NoLostUpdate}, "row all (of redis/all) does not violate NoLostUpdate"},
		{"a client-side property", []string{"--setup", "redis/none", "--property", impl.NoActionPastValidity}, "does not violate NoActionPastValidity"},
		{"stray argument", []string{"--setup", "redis/none", "--property", impl.NoLostUpdate, "more"}, "unexpected argument"},
		{"unknown flag", []string{"--fault", "client-pause"}, "flag provided but not defined"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Run(setup.All(), append([]string{"story"}, tc.args...), strings.NewReader(""), &stdout, &stderr)
			assert.Equal(t, ExitBadInput, code)
			line := stderr.String()
			assert.Equal(t, 1, strings.Count(line, "\n"), "one line: %q", line)
			assert.True(t, strings.HasPrefix(line, "fencelab-live story: "), line)
			assert.Contains(t, line, tc.want)
			assert.Empty(t, stdout.String())
			assert.Less(t, len(line), 700)
		})
	}
}

// TestStoryEverySetup: every setup's every violated property prints its
// derivation — the model's steps, then the live schedule — and names
// the story each of its faults follows.
func TestStoryEverySetup(t *testing.T) {
	for _, s := range setup.All() {
		for _, p := range impl.InvariantNames() {
			if impl.Expected(s.Design, p) != verdict.Violated {
				continue
			}
			var stdout, stderr bytes.Buffer
			code := Run(setup.All(), []string{"story", "--setup", s.ID(), "--property", p}, strings.NewReader(""), &stdout, &stderr)
			require.Equal(t, ExitOK, code, "%s %s: %s", s.ID(), p, stderr.String())
			out := stdout.String()
			model, live := strings.Index(out, "Model trace:"), strings.Index(out, "Live schedule:")
			require.True(t, model >= 0 && live > model, "%s %s: %s", s.ID(), p, out)
			assert.Contains(t, out, "grant is lost", s.ID())
			assert.Contains(t, out, p+" violated", s.ID())
			for _, f := range s.Faults {
				assert.Contains(t, out, "Fault "+string(f)+": ", s.ID())
			}
		}
	}
	var stdout bytes.Buffer
	require.Equal(t, ExitOK, Run(setup.All(), []string{"story", "--setup", "redis/none", "--property", impl.NoLostUpdate}, strings.NewReader(""), &stdout, &bytes.Buffer{}))
	assert.Contains(t, stdout.String(), "Fault client-pause: this story")
	assert.Contains(t, stdout.String(), "Fault clock-step: the classic story")
}
