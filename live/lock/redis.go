package lock

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	mathrand "math/rand/v2"
	"time"

	"github.com/redis/go-redis/v9"
)

// Bounds of the Redis recipes' configuration.
const (
	// redisMinTTL is the shortest lease accepted: an attempt may take up
	// to half of it, and Redis counts PX in milliseconds.
	redisMinTTL = 10 * time.Millisecond
	// redisRetryMin and redisRetryMax bound the wait between two attempts
	// to acquire (jittered exponential backoff).
	redisRetryMin = time.Millisecond
	redisRetryMax = 50 * time.Millisecond
)

// redisReleaseScript deletes the lock key only if it still holds this
// grant's value, in one step on the server: the release every Redis lock
// guide gives, so that a client whose lease ran out cannot delete the
// next holder's lock.
var redisReleaseScript = redis.NewScript(`
if redis.call("get", KEYS[1]) == ARGV[1] then
	return redis.call("del", KEYS[1])
end
return 0`)

// RedisSetNX is the single-instance Redis lock: SET key value NX PX ttl
// with a random value, released by a compare-and-delete script, through
// go-redis.
//
// With a token, every grant is followed by INCR on a counter key
// (<Key>:fence), and the counter's new value is the grant's fencing
// token. Redis has no token of its own; this is the answer people give
// when asked for one (Kleppmann's "How to do distributed locking" asks
// for it, and the usual replies add an INCR beside the lock). Two things
// follow, which the rows say: the token is only as durable as Redis is —
// without persistence a restart forgets the counter and hands out 1 again
// (restart-volatile); with appendfsync always it survives (restart-
// durable) — and it is a second command, not part of the grant: a holder
// paused between SET and INCR can take a larger token than the holder
// after it. The tokens are still unique and increasing in the order they
// are taken, so a resource checking >= on every operation still refuses
// the stale one; what it may refuse is the newer holder.
type RedisSetNX struct {
	client    *redis.Client
	key       string
	tokenKey  string
	ttl       time.Duration
	name      string
	withToken bool
}

var _ Locker = (*RedisSetNX)(nil)

// NewRedisSetNX returns the SET NX PX lock on cfg's one Redis instance;
// withToken adds the INCR fencing token.
func NewRedisSetNX(cfg Config, withToken bool) (Locker, error) {
	if len(cfg.Addrs) != 1 {
		return nil, fmt.Errorf("redis lock: needs exactly one address, got %d", len(cfg.Addrs))
	}
	if err := checkRedisConfig(cfg); err != nil {
		return nil, err
	}
	return &RedisSetNX{
		client:    redis.NewClient(redisClientOptions(cfg.Addrs[0])),
		key:       cfg.Key,
		tokenKey:  cfg.Key + ":fence",
		ttl:       cfg.TTL,
		name:      cfg.Client,
		withToken: withToken,
	}, nil
}

// checkRedisConfig checks what both Redis recipes need.
func checkRedisConfig(cfg Config) error {
	if cfg.Key == "" {
		return errors.New("redis lock: the key is empty")
	}
	if cfg.TTL < redisMinTTL || cfg.TTL%time.Millisecond != 0 {
		return fmt.Errorf("redis lock: the TTL must be a whole number of milliseconds, at least %v (got %v)", redisMinTTL, cfg.TTL)
	}
	return nil
}

// redisClientOptions are go-redis's options for a lock client: no retries
// hidden inside the library (a retried SET whose first try did reach the
// server is not the same experiment; the recipes retry themselves), one
// dial per attempt, and the caller's context deadline on every command,
// so that a paused or blackholed server costs a bounded wait. The pool
// keeps go-redis's defaults; note its dial breaker: after PoolSize failed
// dials (a killed server) it refuses to dial until a probe, made once a
// second, succeeds, so a client sees a restarted server up to a second
// late.
func redisClientOptions(addr string) *redis.Options {
	return &redis.Options{
		Addr:                  addr,
		MaxRetries:            -1,
		DialerRetries:         1,
		DialTimeout:           time.Second,
		ReadTimeout:           time.Second,
		WriteTimeout:          time.Second,
		ContextTimeoutEnabled: true,
	}
}

