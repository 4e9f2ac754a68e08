package lock

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"

	coordinationv1 "k8s.io/client-go/kubernetes/typed/coordination/v1"

	"github.com/fencelab/fencelab/live/server"
)

// KubeLeaseNamespace is the namespace of the lock's Lease: default, which
// the apiserver makes itself.
const KubeLeaseNamespace = "default"

// KubeLeaseTimings are a LeaderElector's three durations for a lease of
// ttl, in the ratio of Kubernetes' own components (15 s, 10 s, 2 s:
// kube-controller-manager's and kube-scheduler's defaults): the lease
// lasts ttl (whole seconds: the Lease counts leaseDurationSeconds), the
// holder gives up after 2/3 of it without a renewal, and every client
// tries again each 2/15 of it.
func KubeLeaseTimings(ttl time.Duration) (lease, renewDeadline, retry time.Duration, err error) {
	if ttl < time.Second || ttl%time.Second != 0 {
		return 0, 0, 0, fmt.Errorf("kubernetes lease: the TTL must be whole seconds, at least 1 s (a Lease's leaseDurationSeconds), got %v", ttl)
	}
	return ttl, ttl * 2 / 3, ttl * 2 / 15, nil
}

// KubeLease is client-go's leader election (k8s.io/client-go/tools/
// leaderelection) over a resourcelock.LeaseLock, as a controller deploys
// it: Acquire runs a LeaderElector and returns when its OnStartedLeading
// is called; the elector goes on renewing the Lease from this process
// every RetryPeriod until Release cancels it or it fails to renew within
// RenewDeadline (OnStoppedLeading; the client, like the code a controller
// runs in OnStartedLeading, is not told, which is the point of row
// renewal). A paused process (SIGSTOP) stops its renewals with its work.
//
// Release does not hand the Lease back (ReleaseOnCancel false, client-go's
// and controller-runtime's default): the next holder waits a lease
// duration after the last renewal it saw. With ReleaseOnCancel, client-go
// v0.37.2's release checks that it leads against the record it last
// observed, not the one it has just read, and writes holder "" over the
// Lease: an elector that lost the Lease during a pause and is cancelled on
// resuming erases its successor's Lease, and the next candidate is
// granted at once while the successor still leads (kubernetes/lease under
// client-pause, 1 of 1 run: two holders after the pause, each release
// erasing the other's Lease). Two holders that the fault's story does not
// explain; the setups keep the default.
//
// The token is the Lease's spec.leaseTransitions as this client's
// acquiring write set it, plus one (a first Lease starts at 0, and the
// register's tokens start above it): client-go raises it by one each time
// the holder changes, in an Update guarded by the Lease's resourceVersion,
// so no two holders ever write the same value and a later holder's is
// greater. Each Acquire runs a LeaderElector of its own identity
// (<client>-<n>: a controller's is its pod name and a random suffix), so
// that every grant is a holder change.
type KubeLease struct {
	leases   coordinationv1.LeasesGetter
	name     string
	client   string
	lease    time.Duration
	renew    time.Duration
	retry    time.Duration
	acquired int // Acquire calls so far: the next identity's number

	held *kubeTerm // the current grant's elector; nil between sections
}

// kubeTerm is one Acquire's LeaderElector while it runs.
type kubeTerm struct {
	identity string
	cancel   context.CancelFunc
	done     chan struct{} // closed when its Run has returned
	lock     *recordingLock
}

// NewKubeLease connects to the kube-apiserver at cfg.Addrs[0] (HTTPS,
// the client certificate in cfg.Credentials, a folder written by
// server.KubeAPIServer) for the Lease default/<cfg.Key>.
func NewKubeLease(_ context.Context, cfg Config) (Locker, error) {
	if len(cfg.Addrs) != 1 {
		return nil, fmt.Errorf("kubernetes lease: want one kube-apiserver address, got %d", len(cfg.Addrs))
	}
	if cfg.Key == "" {
		return nil, errors.New("kubernetes lease: no lock key")
	}
	if cfg.Credentials == "" {
		return nil, errors.New("kubernetes lease: no credentials folder")
	}
	lease, renew, retry, err := KubeLeaseTimings(cfg.TTL)
	if err != nil {
		return nil, err
	}
	creds := server.KubeCredentialsIn(cfg.Credentials)
	rc := &rest.Config{
		Host: "https://" + cfg.Addrs[0],
		TLSClientConfig: rest.TLSClientConfig{
			CAFile: creds.CAFile, CertFile: creds.CertFile, KeyFile: creds.KeyFile,
		},
		// kube-scheduler and kube-controller-manager bound their leader
		// election client's requests by the renew deadline: a request to
		// a stopped or cut-off server ends, and the elector gives up in
		// time.
		Timeout: renew,
		// No client-side rate limit (client-go's default, 5 requests/s,
		// would space the renewals by its queue instead of RetryPeriod).
		QPS:       -1,
		UserAgent: "fencelab-live/" + cfg.Client,
	}
	cli, err := coordinationv1.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("kubernetes lease: a client for %s: %w", cfg.Addrs[0], err)
	}
	return &KubeLease{leases: cli, name: cfg.Key, client: cfg.Client, lease: lease, renew: renew, retry: retry}, nil
}

