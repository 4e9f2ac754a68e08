package store

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
)

// step is one operation of a scripted story against the register.
type step struct {
	client int
	write  bool
	token  uint64
	value  int64 // to write
	ok     bool  // accepted?
	read   int64 // the value an accepted read returns
}

func TestRegisterModes(t *testing.T) {
	// The story behind every row: c0 (token 1) reads 0, c1 (token 2)
	// reads 0 and writes 1, then c0's stale write of 1 arrives.
	stale := func(staleOK bool) []step {
		return []step{
			{client: 0, token: 1, ok: true, read: 0},
			{client: 1, token: 2, ok: true, read: 0},
			{client: 1, write: true, token: 2, value: 1, ok: true},
			{client: 0, write: true, token: 1, value: 1, ok: staleOK},
		}
	}
	tests := []struct {
		name  string
		mode  impl.FenceMode
		steps []step
		final int64
	}{
		{"none accepts the stale write", impl.FenceNone, stale(true), 1},
		{"all refuses the stale write", impl.FenceAll, stale(false), 1},
		{"writes refuses the stale write after a newer write", impl.FenceWrites, stale(false), 1},
		{"writes hole: a newer read does not fence an older write", impl.FenceWrites, []step{
			{client: 0, token: 1, ok: true, read: 0},
			{client: 1, token: 2, ok: true, read: 0},
			{client: 0, write: true, token: 1, value: 1, ok: true},
			{client: 1, write: true, token: 2, value: 1, ok: true},
		}, 1},
		{"all: a newer read fences an older write", impl.FenceAll, []step{
			{client: 0, token: 1, ok: true, read: 0},
			{client: 1, token: 2, ok: true, read: 0},
			{client: 0, write: true, token: 1, value: 1, ok: false},
			{client: 0, token: 1, ok: false},
		}, 0},
		{"cas: a write needs the token of the last read", impl.FenceCAS, []step{
			{client: 0, token: 7, ok: true, read: 0},
			{client: 1, token: 3, ok: true, read: 0},
			{client: 0, write: true, token: 7, value: 1, ok: false},
			{client: 1, write: true, token: 3, value: 1, ok: true},
		}, 1},
		{"version: the first write's version is remembered", impl.FenceVersion, []step{
			{client: 0, write: true, token: 5, value: 1, ok: true},
			{client: 1, write: true, token: 9, value: 2, ok: false},
			{client: 1, token: 9, ok: true, read: 1},
			{client: 0, write: true, token: 5, value: 2, ok: true},
		}, 2},
		{"off: token 0 throughout, mode none", impl.FenceNone, []step{
			{client: 0, token: 0, ok: true, read: 0},
			{client: 1, token: 0, ok: true, read: 0},
			{client: 1, write: true, token: 0, value: 1, ok: true},
			{client: 0, write: true, token: 0, value: 1, ok: true},
		}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reg, err := ServeRegister(tc.mode)
			require.NoError(t, err)
			t.Cleanup(func() { reg.Close() })
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			clients := map[int]Store{}
			for _, s := range tc.steps {
				if clients[s.client] == nil {
					c, err := DialRegister(reg.Addr(), AsClient(s.client))
					require.NoError(t, err)
					t.Cleanup(func() { c.Close() })
					clients[s.client] = c
				}
			}
			var want []impl.Op
			for i, s := range tc.steps {
				c := clients[s.client]
				op := impl.Op{Client: impl.ClientNode(s.client), Token: s.token, Accepted: s.ok}
				if s.write {
					ok, err := c.Write(ctx, s.token, s.value)
					require.NoError(t, err)
					assert.Equal(t, s.ok, ok, "step %d: write accepted", i)
					op.Kind, op.Value = impl.OpWrite, s.value
				} else {
					v, ok, err := c.Read(ctx, s.token)
					require.NoError(t, err)
					assert.Equal(t, s.ok, ok, "step %d: read accepted", i)
					assert.Equal(t, s.read, v, "step %d: value read", i)
					op.Kind, op.Value = impl.OpRead, s.read
				}
				want = append(want, op)
			}
			res := reg.Resource()
			assert.Equal(t, want, res.Log(), "the log is every operation in the order handled")
			assert.Equal(t, tc.final, res.Counter())
			assert.Len(t, reg.HandledAt(), len(want))
		})
	}
}

func TestRegisterRefusesSequencerMode(t *testing.T) {
	_, err := ServeRegister(impl.FenceSequencer)
	require.Error(t, err)
}

// TestRegisterIsAtomic: many clients incrementing under mode none each
// read and write once; every operation lands in the log, and the log's
// order is one order of the handled operations (their handling times do
// not go back).
func TestRegisterIsAtomic(t *testing.T) {
	reg, err := ServeRegister(impl.FenceAll)
	require.NoError(t, err)
	defer reg.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	const clients, ops = 4, 50
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := DialRegister(reg.Addr(), AsClient(i))
			if !assert.NoError(t, err) {
				return
			}
			defer c.Close()
			for k := range ops {
				_, err := c.Write(ctx, uint64(k), int64(k))
				assert.NoError(t, err)
			}
		}()
	}
	wg.Wait()
	res := reg.Resource()
	require.Len(t, res.Log(), clients*ops)
	at := reg.HandledAt()
	for i := 1; i < len(at); i++ {
		require.LessOrEqual(t, at[i-1], at[i])
	}
	// Mode all with tokens rising per client: whatever was accepted is in
	// token order, TokenIsMonotonical by construction.
	var last uint64
	for _, op := range res.Log() {
		if op.Accepted {
			require.GreaterOrEqual(t, op.Token, last)
			last = op.Token
		}
	}
}

func TestRegisterBadRequests(t *testing.T) {
	reg, err := ServeRegister(impl.FenceNone)
	require.NoError(t, err)
	defer reg.Close()
	conn, err := net.Dial("tcp", reg.Addr())
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(5*time.Second)))
	rd := bufio.NewReader(conn)
	for _, req := range []string{"", "X 0 1", "R 0", "R -1 1", "R 0 -1", "W 0 1 x", "R 99999 1"} {
		_, err := fmt.Fprintf(conn, "%s\n", req)
		require.NoError(t, err)
		line, err := rd.ReadString('\n')
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(line, "ERR "), "%q answered %q", req, line)
	}
	assert.Empty(t, reg.Resource().Log(), "a malformed request changes nothing")
	// A line longer than the bound closes the connection.
	_, err = fmt.Fprintf(conn, "R 0 %s\n", strings.Repeat("1", 2*maxLine))
	require.NoError(t, err)
	_, err = rd.ReadString('\n')
	assert.Error(t, err)
}

func TestDialRegisterFailsFast(t *testing.T) {
	reg, err := ServeRegister(impl.FenceNone)
	require.NoError(t, err)
	addr := reg.Addr()
	require.NoError(t, reg.Close())
	require.NoError(t, reg.Close(), "Close is idempotent")
	_, err = DialRegister(addr)
	assert.Error(t, err)
}

func TestRegisterCallEndsWithContext(t *testing.T) {
	// A listener that accepts and never answers: the call must end with
	// the context, not hang.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			defer c.Close()
			time.Sleep(3 * time.Second)
		}
	}()
	c, err := DialRegister(ln.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err = c.Read(ctx, 1)
	assert.Error(t, err)
	assert.Less(t, time.Since(start), 2*time.Second)
}
