package lock

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"go.uber.org/zap"
)

// etcdDialTimeout bounds the connection to etcd when a client starts.
const etcdDialTimeout = 5 * time.Second

// acquireAttempts bounds the fresh starts of one Acquire after a lease
// lost while waiting.
const acquireAttempts = 3

// EtcdLockPrefix is the key prefix of the etcd lock named key: the prefix
// concurrency.NewMutex is given. Each waiter puts <prefix>/<lease ID in
// hex>, and the holder is the key with the lowest create revision.
// store.NewEtcdLockGuarded looks the holder up under the same prefix.
func EtcdLockPrefix(key string) string { return "/fencelab/lock/" + key }

// EtcdMutex is etcd's lock recipe through clientv3/concurrency: a Session
// (a lease) and a Mutex on it. The token is the lock key's create
// revision — the etcd store's revision at the grant, which only grows and
// survives restarts with the data kept — and the grant's Value is the lock
// key (<prefix>/<lease>), which is what Release deletes.
//
// Two variants, one difference: who renews the lease.
//
//   - NewEtcdMutex keeps the session's lease alive, as concurrency.Session
//     does, from a goroutine of this very client process: the lock is held
//     as long as the section lasts. A paused process (SIGSTOP) stops its
//     renewals with its work, so the lease expires under a pause longer
//     than the TTL while the paused client still believes it holds the
//     lock: without fencing this is the matrix row `renewal`; with a store
//     that checks the token ≥ on every operation (store.NewEtcdTxn) it is
//     row `revision`.
//   - NewEtcdLease never renews: the session is orphaned as soon as it is
//     made, so the lease (and the lock) ends TTL after the grant, paused or
//     not — a plain lease lock with tokens. Without fencing it is row
//     `none` (tokens handed out, ignored); with store.NewEtcdTxn, row
//     `revision`.
//
// With store.NewEtcdLockGuarded (etcd's own recipe: a Txn guarded on the
// lock key) either variant is close to row `sequencer`, see that
// constructor.
//
// An EtcdMutex is used by one client, one section at a time.
type EtcdMutex struct {
	cli    *clientv3.Client
	prefix string
	ttl    int64 // the lease TTL asked for, in seconds (≥ 1)
	renew  bool
	// leaseToken makes the token the session's lease ID instead of the
	// lock key's create revision (etcd's contrib/lock "version").
	leaseToken bool

	// session is the renewed variant's session, kept from section to
	// section while its lease lives; nil for the unrenewed variant.
	session    *concurrency.Session
	sessionTTL int64 // the TTL etcd granted session's lease, in seconds
	// held is the current section's mutex and heldSession its session;
	// nil between sections.
	held        *concurrency.Mutex
	heldSession *concurrency.Session
	heldTTL     int64 // the TTL etcd granted held's lease, in seconds
}

// NewEtcdMutex connects to etcd (cfg.Addrs) for the lock cfg.Key with a
// session whose lease has cfg.TTL rounded up to whole seconds (at least 1;
// etcd may raise it to its minimum lease TTL) and is renewed by this
// process while it runs.
func NewEtcdMutex(ctx context.Context, cfg Config) (Locker, error) {
	return newEtcdLocker(ctx, cfg, true)
}

// NewEtcdLease is NewEtcdMutex without renewal: each grant's lease ends
// its TTL after the grant.
func NewEtcdLease(ctx context.Context, cfg Config) (Locker, error) {
	return newEtcdLocker(ctx, cfg, false)
}

// NewEtcdContribLock is NewEtcdMutex with the token of etcd's
// contrib/lock demo: the session's lease ID, its "version" (unique, not
// ordered). One session serves the client's sections while its lease
// lives, as contrib/lock's one session per client, so a client keeps its
// version until a pause outlasts the lease. With fencelab's register in
// mode version (the storage remembers the first write's version and
// accepts a write only with that very version; reads unchecked), it is
// the matrix row `version-equality`.
func NewEtcdContribLock(ctx context.Context, cfg Config) (Locker, error) {
	l, err := newEtcdMutex(ctx, cfg, true)
	if err != nil {
		return nil, err
	}
	l.leaseToken = true
	return l, nil
}

