package lock

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/live/internal/servertest"
)

func newPostgresLock(t *testing.T, addr, key string, xact bool) Locker {
	t.Helper()
	cfg := Config{Addrs: []string{addr}, Key: key, Client: t.Name()}
	var (
		l   Locker
		err error
	)
	if xact {
		l, err = NewPostgresXactLock(cfg)
	} else {
		l, err = NewPostgresAdvisoryLock(cfg)
	}
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, l.Close()) })
	return l
}

// TestPostgresAdvisoryLocks: both recipes exclude a second client while
// held and grant it after the release; a restart frees the lock (the
// restart story); the transaction lock's tokens grow, across a restart
// that keeps the data too, and start over after a wipe.
func TestPostgresAdvisoryLocks(t *testing.T) {
	pg := servertest.Postgres(t)
	for _, xact := range []bool{false, true} {
		name := map[bool]string{false: "session", true: "xact"}[xact]
		t.Run(name+": two clients exclude each other", func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			a := newPostgresLock(t, pg.Addr(), "exclude-"+name, xact)
			b := newPostgresLock(t, pg.Addr(), "exclude-"+name, xact)
			ga, err := a.Acquire(ctx)
			require.NoError(t, err)
			assert.Zero(t, ga.Validity, "no lease")
			short, cancelShort := context.WithTimeout(ctx, 500*time.Millisecond)
			_, err = b.Acquire(short)
			cancelShort()
			require.Error(t, err, "b is not granted while a holds")
			require.NoError(t, a.Release(ctx, ga))
			gb, err := b.Acquire(ctx)
			require.NoError(t, err, "granted once a released")
			if xact {
				assert.Greater(t, gb.Token, ga.Token, "tokens grow in grant order")
			} else {
				assert.Zero(t, gb.Token, "the session lock has no token")
			}
			require.NoError(t, b.Release(ctx, gb))
		})
	}

	t.Run("a restart frees the lock; kept data keeps the tokens, wiped data starts over", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		a := newPostgresLock(t, pg.Addr(), "restart", true)
		b := newPostgresLock(t, pg.Addr(), "restart", true)
		ga, err := a.Acquire(ctx)
		require.NoError(t, err)
		require.NoError(t, pg.Kill())
		require.NoError(t, pg.Restart(ctx, false))
		gb, err := b.Acquire(ctx)
		require.NoError(t, err, "the restart ended a's session and its lock")
		assert.Greater(t, gb.Token, ga.Token, "the sequence survived the restart")
		assert.NoError(t, a.Release(ctx, ga), "a release on a lost session is no error")
		require.NoError(t, b.Release(ctx, gb))

		require.NoError(t, pg.Kill())
		require.NoError(t, pg.Restart(ctx, true))
		g, err := a.Acquire(ctx)
		require.NoError(t, err)
		assert.Equal(t, uint64(1), g.Token, "a wiped restart starts the sequence over")
		require.NoError(t, a.Release(ctx, g))
	})
}

// TestPostgresSessionLockThroughPgBouncer: in transaction pooling the
// session lock is taken by the pool's server session, not the client's:
// a second client is granted while the first holds — two holders, no
// fault.
func TestPostgresSessionLockThroughPgBouncer(t *testing.T) {
	pg := servertest.Postgres(t)
	pb := servertest.PgBouncer(t, pg)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a := newPostgresLock(t, pb.Addr(), "pooled", false)
	b := newPostgresLock(t, pb.Addr(), "pooled", false)
	ga, err := a.Acquire(ctx)
	require.NoError(t, err)
	short, cancelShort := context.WithTimeout(ctx, 5*time.Second)
	gb, err := b.Acquire(short)
	cancelShort()
	require.NoError(t, err, "b is granted while a holds: both ran on the pool's one server session")
	require.NoError(t, a.Release(ctx, ga))
	require.NoError(t, b.Release(ctx, gb))

	// The same two clients straight to PostgreSQL exclude each other.
	c := newPostgresLock(t, pg.Addr(), "pooled", false)
	d := newPostgresLock(t, pg.Addr(), "pooled", false)
	gc, err := c.Acquire(ctx)
	require.NoError(t, err)
	short, cancelShort = context.WithTimeout(ctx, 500*time.Millisecond)
	_, err = d.Acquire(short)
	cancelShort()
	require.Error(t, err, "without the pooler the lock excludes")
	require.NoError(t, c.Release(ctx, gc))
}

func TestPostgresLockRefusesBadConfig(t *testing.T) {
	for _, cfg := range []Config{
		{Addrs: nil, Key: "k"},
		{Addrs: []string{"127.0.0.1:1", "127.0.0.1:2"}, Key: "k"},
		{Addrs: []string{"127.0.0.1:5432"}, Key: ""},
		{Addrs: []string{"127.0.0.1:5432"}, Key: "\xff"},
		{Addrs: []string{"nohost"}, Key: "k"},
	} {
		_, err := NewPostgresAdvisoryLock(cfg)
		assert.Error(t, err, "%+v", cfg)
		_, err = NewPostgresXactLock(cfg)
		assert.Error(t, err, "%+v", cfg)
	}
}
