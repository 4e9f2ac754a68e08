package server

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"
)

// startZooKeeperForTest starts a server under t.TempDir, stopped on every
// path by t.Cleanup, or skips with one line when the package is missing.
func startZooKeeperForTest(t *testing.T, opts ZooKeeperOptions) *ZooKeeper {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	z, err := StartZooKeeper(ctx, t.TempDir(), opts)
	if missing := (*MissingError)(nil); errors.As(err, &missing) {
		t.Skip("skipping: " + missing.Error())
	}
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, z.Stop()) })
	t.Logf("%s started in %v on %s", z.Version(), time.Since(start).Round(time.Millisecond), z.Addr())
	return z
}

// zkSession opens a client session on addr, closed by t.Cleanup.
func zkSession(t *testing.T, addr string) *zk.Conn {
	t.Helper()
	conn, _, err := zk.Connect([]string{addr}, 2*time.Second,
		zk.WithLogger(log.New(io.Discard, "", 0)), zk.WithLogInfo(false))
	require.NoError(t, err)
	t.Cleanup(conn.Close)
	return conn
}

// fourLetters sends a four-letter command and returns the answer.
func fourLetters(t *testing.T, addr, cmd string) string {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(5*time.Second)))
	_, err = conn.Write([]byte(cmd))
	require.NoError(t, err)
	answer, err := io.ReadAll(conn)
	require.NoError(t, err)
	return string(answer)
}

