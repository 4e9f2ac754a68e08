package servertest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/live/server"
)

// NeedKubeAPIServer skips t, in one line saying how to build it, where
// kube-apiserver is not built (make live-deps and make test-deps build it
// into fencelab's cache, so CI runs what needs it).
func NeedKubeAPIServer(t testing.TB) {
	t.Helper()
	if _, err := server.KubeAPIServerPath(); err != nil {
		var missing *server.MissingError
		if errors.As(err, &missing) {
			t.Skip("skipping: " + missing.Error())
		}
		t.Fatal(err)
	}
}

// KubeAPIServer starts one private kube-apiserver for t over the etcd at
// etcdAddr, stopped when the test ends; a one-line skip where it is not
// built.
func KubeAPIServer(t testing.TB, etcdAddr string) *server.KubeAPIServer {
	t.Helper()
	NeedKubeAPIServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*server.DefaultKubeReadyTimeout)
	defer cancel()
	dir := filepath.Join(t.TempDir(), "kube-apiserver")
	require.NoError(t, os.Mkdir(dir, 0o755))
	began := time.Now()
	k, err := server.StartKubeAPIServer(ctx, dir, server.KubeAPIServerOptions{Etcd: etcdAddr})
	require.NoError(t, err)
	t.Logf("%s ready in %v", k.Version(), time.Since(began).Round(time.Millisecond))
	t.Cleanup(func() { assert.NoError(t, k.Stop()) })
	return k
}
