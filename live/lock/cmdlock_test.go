package lock

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeClient is a client command in sh: hello, acquire and release
// answered by the lines given (an empty line: no answer at all, a line
// starting with "!" a shell command instead), close by exiting 0.
func fakeClient(hello, acquire, release string) string {
	answer := func(s string) string {
		if cmd, ok := strings.CutPrefix(s, "!"); ok {
			return cmd
		}
		if s == "" {
			return ":"
		}
		return "echo '" + s + "'"
	}
	return `while read -r line; do case "$line" in ` +
		`*'"hello"'*) ` + answer(hello) + `;; ` +
		`*'"acquire"'*) ` + answer(acquire) + `;; ` +
		`*'"release"'*) ` + answer(release) + `;; ` +
		`*'"close"'*) exit 0;; esac; done`
}

const (
	goodHello   = `{"op":"hello","ok":true,"library":"fake","version":"1.0"}`
	goodAcquire = `{"op":"acquire","ok":true,"token":3,"value":"v","validity_ms":500}`
	goodRelease = `{"op":"release","ok":true}`
)

func testConfig() Config {
	return Config{Addrs: []string{"127.0.0.1:1"}, Key: "k", TTL: 500 * time.Millisecond, Client: "c1"}
}

func startFake(t *testing.T, command string) (*Command, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return NewCommand(ctx, testConfig(), CommandOptions{Command: command, Service: "fake", OwnGroup: true})
}

// TestCommandGoodClient: a client that keeps the protocol takes and gives
// back the lock, its grant's fields arrive, and close ends it cleanly.
func TestCommandGoodClient(t *testing.T) {
	c, err := startFake(t, fakeClient(goodHello, goodAcquire, goodRelease))
	require.NoError(t, err)
	assert.Equal(t, "fake", c.Library)
	assert.Equal(t, "1.0", c.Version)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for range 3 {
		before := time.Now()
		g, err := c.Acquire(ctx)
		require.NoError(t, err)
		assert.WithinRange(t, g.Sent, before, time.Now(), "the window starts when the reply arrives")
		g.Sent = time.Time{}
		assert.Equal(t, Grant{Token: 3, Value: "v", Validity: 500 * time.Millisecond}, g)
		require.NoError(t, c.Release(ctx, g))
	}
	require.NoError(t, c.Close())
	_, err = c.Acquire(ctx)
	assert.Error(t, err, "a closed command takes no more calls")
}

// TestCommandRefusalIsAnAnswer: ok:false on acquire or release is the
// library's answer (a *Refusal), not a breach; the client goes on.
func TestCommandRefusalIsAnAnswer(t *testing.T) {
	c, err := startFake(t, fakeClient(goodHello, `{"op":"acquire","ok":false,"error":"busy"}`, `{"op":"release","ok":false,"error":"not yours"}`))
	require.NoError(t, err)
	ctx := context.Background()
	_, err = c.Acquire(ctx)
	var refused *Refusal
	require.ErrorAs(t, err, &refused)
	assert.Equal(t, "busy", refused.Msg)
	var breach *ProtocolError
	assert.False(t, errors.As(err, &breach))
	err = c.Release(ctx, Grant{})
	require.ErrorAs(t, err, &refused)
	assert.Equal(t, "not yours", refused.Msg)
	require.NoError(t, c.Close())
}