// newEtcdLocker returns a nil Locker (not a Locker holding a nil
// *EtcdMutex) with an error.
func newEtcdLocker(ctx context.Context, cfg Config, renew bool) (Locker, error) {
	l, err := newEtcdMutex(ctx, cfg, renew)
	if err != nil {
		return nil, err
	}
	return l, nil
}

func newEtcdMutex(ctx context.Context, cfg Config, renew bool) (*EtcdMutex, error) {
	if len(cfg.Addrs) == 0 {
		return nil, errors.New("etcd lock: no etcd address")
	}
	if cfg.Key == "" {
		return nil, errors.New("etcd lock: no lock key")
	}
	if cfg.TTL < 0 {
		return nil, fmt.Errorf("etcd lock: negative TTL %v", cfg.TTL)
	}
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   cfg.Addrs,
		DialTimeout: etcdDialTimeout,
		Context:     context.WithoutCancel(ctx),
		Logger:      zap.NewNop(), // errors come back as values; a fault's retries need no log
	})
	if err != nil {
		return nil, fmt.Errorf("etcd lock: connecting to %v: %w", cfg.Addrs, err)
	}
	return &EtcdMutex{cli: cli, prefix: EtcdLockPrefix(cfg.Key), ttl: leaseSeconds(cfg.TTL), renew: renew}, nil
}

// leaseSeconds is ttl in whole seconds, rounded up, at least 1 (etcd's
// leases count seconds).
func leaseSeconds(ttl time.Duration) int64 {
	s := int64(math.Ceil(ttl.Seconds()))
	if s < 1 {
		return 1
	}
	return s
}

// newSession grants a lease of l.ttl seconds (within ctx, which
// concurrency.NewSession's own grant would not honour) and makes a session
// on it. It returns the TTL etcd granted.
func (l *EtcdMutex) newSession(ctx context.Context) (*concurrency.Session, int64, error) {
	lease, err := l.cli.Grant(ctx, l.ttl)
	if err != nil {
		return nil, 0, fmt.Errorf("etcd lock: granting a lease: %w", err)
	}
	s, err := concurrency.NewSession(l.cli, concurrency.WithLease(lease.ID), concurrency.WithTTL(int(lease.TTL)))
	if err != nil {
		_ = l.revoke(lease.ID)
		return nil, 0, fmt.Errorf("etcd lock: starting a session: %w", err)
	}
	return s, lease.TTL, nil
}

// revoke revokes a lease this client granted, bounded by the lease's TTL
// (past it the lease is gone anyway); a lease that already expired is no
// error.
func (l *EtcdMutex) revoke(id clientv3.LeaseID) error {
	ctx, cancel := context.WithTimeout(l.cli.Ctx(), time.Duration(l.ttl)*time.Second)
	defer cancel()
	if _, err := l.cli.Revoke(ctx, id); err != nil && !errors.Is(err, rpctypes.ErrLeaseNotFound) {
		return fmt.Errorf("etcd lock: revoking lease %x: %w", int64(id), err)
	}
	return nil
}

// sectionSession returns the session for the next section: the renewed
// variant reuses its session while the lease lives; the unrenewed variant
// makes a fresh one and orphans it (stops its keep-alive) at once.
func (l *EtcdMutex) sectionSession(ctx context.Context) (*concurrency.Session, int64, error) {
	if !l.renew {
		s, ttl, err := l.newSession(ctx)
		if err != nil {
			return nil, 0, err
		}
		s.Orphan()
		return s, ttl, nil
	}
	if l.session != nil {
		select {
		case <-l.session.Done(): // the lease expired or was lost: start over
			l.session = nil
		default:
			return l.session, l.sessionTTL, nil
		}
	}
	s, ttl, err := l.newSession(ctx)
	if err != nil {
		return nil, 0, err
	}
	l.session, l.sessionTTL = s, ttl
	return s, ttl, nil
}

