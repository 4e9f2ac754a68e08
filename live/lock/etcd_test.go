package lock

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/live/internal/etcdtest"
	"github.com/fencelab/fencelab/live/internal/quietlog"
)

// TestMain lets the test binary serve as the etcd child (etcdtest.Main);
// the client libraries log nothing of their own (quietlog).
func TestMain(m *testing.M) {
	quietlog.Libraries()
	etcdtest.Main(m)
}

// etcdTestTimeout bounds each test's calls.
const etcdTestTimeout = 15 * time.Second

type etcdConstructor func(context.Context, Config) (Locker, error)

func newTestLocker(t *testing.T, ctor etcdConstructor, addr, client string, ttl time.Duration) *EtcdMutex {
	t.Helper()
	l, err := ctor(context.Background(), Config{Addrs: []string{addr}, Key: "lock", TTL: ttl, Client: client})
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	return l.(*EtcdMutex)
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), etcdTestTimeout)
	t.Cleanup(cancel)
	return ctx
}

func TestEtcdMutexExcludesAndTokensIncrease(t *testing.T) {
	e := etcdtest.Start(t)
	for _, tc := range []struct {
		name string
		ctor etcdConstructor
	}{
		{"renewed", NewEtcdMutex},
		{"unrenewed", NewEtcdLease},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testContext(t)
			c1 := newTestLocker(t, tc.ctor, e.Addr(), "c1", 5*time.Second)
			c2 := newTestLocker(t, tc.ctor, e.Addr(), "c2", 5*time.Second)

			g1, err := c1.Acquire(ctx)
			require.NoError(t, err)
			require.Positive(t, g1.Token)
			require.Equal(t, 5*time.Second, g1.Validity)
			require.Contains(t, g1.Value, EtcdLockPrefix("lock")+"/")

			waiting := acquireAsync(ctx, c2)
			select {
			case r := <-waiting:
				t.Fatalf("c2 acquired while c1 holds the lock: %+v, %v", r.g, r.err)
			case <-time.After(300 * time.Millisecond):
			}
			require.NoError(t, c1.Release(ctx, g1))
			r := <-waiting
			require.NoError(t, r.err)
			require.Greater(t, r.g.Token, g1.Token)
			require.NotEqual(t, g1.Value, r.g.Value)
			require.NoError(t, c2.Release(ctx, r.g))

			g3, err := c1.Acquire(ctx)
			require.NoError(t, err)
			require.Greater(t, g3.Token, r.g.Token, "a later grant of the same client")
			require.NoError(t, c1.Release(ctx, g3))
		})
	}
}

// TestEtcdLeaseExpiryHandsOver: a holder that stops renewing loses the
// lock when its lease expires, and the other client acquires with a
// larger token — for the unrenewed lease, and for the renewed session
// whose keep-alive stops (as it does when the client process is paused:
// Orphan stops exactly the goroutine a SIGSTOP would stop).
func TestEtcdLeaseExpiryHandsOver(t *testing.T) {
	e := etcdtest.Start(t)
	for _, tc := range []struct {
		name        string
		ctor        etcdConstructor
		stopRenewal func(*EtcdMutex)
	}{
		{"unrenewed lease", NewEtcdLease, func(*EtcdMutex) {}},
		{"renewed session, keep-alive stopped", NewEtcdMutex, func(l *EtcdMutex) { l.session.Orphan() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testContext(t)
			c1 := newTestLocker(t, tc.ctor, e.Addr(), "c1", time.Second)
			c2 := newTestLocker(t, NewEtcdMutex, e.Addr(), "c2", 5*time.Second)

			g1, err := c1.Acquire(ctx)
			require.NoError(t, err)
			began := time.Now()
			tc.stopRenewal(c1)
			g2, err := c2.Acquire(ctx)
			require.NoError(t, err)
			waited := time.Since(began)
			t.Logf("c2 acquired %v after c1's grant of a 1 s lease", waited)
			require.GreaterOrEqual(t, waited, 500*time.Millisecond, "c2 was kept out while c1's lease lived")
			require.Greater(t, g2.Token, g1.Token)

			require.NoError(t, c1.Release(ctx, g1), "a release after the lease expired is no error")
			require.NoError(t, c2.Release(ctx, g2))
			g3, err := c1.Acquire(ctx)
			require.NoError(t, err, "c1 acquires again with a new lease")
			require.Greater(t, g3.Token, g2.Token)
			require.NoError(t, c1.Release(ctx, g3))
		})
	}
}

// TestEtcdMutexRenewsPastTTL is the renewed variant's witness: its lease
// outlives its TTL while the holder runs.
func TestEtcdMutexRenewsPastTTL(t *testing.T) {
	e := etcdtest.Start(t)
	ctx := testContext(t)
	c1 := newTestLocker(t, NewEtcdMutex, e.Addr(), "c1", time.Second)
	c2 := newTestLocker(t, NewEtcdMutex, e.Addr(), "c2", time.Second)
	g1, err := c1.Acquire(ctx)
	require.NoError(t, err)
	short, cancel := context.WithTimeout(ctx, 2500*time.Millisecond)
	_, err = c2.Acquire(short)
	cancel()
	require.ErrorIs(t, err, context.DeadlineExceeded, "c1's renewed lease still holds the lock after 2.5 TTLs")
	require.NoError(t, c1.Release(ctx, g1))
	g2, err := c2.Acquire(ctx)
	require.NoError(t, err)
	require.Greater(t, g2.Token, g1.Token)
	require.NoError(t, c2.Release(ctx, g2))
}

