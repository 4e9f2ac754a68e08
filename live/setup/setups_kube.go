package setup

// Kubernetes' setups: client-go's leader election
// (k8s.io/client-go/tools/leaderelection) over a resourcelock.LeaseLock,
// the lock every controller and operator takes, against a real
// kube-apiserver built from the pinned k8s.io/kubernetes module (`make
// live-deps`; server.KubeAPIServerPath) over fencelab's embedded etcd
// (lock/kubelease.go and server/kubeapiserver.go say how each works).
//
// Row renewal is the lock as deployed: the elector renews the Lease from
// the client process every RetryPeriod, and the code a controller runs
// in OnStartedLeading acts until it is stopped, with no token. Row
// revision takes the Lease's spec.leaseTransitions (raised by one at
// every change of holder, in an Update guarded by the Lease's
// resourceVersion) as the token, checked >= by fencelab's register on
// every operation.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/lock"
	"github.com/fencelab/fencelab/live/nemesis"
	"github.com/fencelab/fencelab/live/server"
)

// kubeTTL is the setups' lease: the Lease's leaseDurationSeconds counts
// whole seconds, and 2 s leaves the renew deadline (2/3 of it,
// lock.KubeLeaseTimings) room for an apiserver's answer on a loaded
// machine, where 1 s lost leases with no fault.
const kubeTTL = 2 * time.Second

// kubeSetups are the Kubernetes Lease setups.
func kubeSetups() []Setup {
	base := Setup{
		Service: "kubernetes",
		Library: "k8s.io/client-go",
		TTL:     kubeTTL,
		Renewed: true, // the elector renews from the client process
		Probe:   probeKube,
		Start:   startKube,
		Locker:  lock.NewKubeLease,
		Faults: []history.Fault{history.FaultClientPause, history.FaultServerPause, history.FaultRestartKeep,
			history.FaultDelay, history.FaultBlackhole},
		// The run's clients stop 20 s after it starts: the story's
		// sections fit in it (measured at load 11-20: the waiter granted
		// 0.03 s or, when it missed the holder's last renewal before the
		// fault, 2.2-2.4 s after a pause; 0.8-1.2 s after a restart that
		// took 3.4-5.1 s).
		Stories: map[history.Fault]Story{
			history.FaultServerPause: {Think: 9 * time.Second, Sections: 1, For: 2 * kubeTTL,
				Why: "a pause (4 s) that outlasts the holder's lease, and a section (9 s) longer than it and the waiter's lease duration and retry after it, so the holder still thinks when the waiter is granted"},
			history.FaultRestartKeep: {Think: 9 * time.Second, Sections: 1,
				Why: "a section (9 s) longer than the restart of etcd and kube-apiserver (3.4-5.1 s) and the waiter's retry after it"},
		},
	}

	renewal := base
	renewal.Name, renewal.Design = "lease", impl.DesignRenewal
	renewal.Why = "client-go's LeaderElector on a LeaseLock, renewed from the client process, no token: a controller's leader election as deployed"

	revision := base
	revision.Name, revision.Design = "lease-transitions", impl.DesignRevision
	revision.Why = "the Lease's leaseTransitions (+1) as token, raised at every change of holder under the Lease's resourceVersion, checked >= by the register on every operation"

	return []Setup{renewal, revision}
}

// probeKube names kube-apiserver's version and etcd's, or says that
// kube-apiserver is not built (a *server.MissingError).
func probeKube(ctx context.Context) (string, error) {
	v, err := server.KubeAPIServerVersion(ctx)
	if err != nil {
		return "", err
	}
	return v + " over " + server.EtcdVersion(), nil
}

// startKube starts the embedded etcd (this binary re-executed) and a
// kube-apiserver over it. The lock's clients reach the apiserver through
// proxies of their own, with the credentials in its pki folder; etcd is
// the apiserver's alone. Both are the deployment's servers: a pause stops
// both, a restart kills both and starts both again.
func startKube(ctx context.Context, env StartEnv) (dep *Deployment, err error) {
	bin, err := server.KubeAPIServerPath()
	if err != nil {
		return nil, err
	}
	e, err := startEmbeddedEtcd(ctx, env)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, e.Stop())
		}
	}()
	dir := filepath.Join(env.Dir, "kube-apiserver")
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("kube-apiserver's folder: %w", err)
	}
	api, err := server.StartKubeAPIServer(ctx, dir, server.KubeAPIServerOptions{Binary: bin, Etcd: e.Addr()})
	if err != nil {
		return nil, err
	}
	links := nemesis.NewClientLinks([]string{api.Addr()})
	return &Deployment{
		Servers:     []server.Server{e, api},
		Network:     links,
		Credentials: api.PKIDir(),
		Close:       links.Close,
	}, nil
}
