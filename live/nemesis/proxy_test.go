package nemesis

import (
	"bufio"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// echoServer answers every line with the same line, on 127.0.0.1.
func echoServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _ = io.Copy(c, c)
				_ = c.Close()
			}()
		}
	}()
	t.Cleanup(func() {
		_ = l.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return l.Addr().String()
}

func newTestProxy(t *testing.T, upstream string) *Proxy {
	t.Helper()
	p, err := NewProxy(upstream)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	return p
}

// lineClient is a connection through the proxy that sends a line and
// reads the echo.
type lineClient struct {
	conn net.Conn
	r    *bufio.Reader
}

func dialLine(t *testing.T, addr string) *lineClient {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, time.Second)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return &lineClient{conn: c, r: bufio.NewReader(c)}
}

// roundTrip sends line and waits at most timeout for its echo.
func (c *lineClient) roundTrip(line string, timeout time.Duration) (string, time.Duration, error) {
	start := time.Now()
	if err := c.conn.SetDeadline(start.Add(timeout)); err != nil {
		return "", 0, err
	}
	if _, err := c.conn.Write([]byte(line + "\n")); err != nil {
		return "", 0, err
	}
	got, err := c.r.ReadString('\n')
	return got, time.Since(start), err
}

// readLine waits at most timeout for a line.
func (c *lineClient) readLine(timeout time.Duration) (string, error) {
	if err := c.conn.SetDeadline(time.Now().Add(timeout)); err != nil {
		return "", err
	}
	return c.r.ReadString('\n')
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func TestProxyPassAndDelay(t *testing.T) {
	p := newTestProxy(t, echoServer(t))
	c := dialLine(t, p.Addr())
	got, fast, err := c.roundTrip("hello", time.Second)
	require.NoError(t, err)
	require.Equal(t, "hello\n", got)

	for _, delay := range []time.Duration{50 * time.Millisecond, 150 * time.Millisecond} {
		p.SetDelay(delay)
		mode, d := p.Mode()
		require.Equal(t, Delay, mode)
		require.Equal(t, delay, d)
		got, slow, err := c.roundTrip("slow", 5*time.Second)
		require.NoError(t, err)
		require.Equal(t, "slow\n", got)
		// Each direction waits the delay: a round trip at least twice.
		require.GreaterOrEqual(t, slow, 2*delay, "delay %v", delay)
		require.Greater(t, slow, fast)
	}
	p.SetDelay(0)
	mode, _ := p.Mode()
	require.Equal(t, Pass, mode)
	_, healed, err := c.roundTrip("fast again", time.Second)
	require.NoError(t, err)
	require.Less(t, healed, 100*time.Millisecond)
}

func TestProxyHoldDeliversLate(t *testing.T) {
	p := newTestProxy(t, echoServer(t))
	c := dialLine(t, p.Addr())
	_, _, err := c.roundTrip("before", time.Second)
	require.NoError(t, err)

	p.Hold()
	_, _, err = c.roundTrip("held", 150*time.Millisecond)
	require.True(t, isTimeout(err), "a held link makes the client time out: %v", err)
	// A new connection is accepted, and held too.
	c2 := dialLine(t, p.Addr())
	_, _, err = c2.roundTrip("held too", 100*time.Millisecond)
	require.True(t, isTimeout(err), "%v", err)

	p.Heal()
	// What was held arrives late, in order, on the same connections.
	got, err := c.readLine(time.Second)
	require.NoError(t, err)
	require.Equal(t, "held\n", got)
	got, err = c2.readLine(time.Second)
	require.NoError(t, err)
	require.Equal(t, "held too\n", got)
	got, _, err = c.roundTrip("after", time.Second)
	require.NoError(t, err)
	require.Equal(t, "after\n", got)
}

func TestProxyDropBreaksConnections(t *testing.T) {
	p := newTestProxy(t, echoServer(t))
	c := dialLine(t, p.Addr())
	_, _, err := c.roundTrip("before", time.Second)
	require.NoError(t, err)
	idle := dialLine(t, p.Addr()) // sends nothing while dropping
	_, _, err = idle.roundTrip("idle", time.Second)
	require.NoError(t, err)

	p.Drop()
	_, _, err = c.roundTrip("lost", 150*time.Millisecond)
	require.True(t, isTimeout(err), "a dropping link makes the client time out: %v", err)

	p.Heal()
	// The connection that lost bytes is closed: never a stream with a gap.
	_, err = c.readLine(time.Second)
	require.ErrorIs(t, err, io.EOF)
	// One that lost nothing goes on.
	got, _, err := idle.roundTrip("still here", time.Second)
	require.NoError(t, err)
	require.Equal(t, "still here\n", got)
	// New connections pass.
	got, _, err = dialLine(t, p.Addr()).roundTrip("new", time.Second)
	require.NoError(t, err)
	require.Equal(t, "new\n", got)
}

func TestProxyResetAndClose(t *testing.T) {
	p := newTestProxy(t, echoServer(t))
	c := dialLine(t, p.Addr())
	_, _, err := c.roundTrip("x", time.Second)
	require.NoError(t, err)
	require.Equal(t, 1, p.Conns())
	p.ResetConnections()
	_, err = c.readLine(time.Second)
	require.Error(t, err)
	require.False(t, isTimeout(err), "reset, not a timeout: %v", err)
	require.Eventually(t, func() bool { return p.Conns() == 0 }, time.Second, time.Millisecond)

	// Close while a writer waits in Hold: Close returns (no goroutine
	// left waiting), and the client sees the connection end.
	c2 := dialLine(t, p.Addr())
	p.Hold()
	_, err = c2.conn.Write([]byte("held\n"))
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- p.Close() }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(2 * time.Second):
		t.Fatal("Close did not return while a link was held")
	}
	_, err = c2.readLine(time.Second)
	require.Error(t, err)
	require.False(t, isTimeout(err))
	require.NoError(t, p.Close(), "idempotent")
	_, err = net.DialTimeout("tcp", p.Addr(), 200*time.Millisecond)
	require.Error(t, err, "no longer listening")
}

func TestProxyBadUpstream(t *testing.T) {
	_, err := NewProxy("no-port")
	require.ErrorContains(t, err, "upstream")

	// An upstream that refuses: the client's connection is closed.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := l.Addr().String()
	require.NoError(t, l.Close())
	p := newTestProxy(t, dead)
	c := dialLine(t, p.Addr())
	_, err = c.readLine(time.Second)
	require.Error(t, err)
	require.False(t, isTimeout(err))
}

func TestProxyLargeTransfer(t *testing.T) {
	// More than the queue's chunks in flight, through a Hold: the reader
	// blocks (back-pressure) and nothing is lost or reordered.
	p := newTestProxy(t, echoServer(t))
	conn, err := net.DialTimeout("tcp", p.Addr(), time.Second)
	require.NoError(t, err)
	defer conn.Close()
	payload := make([]byte, 4<<20)
	for i := range payload {
		payload[i] = byte(i * 7)
	}
	require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
	p.Hold()
	errs := make(chan error, 1)
	go func() {
		_, err := conn.Write(payload)
		errs <- err
	}()
	time.Sleep(50 * time.Millisecond)
	p.Heal()
	got := make([]byte, len(payload))
	_, err = io.ReadFull(conn, got)
	require.NoError(t, err)
	require.NoError(t, <-errs)
	require.Equal(t, payload, got)
}