// redisRetryDelay is the wait before attempt n+1 (n >= 1): exponential
// from redisRetryMin, capped at redisRetryMax, with full jitter, so that
// waiting clients do not retry in step.
func redisRetryDelay(n int) time.Duration {
	d := redisRetryMin << min(n, 16)
	if d > redisRetryMax || d <= 0 {
		d = redisRetryMax
	}
	return time.Duration(mathrand.Int64N(int64(d))) + time.Millisecond/10
}

// redisSleep waits d or until ctx ends.
func redisSleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// redisRandomValue is a client's unique value for one grant: its name and 128
// random bits.
func redisRandomValue(client string) (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("redis lock: random value: %w", err)
	}
	return client + ":" + hex.EncodeToString(b[:]), nil
}

// Acquire tries SET NX PX until it is granted or ctx ends, waiting a
// jittered backoff between attempts; an attempt that fails (the server is
// paused, killed, unreachable) is retried the same way. Each attempt may
// take at most half the TTL, so a grant leaves the holder at least half
// its lease: Validity is the TTL less the successful attempt's duration,
// counted from that attempt's send (Sent): a window a little shorter than
// the send rule's, never longer.
func (l *RedisSetNX) Acquire(ctx context.Context) (Grant, error) {
	value, err := redisRandomValue(l.name)
	if err != nil {
		return Grant{}, err
	}
	var lastErr error
	for attempt := 1; ; attempt++ {
		if attempt > 1 {
			if err := redisSleep(ctx, redisRetryDelay(attempt-1)); err != nil {
				return Grant{}, fmt.Errorf("redis lock %s: not granted: %w", l.key, errors.Join(err, lastErr))
			}
		}
		start := time.Now()
		granted, err := l.try(ctx, value)
		if err != nil {
			lastErr = err
			continue
		}
		if !granted {
			continue
		}
		g := Grant{Value: value, Validity: l.ttl - time.Since(start), Sent: start}
		if !l.withToken {
			return g, nil
		}
		token, err := l.incr(ctx)
		if err != nil {
			// A grant without its token is of no use to a fenced
			// client: give it back (best effort; otherwise it expires)
			// and try again.
			lastErr = err
			l.releaseValue(ctx, value)
			continue
		}
		g.Token = token
		g.Validity = l.ttl - time.Since(start)
		return g, nil
	}
}

// try sends one SET key value NX PX ttl (go-redis says PX for a TTL of
// milliseconds and EX for whole seconds: the same lease), bounded by half
// the TTL.
func (l *RedisSetNX) try(ctx context.Context, value string) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, l.ttl/2)
	defer cancel()
	return l.client.SetNX(ctx, l.key, value, l.ttl).Result()
}

// incr takes the next fencing token.
func (l *RedisSetNX) incr(ctx context.Context) (uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, l.ttl/2)
	defer cancel()
	n, err := l.client.Incr(ctx, l.tokenKey).Result()
	if err != nil {
		return 0, fmt.Errorf("redis lock %s: INCR %s: %w", l.key, l.tokenKey, err)
	}
	if n <= 0 {
		return 0, fmt.Errorf("redis lock %s: INCR %s gave %d", l.key, l.tokenKey, n)
	}
	return uint64(n), nil
}

// releaseValue is a best-effort release after a failed token.
func (l *RedisSetNX) releaseValue(ctx context.Context, value string) {
	ctx, cancel := context.WithTimeout(ctx, l.ttl/2)
	defer cancel()
	_ = redisReleaseScript.Run(ctx, l.client, []string{l.key}, value).Err()
}

// Release runs the compare-and-delete script: it deletes the key only if
// it still holds g's value. After the lease ran out (the key expired, or
// is another client's) the script deletes nothing, and Release returns
// nil: that is what the recipe does.
func (l *RedisSetNX) Release(ctx context.Context, g Grant) error {
	if g.Value == "" {
		return errors.New("redis lock: release of a grant with no value")
	}
	if err := redisReleaseScript.Run(ctx, l.client, []string{l.key}, g.Value).Err(); err != nil {
		return fmt.Errorf("redis lock %s: release: %w", l.key, err)
	}
	return nil
}

// Close closes the client's connections.
func (l *RedisSetNX) Close() error { return l.client.Close() }
