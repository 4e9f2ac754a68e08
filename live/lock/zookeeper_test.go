package lock

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/live/server"
)

// zkTestTTL is the session timeout of the tests' clients: short, so that
// an expiry is quick to wait out, and well above the server's 200 ms
// minimum.
const zkTestTTL = time.Second

// startZooKeeper starts one server for a test function (its subtests
// share it), stopped on every path, or skips with one line naming the
// Debian package.
func startZooKeeper(t *testing.T) *server.ZooKeeper {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	z, err := server.StartZooKeeper(ctx, t.TempDir(), server.ZooKeeperOptions{})
	if missing := (*server.MissingError)(nil); errors.As(err, &missing) {
		t.Skip("skipping: " + missing.Error())
	}
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, z.Stop()) })
	return z
}

// newZK is a Locker on addr for key, closed by t.Cleanup.
func newZK(t *testing.T, addr, key, client string) *ZooKeeper {
	t.Helper()
	l, err := NewZooKeeper(Config{Addrs: []string{addr}, Key: key, TTL: zkTestTTL, Client: client})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, l.Close()) })
	return l.(*ZooKeeper)
}

// acquireWithin acquires, bounded by d.
func acquireWithin(t *testing.T, l Locker, d time.Duration) Grant {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	g, err := l.Acquire(ctx)
	require.NoError(t, err)
	return g
}

// requireWaiting checks that an Acquire has not returned within d: the
// lock is held by someone else.
func requireWaiting(t *testing.T, pending <-chan acquired, d time.Duration) {
	t.Helper()
	select {
	case r := <-pending:
		t.Fatalf("acquired while another holds the lock: %+v", r)
	case <-time.After(d):
	}
}