// TestCommandBreaches: each class of breach is a *ProtocolError naming
// the line, whether it happens at hello, acquire, release or close.
func TestCommandBreaches(t *testing.T) {
	tests := []struct {
		name            string
		hello, acq, rel string
		timeout         time.Duration
		wantAt          string // "hello", "acquire", "release" or "close"
		want            string
	}{
		{"bad JSON", goodHello, `{"op":"acquire","ok":tru`, goodRelease, 5 * time.Second, "acquire", `output line 2 "{\"op\":\"acquire\",\"ok\":tru": not a reply object`},
		{"not an object", `[1,2]`, goodAcquire, goodRelease, 0, "hello", `output line 1 "[1,2]": not a reply object`},
		{"two values on a line", goodHello, goodAcquire + goodAcquire, goodRelease, 5 * time.Second, "acquire", "more than one JSON value"},
		{"wrong op echo", goodHello, goodRelease, goodRelease, 5 * time.Second, "acquire", `a reply to "release", but input line 2 was "acquire"`},
		{"missing field", goodHello, `{"ok":true}`, goodRelease, 5 * time.Second, "acquire", `needs "op" and "ok"`},
		{"unknown field", goodHello, `{"op":"acquire","ok":true,"validity":500}`, goodRelease, 5 * time.Second, "acquire", `unknown field "validity"`},
		{"refused hello", `{"op":"hello","ok":false,"error":"no v2"}`, goodAcquire, goodRelease, 0, "hello", `input line 1 ("hello") refused: no v2`},
		{"reply to nothing", goodHello, "!" + `echo '` + goodAcquire + `'; echo '` + goodAcquire + `'`, goodRelease, 5 * time.Second, "release", `output line 3 "{\"op\":\"acquire\"`},
		{"hangs", goodHello, "!sleep 60", goodRelease, 300 * time.Millisecond, "acquire", `no reply to input line 2 ("acquire") within its timeout_ms (29`},
		{"exits mid-call", goodHello, "!exit 3", goodRelease, 5 * time.Second, "acquire", `exited (exit status 3) before it replied to input line 2 ("acquire")`},
		{"exits 0 mid-call", goodHello, goodAcquire, "!exit 0", 5 * time.Second, "release", `exited (exit status 0) before it replied to input line 3 ("release")`},
		{"line too long", goodHello, "!" + `printf '%05000d\n' 0`, goodRelease, 5 * time.Second, "acquire", "longer than 4096 bytes"},
		{"exits at once", "!exit 0", goodAcquire, goodRelease, 0, "hello", `input line 1 ("hello")`},
		{"reply to nothing at close", goodHello, goodAcquire, "!" + `echo '` + goodRelease + `'; echo '` + goodRelease + `'`, 5 * time.Second, "close", `output line 4 "{\"op\":\"release\"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := startFake(t, fakeClient(tc.hello, tc.acq, tc.rel))
			if tc.wantAt == "hello" {
				requireBreach(t, err, tc.want)
				return
			}
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), tc.timeout)
			defer cancel()
			_, err = c.Acquire(ctx)
			if tc.wantAt == "acquire" {
				requireBreach(t, err, tc.want)
				// Every later call fails with the same breach.
				assert.ErrorIs(t, c.Release(ctx, Grant{}), err)
				assert.ErrorIs(t, c.Close(), err)
				return
			}
			require.NoError(t, err)
			err = c.Release(ctx, Grant{})
			if tc.wantAt == "release" {
				requireBreach(t, err, tc.want)
				c.Close()
				return
			}
			require.NoError(t, err)
			requireBreach(t, c.Close(), tc.want)
		})
	}
}

func requireBreach(t *testing.T, err error, want string) {
	t.Helper()
	var breach *ProtocolError
	require.ErrorAs(t, err, &breach)
	assert.Contains(t, err.Error(), want)
	assert.Contains(t, err.Error(), ProtocolName)
}

// TestCommandCloseBreaches: after close, an exit status other than 0, or
// no exit within CloseGrace, is a breach; the process is killed either
// way.
func TestCommandCloseBreaches(t *testing.T) {
	tests := []struct{ name, command, want string }{
		{"exits 1", `read -r l; echo '` + goodHello + `'; read -r l; exit 1`, "exited (exit status 1) after close"},
		{"stays", `read -r l; echo '` + goodHello + `'; exec 0<&-; sleep 60`, "did not exit within 2s of close"},
		{"floods", `read -r l; echo '` + goodHello + `'; while :; do echo '` + goodRelease + `'; done`, "a reply to nothing"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := startFake(t, tc.command)
			require.NoError(t, err)
			requireBreach(t, c.Close(), tc.want)
			assert.Error(t, syscall.Kill(c.proc.Cmd.Process.Pid, 0), "the command was killed and reaped")
		})
	}
}

// TestPausedClockSkipsAStop: a gap between ticks (this process stopped
// with its client command, by the nemesis's pause of the group) does not
// count toward a reply's deadline; ticks on time do.
func TestPausedClockSkipsAStop(t *testing.T) {
	start := time.Unix(1000, 0)
	tests := []struct {
		name    string
		ticks   []time.Duration // since start
		expired bool
	}{
		{"ticks on time reach the deadline", []time.Duration{50, 100, 150, 200, 250, 300}, true},
		{"short of it", []time.Duration{50, 100, 150, 200, 250}, false},
		{"a stop of 10s counts as one tick", []time.Duration{50, 100, 10100, 10150, 10200}, false},
		{"and running after it reaches it", []time.Duration{50, 100, 10100, 10150, 10200, 10250}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &pausedClock{expired: make(chan struct{}), quit: make(chan struct{})}
			ticks := make(chan time.Time)
			done := make(chan struct{})
			go func() {
				defer close(done)
				p.run(300*time.Millisecond, start, ticks)
			}()
			for _, ms := range tc.ticks {
				select {
				case ticks <- start.Add(ms * time.Millisecond):
				case <-p.expired:
					t.Fatalf("expired before the tick at %dms", ms)
				}
			}
			if tc.expired {
				<-done
			} else {
				close(p.quit)
				<-done
			}
			select {
			case <-p.expired:
				assert.True(t, tc.expired, "expired")
			default:
				assert.False(t, tc.expired, "not expired")
			}
		})
	}
}
