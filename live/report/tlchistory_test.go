package report

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fencelab/fencelab/internal/tlctest"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/run"
	"github.com/fencelab/fencelab/tlc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// requireTLC is the real TLC, or skips t: under -short, without java,
// without TLA2TOOLS_JAR. tlctest.Require finds the pinned release from
// the main module's root, which a test of the live module is not in, so
// here the jar is the one TLA2TOOLS_JAR names (checked: set but unusable
// fails t).
func requireTLC(t *testing.T) *tlc.Runner {
	t.Helper()
	if testing.Short() {
		t.Skip(tlctest.SkipPrefix + "-short")
	}
	jar := os.Getenv("TLA2TOOLS_JAR")
	if jar == "" {
		t.Skip(tlctest.SkipPrefix + tlctest.NoJar)
	}
	if err := tlc.CheckJar(jar); err != nil {
		t.Fatalf("TLA2TOOLS_JAR is set but unusable: %v", err)
	}
	java, err := tlc.FindJava()
	if err != nil {
		t.Skip(tlctest.SkipPrefix + "no java on PATH")
	}
	return &tlc.Runner{Java: java, Jar: jar, Timeout: 5 * time.Minute}
}

// pausedHistory is Kleppmann's story as docs/history.md's app.log tells
// it: c1 granted token 33 reads 0 and is paused past its lease; c2,
// granted 34, reads 0 and writes 1; c1 resumes and writes 1 with token
// 33, which the resource accepts when stale is set (a store that does
// not fence) and refuses otherwise.
func pausedHistory(stale bool) *history.File {
	ms := func(n int64) int64 { return n * int64(time.Millisecond) }
	rec := func(c int, op, ev string, at int64, token uint64, value int64, ok bool) history.Record {
		return history.Record{Client: c, Op: op, Ev: ev, Wall: ms(at), Token: token, Value: value, OK: ok}
	}
	grant := func(c int, at int64, token uint64, call int64) history.Record {
		r := rec(c, history.OpAcquire, history.Return, at, token, 0, true)
		r.Validity, r.ValidUntil = ms(1000), ms(call+1000)
		return r
	}
	f := &history.File{Design: "all", TTL: time.Second, History: history.History{Start: 0, End: ms(2000), Clients: 2, Records: []history.Record{
		rec(0, history.OpAcquire, history.Call, 0, 0, 0, false), grant(0, 12, 33, 0),
		rec(0, history.OpRead, history.Call, 13, 33, 0, false), rec(0, history.OpRead, history.Return, 15, 33, 0, true),
		rec(1, history.OpAcquire, history.Call, 400, 0, 0, false), grant(1, 1020, 34, 1010),
		rec(1, history.OpRead, history.Call, 1021, 34, 0, false), rec(1, history.OpRead, history.Return, 1023, 34, 0, true),
		rec(1, history.OpWrite, history.Call, 1024, 34, 1, false), rec(1, history.OpWrite, history.Return, 1027, 34, 1, true),
		rec(0, history.OpWrite, history.Call, 1517, 33, 1, false), rec(0, history.OpWrite, history.Return, 1519, 33, 1, stale),
	}, Faults: []history.FaultRecord{{Fault: history.FaultClientPause, Target: "c1", Start: ms(16), End: ms(1516)}}}}
	if stale {
		f.Fence = "none"
	}
	return f
}

// TestValidateTLC: TLC finds a behaviour of DistLockFencing.tla (row all)
// that makes the fenced history's resource log, and none for the log
// where the stale write was accepted; rows TLC cannot validate are
// errors.
func TestValidateTLC(t *testing.T) {
	runner := requireTLC(t)
	specs := filepath.Join("..", "..", "specs")
	for _, tc := range []struct {
		name      string
		stale     bool
		explained bool
	}{{"fenced", false, true}, {"a stale write accepted", true, false}} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := CheckHistory(pausedHistory(tc.stale), "", run.DefaultCheckTimeout)
			require.NoError(t, err)
			v, err := ValidateTLC(context.Background(), runner, specs, c)
			require.NoError(t, err)
			assert.Equal(t, tc.explained, v.Explained, v.Output)
			assert.Equal(t, 4, v.Ops)
			assert.Equal(t, map[uint64]int{33: 1, 34: 2}, v.Tokens)
		})
	}
}

// TestValidateTLCRefuses: what TLC validation does not cover is an
// error before TLC runs.
func TestValidateTLCRefuses(t *testing.T) {
	runner := &tlc.Runner{Java: "/nonexistent/java", Jar: "/nonexistent.jar"}
	for _, tc := range []struct{ design, want string }{
		{"off", "TLC validation covers the rows of DistLockFencing.tla with tokens"},
		{"redlock-unique", "TLC validation covers the rows of DistLockFencing.tla with tokens"},
		{"restart-volatile", "whose tokens count grants"},
		{"revision", "whose tokens count grants"},
	} {
		c, err := CheckHistory(pausedHistory(false), tc.design, run.DefaultCheckTimeout)
		require.NoError(t, err)
		_, err = ValidateTLC(context.Background(), runner, "..", c)
		assert.ErrorContains(t, err, tc.want, tc.design)
	}
	f := pausedHistory(false)
	f.History.Records = f.History.Records[:4] // c1's read alone: one operation
	c, err := CheckHistory(f, "", run.DefaultCheckTimeout)
	require.NoError(t, err)
	_, err = ValidateTLC(context.Background(), runner, t.TempDir(), c)
	assert.ErrorContains(t, err, "the specs:")
}
