package nemesis

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/live/server"
)

// startRedis starts a redis-server with env, or skips naming the package.
func startRedis(t *testing.T, env []string) *server.Redis {
	t.Helper()
	r, err := server.StartRedis(context.Background(), t.TempDir(), server.RedisOptions{Env: env})
	skipIfMissing(t, err)
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Stop() })
	return r
}

func newRedisClient(t *testing.T, addr string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{
		Addr: addr, MaxRetries: -1, DialerRetries: 1,
		ReadTimeout: time.Second, ContextTimeoutEnabled: true,
	})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// serverTime is Redis's own wall clock (the TIME command).
func serverTime(t *testing.T, c *redis.Client) time.Time {
	t.Helper()
	now, err := c.Time(context.Background()).Result()
	require.NoError(t, err)
	return now
}

// redisTime reads Redis's own wall clock (TIME) with c: a Clock's witness.
func redisTime(c *redis.Client) func(context.Context) (time.Time, error) {
	return func(ctx context.Context) (time.Time, error) { return c.Time(ctx).Result() }
}

func TestClockStepMovesRedisExpiry(t *testing.T) {
	for _, tc := range []struct {
		name string
		step time.Duration
		px   time.Duration
		wait time.Duration // real time between the step and the read
		kept bool
	}{
		// A forward step expires a 3 s lease at once: Redis's documented
		// clock hazard, a lock lost early.
		{"forward step expires early", 10 * time.Second, 3 * time.Second, 0, false},
		// A backward step keeps a 200 ms lease past its time.
		{"backward step expires late", -10 * time.Second, 200 * time.Millisecond, 400 * time.Millisecond, true},
		// Control: no step, the lease runs out on time.
		{"no step, on time", 0, 200 * time.Millisecond, 400 * time.Millisecond, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := newTestClock(t)
			r := startRedis(t, clock.Env())
			c := newRedisClient(t, r.Addr())
			ctx := context.Background()
			require.NoError(t, clock.Attach(ctx, r.Pids(), redisTime(c)))
			require.WithinDuration(t, time.Now(), serverTime(t, c), time.Second, "the shim starts at offset 0")

			set := time.Now()
			require.NoError(t, c.Set(ctx, "lock", "holder", tc.px).Err())
			require.Equal(t, "holder", c.Get(ctx, "lock").Val(), "held before the step")
			require.NoError(t, clock.Step(tc.step))
			// Witness: the server's own clock moved by the step.
			require.WithinDuration(t, time.Now().Add(tc.step), serverTime(t, c), time.Second)
			time.Sleep(tc.wait)

			_, err := c.Get(ctx, "lock").Result()
			if tc.kept {
				require.NoError(t, err, "still held after %v of real time (lease %v)", time.Since(set), tc.px)
			} else {
				require.ErrorIs(t, err, redis.Nil)
			}
			if tc.step > 0 {
				require.Less(t, time.Since(set), tc.px, "expired before its lease ran out in real time")
			}
		})
	}
}

func TestProxyInFrontOfRedis(t *testing.T) {
	r := startRedis(t, nil)
	p := newTestProxy(t, r.Addr())
	c := newRedisClient(t, p.Addr())
	ping := func(timeout time.Duration) error {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		return c.Ping(ctx).Err()
	}
	require.NoError(t, ping(time.Second))

	p.SetDelay(100 * time.Millisecond)
	start := time.Now()
	require.NoError(t, ping(2*time.Second))
	require.GreaterOrEqual(t, time.Since(start), 200*time.Millisecond, "delayed both ways")

	for _, blackhole := range []struct {
		name  string
		start func()
	}{{"hold", p.Hold}, {"drop", p.Drop}} {
		blackhole.start()
		err := ping(200 * time.Millisecond)
		require.True(t, isTimeout(err) || errors.Is(err, context.DeadlineExceeded), "%s: the client times out: %v", blackhole.name, err)
		p.Heal()
		require.NoError(t, ping(time.Second), "healed after %s", blackhole.name)
	}
}

func TestClockStepAimsAtOneRedlockNode(t *testing.T) {
	clock := newTestClock(t)
	// Node 2 (index 1) gets the shim; the others read the machine's clock.
	c, err := server.StartRedisCluster(context.Background(), t.TempDir(), 3, server.RedisOptions{NodeEnv: [][]string{nil, clock.Env()}})
	skipIfMissing(t, err)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Stop() })
	node := c.Nodes[1]
	require.Error(t, clock.Attach(context.Background(), c.Nodes[0].Pids(), redisTime(newRedisClient(t, c.Nodes[0].Addr()))), "node 1 runs without the shim")
	require.NoError(t, clock.Attach(context.Background(), node.Pids(), redisTime(newRedisClient(t, node.Addr()))))
	require.NoError(t, clock.Step(time.Hour))
	for i, node := range c.Nodes {
		want := time.Now()
		if i == 1 {
			want = want.Add(time.Hour)
		}
		require.WithinDuration(t, want, serverTime(t, newRedisClient(t, node.Addr())), time.Second, node.Name())
	}
	_, err = server.StartRedisCluster(context.Background(), t.TempDir(), 1, server.RedisOptions{NodeEnv: [][]string{nil, nil}})
	require.ErrorContains(t, err, "environments for 2")
	_, err = server.StartRedis(context.Background(), t.TempDir(), server.RedisOptions{NodeEnv: [][]string{nil}})
	require.ErrorContains(t, err, "NodeEnv is for a cluster")
}
