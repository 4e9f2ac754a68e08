package lock_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/live/lock"
	"github.com/fencelab/fencelab/live/server"
)

// testTTL is the lease of a client that stops; longTTL that of one whose
// grant must outlast the test's checks.
const (
	testTTL = 500 * time.Millisecond
	longTTL = 3 * time.Second
)

// startRedis starts one redis-server for a test, or skips the test in one
// line naming the package where it is missing.
func startRedis(t *testing.T, durable bool) *server.Redis {
	t.Helper()
	r, err := server.StartRedis(context.Background(), t.TempDir(), server.RedisOptions{Durable: durable})
	skipIfMissing(t, err)
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Stop() })
	return r
}

func skipIfMissing(t *testing.T, err error) {
	t.Helper()
	var missing *server.MissingError
	if errors.As(err, &missing) {
		t.Skip(err.Error())
	}
}

func newSetNX(t *testing.T, addr, client string, withToken bool, ttl time.Duration) lock.Locker {
	t.Helper()
	l, err := lock.NewRedisSetNX(lock.Config{Addrs: []string{addr}, Key: "lock", TTL: ttl, Client: client}, withToken)
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// rawGet reads a key straight from a server.
func rawGet(t *testing.T, addr, key string) (string, error) {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialerRetries: 1})
	defer c.Close()
	return c.Get(context.Background(), key).Result()
}

func acquireWithin(l lock.Locker, d time.Duration) (lock.Grant, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return l.Acquire(ctx)
}

