package lock

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/live/internal/servertest"
	"github.com/fencelab/fencelab/live/nemesis"
	"github.com/fencelab/fencelab/live/server"
)

func newGetLock(t *testing.T, addr, key string, withToken bool) Locker {
	t.Helper()
	l, err := NewMariaDBGetLock(Config{Addrs: []string{addr}, Key: key, Client: t.Name()}, withToken)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, l.Close()) })
	return l
}

// holderSession is the connection id of the session holding key, 0 if none.
func holderSession(ctx context.Context, t *testing.T, db *sql.DB, key string) int64 {
	t.Helper()
	var id sql.NullInt64
	require.NoError(t, db.QueryRowContext(ctx, "SELECT IS_USED_LOCK(?)", key).Scan(&id))
	return id.Int64
}

func TestMariaDBGetLock(t *testing.T) {
	m := servertest.MariaDB(t)
	admin, err := sql.Open("mysql", m.DSN())
	require.NoError(t, err)
	defer admin.Close()

	t.Run("two clients exclude each other", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		a := newGetLock(t, m.Addr(), "exclude", false)
		b := newGetLock(t, m.DSN(), "exclude", false) // a full DSN works too
		g, err := a.Acquire(ctx)
		require.NoError(t, err)
		assert.Equal(t, Grant{}, g, "GET_LOCK has no token and no validity")
		require.NotZero(t, holderSession(ctx, t, admin, "exclude"), "the server shows a holder")

		// b waits while a holds, longer than one GET_LOCK round.
		short, cancelShort := context.WithTimeout(ctx, 1500*time.Millisecond)
		_, err = b.Acquire(short)
		cancelShort()
		require.ErrorIs(t, err, context.DeadlineExceeded, "b must not get the lock a holds")

		// b waits in Acquire; a's release lets it in.
		got := make(chan error, 1)
		var bGranted time.Time
		go func() {
			_, err := b.Acquire(ctx)
			bGranted = time.Now()
			got <- err
		}()
		time.Sleep(300 * time.Millisecond)
		released := time.Now()
		require.NoError(t, a.Release(ctx, g))
		select {
		case err := <-got:
			require.NoError(t, err)
		case <-ctx.Done():
			t.Fatal("b never got the lock after a released it")
		}
		assert.True(t, bGranted.After(released), "b's grant came after a's release")
		require.NoError(t, b.Release(ctx, Grant{}))
		assert.Zero(t, holderSession(ctx, t, admin, "exclude"), "no holder after b's release")
	})

	t.Run("the token variant gives increasing tokens", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		a := newGetLock(t, m.Addr(), "tokens", true)
		b := newGetLock(t, m.Addr(), "tokens", true)
		var last uint64
		for i, l := range []Locker{a, b, a, b, b} {
			g, err := l.Acquire(ctx)
			require.NoError(t, err)
			assert.Equal(t, last+1, g.Token, "grant %d", i)
			assert.Zero(t, g.Validity, "held until released")
			last = g.Token
			require.NoError(t, l.Release(ctx, g))
		}
		// Another lock name has its own counter.
		c := newGetLock(t, m.Addr(), "tokens-other", true)
		g, err := c.Acquire(ctx)
		require.NoError(t, err)
		assert.Equal(t, uint64(1), g.Token)
		require.NoError(t, c.Release(ctx, g))
	})

	t.Run("a killed session loses the lock", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		a := newGetLock(t, m.Addr(), "killed", true)
		b := newGetLock(t, m.Addr(), "killed", true)
		ga, err := a.Acquire(ctx)
		require.NoError(t, err)
		session := holderSession(ctx, t, admin, "killed")
		require.NotZero(t, session)
		_, err = admin.ExecContext(ctx, fmt.Sprintf("KILL CONNECTION %d", session))
		require.NoError(t, err)

		// a still believes it holds the lock; b gets it: two holders.
		gb, err := b.Acquire(ctx)
		require.NoError(t, err)
		assert.Greater(t, gb.Token, ga.Token, "the newer holder has the larger token")
		assert.NoError(t, a.Release(ctx, ga), "releasing a lost session's lock is not an error")
		assert.NotZero(t, holderSession(ctx, t, admin, "killed"), "a's release did not free b's lock")
		require.NoError(t, b.Release(ctx, gb))

		// a connects again on its next acquire.
		ga2, err := a.Acquire(ctx)
		require.NoError(t, err)
		assert.Greater(t, ga2.Token, gb.Token)
		require.NoError(t, a.Release(ctx, ga2))
	})

	t.Run("a failed token gives the lock back", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		// a's link is slow while its token fails, so that the server
		// hears of a closed session half a second late, as a busy
		// machine may make it: the lock must be free when Acquire
		// returns, not only once the server notices the session's end.
		link, err := nemesis.NewProxy(m.Addr())
		require.NoError(t, err)
		t.Cleanup(func() { assert.NoError(t, link.Close()) })
		a := newGetLock(t, link.Addr(), "no-token", true)
		g, err := a.Acquire(ctx)
		require.NoError(t, err)
		require.NoError(t, a.Release(ctx, g))
		// The table goes while a's session believes it made it.
		_, err = admin.ExecContext(ctx, "DROP TABLE tokens")
		require.NoError(t, err)
		link.SetDelay(500 * time.Millisecond)
		_, err = a.Acquire(ctx)
		require.ErrorContains(t, err, "taking a token")
		assert.Zero(t, holderSession(ctx, t, admin, "no-token"), "no session keeps the lock")
		link.SetDelay(0)
		// The next acquire, on a new session, makes the table again.
		g, err = a.Acquire(ctx)
		require.NoError(t, err)
		assert.Equal(t, uint64(1), g.Token)
		require.NoError(t, a.Release(ctx, g))
	})

	t.Run("a paused holder process keeps the lock", func(t *testing.T) {
		pausedHolderKeepsTheLock(t, m)
	})

	// Last: it restarts the shared server.
	t.Run("a restart loses the lock; the tokens survive unless wiped", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		a := newGetLock(t, m.Addr(), "restart", true)
		b := newGetLock(t, m.Addr(), "restart", true)
		ga, err := a.Acquire(ctx)
		require.NoError(t, err)
		require.NotZero(t, ga.Token)

		require.NoError(t, m.Kill())
		// b's Acquire rides out the restart: it reconnects until it can.
		got := make(chan error, 1)
		var gb Grant
		go func() {
			var err error
			gb, err = b.Acquire(ctx)
			got <- err
		}()
		time.Sleep(200 * time.Millisecond)
		require.NoError(t, m.Restart(ctx, false))
		select {
		case err := <-got:
			require.NoError(t, err)
		case <-ctx.Done():
			t.Fatal("b never got the lock after the restart")
		}
		// Two holders: a never released, b holds. The token counter is
		// durable, so fencing can still tell them apart.
		assert.Greater(t, gb.Token, ga.Token, "the counter survived SIGKILL")
		assert.NoError(t, a.Release(ctx, ga), "the lost session has nothing to release")
		require.NoError(t, b.Release(ctx, gb))

		// A restart that wipes the data loses the counter too: the
		// tokens start over (the restart-volatile story).
		gb, err = b.Acquire(ctx)
		require.NoError(t, err)
		require.NoError(t, m.Kill())
		require.NoError(t, m.Restart(ctx, true))
		ga, err = a.Acquire(ctx)
		require.NoError(t, err)
		assert.Equal(t, uint64(1), ga.Token, "a wiped counter hands out 1 again")
		assert.Less(t, ga.Token, gb.Token, "the newer holder now has the smaller token")
		assert.NoError(t, b.Release(ctx, gb))
		require.NoError(t, a.Release(ctx, ga))
	})
}

