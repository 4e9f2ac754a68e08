// Package lock holds the client side of each real lock recipe, driven
// through the client library people use for it: etcd's
// clientv3/concurrency, go-redis, redsync, go-zookeeper, go-sql-driver.
//
// A Locker is used by one client process, one section at a time.
package lock

import (
	"context"
	"time"
)

// Grant is what a client learned when it acquired the lock.
type Grant struct {
	// Token is the fencing token the recipe yields (etcd's create
	// revision, a Redis INCR, ZooKeeper's czxid); 0 when the recipe has
	// none.
	Token uint64
	// Value identifies this grant for its release (Redlock's random
	// value, etcd's key); a recipe that needs nothing leaves it empty.
	Value string
	// Validity is how long after Sent the client may believe it holds
	// the lock (the lease's TTL, Redlock's validity time); 0 for a lock
	// held until released (a session lock). The client's window ends at
	// impl.ValidUntil(impl.ValiditySend, Sent, ...): the models' send
	// rule.
	Validity time.Duration
	// Sent is when the request that started the lease was sent (the
	// granted attempt's SET, the lease's grant), by the client's clock;
	// zero: the Acquire call, which is earlier, so the window it gives
	// ends no later.
	Sent time.Time
}

// Locker is one client's handle on a real lock.
type Locker interface {
	// Acquire blocks until the lock is granted, ctx ends, or the service
	// fails.
	Acquire(ctx context.Context) (Grant, error)
	// Release gives the lock back; a release after the lock expired is
	// not an error of the harness (the recipe says what it does).
	Release(ctx context.Context, g Grant) error
	// Close ends the client's connections and sessions.
	Close() error
}

// Config is what every recipe needs to reach its service.
type Config struct {
	Addrs  []string      // the service's instances, host:port
	Key    string        // the lock's name
	TTL    time.Duration // the lease a grant lasts without renewal
	Client string        // the client's name ("c1"), for values and logs
	// Credentials is a folder of the files a client authenticates with
	// (kube-apiserver's CA, client certificate and key:
	// server.KubeCredentialsIn); "" for the services that need none.
	Credentials string
}