// createZxid creates a persistent node and returns its creation zxid.
func createZxid(t *testing.T, conn *zk.Conn, path string) int64 {
	t.Helper()
	_, err := conn.Create(path, []byte("x"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	_, stat, err := conn.Get(path)
	require.NoError(t, err)
	return stat.Czxid
}

// TestZooKeeperServer runs one server through its life: it serves on
// 127.0.0.1, keeps its znodes and zxids across a kill and restart, forgets
// them (zxids start over) across a restart with wipe, and Stop removes its
// folder.
func TestZooKeeperServer(t *testing.T) {
	z := startZooKeeperForTest(t, ZooKeeperOptions{Name: "zk-test"})
	require.Equal(t, "zk-test", z.Name())
	require.True(t, strings.HasPrefix(z.Addr(), "127.0.0.1:"), z.Addr())
	require.Regexp(t, `^zookeeper \d+\.\d+\.\d+`, z.Version())
	require.Len(t, z.Pids(), 1, "one JVM")
	installed, err := ZooKeeperVersion()
	require.NoError(t, err)
	require.Equal(t, installed, z.Version())
	srvr := fourLetters(t, z.Addr(), "srvr")
	require.Contains(t, srvr, "Zookeeper version: "+strings.TrimPrefix(z.Version(), "zookeeper ")+"-",
		"the jar's version is the one the server reports")
	require.Contains(t, srvr, "Mode: standalone")
	ctx := context.Background()

	session := zkSession(t, z.Addr())
	first := createZxid(t, session, "/before-kill")
	require.Positive(t, first)
	// A watch counts once the call that set it has returned.
	watches, err := ZooKeeperWatches(ctx, z.Addr())
	require.NoError(t, err)
	require.Zero(t, watches)
	_, _, _, err = session.ExistsW("/before-kill")
	require.NoError(t, err)
	_, _, _, err = session.ExistsW("/not-there")
	require.NoError(t, err)
	watches, err = ZooKeeperWatches(ctx, z.Addr())
	require.NoError(t, err)
	require.Equal(t, 2, watches)

	require.NoError(t, z.Kill())
	require.Empty(t, z.Pids(), "no process while killed")
	require.Error(t, z.Kill(), "a second kill has nothing to kill")
	start := time.Now()
	require.NoError(t, z.Restart(ctx, false))
	t.Logf("restart with data kept: %v", time.Since(start).Round(time.Millisecond))
	require.Error(t, z.Restart(ctx, false), "restart of a running server")

	conn := zkSession(t, z.Addr())
	exists, _, err := conn.Exists("/before-kill")
	require.NoError(t, err)
	require.True(t, exists, "the znode survived kill and restart")
	kept := createZxid(t, conn, "/after-restart")
	require.Greater(t, kept, first, "zxids keep growing across a restart with data kept")

	require.NoError(t, z.Kill())
	require.NoError(t, z.Restart(ctx, true))
	conn = zkSession(t, z.Addr())
	exists, _, err = conn.Exists("/before-kill")
	require.NoError(t, err)
	require.False(t, exists, "a wiped server forgot its znodes")
	wiped := createZxid(t, conn, "/after-wipe")
	require.Less(t, wiped, kept, "a wiped server counts zxids from zero again: tokens go back (restart-volatile)")

	folder := filepath.Dir(z.dataDir)
	require.NoError(t, z.Stop())
	require.Empty(t, z.Pids())
	_, err = os.Stat(folder)
	require.True(t, os.IsNotExist(err), "Stop removes the server's folder: %v", err)
	require.NoError(t, z.Stop(), "Stop is idempotent")
}

// TestZooKeeperPause: a paused server answers nothing; resumed, it serves.
func TestZooKeeperPause(t *testing.T) {
	// Pausing a JVM is cheap; the start is shared with nothing else, so
	// this test stays short by asking only a few questions.
	z := startZooKeeperForTest(t, ZooKeeperOptions{})
	conn := zkSession(t, z.Addr())
	_, err := conn.Sync("/")
	require.NoError(t, err)
	require.NoError(t, z.Pause())
	done := make(chan error, 1)
	go func() { _, err := conn.Sync("/"); done <- err }()
	select {
	case err := <-done:
		t.Fatalf("a paused server answered: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	require.NoError(t, z.Resume())
	select {
	case <-done: // answered, or failed on the connection the pause cut
	case <-time.After(5 * time.Second):
		t.Fatal("no answer after resume")
	}
	_, err = conn.Sync("/")
	require.NoError(t, err)
}

func TestZooKeeperOptionsRejected(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts ZooKeeperOptions
	}{
		{"name with slash", ZooKeeperOptions{Name: "a/b"}},
		{"port out of range", ZooKeeperOptions{Port: 70000}},
		{"negative port", ZooKeeperOptions{Port: -1}},
		{"tick below 1ms", ZooKeeperOptions{Tick: time.Microsecond}},
		{"min session below two ticks", ZooKeeperOptions{Tick: time.Second, MinSession: time.Second}},
		{"max below min", ZooKeeperOptions{MinSession: 4 * time.Second, MaxSession: time.Second}},
		{"tiny heap", ZooKeeperOptions{HeapMB: 8}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			_, err := StartZooKeeper(context.Background(), dir, tc.opts)
			require.Error(t, err)
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			require.Empty(t, entries, "nothing left behind")
		})
	}
}

func TestZooKeeperConfig(t *testing.T) {
	opts, err := ZooKeeperOptions{Port: 2181}.withDefaults()
	require.NoError(t, err)
	cfg := zooKeeperConfig(opts, "/d")
	for _, line := range []string{
		"tickTime=100", "minSessionTimeout=200", "maxSessionTimeout=60000",
		"dataDir=/d", "clientPortAddress=127.0.0.1", "clientPort=2181",
		"admin.enableServer=false",
	} {
		require.Contains(t, strings.Split(cfg, "\n"), line)
	}
}

func TestZooKeeperMissingNamesThePackage(t *testing.T) {
	missingJar := filepath.Join(t.TempDir(), "zookeeper.jar")
	err := zooKeeperInstalled(missingJar, debianJava)
	var missing *MissingError
	require.ErrorAs(t, err, &missing)
	require.Equal(t, ZooKeeperPackage, missing.Package)
	require.Equal(t, missingJar, missing.Program)
	require.ErrorIs(t, err, os.ErrNotExist)
	require.Contains(t, err.Error(), "Debian package zookeeper")
}

// BenchmarkStartZooKeeper measures a server's start (JVM start, data
// folder, until srvr says it serves) and stop.
func BenchmarkStartZooKeeper(b *testing.B) {
	if err := zooKeeperInstalled(debianZooKeeperJar, debianJava); err != nil {
		b.Skip("skipping: " + err.Error())
	}
	dir := b.TempDir()
	for b.Loop() {
		z, err := StartZooKeeper(context.Background(), dir, ZooKeeperOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if err := z.Stop(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRestartZooKeeper measures a kill and a restart with the data
// kept (the server replays its log).
func BenchmarkRestartZooKeeper(b *testing.B) {
	if err := zooKeeperInstalled(debianZooKeeperJar, debianJava); err != nil {
		b.Skip("skipping: " + err.Error())
	}
	z, err := StartZooKeeper(context.Background(), b.TempDir(), ZooKeeperOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := z.Stop(); err != nil {
			b.Error(err)
		}
	}()
	for b.Loop() {
		if err := z.Kill(); err != nil {
			b.Fatal(err)
		}
		if err := z.Restart(context.Background(), false); err != nil {
			b.Fatal(err)
		}
	}
}

// TestZooKeeperPortInUse: a port someone else holds is refused before a
// JVM starts, and nothing is left behind.
func TestZooKeeperPortInUse(t *testing.T) {
	if err := zooKeeperInstalled(debianZooKeeperJar, debianJava); err != nil {
		t.Skip("skipping: " + err.Error())
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	dir := t.TempDir()
	_, err = StartZooKeeper(context.Background(), dir, ZooKeeperOptions{Port: taken.Addr().(*net.TCPAddr).Port})
	require.ErrorContains(t, err, "already in use")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries, "the server's folder was removed")
}
