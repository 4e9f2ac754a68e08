package lock

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"
)

// Redlock is Redis's Redlock over independent nodes through redsync (its
// go-redis v9 pool): a grant is SET NX PX on a majority of the nodes,
// sent to all at once, with the validity TTL − the time the round took −
// redsync's drift allowance (1% of the TTL) still ahead. redsync bounds
// each round by 5% of the TTL (its timeout factor, kept at its default):
// a node that answers later, a slow first connection included, counts as
// not granting, so a grant may hold on only a bare majority of live
// nodes.
//
// Each grant's value is a random 64-bit number (redsync's value hook),
// and Grant.Token is that number: unique with overwhelming probability
// but unordered, so it fits the redlock-unique row's check-and-set at the
// resource (antirez's proposal), never a >= check. The redlock row simply
// ignores it.
type Redlock struct {
	clients []*redis.Client
	rs      *redsync.Redsync
	key     string
	ttl     time.Duration
}

var _ Locker = (*Redlock)(nil)

// NewRedlock returns the Redlock lock over cfg's nodes (five for the
// redlock rows; any odd number of at least three is accepted).
func NewRedlock(cfg Config) (Locker, error) {
	if n := len(cfg.Addrs); n < 3 || n%2 == 0 {
		return nil, fmt.Errorf("redlock: needs an odd number of independent nodes, at least 3, got %d", n)
	}
	if err := checkRedisConfig(cfg); err != nil {
		return nil, err
	}
	l := &Redlock{key: cfg.Key, ttl: cfg.TTL}
	pools := make([]redsyncredis.Pool, 0, len(cfg.Addrs))
	for _, addr := range cfg.Addrs {
		c := redis.NewClient(redisClientOptions(addr))
		l.clients = append(l.clients, c)
		pools = append(pools, goredis.NewPool(c))
	}
	l.rs = redsync.New(pools...)
	return l, nil
}

// mutex is redsync's mutex for this lock's key, with value as its value if
// not empty (a release).
func (l *Redlock) mutex(value string) *redsync.Mutex {
	opts := []redsync.Option{
		redsync.WithExpiry(l.ttl),
		// Until granted or ctx ends: redsync stops at ctx's end.
		redsync.WithTries(math.MaxInt32),
		redsync.WithRetryDelayFunc(redisRetryDelay),
		redsync.WithGenValueFunc(redlockValue),
	}
	if value != "" {
		opts = append(opts, redsync.WithValue(value))
	}
	return l.rs.NewMutex(l.key, opts...)
}

// redlockValue is a random non-zero 64-bit number in decimal.
func redlockValue() (string, error) {
	for {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", fmt.Errorf("redlock: random value: %w", err)
		}
		if n := binary.LittleEndian.Uint64(b[:]); n != 0 {
			return strconv.FormatUint(n, 10), nil
		}
	}
}

// Acquire locks a majority through redsync, retrying until it does or ctx
// ends. Validity is what redsync's Until leaves after Acquire returns.
func (l *Redlock) Acquire(ctx context.Context) (Grant, error) {
	m := l.mutex("")
	if err := m.LockContext(ctx); err != nil {
		if ctx.Err() != nil {
			err = errors.Join(ctx.Err(), err)
		}
		return Grant{}, fmt.Errorf("redlock %s: not granted: %w", l.key, err)
	}
	value := m.Value()
	token, err := strconv.ParseUint(value, 10, 64)
	if err != nil {
		return Grant{}, fmt.Errorf("redlock %s: value %q is not the number it was made as: %w", l.key, redlockClip(value), err)
	}
	// redsync's Until is already its send rule's end (the attempt's
	// start plus the expiry, less its duration and the drift): the window
	// counted from now ends there.
	now := time.Now()
	return Grant{Token: token, Value: value, Validity: m.Until().Sub(now), Sent: now}, nil
}

// Release unlocks through redsync (its compare-and-delete on every node).
// A release that finds the value gone or replaced on the nodes that
// answer (the lease ran out) is not an error: that is what the recipe
// does. It is an error when a majority of nodes did not answer at all.
func (l *Redlock) Release(ctx context.Context, g Grant) error {
	if g.Value == "" {
		return errors.New("redlock: release of a grant with no value")
	}
	ok, err := l.mutex(g.Value).UnlockContext(ctx)
	if ok || err == nil {
		return nil
	}
	if unreachable := redlockUnreachable(err); 2*unreachable > len(l.clients) {
		return fmt.Errorf("redlock %s: release: %d of %d nodes did not answer: %w", l.key, unreachable, len(l.clients), err)
	}
	return nil
}

// redlockUnreachable counts the nodes redsync's error says it could not
// talk to (a RedisError each), as opposed to nodes that answered that the
// value was gone or another's.
func redlockUnreachable(err error) int {
	var joined interface{ Unwrap() []error }
	errs := []error{err}
	if errors.As(err, &joined) {
		errs = joined.Unwrap()
	}
	n := 0
	for _, e := range errs {
		var nodeErr *redsync.RedisError
		if errors.As(e, &nodeErr) {
			n++
		}
	}
	return n
}

// Close closes every node's client.
func (l *Redlock) Close() error {
	var errs []error
	for _, c := range l.clients {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// redlockClip bounds a value quoted in an error.
func redlockClip(s string) string {
	if len(s) > 32 {
		return s[:32] + "..."
	}
	return s
}
