package setup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/lock"
	"github.com/fencelab/fencelab/live/server"
	"github.com/fencelab/fencelab/live/store"
)

// etcdCounter is the name of the counter in the etcd stores.
const etcdCounter = "fencelab-live"

// etcdTTL is the etcd setups' lease: etcd counts leases in whole seconds,
// and 1 s is the least the embedded etcd grants (server/etcd.go).
const etcdTTL = time.Second

// etcdSetups are the etcd setups: clientv3/concurrency's Session and Mutex
// (the lease renewed, or not), the lock key's create revision as token,
// and the stores of etcd's own recipes. etcd is embedded (this binary
// re-executed as the role server.EtcdRole), so nothing needs installing.
//
// Faults: client and server pauses, kill and restart with the data kept.
// Not a restart that wipes the data (server.Etcd.Restart(ctx, true) does
// it): in the scripted story the other client is already queued in
// Mutex.Lock when etcd is wiped, and it came back only after the holder's
// section had ended — the fault took effect in 0 of 3 runs for mutex and
// for lease at the scripted think time, 0 of 3 for mutex at 900 ms, at
// 9 s a run; it did in 2 of 2 at a 2 s think, which a 1 s lease no longer
// allows.
//
// Network faults: each client reaches etcd through a proxy of its own
// (behindProxies; the stores' links stay direct), and the scripted delay
// or blackhole cuts the holder's link right after its first read: the
// Session's keepalive stream is what it cuts, the lease expires at the
// server, the other client's Mutex.Lock is granted over its healthy link
// while the holder still thinks (2.5 TTL), and the holder's write comes
// late. Not for lease: nobody renews it, the section must fit in it, and
// the holder's write lands inside its lease (redisSetups says more).
//
// No clock step: etcd is a Go program, and Go reads the clock
// through the vDSO and system calls, never through libc, so an LD_PRELOAD
// clock shim does not reach it.
func etcdSetups() []Setup {
	base := Setup{
		Service: "etcd",
		Library: "go.etcd.io/etcd/client/v3",
		TTL:     etcdTTL,
		Renewed: true, // concurrency.Session; lease is Leased
		Probe:   func(context.Context) (string, error) { return server.EtcdVersion(), nil },
		Start:   startEtcd,
	}
	faults := []history.Fault{history.FaultClientPause, history.FaultServerPause, history.FaultRestartKeep}
	// The network stories are tested (TestNetworkStories) against mutex
	// and mutex-revision, which the matrix runs. lock-guarded and
	// contrib-lock lock the same way, and `fencelab-live run --fault
	// blackhole` (lock-guarded) and `--fault delay` (contrib-lock) with 3
	// clients of 1 section took effect in 2 of 2 runs each with the row's
	// verdicts; they stay out of the matrix to keep make live's time, and
	// until a test runs them.
	network := []history.Fault{history.FaultDelay, history.FaultBlackhole}
	// A kill and restart with the data kept: the leases are in etcd's
	// backend, and the leader that comes back renews each by its TTL
	// before it expires any, so a holder whose section ends within that
	// TTL keeps the lock through the restart and the waiter is granted
	// once it releases.
	safe := map[history.Fault]string{history.FaultRestartKeep: "leases survive a restart"}
	// A server pause bites a renewed lease only when the holder's
	// section outlasts it: etcd 3.7 expires a lease whose TTL ran out
	// during the pause right after SIGCONT of its only member (the
	// waiter was granted 17 ms after it), and nobody has renewed it.
	//
	// The restart's witness needs the holder still in its section once
	// etcd is back (a kill and a start, 0.2–0.46 s at load 15–28), and
	// the claim holds only while the section ends within a TTL of it:
	// the restarted leader extends each lease by its TTL, but a client
	// whose keepalive stream does not reconnect in time loses its lease
	// (with a 1.5 s section at load 15 the lock-guarded store refused
	// the holder's write: its key was gone, and the waiter's session with
	// it). So a section of 0.8 s, 0.7 s for the fixed lease, which must
	// end inside its 1 s lease.
	renewed := map[history.Fault]Story{
		history.FaultServerPause: {Think: etcdTTL*3 + etcdTTL*3/2, Sections: 1,
			Why: "a section (4.5 s) longer than the pause (3 s): the lease expires at SIGCONT while the holder still thinks"},
		history.FaultRestartKeep: {Think: etcdTTL * 8 / 10, Sections: 1,
			Why: "a section (0.8 s) that outlasts etcd's kill and start and ends within a TTL of it"},
	}

	mutex := base
	mutex.Name, mutex.Design = "mutex", impl.DesignRenewal
	mutex.Why = "concurrency.Session keeps the lease alive from the client process, whose pause stops the renewals; the resource ignores the lock"
	mutex.Faults = append(slices.Clone(faults), network...)
	mutex.Locker = lock.NewEtcdMutex
	mutex.Stories, mutex.Safe = renewed, safe

	lease := base
	lease.Name, lease.Design = "lease", impl.DesignFenceNone
	lease.Why = "a Mutex on a lease nobody renews: the lock ends a TTL after the grant; the create revision is handed out and ignored"
	lease.Faults, lease.MoreFaults = faults, network
	lease.Locker = lock.NewEtcdLease
	lease.Leased = true // nobody renews it: a section as long as the TTL makes two holders without a fault
	// A server pause cannot stretch a fixed lease: etcd ends it by its
	// own clock, after the TTL from the grant, which is after the
	// checked holder's validity (the TTL from its request); the waiter
	// is granted only when the service is back, and the holder has
	// stopped believing by then.
	lease.Stories = map[history.Fault]Story{history.FaultRestartKeep: {Think: etcdTTL * 7 / 10, Sections: 1,
		Why: "a section (0.7 s) that outlasts etcd's kill and start and still ends inside the 1 s lease"}}
	lease.Safe = map[history.Fault]string{
		history.FaultRestartKeep: safe[history.FaultRestartKeep],
		history.FaultServerPause: "the lease ends after its holder's validity",
	}

	revision := base
	revision.Name, revision.Design = "mutex-revision", impl.DesignRevision
	revision.Why = "the lock key's create revision as token, checked >= on every operation by an etcd Txn against a fence key"
	revision.Faults = append(slices.Clone(faults), network...)
	revision.Locker = lock.NewEtcdMutex
	revision.Store = func(ctx context.Context, cfg StoreConfig) (store.Store, error) {
		return store.NewEtcdTxn(ctx, cfg.Addrs, etcdCounter, cfg.Client)
	}
	revision.Audit = auditEtcd
	revision.Stories, revision.Safe = renewed, safe

	guarded := base
	guarded.Name, guarded.Design = "lock-guarded", impl.DesignSequencer
	guarded.Why = "etcd's own recipe, a Txn If the lock key's create revision is the token: the store asks the lock service, atomically and with no lock-delay"
	guarded.Faults, guarded.MoreFaults = faults, network
	guarded.Locker = lock.NewEtcdMutex
	guarded.Store = func(ctx context.Context, cfg StoreConfig) (store.Store, error) {
		return store.NewEtcdLockGuarded(ctx, cfg.Addrs, etcdCounter, cfg.Client, lock.EtcdLockPrefix(cfg.Key))
	}
	guarded.Audit = auditEtcd
	guarded.Stories, guarded.Safe = renewed, safe

	contrib := base
	contrib.Name, contrib.Design = "contrib-lock", impl.DesignVersionEquality
	contrib.Why = "etcd's contrib/lock demo: the session's lease ID as version, a storage that accepts a write only with the version of its first write"
	contrib.Faults, contrib.MoreFaults = faults, network
	contrib.Locker = lock.NewEtcdContribLock
	contrib.Stories, contrib.Safe = renewed, safe

	return []Setup{mutex, lease, revision, guarded, contrib}
}

// startEtcd starts the embedded etcd as a child process of this binary.
func startEtcd(ctx context.Context, env StartEnv) (*Deployment, error) {
	e, err := startEmbeddedEtcd(ctx, env)
	if err != nil {
		return nil, err
	}
	// The lock's links go through each client's proxy; the stores' are
	// direct, so that a cut lock link still lets the stale write through.
	return behindProxies(&Deployment{Servers: []server.Server{e}, StoreAddrs: []string{e.Addr()}}), nil
}

// auditEtcd reads the etcd stores' log of accepted operations.
func auditEtcd(ctx context.Context, d *Deployment) ([]impl.Op, int64, error) {
	return store.AuditEtcd(ctx, d.StoreAddrs, etcdCounter)
}

// startEmbeddedEtcd starts the run's etcd in env.Dir/etcd: this binary
// re-executed as the role server.EtcdRole.
func startEmbeddedEtcd(ctx context.Context, env StartEnv) (*server.Etcd, error) {
	dir := filepath.Join(env.Dir, "etcd")
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("etcd's folder: %w", err)
	}
	return server.StartEtcd(ctx, dir, server.EtcdOptions{Binary: env.Self, Args: []string{server.EtcdRole}})
}