func TestMariaDBGetLockWaitsOnlyAsLongAsCtx(t *testing.T) {
	// Nothing listens on the port: Acquire keeps trying until ctx ends.
	port, err := server.FreePort()
	require.NoError(t, err)
	l, err := NewMariaDBGetLock(Config{Addrs: []string{"127.0.0.1:" + strconv.Itoa(port)}, Key: "k"}, false)
	require.NoError(t, err)
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	begin := time.Now()
	_, err = l.Acquire(ctx)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(begin), 5*time.Second)
	assert.NoError(t, l.Release(context.Background(), Grant{}), "nothing held, nothing to release")
}

func TestNewMariaDBGetLockRejectsBadConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no address", Config{Key: "k"}, "one address"},
		{"two addresses", Config{Addrs: []string{"127.0.0.1:1", "127.0.0.1:2"}, Key: "k"}, "one address"},
		{"no key", Config{Addrs: []string{"127.0.0.1:1"}}, "lock name"},
		{"key too long", Config{Addrs: []string{"127.0.0.1:1"}, Key: strings.Repeat("k", 65)}, "lock name"},
		{"key not UTF-8", Config{Addrs: []string{"127.0.0.1:1"}, Key: "\xff"}, "lock name"},
		{"bad address", Config{Addrs: []string{"nowhere"}, Key: "k"}, "host:port"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewMariaDBGetLock(tc.cfg, true)
			assert.ErrorContains(t, err, tc.want)
		})
	}
	l, err := NewMariaDBGetLock(Config{Addrs: []string{"127.0.0.1:1"}, Key: strings.Repeat("k", 64)}, true)
	require.NoError(t, err, "64 characters, the limit, are allowed")
	require.NoError(t, l.Close())
}

