package setup

import (
	"fmt"
	"time"

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
// ε is a waiting client's next attempt and its round trip (acquireRound)
// plus the service's own sweep where it expires leases on a timer: etcd's
// lessor looks for expired leases every 500 ms, ZooKeeper's session
// tracker once a tick (server.DefaultZooKeeperTick), rounding a session's
// expiry up to the tick after it (two ticks at most); Redis expires a key
// when the waiter's SET touches it, so no sweep.
func (s Setup) Freedom() (bound time.Duration, why string) {
	eps, sweep := acquireRound, ""
	switch s.Service {
	case "etcd":
		eps += etcdLeaseSweep
		sweep = fmt.Sprintf(" and etcd's lease sweep %v", etcdLeaseSweep)
	case "zookeeper":
		eps += 2 * server.DefaultZooKeeperTick
		sweep = fmt.Sprintf(" and two ZooKeeper ticks %v", 2*server.DefaultZooKeeperTick)
	}
	epsWhy := fmt.Sprintf("ε %v: a waiting client's next attempt and round trip %v%s", eps, acquireRound, sweep)
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
