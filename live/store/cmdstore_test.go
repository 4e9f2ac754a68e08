package store

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/internal/toystore"
)

// storyOps is a section, a newer holder's read, then the stale write.
func storyOps() []impl.Op {
	return []impl.Op{
		{Client: impl.ClientNode(0), Kind: impl.OpRead, Token: 1},
		{Client: impl.ClientNode(0), Kind: impl.OpWrite, Token: 1, Value: 1},
		{Client: impl.ClientNode(1), Kind: impl.OpRead, Token: 2},
		{Client: impl.ClientNode(0), Kind: impl.OpWrite, Token: 1, Value: 2},
	}
}

// TestStoreCommandGood: a store that fences as row all answers as
// impl.Resource does, its log is what it answered, and close ends it.
func TestStoreCommandGood(t *testing.T) {
	sc, err := StartStoreCommand(toystore.Command(toystore.Good), impl.FenceAll, "all")
	require.NoError(t, err)
	assert.Equal(t, "toystore good", sc.Store)
	var want []bool
	for _, op := range storyOps() {
		got, err := sc.Do(op)
		require.NoError(t, err)
		want = append(want, got.Accepted)
	}
	assert.Equal(t, []bool{true, true, true, false}, want, "the stale write refused")
	ops, err := sc.Log()
	require.NoError(t, err)
	assert.Equal(t, sc.Seen(), ops)
	assert.Equal(t, int64(1), ops[2].Value, "the newer read read the first write")
	pid := sc.proc.Cmd.Process.Pid
	require.NoError(t, sc.Close())
	assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "the store is reaped")
	require.NoError(t, sc.Close(), "Close is idempotent")
}

// TestStoreCommandHostile: every way a store command breaks the
// protocol is a *StoreBreach naming the line, at the call it happens
// in, and bounded in time; a store's error answer is a *StoreFailure
// and no breach; a store that refuses everything is no breach at all.
func TestStoreCommandHostile(t *testing.T) {
	tests := []struct {
		behaviour string
		at        string // "start", "do", "log", "close" or "" (no breach)
		want      string
	}{
		{toystore.ExitAtOnce, "start", `the store exited (exit status 3) before it replied to input line 1 ("hello")`},
		{toystore.BadHello, "start", `the store refused its hello: no such mode here`},
		{toystore.Garbage, "do", `output line 2 "garbage{": not a reply object`},
		{toystore.WrongOp, "do", `a reply to "write", but input line 2 was "read"`},
		{toystore.Silent, "do", `no reply to input line 2 ("read") within 5s`},
		{toystore.Huge, "do", `output after line 1: a line longer than 1048576 bytes`},
		{toystore.Long, "do", `a reply longer than 4096 bytes`},
		{toystore.Extra, "do", `output line 3 "{\"ok\":true,\"op\":\"read\",\"value\":0}": a reply to`}, // to nothing, or to the next request: a race either way
		{toystore.LogMissing, "log", `output line 6 (log): it has 3 operations, the store answered 4; operation 1 is c1 write 1, token 1, accepted, but the store answered c1 read 0, token 1, accepted`},
		{toystore.LogFlipped, "log", `operation 1 is c1 read, token 1, refused, but the store answered c1 read 0, token 1, accepted`},
		{toystore.LogOrder, "log", `operation 1 is c1 write 1, token 1, accepted, but the store answered c1 read 0, token 1, accepted`},
		{toystore.BadClose, "close", `the store exited (exit status 1) after close (want exit status 0)`},
		{toystore.CloseLine, "close", `output line 7 "{\"ok\":true,\"op\":\"log\",\"ops\":[]}": a reply to nothing (no request outstanding)`},
		{toystore.Linger, "close", `the store did not exit within 2s of close (input line 7)`},
		{toystore.RefuseAll, "", ""},
		{toystore.AcceptAll, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.behaviour, func(t *testing.T) {
			begin := time.Now()
			var breach *StoreBreach
			sc, err := StartStoreCommand(toystore.Command(tc.behaviour), impl.FenceAll, "all")
			if tc.at == "start" {
				require.ErrorAs(t, err, &breach)
				assert.Contains(t, err.Error(), tc.want)
				return
			}
			require.NoError(t, err)
			defer sc.Close()
			for _, op := range storyOps() {
				if _, err = sc.Do(op); err != nil {
					break
				}
			}
			if tc.at == "do" {
				require.ErrorAs(t, err, &breach)
				assert.Contains(t, err.Error(), tc.want)
				assert.Equal(t, err, sc.Err())
				_, err = sc.Log()
				assert.Equal(t, breach, err, "every later call fails with the breach")
				assert.Less(t, time.Since(begin), StoreReplyTimeout+5*time.Second, "bounded")
				return
			}
			require.NoError(t, err)
			_, err = sc.Log()
			if tc.at == "log" {
				require.ErrorAs(t, err, &breach)
				assert.Contains(t, err.Error(), tc.want)
				return
			}
			require.NoError(t, err)
			err = sc.Close()
			if tc.at == "close" {
				require.ErrorAs(t, err, &breach)
				assert.Contains(t, err.Error(), tc.want)
				return
			}
			assert.NoError(t, err)
		})
	}
}