// Acquire waits for the lock (concurrency.Mutex.Lock). The grant's token
// is the lock key's create revision, its value the lock key, its validity
// the lease's TTL as etcd granted it (counted from the lease's grant,
// which comes before Acquire returns).
//
// A lease lost while waiting — the unrenewed variant's lease expiring
// while the client is queued, or the renewed variant's kept session whose
// lease ended (a pause outlasted it) before its keep-alive noticed — is
// no failure of the service: Acquire starts over with a fresh lease, at
// most acquireAttempts times in all.
func (l *EtcdMutex) Acquire(ctx context.Context) (Grant, error) {
	if l.held != nil {
		return Grant{}, fmt.Errorf("etcd lock: acquire while holding %s", l.held.Key())
	}
	for attempt := 1; ; attempt++ {
		// The unrenewed variant's lease is granted by this attempt: its
		// TTL counts from here (Grant.Sent).
		sent := time.Now()
		s, ttl, err := l.sectionSession(ctx)
		if err != nil {
			return Grant{}, err
		}
		m := concurrency.NewMutex(s, l.prefix)
		err = m.Lock(ctx)
		if err == nil {
			rev, err := createRevision(m)
			if err != nil {
				_ = m.Unlock(l.cli.Ctx())
				return Grant{}, err
			}
			token := uint64(rev)
			if l.leaseToken {
				token = uint64(s.Lease()) // etcd's lease IDs are positive
			}
			l.held, l.heldSession, l.heldTTL = m, s, ttl
			return Grant{Token: token, Value: m.Key(), Validity: time.Duration(ttl) * time.Second, Sent: sent}, nil
		}
		lost := leaseLost(err)
		if !l.renew {
			_ = l.revoke(s.Lease())
		} else if lost {
			l.session.Orphan()
			l.session = nil
		}
		if !lost || attempt == acquireAttempts || ctx.Err() != nil {
			return Grant{}, fmt.Errorf("etcd lock: %w", err)
		}
	}
}

// leaseLost says whether a Lock failed because its session's lease is
// gone.
func leaseLost(err error) bool {
	return errors.Is(err, rpctypes.ErrLeaseNotFound) || errors.Is(err, concurrency.ErrSessionExpired)
}

// createRevision is the create revision of the key m holds: the value
// m.IsOwner() compares it with, which is the revision etcd answered the
// key's creation with (or, for a key this session had already, its create
// revision as read). That is the token etcd's documentation proposes.
func createRevision(m *concurrency.Mutex) (int64, error) {
	cmp := m.IsOwner()
	if u, ok := cmp.GetCompare().GetTargetUnion().(*pb.Compare_CreateRevision); ok && u.CreateRevision > 0 {
		return u.CreateRevision, nil
	}
	return 0, fmt.Errorf("etcd lock: no create revision for %s after Lock", m.Key())
}

// Release deletes the lock key (concurrency.Mutex.Unlock); the unrenewed
// variant also revokes its lease. After the lease expired the key is gone
// already and the delete changes nothing.
func (l *EtcdMutex) Release(ctx context.Context, g Grant) error {
	if l.held == nil || l.held.Key() != g.Value {
		return fmt.Errorf("etcd lock: release of %.64q, which this client does not hold", g.Value)
	}
	m, s := l.held, l.heldSession
	l.held, l.heldSession = nil, nil
	err := m.Unlock(ctx)
	if err != nil {
		err = fmt.Errorf("etcd lock: unlock: %w", err)
	}
	if !l.renew {
		err = errors.Join(err, l.revoke(s.Lease()))
	}
	return err
}

// Close ends the renewed session (revoking its lease) and the connection.
func (l *EtcdMutex) Close() error {
	var errs []error
	if l.session != nil {
		l.session.Orphan()
		errs = append(errs, l.revoke(l.session.Lease()))
		l.session = nil
	}
	if l.held != nil && !l.renew {
		errs = append(errs, l.revoke(l.heldSession.Lease()))
	}
	l.held, l.heldSession = nil, nil
	if err := l.cli.Close(); err != nil && !errors.Is(err, context.Canceled) {
		errs = append(errs, fmt.Errorf("etcd lock: closing the client: %w", err))
	}
	return errors.Join(errs...)
}