// TestEtcdMutexStartsOverAfterALostLease: a renewed client whose lease
// ended before its keep-alive noticed (revoked here, expired after a
// pause in a run) acquires with a fresh session, not an error.
func TestEtcdMutexStartsOverAfterALostLease(t *testing.T) {
	e := etcdtest.Start(t)
	ctx := testContext(t)
	c1 := newTestLocker(t, NewEtcdMutex, e.Addr(), "c1", 5*time.Second)
	g1, err := c1.Acquire(ctx)
	require.NoError(t, err)
	require.NoError(t, c1.Release(ctx, g1))
	lost := c1.session.Lease()
	_, err = c1.cli.Revoke(ctx, lost)
	require.NoError(t, err)
	g2, err := c1.Acquire(ctx)
	require.NoError(t, err)
	require.Greater(t, g2.Token, g1.Token)
	require.NotEqual(t, lost, c1.session.Lease(), "a fresh session")
	require.NoError(t, c1.Release(ctx, g2))
}

// TestEtcdLeaseWaiterOutlivesItsLease: an unrenewed client queued longer
// than its TTL starts over with a fresh lease and gets the lock, not an
// error.
func TestEtcdLeaseWaiterOutlivesItsLease(t *testing.T) {
	e := etcdtest.Start(t)
	ctx := testContext(t)
	holder := newTestLocker(t, NewEtcdMutex, e.Addr(), "c1", 5*time.Second)
	waiter := newTestLocker(t, NewEtcdLease, e.Addr(), "c2", time.Second)
	g1, err := holder.Acquire(ctx)
	require.NoError(t, err)
	waiting := acquireAsync(ctx, waiter)
	time.Sleep(2500 * time.Millisecond) // the waiter's first lease expires
	require.NoError(t, holder.Release(ctx, g1))
	r := <-waiting
	require.NoError(t, r.err)
	require.Greater(t, r.g.Token, g1.Token)
	require.NoError(t, waiter.Release(ctx, r.g))
}

// TestEtcdContribLockTokenIsTheLease: contrib/lock's version is the
// session's lease ID, the same for a client's sections while its lease
// lives, a new one after the lease is lost; two clients' versions differ.
func TestEtcdContribLockTokenIsTheLease(t *testing.T) {
	e := etcdtest.Start(t)
	ctx := testContext(t)
	c1 := newTestLocker(t, NewEtcdContribLock, e.Addr(), "c1", 5*time.Second)
	c2 := newTestLocker(t, NewEtcdContribLock, e.Addr(), "c2", 5*time.Second)
	g1, err := c1.Acquire(ctx)
	require.NoError(t, err)
	require.Equal(t, uint64(c1.session.Lease()), g1.Token)
	require.NoError(t, c1.Release(ctx, g1))
	g2, err := c1.Acquire(ctx)
	require.NoError(t, err)
	require.Equal(t, g1.Token, g2.Token, "one version per session")
	require.NoError(t, c1.Release(ctx, g2))
	g3, err := c2.Acquire(ctx)
	require.NoError(t, err)
	require.NotEqual(t, g1.Token, g3.Token, "each client its own version")
	require.NoError(t, c2.Release(ctx, g3))

	_, err = c1.cli.Revoke(ctx, c1.session.Lease()) // the lease lost, as after a pause
	require.NoError(t, err)
	g4, err := c1.Acquire(ctx)
	require.NoError(t, err)
	require.NotEqual(t, g1.Token, g4.Token, "a new session, a new version")
	require.NoError(t, c1.Release(ctx, g4))
}

func TestEtcdMutexMisuse(t *testing.T) {
	e := etcdtest.Start(t)
	ctx := testContext(t)
	c1 := newTestLocker(t, NewEtcdLease, e.Addr(), "c1", 5*time.Second)
	require.Error(t, c1.Release(ctx, Grant{Token: 1, Value: EtcdLockPrefix("lock") + "/1"}), "release of nothing held")
	g, err := c1.Acquire(ctx)
	require.NoError(t, err)
	_, err = c1.Acquire(ctx)
	require.Error(t, err, "acquire while holding")
	require.Error(t, c1.Release(ctx, Grant{Token: g.Token, Value: g.Value + "x"}), "release of another key")
	require.NoError(t, c1.Release(ctx, g))
	require.Error(t, c1.Release(ctx, g), "a second release")
}

func TestNewEtcdMutexRefusesBadConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"no address", Config{Key: "lock", TTL: time.Second}},
		{"no key", Config{Addrs: []string{"127.0.0.1:1"}, TTL: time.Second}},
		{"negative TTL", Config{Addrs: []string{"127.0.0.1:1"}, Key: "lock", TTL: -time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, ctor := range []etcdConstructor{NewEtcdMutex, NewEtcdLease, NewEtcdContribLock} {
				l, err := ctor(context.Background(), tc.cfg)
				require.Error(t, err)
				require.Nil(t, l)
			}
		})
	}
}

func TestLeaseSeconds(t *testing.T) {
	for _, tc := range []struct {
		ttl  time.Duration
		want int64
	}{
		{0, 1},
		{time.Nanosecond, 1},
		{time.Second, 1},
		{1500 * time.Millisecond, 2},
		{3 * time.Second, 3},
	} {
		require.Equal(t, tc.want, leaseSeconds(tc.ttl), "ttl %v", tc.ttl)
	}
}

// The etcd recipes are Lockers.
var _ Locker = (*EtcdMutex)(nil)