// TestStoreCommandFailure: an error answer fails the call, is no breach,
// and the operation is not in what the log must hold.
func TestStoreCommandFailure(t *testing.T) {
	sc, err := StartStoreCommand(toystore.Command(toystore.Failing), impl.FenceAll, "all")
	require.NoError(t, err)
	defer sc.Close()
	ops := storyOps()
	_, err = sc.Do(ops[0])
	require.NoError(t, err)
	_, err = sc.Do(ops[1])
	var failure *StoreFailure
	require.ErrorAs(t, err, &failure)
	assert.Equal(t, "the store failed the write: disk full", err.Error())
	assert.NoError(t, sc.Err())
	assert.Len(t, sc.Seen(), 1)
	_, err = sc.Log()
	assert.NoError(t, err)
}

// TestServeStoreCommand: the register's protocol in front of a store
// command: the clients' answers are the store's decisions; a store's
// breach is an ERR answer and the store's Err.
func TestServeStoreCommand(t *testing.T) {
	for _, tc := range []struct {
		behaviour string
		want      []string // the answers to storyOps' requests
	}{
		{toystore.Good, []string{"OK 0", "OK 1", "OK 1", "NO"}},
		{toystore.AcceptAll, []string{"OK 0", "OK 1", "OK 1", "OK 2"}},
		{toystore.Failing, []string{"OK 0", "ERR the store failed the write: disk full", "OK 0", "ERR the store failed the write: disk full"}},
		{toystore.WrongOp, []string{"ERR store command broke fencelab-store/1: output line 2", "ERR store command broke", "ERR store command broke", "ERR store command broke"}},
	} {
		t.Run(tc.behaviour, func(t *testing.T) {
			sc, err := StartStoreCommand(toystore.Command(tc.behaviour), impl.FenceAll, "all")
			require.NoError(t, err)
			defer sc.Close()
			reg, err := ServeStoreCommand(sc)
			require.NoError(t, err)
			defer reg.Close()
			var got []string
			for _, op := range storyOps() {
				c, err := DialRegister(reg.Addr(), AsClient(int(op.Client-impl.ClientNode(0))))
				require.NoError(t, err)
				rc := c.(*registerClient)
				req := "R"
				if op.Kind == impl.OpWrite {
					req = "W"
				}
				line := strings.TrimSpace(strings.Join([]string{req, itoa(int(op.Client - impl.ClientNode(0))), itoa(int(op.Token)), map[bool]string{true: itoa(int(op.Value)), false: ""}[op.Kind == impl.OpWrite]}, " "))
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				v, ok, err := rc.call(ctx, line)
				cancel()
				c.Close()
				switch {
				case err != nil:
					got = append(got, strings.TrimPrefix(err.Error(), "register: "))
				case ok:
					got = append(got, "OK "+itoa(int(v)))
				default:
					got = append(got, "NO")
				}
			}
			for i := range tc.want {
				assert.True(t, strings.HasPrefix(got[i], tc.want[i]), "answer %d: %q, want %q…", i+1, got[i], tc.want[i])
			}
			var breach *StoreBreach
			assert.Equal(t, tc.behaviour == toystore.WrongOp, errors.As(sc.Err(), &breach), "%v", sc.Err())
		})
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
