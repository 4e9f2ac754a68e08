package servertest

import (
	"context"
	"crypto/tls"
	"net/http"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/live/internal/etcdtest"
	"github.com/fencelab/fencelab/live/server"
)

// TestMain lets the test binary serve as the etcd child (etcdtest.Main).
func TestMain(m *testing.M) { etcdtest.Main(m) }

// get asks the server for /readyz over TLS with the given client
// certificate (none: anonymous), trusting any server certificate: the
// test is of the client's authentication.
func get(t *testing.T, addr string, certs []tls.Certificate) int {
	t.Helper()
	cli := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true, Certificates: certs}, // the test is of the client side only
	}}
	resp, err := cli.Get("https://" + addr + "/readyz")
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

// A private kube-apiserver: it refuses anonymous requests and serves the
// run's client certificate; killed, it is down and its process gone;
// restarted on the same port it serves again (over the same etcd); Stop
// removes its folder and leaves no process.
func TestKubeAPIServerLifecycle(t *testing.T) {
	NeedKubeAPIServer(t)
	e := etcdtest.Start(t)
	k := KubeAPIServer(t, e.Addr())
	creds := k.Credentials()
	cert, err := tls.LoadX509KeyPair(creds.CertFile, creds.KeyFile)
	require.NoError(t, err)
	assert.Equal(t, http.StatusUnauthorized, get(t, k.Addr(), nil), "anonymous requests refused")
	assert.Equal(t, http.StatusOK, get(t, k.Addr(), []tls.Certificate{cert}))

	pids := k.Pids()
	require.NotEmpty(t, pids)
	require.NoError(t, k.Kill())
	assert.False(t, k.Running())
	assert.Empty(t, k.Pids())
	for _, pid := range pids {
		assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "pid %d gone", pid)
	}
	addr := k.Addr()
	ctx, cancel := context.WithTimeout(context.Background(), 2*server.DefaultKubeReadyTimeout)
	defer cancel()
	require.NoError(t, k.Restart(ctx, true))
	assert.Equal(t, addr, k.Addr(), "the same port")
	assert.Equal(t, http.StatusOK, get(t, k.Addr(), []tls.Certificate{cert}), "the same certificates")
	assert.Positive(t, k.StartTime())

	dir := k.Dir()
	pids = k.Pids()
	require.NoError(t, k.Stop())
	_, err = os.Stat(dir)
	assert.ErrorIs(t, err, os.ErrNotExist, "its folder removed")
	for _, pid := range pids {
		assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "pid %d gone", pid)
	}
}