// quiet is a context whose klog logger discards: the elector logs each
// attempt through klog.FromContext, and a client's stderr is kept for
// the harness's errors.
func quiet(ctx context.Context) context.Context {
	return klog.NewContext(ctx, logr.Discard())
}

// Acquire runs a LeaderElector until it leads (OnStartedLeading) and
// returns its grant: the token its acquiring write set, the lease's
// duration as validity from that write's send. The elector keeps running,
// renewing, until Release. If ctx ends first the elector is stopped and
// Acquire fails.
func (k *KubeLease) Acquire(ctx context.Context) (Grant, error) {
	if k.held != nil {
		return Grant{}, fmt.Errorf("kubernetes lease: acquire while holding it as %s", k.held.identity)
	}
	k.acquired++
	identity := fmt.Sprintf("%s-%d", k.client, k.acquired)
	rl := &recordingLock{Interface: &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: KubeLeaseNamespace, Name: k.name},
		Client:     k.leases,
		LockConfig: resourcelock.ResourceLockConfig{Identity: identity},
	}}
	started := make(chan struct{})
	var startOnce sync.Once
	le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:          rl,
		LeaseDuration: k.lease,
		RenewDeadline: k.renew,
		RetryPeriod:   k.retry,
		Name:          k.name,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) { startOnce.Do(func() { close(started) }) },
			OnStoppedLeading: func() {},
		},
	})
	if err != nil {
		return Grant{}, fmt.Errorf("kubernetes lease: %w", err)
	}
	// The elector outlives Acquire: it renews until Release cancels it.
	runCtx, cancel := context.WithCancel(quiet(context.WithoutCancel(ctx)))
	term := &kubeTerm{identity: identity, cancel: cancel, done: make(chan struct{}), lock: rl}
	go func() {
		defer close(term.done)
		le.Run(runCtx)
	}()
	select {
	case <-started:
	case <-ctx.Done():
		cancel()
		<-term.done // bounded: a cancelled elector returns after at most one request (rest Timeout)
		return Grant{}, fmt.Errorf("kubernetes lease: %w", ctx.Err())
	}
	token, sent, ok := rl.acquired()
	if !ok {
		// OnStartedLeading comes only after a write of our own succeeded.
		cancel()
		<-term.done
		return Grant{}, errors.New("kubernetes lease: leading without a write of its own")
	}
	k.held = term
	return Grant{Token: uint64(token) + 1, Value: identity, Validity: k.lease, Sent: sent}, nil
}

// Release stops the grant's elector and waits for it to end (at most one
// request, bounded by the renew deadline); the Lease ends a lease
// duration after its last renewal. A release after the lease was lost is
// no error: the elector has stopped already.
func (k *KubeLease) Release(ctx context.Context, g Grant) error {
	if k.held == nil || k.held.identity != g.Value {
		return fmt.Errorf("kubernetes lease: release of %.64q, which this client does not hold", g.Value)
	}
	term := k.held
	k.held = nil
	term.cancel()
	select {
	case <-term.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("kubernetes lease: waiting for the elector to hand the lease back: %w", ctx.Err())
	}
}

// Close stops a grant's elector still running and waits for it: no
// goroutine is left behind.
func (k *KubeLease) Close() error {
	if k.held != nil {
		k.held.cancel()
		<-k.held.done
		k.held = nil
	}
	return nil
}

// recordingLock is the LeaseLock the elector writes through, unchanged,
// with a note of its first successful write that names this elector as
// holder: the write that acquired the Lease, its leaseTransitions and when
// it was sent.
type recordingLock struct {
	resourcelock.Interface

	mu     sync.Mutex
	ok     bool
	token  int
	sentAt time.Time
}

func (r *recordingLock) Create(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	sent := time.Now()
	err := r.Interface.Create(ctx, ler)
	r.note(ler, sent, err)
	return err
}

func (r *recordingLock) Update(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	sent := time.Now()
	err := r.Interface.Update(ctx, ler)
	r.note(ler, sent, err)
	return err
}

func (r *recordingLock) note(ler resourcelock.LeaderElectionRecord, sent time.Time, err error) {
	if err != nil || ler.HolderIdentity != r.Identity() {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.ok {
		r.ok, r.token, r.sentAt = true, ler.LeaderTransitions, sent
	}
}

// acquired is the acquiring write's leaseTransitions and send time.
func (r *recordingLock) acquired() (int, time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.token < 0 || r.token > math.MaxInt32 {
		return 0, time.Time{}, false
	}
	return r.token, r.sentAt, r.ok
}
