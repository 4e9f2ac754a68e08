// Package etcdtest runs a real etcd child process for the live module's
// tests. The test binary re-executes itself as the etcd server (Main is the
// package's TestMain body, switched by an environment variable), so the
// tests need neither the fencelab-live binary nor anything installed.
package etcdtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fencelab/fencelab/live/server"
)

// roleEnv switches a re-executed test binary into the etcd server.
const roleEnv = "FENCELAB_LIVE_TEST_ROLE"

// startTimeout bounds one start of the child (a race-instrumented test
// binary on a loaded machine is slow to come up).
const startTimeout = 30 * time.Second

// Main is a test package's TestMain body: in the child it serves etcd
// with the flags it was given until it is signalled; in the test process
// it runs the tests.
func Main(m *testing.M) {
	if os.Getenv(roleEnv) == server.EtcdRole {
		if err := server.RunEtcdServer(context.Background(), os.Args[1:]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// Options are the options that start the test binary itself as etcd.
func Options(t testing.TB) server.EtcdOptions {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("finding the test binary: %v", err)
	}
	return server.EtcdOptions{
		Binary:       exe,
		Env:          []string{roleEnv + "=" + server.EtcdRole},
		ReadyTimeout: startTimeout,
	}
}

// Start starts a fresh etcd child in a folder under t.TempDir and stops it
// (removing its folder) when the test ends.
func Start(t testing.TB) *server.Etcd {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "etcd")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatalf("making etcd's folder: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	e, err := server.StartEtcd(ctx, dir, Options(t))
	if err != nil {
		t.Fatalf("starting etcd: %v", err)
	}
	t.Cleanup(func() {
		if err := e.Stop(); err != nil {
			t.Errorf("stopping etcd: %v", err)
		}
	})
	return e
}