// waitWatches waits, bounded by d, until the server's clients have set n
// watches.
func waitWatches(t *testing.T, addr string, n int, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for {
		got, err := server.ZooKeeperWatches(ctx, addr)
		if err == nil && got >= n {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%d watches set after %v, want %d (%v)", got, d, n, err)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// receive waits, bounded, for a background Acquire.
func receive(t *testing.T, pending <-chan acquired, d time.Duration) acquired {
	t.Helper()
	select {
	case r := <-pending:
		return r
	case <-time.After(d):
		t.Fatalf("no grant within %v", d)
		return acquired{}
	}
}

func TestZooKeeperLock(t *testing.T) {
	z := startZooKeeper(t)
	addr := z.Addr()

	t.Run("grant names its node and session timeout", func(t *testing.T) {
		l := newZK(t, addr, "grant", "c1")
		g := acquireWithin(t, l, 10*time.Second)
		require.True(t, strings.HasPrefix(g.Value, ZooKeeperRoot+"/grant/"), g.Value)
		require.Contains(t, g.Value, zkNodePrefix)
		require.Equal(t, zkTestTTL, g.Validity)
		exists, stat, err := l.current().conn.Exists(g.Value)
		require.NoError(t, err)
		require.True(t, exists)
		require.Equal(t, uint64(stat.Czxid), g.Token, "the token is the node's creation zxid")
		require.NotZero(t, stat.EphemeralOwner, "the node is ephemeral")
		data, _, err := l.current().conn.Get(g.Value)
		require.NoError(t, err)
		require.Equal(t, "c1", string(data))
		require.NoError(t, l.Release(context.Background(), g))
		exists, _, err = l.current().conn.Exists(g.Value)
		require.NoError(t, err)
		require.False(t, exists, "release deletes the node")
	})

	t.Run("two lockers exclude each other and tokens grow", func(t *testing.T) {
		a := newZK(t, addr, "pair", "a")
		b := newZK(t, addr, "pair", "b")
		var last uint64
		for round := range 3 {
			holder, waiter := a, b
			if round%2 == 1 {
				holder, waiter = b, a
			}
			g := acquireWithin(t, holder, 10*time.Second)
			require.Greater(t, g.Token, last, "round %d", round)
			pending := acquireAsync(context.Background(), waiter)
			requireWaiting(t, pending, 300*time.Millisecond)
			require.NoError(t, holder.Release(context.Background(), g))
			r := receive(t, pending, 10*time.Second)
			require.NoError(t, r.err)
			require.Greater(t, r.g.Token, g.Token, "the next holder's token is larger")
			require.NoError(t, waiter.Release(context.Background(), r.g))
			last = r.g.Token
		}
	})

	t.Run("many contenders: one holder at a time, tokens grow in grant order", func(t *testing.T) {
		const clients, sections = 3, 4
		var inside, most atomic.Int32
		var mu sync.Mutex
		var tokens []uint64
		var wg sync.WaitGroup
		errs := make(chan error, clients)
		for i := range clients {
			l := newZK(t, addr, "many", "c"+string(rune('1'+i)))
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range sections {
					ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
					g, err := l.Acquire(ctx)
					cancel()
					if err != nil {
						errs <- err
						return
					}
					n := inside.Add(1)
					for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
					}
					mu.Lock()
					tokens = append(tokens, g.Token)
					mu.Unlock()
					time.Sleep(10 * time.Millisecond)
					inside.Add(-1)
					if err := l.Release(context.Background(), g); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		require.Len(t, tokens, clients*sections, "every section ran")
		require.Equal(t, int32(1), most.Load(), "never two inside")
		for i := 1; i < len(tokens); i++ {
			require.Greater(t, tokens[i], tokens[i-1], "grant %d", i)
		}
	})

	t.Run("a cut-off holder's session expires and the next one acquires with a larger token", func(t *testing.T) {
		proxy := startCutProxy(t, addr)
		a := newZK(t, proxy.Addr(), "expiry", "a")
		b := newZK(t, addr, "expiry", "b")
		ga := acquireWithin(t, a, 10*time.Second)
		pending := acquireAsync(context.Background(), b)
		requireWaiting(t, pending, 300*time.Millisecond)

		// A request of a's just before the cut renews its session at
		// a moment the test knows: the server receives it after heard.
		// (a's own heartbeats come every third of the timeout when the
		// machine keeps up, but on a loaded one the last may come much
		// earlier than that before the cut.)
		heard := time.Now()
		_, _, err := a.current().conn.Exists(ga.Value)
		require.NoError(t, err)
		// From here the server hears nothing from a: no request, no
		// heartbeat. a still believes it holds the lock (nothing tells
		// it otherwise until it reaches the server again).
		cut := time.Now()
		proxy.Cut()
		r := receive(t, pending, 15*time.Second)
		require.NoError(t, r.err)
		t.Logf("b acquired %v after a was cut off, %v after a was last heard (session timeout %v)",
			r.at.Sub(cut).Round(time.Millisecond), r.at.Sub(heard).Round(time.Millisecond), zkTestTTL)
		// The server ends a session no sooner than the timeout after it
		// last heard from it.
		require.GreaterOrEqual(t, r.at.Sub(heard), zkTestTTL, "the lock passed on only once a's session ended")
		require.Greater(t, r.g.Token, ga.Token, "the new holder's token is larger than the expired one's")
		exists, _, err := b.current().conn.Exists(ga.Value)
		require.NoError(t, err)
		require.False(t, exists, "the server deleted the expired session's node")

		// Healed, a learns its session expired; its late release does
		// nothing (its node is gone and b's is another node), and it
		// can acquire again on a new session once b releases.
		proxy.Heal()
		releaseRetrying(t, a, ga, 15*time.Second)
		exists, _, err = b.current().conn.Exists(r.g.Value)
		require.NoError(t, err)
		require.True(t, exists, "a's late release left b's node alone")
		require.NoError(t, b.Release(context.Background(), r.g))
		again := acquireWithin(t, a, 15*time.Second)
		require.Greater(t, again.Token, r.g.Token)
		require.NoError(t, a.Release(context.Background(), again))
	})

	t.Run("a release that fails is retried before the next acquire", func(t *testing.T) {
		// A session timeout long enough for a to reconnect within it:
		// its session, and so its node, outlive the failed release.
		proxy := startCutProxy(t, addr)
		l, err := NewZooKeeper(Config{Addrs: []string{proxy.Addr()}, Key: "leftover", TTL: 5 * time.Second, Client: "a"})
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, l.Close()) })
		a := l.(*ZooKeeper)
		observer := newZK(t, addr, "leftover", "observer")
		g := acquireWithin(t, a, 10*time.Second)
		proxy.Cut()
		require.Error(t, a.Release(context.Background(), g), "no delete reaches a cut-off server")
		proxy.Heal()
		exists, _, err := observer.current().conn.Exists(g.Value)
		require.NoError(t, err)
		require.True(t, exists, "a's session lives on, and its node with it")
		// Left in the queue, the node would hold a's next node back for
		// as long as a lives; a deletes it first.
		again := acquireRetrying(t, a, 4*time.Second)
		exists, _, err = observer.current().conn.Exists(g.Value)
		require.NoError(t, err)
		require.False(t, exists, "the leftover node was deleted")
		require.NoError(t, a.Release(context.Background(), again))
	})

	t.Run("a cancelled acquire leaves the queue", func(t *testing.T) {
		a := newZK(t, addr, "cancel", "a")
		b := newZK(t, addr, "cancel", "b")
		c := newZK(t, addr, "cancel", "c")
		ga := acquireWithin(t, a, 10*time.Second)
		ctx, cancel := context.WithCancel(context.Background())
		pending := acquireAsync(ctx, b)
		requireWaiting(t, pending, 200*time.Millisecond)
		cancel()
		r := receive(t, pending, 5*time.Second)
		require.ErrorIs(t, r.err, context.Canceled)
		children, _, err := a.current().conn.Children(ZooKeeperRoot + "/cancel")
		require.NoError(t, err)
		require.Len(t, children, 1, "only a's node is left: %v", children)
		// b's session lives on (its client is open), so had its node
		// stayed, c would wait behind it until b closed.
		require.NoError(t, a.Release(context.Background(), ga))
		gc := acquireWithin(t, c, 2*time.Second)
		require.NoError(t, c.Release(context.Background(), gc))
	})

	t.Run("a release of another lock's grant is refused", func(t *testing.T) {
		a := newZK(t, addr, "mine", "a")
		o := newZK(t, addr, "other", "o")
		g := acquireWithin(t, o, 10*time.Second)
		require.Error(t, a.Release(context.Background(), g))
		exists, _, err := o.current().conn.Exists(g.Value)
		require.NoError(t, err)
		require.True(t, exists)
		require.NoError(t, o.Release(context.Background(), g))
	})
}

// TestZooKeeperLockAcrossRestarts: the zxid token keeps growing across a
// kill and restart with the data folder kept, and goes back after a
// restart with it wiped — the design row restart-volatile.
func TestZooKeeperLockAcrossRestarts(t *testing.T) {
	z := startZooKeeper(t)
	ctx := context.Background()
	a := newZK(t, z.Addr(), "restart", "a")
	before := acquireWithin(t, a, 10*time.Second)
	require.NoError(t, a.Release(ctx, before))

	require.NoError(t, z.Kill())
	require.NoError(t, z.Restart(ctx, false))
	// a's requests fail while its client reconnects; a bounded retry.
	kept := acquireRetrying(t, a, 15*time.Second)
	require.Greater(t, kept.Token, before.Token, "zxids grow across a restart with data kept")
	require.NoError(t, a.Release(ctx, kept))
	keptFirst := kept.Token
	// A few more sections, so that the wiped server's first handful of
	// transactions (sessions, folders) stays below the last token.
	for range 8 {
		g := acquireWithin(t, a, 10*time.Second)
		require.Greater(t, g.Token, kept.Token)
		require.NoError(t, a.Release(ctx, g))
		kept = g
	}

	// The wipe comes while a holds the lock and b waits behind it.
	held := acquireWithin(t, a, 10*time.Second)
	kept = held
	b := newZK(t, z.Addr(), "restart", "b")
	pending := acquireAsync(ctx, b)
	// The kill must find b waiting on a's node, not still asking its
	// way into the queue (whose calls fail on the closed connection):
	// wait for the state, b's watch, rather than for a time.
	waitWatches(t, z.Addr(), 1, 10*time.Second)
	select {
	case r := <-pending:
		t.Fatalf("b's Acquire returned while a holds the lock: %+v", r)
	default:
	}
	require.NoError(t, z.Kill())
	require.NoError(t, z.Restart(ctx, true))
	fresh := newZK(t, z.Addr(), "restart", "fresh")
	wiped := acquireWithin(t, fresh, 10*time.Second)
	require.Less(t, wiped.Token, kept.Token, "a wiped server's zxids start over: the token went back")
	require.NoError(t, fresh.Release(ctx, wiped))

	// a and b saw zxids the wiped server has not reached: ZooKeeper
	// refuses their reconnection ("Refusing session request for client
	// ... as it has seen zxid ...") rather than let them see history go
	// back. b's wait ends once it has been without a session for the
	// session timeout (go-zookeeper alone would keep its watch and wait
	// for ever); then each opens a new connection (Curator's reset), and
	// the wiped server hands the old clients tokens lower than before.
	r := receive(t, pending, 10*time.Second)
	require.ErrorIs(t, r.err, ErrZooKeeperSessionLost)
	a.mu.Lock()
	old := a.session
	a.mu.Unlock()
	releaseRetrying(t, a, held, 10*time.Second) // its node went with the wipe: nothing to delete
	again := acquireRetrying(t, a, 15*time.Second)
	require.Less(t, again.Token, kept.Token, "the old client's token went back too")
	require.NoError(t, a.Release(ctx, again))
	a.mu.Lock()
	require.NotSame(t, old, a.session, "the old client got in on a new connection")
	a.mu.Unlock()
	gb := acquireRetrying(t, b, 15*time.Second)
	require.Less(t, gb.Token, kept.Token)
	require.NoError(t, b.Release(ctx, gb))
	t.Logf("tokens: %d before, %d after the restart with data kept (last %d); after the wipe %d (new client), %d and %d (old clients)",
		before.Token, keptFirst, kept.Token, wiped.Token, again.Token, gb.Token)
}

// acquireRetrying acquires, retrying failed attempts until d passes.
func acquireRetrying(t *testing.T, l Locker, d time.Duration) Grant {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		g, err := l.Acquire(ctx)
		cancel()
		if err == nil {
			return g
		}
		if time.Now().After(deadline) {
			t.Fatalf("no grant within %v: %v", d, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// releaseRetrying releases, retrying while the client reconnects (a call
// made before it has a session fails), until d passes.
func releaseRetrying(t *testing.T, l Locker, g Grant, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		err := l.Release(context.Background(), g)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("release failed for %v: %v", d, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestNewZooKeeperRejects(t *testing.T) {
	good := Config{Addrs: []string{"127.0.0.1:1"}, Key: "k", TTL: time.Second}
	for _, tc := range []struct {
		name   string
		change func(*Config)
	}{
		{"no address", func(c *Config) { c.Addrs = nil }},
		{"empty key", func(c *Config) { c.Key = "" }},
		{"key with slash", func(c *Config) { c.Key = "a/b" }},
		{"key dot-dot", func(c *Config) { c.Key = ".." }},
		{"key too long", func(c *Config) { c.Key = strings.Repeat("k", 201) }},
		{"zero TTL", func(c *Config) { c.TTL = 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := good
			tc.change(&cfg)
			_, err := NewZooKeeper(cfg)
			require.Error(t, err)
		})
	}
}

func TestSortBySequence(t *testing.T) {
	got, err := sortBySequence([]string{
		"_c_bb-lock-0000000010", "_c_aa-lock-0000000002", "_c_cc-lock-0000000009",
	})
	require.NoError(t, err)
	require.Equal(t, []string{"_c_aa-lock-0000000002", "_c_cc-lock-0000000009", "_c_bb-lock-0000000010"}, got)
	for _, foreign := range []string{"config", "lock-", "x-0000000001"} {
		_, err := sortBySequence([]string{"_c_aa-lock-0000000002", foreign})
		require.Error(t, err, foreign)
	}
}

// cutProxy forwards TCP connections to a server until Cut: then it drops
// every connection and refuses new ones (accepts and closes them) until
// Heal — a partition between one client and the server, during which the
// server hears no heartbeat from that client.
type cutProxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	cut   bool
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

func startCutProxy(t *testing.T, target string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &cutProxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

func (p *cutProxy) Addr() string { return p.ln.Addr().String() }

func (p *cutProxy) accept() {
	defer p.wg.Done()
	for {
		down, err := p.ln.Accept()
		if err != nil {
			return // closed
		}
		p.mu.Lock()
		cut := p.cut
		p.mu.Unlock()
		if cut {
			_ = down.Close()
			continue
		}
		up, err := net.DialTimeout("tcp", p.target, time.Second)
		if err != nil {
			_ = down.Close()
			continue
		}
		p.mu.Lock()
		if p.cut { // cut while dialling
			p.mu.Unlock()
			_ = down.Close()
			_ = up.Close()
			continue
		}
		p.conns[down], p.conns[up] = struct{}{}, struct{}{}
		p.mu.Unlock()
		p.wg.Add(2)
		go p.pipe(down, up)
		go p.pipe(up, down)
	}
}

// pipe copies one direction; when it ends, both ends are closed.
func (p *cutProxy) pipe(dst, src net.Conn) {
	defer p.wg.Done()
	_, _ = io.Copy(dst, src)
	p.mu.Lock()
	delete(p.conns, dst)
	delete(p.conns, src)
	p.mu.Unlock()
	_ = dst.Close()
	_ = src.Close()
}

func (p *cutProxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for c := range p.conns {
		_ = c.Close()
	}
}

func (p *cutProxy) Heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = false
}

func (p *cutProxy) close() {
	_ = p.ln.Close()
	p.Cut()
	p.wg.Wait()
}
