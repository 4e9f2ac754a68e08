package etcdtest

// The tests of server.StartEtcd and of the etcd child live here rather
// than in package server, whose TestMain runs proc.go's helper processes:
// this package's TestMain is the etcd child (Main).

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.etcd.io/etcd/api/v3/version"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/fencelab/fencelab/live/server"
	"github.com/fencelab/fencelab/live/store"
)

func TestMain(m *testing.M) { Main(m) }

// opTimeout bounds one client call in these tests.
const opTimeout = 5 * time.Second

func client(t *testing.T, addr string) *clientv3.Client {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{addr}, DialTimeout: opTimeout, Logger: zap.NewNop()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cli.Close() })
	return cli
}

func opContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	t.Cleanup(cancel)
	return ctx
}

// requireGone fails unless every pid has left /proc.
func requireGone(t *testing.T, pids []int) {
	t.Helper()
	for _, pid := range pids {
		_, err := os.Stat("/proc/" + strconv.Itoa(pid))
		require.True(t, errors.Is(err, os.ErrNotExist), "pid %d is still there", pid)
	}
}

func TestEtcdServesAndStopLeavesNothing(t *testing.T) {
	e := Start(t)
	t.Logf("etcd child started in %v", e.StartTime())
	require.Positive(t, e.StartTime())
	require.True(t, strings.HasPrefix(e.Addr(), "127.0.0.1:"), e.Addr())
	require.Equal(t, "etcd", e.Name())
	require.Contains(t, e.Version(), version.Version)
	pids := e.Pids()
	require.NotEmpty(t, pids)

	cli := client(t, e.Addr())
	ctx := opContext(t)
	_, err := cli.Put(ctx, "k", "v")
	require.NoError(t, err)
	got, err := cli.Get(ctx, "k")
	require.NoError(t, err)
	require.Len(t, got.Kvs, 1)
	require.Equal(t, "v", string(got.Kvs[0].Value))

	parent := filepath.Dir(e.Dir())
	require.FileExists(t, filepath.Join(e.Dir(), "etcd-server.log"), "etcd logs to a file in its folder")
	require.NoError(t, e.Stop())
	require.NoDirExists(t, e.Dir(), "Stop removes the folder")
	require.DirExists(t, parent, "Stop removes only the folder it was given")
	require.Empty(t, e.Pids())
	requireGone(t, pids)
	require.NoError(t, e.Stop(), "Stop is idempotent")
}

func TestEtcdKillRestart(t *testing.T) {
	for _, tc := range []struct {
		name string
		wipe bool
	}{
		{"data kept", false},
		{"data wiped", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := Start(t)
			ctx := opContext(t)
			const token = 7
			s, err := store.NewEtcdTxn(ctx, []string{e.Addr()}, "counter", 0)
			require.NoError(t, err)
			t.Cleanup(func() { _ = s.Close() })
			ok, err := s.Write(ctx, token, 41)
			require.NoError(t, err)
			require.True(t, ok)
			cli := client(t, e.Addr())
			before, err := cli.Get(ctx, "any")
			require.NoError(t, err)
			revBefore := before.Header.Revision
			require.GreaterOrEqual(t, revBefore, int64(2), "the write advanced the revision")

			pids := e.Pids()
			require.NoError(t, e.Kill())
			require.Empty(t, e.Pids())
			requireGone(t, pids)
			require.ErrorIs(t, e.Kill(), server.ErrNotRunning)
			short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			_, err = cli.Get(short, "any")
			cancel()
			require.Error(t, err, "a killed etcd answers nothing")

			require.NoError(t, e.Restart(ctx, tc.wipe))
			t.Logf("etcd child restarted (wipe %v) in %v", tc.wipe, e.StartTime())
			require.Error(t, e.Restart(ctx, tc.wipe), "a running etcd cannot be restarted")
			after, err := cli.Get(ctx, "any")
			require.NoError(t, err)
			// A read with an older token: refused by a kept fence, accepted
			// (and reading a forgotten counter) after a wipe.
			v, ok, err := s.Read(ctx, token-1)
			require.NoError(t, err)
			if tc.wipe {
				require.Less(t, after.Header.Revision, revBefore, "a wiped etcd starts its revisions over")
				require.True(t, ok, "a wiped etcd forgot the fence")
				require.Equal(t, int64(0), v, "a wiped etcd forgot the counter")
				return
			}
			require.Equal(t, revBefore, after.Header.Revision, "etcd kept its revision")
			require.False(t, ok, "etcd kept the fence")
			v, ok, err = s.Read(ctx, token)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, int64(41), v, "etcd kept the counter")
		})
	}
}

func TestEtcdPauseResume(t *testing.T) {
	e := Start(t)
	cli := client(t, e.Addr())
	ctx := opContext(t)
	_, err := cli.Put(ctx, "k", "1")
	require.NoError(t, err)
	require.NoError(t, e.Pause())
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = cli.Put(short, "k", "2")
	cancel()
	require.Error(t, err, "a paused etcd answers nothing")
	require.NoError(t, e.Resume())
	_, err = cli.Put(ctx, "k", "3")
	require.NoError(t, err)
}

func TestEtcdStartFailureRemovesFolder(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts func(server.EtcdOptions) server.EtcdOptions
		want string
	}{
		{"no binary", func(o server.EtcdOptions) server.EtcdOptions { o.Binary = ""; return o }, "spec needs"},
		{"missing binary", func(o server.EtcdOptions) server.EtcdOptions {
			o.Binary = filepath.Join(t.TempDir(), "no-such-binary")
			return o
		}, "no-such-binary"},
		{"child refuses its flags", func(o server.EtcdOptions) server.EtcdOptions {
			o.Args = []string{"--bogus"}
			return o
		}, "flag provided but not defined"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "etcd")
			require.NoError(t, os.Mkdir(dir, 0o755))
			e, err := server.StartEtcd(opContext(t), dir, tc.opts(Options(t)))
			require.Error(t, err)
			require.Nil(t, e)
			require.Contains(t, err.Error(), tc.want)
			require.NoDirExists(t, dir)
		})
	}
}

// TestEtcdChildBadFlags runs the child with bad flags: one line on stderr,
// exit code 2, nothing started.
func TestEtcdChildBadFlags(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	for _, args := range [][]string{
		{},
		{"--dir", t.TempDir(), "--client-port", "0", "--peer-port", "2380"},
		{"--dir", t.TempDir(), "--client-port", strings.Repeat("9", 500), "--peer-port", "2380"},
		{"--dir", t.TempDir(), "--client-port", "2379", "--peer-port", "2379"},
		{"--dir", t.TempDir(), "--client-port", "2379", "--peer-port", "2380", "extra"},
	} {
		cmd := exec.Command(exe, args...)
		cmd.Env = append(os.Environ(), roleEnv+"="+server.EtcdRole)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "args %q", args)
		require.Equal(t, 2, exit.ExitCode(), "args %q", args)
		msg := strings.TrimRight(stderr.String(), "\n")
		require.NotContains(t, msg, "\n", "one line, args %q", args)
		require.Less(t, len(msg), 300, "a bounded line, args %q", args)
		require.Contains(t, msg, server.EtcdRole)
	}
}

// BenchmarkStartEtcd measures an etcd child's start (until it answers its
// health check) and stop.
func BenchmarkStartEtcd(b *testing.B) {
	for b.Loop() {
		e := Start(b)
		b.StopTimer()
		require.NoError(b, e.Stop())
		b.StartTimer()
	}
}

// An Etcd is a Server.
var _ server.Server = (*server.Etcd)(nil)