// Environment of the holder process pausedHolderKeepsTheLock starts.
const (
	holderEnvAddr = "FENCELAB_TEST_GETLOCK_ADDR"
	holderEnvKey  = "FENCELAB_TEST_GETLOCK_KEY"
)

// TestGetLockHolderHelper is not a test: it is the body of the client
// process pausedHolderKeepsTheLock runs (the test binary, started
// again with -test.run); in a normal test run it skips. As the
// helper it takes the lock, says "held" on stdout and keeps its session
// until stdin closes or a bound passes.
func TestGetLockHolderHelper(t *testing.T) {
	addr := os.Getenv(holderEnvAddr)
	if addr == "" {
		t.Skip("the holder process of TestMariaDBGetLock's pause subtest: it runs only as that child")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	l, err := NewMariaDBGetLock(Config{Addrs: []string{addr}, Key: os.Getenv(holderEnvKey)}, false)
	require.NoError(t, err)
	defer l.Close()
	_, err = l.Acquire(ctx)
	require.NoError(t, err)
	fmt.Println("held")
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// A client process paused with SIGSTOP keeps its session and so the lock:
// the pause alone cannot make a second holder. Killing the process closes
// its connection, the server ends the session, and the lock goes.
func pausedHolderKeepsTheLock(t *testing.T, m *server.MariaDB) {
	const key = "paused"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	holder := exec.Command(os.Args[0], "-test.run=^TestGetLockHolderHelper$", "-test.count=1")
	holder.Env = append(os.Environ(), holderEnvAddr+"="+m.Addr(), holderEnvKey+"="+key)
	holder.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stdin, err := holder.StdinPipe()
	require.NoError(t, err)
	stdout, err := holder.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, holder.Start())
	exited := make(chan struct{})
	go func() {
		_ = holder.Wait()
		close(exited)
	}()
	killHolder := func() {
		select {
		case <-exited:
		default:
			_ = syscall.Kill(-holder.Process.Pid, syscall.SIGKILL) // the group this test started
			<-exited
		}
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		killHolder()
	})

	held := make(chan bool, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		held <- strings.TrimSpace(line) == "held"
	}()
	select {
	case ok := <-held:
		require.True(t, ok, "the holder process did not take the lock")
	case <-ctx.Done():
		t.Fatal("the holder process never took the lock")
	}

	require.NoError(t, syscall.Kill(-holder.Process.Pid, syscall.SIGSTOP))
	b := newGetLock(t, m.Addr(), key, false)
	paused, cancelPaused := context.WithTimeout(ctx, 2500*time.Millisecond)
	_, err = b.Acquire(paused)
	cancelPaused()
	require.ErrorIs(t, err, context.DeadlineExceeded, "the paused holder still holds the lock")

	killHolder()
	begin := time.Now()
	g, err := b.Acquire(ctx)
	require.NoError(t, err, "the killed holder's session ended and its lock with it")
	t.Logf("lock free %v after the holder was killed", time.Since(begin))
	require.NoError(t, b.Release(ctx, g))
}