func TestRedisSetNXConfig(t *testing.T) {
	good := lock.Config{Addrs: []string{"127.0.0.1:1"}, Key: "k", TTL: time.Second, Client: "c1"}
	for _, tc := range []struct {
		name   string
		mutate func(*lock.Config)
		want   string
	}{
		{"no address", func(c *lock.Config) { c.Addrs = nil }, "exactly one address"},
		{"two addresses", func(c *lock.Config) { c.Addrs = append(c.Addrs, "127.0.0.1:2") }, "exactly one address"},
		{"empty key", func(c *lock.Config) { c.Key = "" }, "key is empty"},
		{"TTL too short", func(c *lock.Config) { c.TTL = time.Millisecond }, "TTL"},
		{"TTL not in ms", func(c *lock.Config) { c.TTL = 20*time.Millisecond + 1 }, "whole number of milliseconds"},
		{"good", func(*lock.Config) {}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := good
			tc.mutate(&cfg)
			l, err := lock.NewRedisSetNX(cfg, true)
			if tc.want == "" {
				require.NoError(t, err)
				require.NoError(t, l.Close())
				return
			}
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestRedisSetNXExcludes(t *testing.T) {
	for _, withToken := range []bool{false, true} {
		t.Run("token="+strconv.FormatBool(withToken), func(t *testing.T) {
			r := startRedis(t, false)
			a, b := newSetNX(t, r.Addr(), "a", withToken, testTTL), newSetNX(t, r.Addr(), "b", withToken, testTTL)

			before := time.Now()
			ga, err := acquireWithin(a, time.Second)
			require.NoError(t, err)
			require.Greater(t, ga.Validity, time.Duration(0))
			require.LessOrEqual(t, ga.Validity, testTTL)
			// The window counts from the granted attempt's send.
			require.False(t, ga.Sent.Before(before), "sent %v, acquire called %v", ga.Sent, before)
			require.False(t, ga.Sent.After(time.Now()))
			held, err := rawGet(t, r.Addr(), "lock")
			require.NoError(t, err)
			require.Equal(t, ga.Value, held, "the key holds a's value")

			_, err = acquireWithin(b, testTTL/5)
			require.ErrorIs(t, err, context.DeadlineExceeded, "b waits while a holds")

			require.NoError(t, a.Release(context.Background(), ga))
			gb, err := acquireWithin(b, time.Second)
			require.NoError(t, err, "granted to b once a released")
			require.NotEqual(t, ga.Value, gb.Value)
			if withToken {
				require.Equal(t, uint64(1), ga.Token)
				require.Equal(t, uint64(2), gb.Token)
			} else {
				require.Zero(t, ga.Token)
				require.Zero(t, gb.Token)
			}
			require.NoError(t, b.Release(context.Background(), gb))
			_, err = rawGet(t, r.Addr(), "lock")
			require.ErrorIs(t, err, redis.Nil, "released")
		})
	}
}

func TestRedisSetNXLeaseRunsOut(t *testing.T) {
	r := startRedis(t, false)
	// b's lease is long, so that it still holds when a's late release
	// runs.
	a, b := newSetNX(t, r.Addr(), "a", true, testTTL), newSetNX(t, r.Addr(), "b", true, longTTL)
	// The key was set after this instant, so it lives until at least
	// called+TTL.
	called := time.Now()
	ga, err := acquireWithin(a, time.Second)
	require.NoError(t, err)

	// a stops (never releases): b gets the lock once a's lease ran out.
	gb, err := acquireWithin(b, 5*testTTL)
	require.NoError(t, err)
	require.GreaterOrEqual(t, time.Since(called), testTTL, "not before a's TTL")
	require.Greater(t, gb.Token, ga.Token)

	// a's late release must not delete b's lock (compare-and-delete).
	require.NoError(t, a.Release(context.Background(), ga))
	held, err := rawGet(t, r.Addr(), "lock")
	require.NoError(t, err)
	require.Equal(t, gb.Value, held)
}

func TestRedisSetNXTokenOnlyAsDurableAsRedis(t *testing.T) {
	for _, tc := range []struct {
		name      string
		durable   bool
		wantAfter uint64
	}{
		{"appendfsync always keeps the counter", true, 3},
		{"no persistence hands out 1 again", false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := startRedis(t, tc.durable)
			l := newSetNX(t, r.Addr(), "a", true, testTTL)
			for want := uint64(1); want <= 2; want++ {
				g, err := acquireWithin(l, time.Second)
				require.NoError(t, err)
				require.Equal(t, want, g.Token)
				require.NoError(t, l.Release(context.Background(), g))
			}
			require.NoError(t, r.Kill())
			// While the server is down, Acquire keeps trying until its
			// context ends.
			_, err := acquireWithin(l, 100*time.Millisecond)
			require.ErrorIs(t, err, context.DeadlineExceeded)
			require.NoError(t, r.Restart(context.Background(), false))
			g, err := acquireWithin(l, time.Second)
			require.NoError(t, err)
			require.Equal(t, tc.wantAfter, g.Token)
		})
	}
}

func TestRedlockConfig(t *testing.T) {
	addrs := []string{"127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3", "127.0.0.1:4", "127.0.0.1:5"}
	for _, tc := range []struct {
		name   string
		mutate func(*lock.Config)
		want   string
	}{
		{"one node", func(c *lock.Config) { c.Addrs = addrs[:1] }, "odd number"},
		{"four nodes", func(c *lock.Config) { c.Addrs = addrs[:4] }, "odd number"},
		{"empty key", func(c *lock.Config) { c.Key = "" }, "key is empty"},
		{"TTL too short", func(c *lock.Config) { c.TTL = 0 }, "TTL"},
		{"five nodes", func(*lock.Config) {}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := lock.Config{Addrs: addrs, Key: "k", TTL: time.Second, Client: "c1"}
			tc.mutate(&cfg)
			l, err := lock.NewRedlock(cfg)
			if tc.want == "" {
				require.NoError(t, err)
				require.NoError(t, l.Close())
				return
			}
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// startRedlockNodes starts five independent nodes.
func startRedlockNodes(t *testing.T) *server.RedisCluster {
	t.Helper()
	c, err := server.StartRedisCluster(context.Background(), t.TempDir(), 5, server.RedisOptions{})
	skipIfMissing(t, err)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Stop() })
	return c
}

func newRedlock(t *testing.T, addrs []string, client string, ttl time.Duration) lock.Locker {
	t.Helper()
	l, err := lock.NewRedlock(lock.Config{Addrs: addrs, Key: "lock", TTL: ttl, Client: client})
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// holders counts the nodes (all of c's, or only those given) whose lock
// key holds value; killed nodes count as not holding.
func holders(t *testing.T, c *server.RedisCluster, value string, only ...*server.Redis) int {
	t.Helper()
	nodes := c.Nodes
	if len(only) > 0 {
		nodes = only
	}
	n := 0
	for _, node := range nodes {
		if len(node.Pids()) == 0 {
			continue
		}
		if v, err := rawGet(t, node.Addr(), "lock"); err == nil && v == value {
			n++
		}
	}
	return n
}

func TestRedlockExcludesAndExpires(t *testing.T) {
	c := startRedlockNodes(t)
	// b's lease is long, so that it still holds when a's late release
	// runs.
	a, b := newRedlock(t, c.Addrs(), "a", testTTL), newRedlock(t, c.Addrs(), "b", longTTL)

	called := time.Now()
	ga, err := acquireWithin(a, time.Second)
	require.NoError(t, err)
	require.NotZero(t, ga.Token)
	require.Equal(t, strconv.FormatUint(ga.Token, 10), ga.Value, "the token is the unique value")
	require.Greater(t, ga.Validity, time.Duration(0))
	require.Less(t, ga.Validity, testTTL, "less the round and the drift")
	_, err = acquireWithin(b, testTTL/5)
	require.Error(t, err, "b waits while a holds")
	require.GreaterOrEqual(t, holders(t, c, ga.Value), 3, "a majority holds a's value")

	// a stops: b gets a majority once a's lease ran out on the nodes.
	gb, err := acquireWithin(b, 5*testTTL)
	require.NoError(t, err)
	require.GreaterOrEqual(t, time.Since(called), testTTL)
	require.NotEqual(t, ga.Token, gb.Token)
	require.GreaterOrEqual(t, holders(t, c, gb.Value), 3)

	// a's late release leaves b's keys alone and is not an error.
	require.NoError(t, a.Release(context.Background(), ga))
	require.GreaterOrEqual(t, holders(t, c, gb.Value), 3)
	require.NoError(t, b.Release(context.Background(), gb))
	require.Zero(t, holders(t, c, gb.Value))
}

func TestRedlockNeedsAMajority(t *testing.T) {
	c := startRedlockNodes(t)
	l := newRedlock(t, c.Addrs(), "a", longTTL)
	for killed, node := range c.Nodes {
		// killed nodes are down; a majority (3 of 5) is up while killed <= 2.
		g, err := acquireWithin(l, 300*time.Millisecond)
		if killed <= 2 {
			require.NoError(t, err, "%d of 5 nodes killed", killed)
			// A majority holds it; a node may miss the grant when its
			// reply is later than redsync's per-try bound (5% of the TTL).
			n := holders(t, c, g.Value)
			require.GreaterOrEqual(t, n, 3)
			require.LessOrEqual(t, n, 5-killed)
			require.NoError(t, l.Release(context.Background(), g), "%d of 5 nodes killed", killed)
			require.Zero(t, holders(t, c, g.Value))
		} else {
			require.Error(t, err, "%d of 5 nodes killed: no majority", killed)
			require.ErrorIs(t, err, context.DeadlineExceeded)
			break
		}
		require.NoError(t, node.Kill())
	}
}

// BenchmarkRedisLockers measures one uncontended Acquire and Release.
func BenchmarkRedisLockers(b *testing.B) {
	ctx := context.Background()
	r, err := server.StartRedis(ctx, b.TempDir(), server.RedisOptions{})
	if err != nil {
		var missing *server.MissingError
		if errors.As(err, &missing) {
			b.Skip(err.Error())
		}
		b.Fatal(err)
	}
	defer r.Stop()
	nodes, err := server.StartRedisCluster(ctx, b.TempDir(), 5, server.RedisOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer nodes.Stop()
	cfg := lock.Config{Addrs: []string{r.Addr()}, Key: "lock", TTL: time.Second, Client: "bench"}
	setnx, err := lock.NewRedisSetNX(cfg, true)
	if err != nil {
		b.Fatal(err)
	}
	defer setnx.Close()
	cfg.Addrs = nodes.Addrs()
	redlock, err := lock.NewRedlock(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer redlock.Close()
	for name, l := range map[string]lock.Locker{"setnx+incr": setnx, "redlock-5": redlock} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				g, err := l.Acquire(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if err := l.Release(ctx, g); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestRedisLockersWithPausedServers(t *testing.T) {
	ctx := context.Background()
	t.Run("setnx: a paused server costs a bounded wait", func(t *testing.T) {
		r := startRedis(t, false)
		l := newSetNX(t, r.Addr(), "a", true, testTTL)
		g, err := acquireWithin(l, time.Second)
		require.NoError(t, err, "a first grant opens the connection")
		require.NoError(t, l.Release(ctx, g))
		require.NoError(t, r.Pause())
		start := time.Now()
		_, err = acquireWithin(l, 300*time.Millisecond)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		// go-redis's read timeout is 1 s: returning well before says the
		// context's deadline bounded the read.
		require.Less(t, time.Since(start), 800*time.Millisecond)
		require.NoError(t, r.Resume())
		g, err = acquireWithin(l, 2*time.Second)
		require.NoError(t, err, "granted once resumed")
		require.Equal(t, uint64(2), g.Token)
	})
	t.Run("redlock: two paused nodes of five still grant", func(t *testing.T) {
		c := startRedlockNodes(t)
		l := newRedlock(t, c.Addrs(), "a", longTTL)
		for _, node := range c.Nodes[:2] {
			require.NoError(t, node.Pause())
		}
		t.Cleanup(func() {
			for _, node := range c.Nodes[:2] {
				_ = node.Resume()
			}
		})
		g, err := acquireWithin(l, 2*time.Second)
		require.NoError(t, err)
		require.Equal(t, 3, holders(t, c, g.Value, c.Nodes[2:]...))
		// The release reaches the three that answer: a majority.
		releaseCtx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		defer cancel()
		require.NoError(t, l.Release(releaseCtx, g))
		require.Zero(t, holders(t, c, g.Value, c.Nodes[2:]...))

		require.NoError(t, c.Nodes[2].Pause())
		_, err = acquireWithin(newRedlock(t, c.Addrs(), "b", longTTL), 300*time.Millisecond)
		require.ErrorIs(t, err, context.DeadlineExceeded, "three paused: no majority, though nobody holds the lock")
		require.NoError(t, c.Nodes[2].Resume())
		_, err = acquireWithin(newRedlock(t, c.Addrs(), "b", longTTL), 2*time.Second)
		require.NoError(t, err, "a majority answers again")
	})
}
