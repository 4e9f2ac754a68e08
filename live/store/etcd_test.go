package store

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/internal/etcdtest"
	"github.com/fencelab/fencelab/live/internal/toystore"
	"github.com/fencelab/fencelab/live/lock"
)

// TestMain lets the test binary serve as the etcd child (etcdtest.Main),
// and as the toy store of the store-command tests (toystore.EnvVar).
func TestMain(m *testing.M) {
	toystore.MaybeServe()
	etcdtest.Main(m)
}

const etcdTestTimeout = 15 * time.Second

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), etcdTestTimeout)
	t.Cleanup(cancel)
	return ctx
}

func newTestTxn(t *testing.T, addr string, client int) *EtcdTxn {
	t.Helper()
	s, err := NewEtcdTxn(context.Background(), []string{addr}, "counter", client)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func newTestLocker(t *testing.T, ctor func(context.Context, lock.Config) (lock.Locker, error), addr, client string, ttl time.Duration) lock.Locker {
	t.Helper()
	l, err := ctor(context.Background(), lock.Config{Addrs: []string{addr}, Key: "lock", TTL: ttl, Client: client})
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// storeOp is one operation of a scripted story and what the store must
// answer.
type storeOp struct {
	write  bool
	token  uint64
	value  int64 // written, or expected from a read
	wantOK bool
}

func runStory(t *testing.T, ctx context.Context, s Store, story []storeOp) {
	t.Helper()
	for i, op := range story {
		if op.write {
			ok, err := s.Write(ctx, op.token, op.value)
			require.NoError(t, err)
			require.Equal(t, op.wantOK, ok, "step %d: write(token %d, %d)", i, op.token, op.value)
			continue
		}
		v, ok, err := s.Read(ctx, op.token)
		require.NoError(t, err)
		require.Equal(t, op.wantOK, ok, "step %d: read(token %d)", i, op.token)
		if ok {
			require.Equal(t, op.value, v, "step %d: read(token %d)", i, op.token)
		} else {
			require.Zero(t, v, "step %d: a refused read returns nothing", i)
		}
	}
}

func TestEtcdTxnFencesEveryOperation(t *testing.T) {
	e := etcdtest.Start(t)
	for _, tc := range []struct {
		name  string
		story []storeOp
	}{
		{"a fresh store accepts and reads 0", []storeOp{
			{token: 3, value: 0, wantOK: true},
			{write: true, token: 3, value: 1, wantOK: true},
			{token: 3, value: 1, wantOK: true},
		}},
		{"an older write is refused, an equal or newer accepted", []storeOp{
			{write: true, token: 5, value: 1, wantOK: true},
			{write: true, token: 4, value: 2, wantOK: false},
			{write: true, token: 5, value: 3, wantOK: true},
			{write: true, token: 6, value: 4, wantOK: true},
			{token: 6, value: 4, wantOK: true},
		}},
		{"tokens compare as numbers, not as digits", []storeOp{
			{write: true, token: 9, value: 1, wantOK: true},
			{write: true, token: 10, value: 2, wantOK: true},
			{write: true, token: 9, value: 3, wantOK: false},
			{write: true, token: 100, value: 4, wantOK: true},
			{write: true, token: 99, value: 5, wantOK: false},
			{token: 100, value: 4, wantOK: true},
		}},
		{"a newer read fences an older write", []storeOp{
			{write: true, token: 7, value: 1, wantOK: true},
			{token: 8, value: 1, wantOK: true},
			{write: true, token: 7, value: 2, wantOK: false},
			{token: 7, wantOK: false},
			{token: 8, value: 1, wantOK: true},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testContext(t)
			s, err := NewEtcdTxn(ctx, []string{e.Addr()}, t.Name(), 0)
			require.NoError(t, err)
			t.Cleanup(func() { _ = s.Close() })
			runStory(t, ctx, s, tc.story)
		})
	}
}

// TestEtcdTxnRefusesTheExpiredHolder is the pause story with real grants:
// c1's lease expires in its section, c2 acquires and reads; c1's late
// write is refused and c2's accepted.
func TestEtcdTxnRefusesTheExpiredHolder(t *testing.T) {
	e := etcdtest.Start(t)
	ctx := testContext(t)
	s1, s2 := newTestTxn(t, e.Addr(), 0), newTestTxn(t, e.Addr(), 1)
	c1 := newTestLocker(t, lock.NewEtcdLease, e.Addr(), "c1", time.Second)
	c2 := newTestLocker(t, lock.NewEtcdMutex, e.Addr(), "c2", 5*time.Second)

	g1, err := c1.Acquire(ctx)
	require.NoError(t, err)
	runStory(t, ctx, s1, []storeOp{{token: g1.Token, value: 0, wantOK: true}})
	g2, err := c2.Acquire(ctx) // waits out c1's lease
	require.NoError(t, err)
	require.Greater(t, g2.Token, g1.Token)
	runStory(t, ctx, s2, []storeOp{{token: g2.Token, value: 0, wantOK: true}})
	runStory(t, ctx, s1, []storeOp{{write: true, token: g1.Token, value: 1, wantOK: false}})
	runStory(t, ctx, s2, []storeOp{
		{write: true, token: g2.Token, value: 1, wantOK: true},
		{token: g2.Token, value: 1, wantOK: true},
	})

	ops, counter, err := AuditEtcd(ctx, []string{e.Addr()}, "counter")
	require.NoError(t, err)
	require.Equal(t, int64(1), counter)
	c1n, c2n := impl.ClientNode(0), impl.ClientNode(1)
	require.Equal(t, []impl.Op{
		{Client: c1n, Kind: impl.OpRead, Accepted: true, Token: g1.Token, Value: 0},
		{Client: c2n, Kind: impl.OpRead, Accepted: true, Token: g2.Token, Value: 0},
		{Client: c2n, Kind: impl.OpWrite, Accepted: true, Token: g2.Token, Value: 1},
		{Client: c2n, Kind: impl.OpRead, Accepted: true, Token: g2.Token, Value: 1},
	}, ops, "the audit has the accepted operations in order, not c1's refused write")
}

// TestEtcdLockGuardedRefusesAllButTheHolder: etcd's own recipe accepts
// only the current holder's token, and none once the lock is free.
func TestEtcdLockGuardedRefusesAllButTheHolder(t *testing.T) {
	e := etcdtest.Start(t)
	ctx := testContext(t)
	s, err := NewEtcdLockGuarded(ctx, []string{e.Addr()}, "counter", 0, lock.EtcdLockPrefix("lock"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	c1 := newTestLocker(t, lock.NewEtcdLease, e.Addr(), "c1", time.Second)
	c2 := newTestLocker(t, lock.NewEtcdMutex, e.Addr(), "c2", 5*time.Second)

	runStory(t, ctx, s, []storeOp{{write: true, token: 1, value: 5, wantOK: false}}) // nobody holds it
	g1, err := c1.Acquire(ctx)
	require.NoError(t, err)
	runStory(t, ctx, s, []storeOp{
		{write: true, token: g1.Token, value: 7, wantOK: true},
		{token: g1.Token, value: 7, wantOK: true},
		{write: true, token: g1.Token + 1, value: 9, wantOK: false}, // a newer token that is not the holder's
		{write: true, token: g1.Token - 1, value: 9, wantOK: false},
		{write: true, token: 0, value: 9, wantOK: false},
	})
	g2, err := c2.Acquire(ctx) // waits out c1's lease
	require.NoError(t, err)
	runStory(t, ctx, s, []storeOp{
		{write: true, token: g1.Token, value: 8, wantOK: false},
		{token: g1.Token, wantOK: false},
		{token: g2.Token, value: 7, wantOK: true},
		{write: true, token: g2.Token, value: 8, wantOK: true},
	})
	require.NoError(t, c2.Release(ctx, g2))
	runStory(t, ctx, s, []storeOp{{write: true, token: g2.Token, value: 9, wantOK: false}})

	// A waiter queued behind the holder is not the holder.
	c3 := newTestLocker(t, lock.NewEtcdMutex, e.Addr(), "c3", 5*time.Second)
	g3, err := c3.Acquire(ctx)
	require.NoError(t, err)
	waiting := make(chan error, 1)
	go func() {
		g, err := c2.Acquire(ctx)
		if err == nil {
			err = c2.Release(ctx, g)
		}
		waiting <- err
	}()
	time.Sleep(200 * time.Millisecond) // c2's key is queued behind c1's
	runStory(t, ctx, s, []storeOp{
		{token: g3.Token, value: 8, wantOK: true},
		{write: true, token: g3.Token + 1, value: 10, wantOK: false},
	})
	require.NoError(t, c3.Release(ctx, g3))
	require.NoError(t, <-waiting)
}

func TestEtcdStoresRefuseBadConfig(t *testing.T) {
	ctx := context.Background()
	addrs := []string{"127.0.0.1:1"}
	for _, open := range []func() (Store, error){
		func() (Store, error) { return NewEtcdTxn(ctx, nil, "counter", 0) },
		func() (Store, error) { return NewEtcdTxn(ctx, addrs, "", 0) },
		func() (Store, error) { return NewEtcdTxn(ctx, addrs, "counter", -1) },
		func() (Store, error) { return NewEtcdLockGuarded(ctx, addrs, "counter", 0, "") },
		func() (Store, error) { return NewEtcdLockGuarded(ctx, nil, "counter", 0, lock.EtcdLockPrefix("lock")) },
		func() (Store, error) { return NewEtcdLockGuarded(ctx, addrs, "", 0, lock.EtcdLockPrefix("lock")) },
	} {
		s, err := open()
		require.Error(t, err)
		require.Nil(t, s)
	}
}

func TestFenceValueOrdersAsNumbers(t *testing.T) {
	for _, pair := range [][2]uint64{{0, 1}, {9, 10}, {99, 100}, {1 << 62, 1<<63 + 1}, {1<<64 - 2, 1<<64 - 1}} {
		require.Less(t, fenceValue(pair[0]), fenceValue(pair[1]), "%d < %d", pair[0], pair[1])
	}
	require.Len(t, fenceValue(1<<64-1), etcdTokenDigits)
}

// Both etcd stores are Stores.
var (
	_ Store = (*EtcdTxn)(nil)
	_ Store = (*EtcdLockGuarded)(nil)
)

func TestParseLogEntry(t *testing.T) {
	good, err := parseLogEntry("2/00ff/00000000000000000001", "write 17 5")
	require.NoError(t, err)
	require.Equal(t, impl.Op{Client: impl.ClientNode(2), Kind: impl.OpWrite, Accepted: true, Token: 17, Value: 5}, good)
	read, err := parseLogEntry("0/ab/00000000000000000002", "read 3 0")
	require.NoError(t, err)
	require.Equal(t, impl.OpRead, read.Kind)
	for _, tc := range []struct{ key, value string }{
		{"2/00ff", "write 17 5"},
		{"x/00ff/1", "write 17 5"},
		{"-1/00ff/1", "write 17 5"},
		{"2/00ff/1", "write 17"},
		{"2/00ff/1", "delete 17 5"},
		{"2/00ff/1", "write -17 5"},
		{"2/00ff/1", "write 17 five"},
		{"2/00ff/1", "write 17 5 " + strings.Repeat("x", 1000)},
	} {
		_, err := parseLogEntry(tc.key, tc.value)
		require.Error(t, err, "%q = %q", tc.key, tc.value)
		require.Less(t, len(err.Error()), 300, "a bounded message")
	}
}
