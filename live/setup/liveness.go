package setup

import (
	"fmt"
	"time"

	"k8s.io/client-go/tools/leaderelection"

	"github.com/fencelab/fencelab/live/lock"
	"github.com/fencelab/fencelab/live/server"
)

// Freedom is the bound within which the setup's lock must be granted to
// another client after its holder's death (the kill; no release sent):
// what the service documents for a holder that goes silent, plus ε.
//
//   - MariaDB's GET_LOCK and PostgreSQL's advisory locks are freed when
//     their session ends, and a killed client's kernel closes its
//     connection at once: the bound is ε alone.
//   - Every other setup's lock outlives the connection until its lease or
//     session runs out: Redis's PX (Redlock's on each node), etcd's lease
//     TTL (its Session's, renewed no more), ZooKeeper's session timeout,
//     the node libraries' PX: TTL + ε.
//
// ε is a waiting client's next attempt and its round trip (acquireRound:
// the Go clients back off at most 50 ms; a library that waits longer
// between its attempts, its own delay and 50 ms: waiterRetry) plus the
// service's own sweep where it expires leases on a timer: etcd's lessor
// looks for expired leases every 500 ms, ZooKeeper's session tracker once
// a tick (server.DefaultZooKeeperTick), rounding a session's expiry up to
// the tick after it (two ticks at most); Redis expires a key when the
// waiter's SET touches it, so no sweep.
func (s Setup) Freedom() (bound time.Duration, why string) {
	eps, waiter := acquireRound, fmt.Sprintf("a waiting client's next attempt and round trip %v", acquireRound)
	if d, lib := waiterRetry(s); d > 0 {
		eps, waiter = d+50*time.Millisecond, fmt.Sprintf("the waiter's next attempt, %s, and a round trip of 50ms", lib)
	}
	sweep := ""
	switch s.Service {
	case "etcd":
		eps += etcdLeaseSweep
		sweep = fmt.Sprintf(" and etcd's lease sweep %v", etcdLeaseSweep)
	case "zookeeper":
		eps += 2 * server.DefaultZooKeeperTick
		sweep = fmt.Sprintf(" and two ZooKeeper ticks %v", 2*server.DefaultZooKeeperTick)
	}
	epsWhy := fmt.Sprintf("ε %v: %s%s", eps, waiter, sweep)
	if s.Service == "kubernetes" {
		return kubeFreedom(s.TTL)
	}
	switch s.Service {
	case "mariadb", "postgres":
		return eps, fmt.Sprintf("the session's lock is freed when its connection closes, at the kill; %s", epsWhy)
	case "zookeeper":
		return s.TTL + eps, fmt.Sprintf("the session timeout %v + %s", s.TTL, epsWhy)
	}
	return s.TTL + eps, fmt.Sprintf("the lease's %v TTL + %s", s.TTL, epsWhy)
}

// etcdLeaseSweep is how often etcd's lessor revokes expired leases (its
// run loop's ticker, go.etcd.io/etcd/server/v3/lease).
const etcdLeaseSweep = 500 * time.Millisecond

// waiterRetry is how long a client command's library waits between two
// attempts at a held lock, where that is longer than the Go clients'
// backoff (0: it is not): node redlock's default delay 200 ms ± 200 ms
// of jitter (live/examples/node/redlock_lock.js), redis-py's 0.1 s sleep
// (live/examples/python/redis_lock.py). redis-semaphore retries every
// 10 ms and kazoo waits on a watch: the default covers them.
func waiterRetry(s Setup) (time.Duration, string) {
	switch s.Name {
	case "node-redlock":
		return 400 * time.Millisecond, "redlock's retry delay 200ms ± 200ms of jitter"
	case "redis-py":
		return 100 * time.Millisecond, "redis-py's 100ms sleep"
	}
	return 0, ""
}

// kubeFreedom is Freedom for client-go's leader election: a candidate
// takes the Lease over only once it has gone a full lease duration
// without seeing the record change (client-go's LeaseDuration), and it
// looks every RetryPeriod stretched by up to JitterFactor (1.2): it sees
// the dead holder's last renewal at its next look, and takes over at the
// first look a lease duration after that. ε is those two looks and a
// round trip of 50 ms.
func kubeFreedom(ttl time.Duration) (time.Duration, string) {
	lease, _, retry, err := lock.KubeLeaseTimings(ttl)
	if err != nil {
		return ttl, err.Error()
	}
	look := retry + time.Duration(leaderelection.JitterFactor*float64(retry))
	eps := 2*look + 50*time.Millisecond
	return lease + eps, fmt.Sprintf("the lease duration %v, which a candidate waits from the last renewal it saw + ε %v: two of its looks, each RetryPeriod %v with up to %v×%v of jitter, and a round trip of 50ms", lease, eps, retry, leaderelection.JitterFactor, retry)
}
