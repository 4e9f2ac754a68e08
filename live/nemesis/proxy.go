// Package nemesis holds the faults the live harness injects that signals
// alone cannot make: a TCP proxy between clients and a server whose links
// can be slowed, held or cut at run time (proxy.go), and a step of one
// server's wall clock through an LD_PRELOAD shim (clock.go). Pauses,
// kills and restarts of processes live beside them.
package nemesis

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/fencelab/fencelab/internal/quote"
)

// LinkMode is what a Proxy does with the bytes it forwards.
type LinkMode int

// The link modes.
const (
	// Pass forwards every byte at once.
	Pass LinkMode = iota
	// Delay forwards every chunk, in order, the proxy's delay after it
	// arrived: a slow network.
	Delay
	// Hold forwards nothing and keeps everything (up to a bound, then the
	// sender blocks, as a full TCP window does); on Heal it delivers all
	// of it, in order, at once: a partition that ends, and a message that
	// arrives late — after its sender may have given up on it.
	Hold
	// Drop throws every byte away, and a connection that lost bytes is
	// closed on Heal (TCP never delivers a stream with a gap): a partition
	// that outlasts the connections.
	Drop
)

func (m LinkMode) String() string {
	switch m {
	case Pass:
		return "pass"
	case Delay:
		return "delay"
	case Hold:
		return "hold"
	case Drop:
		return "drop"
	}
	return fmt.Sprintf("LinkMode(%d)", int(m))
}

// Bounds of a proxy's buffering.
const (
	proxyChunk = 32 << 10 // bytes read at once
	// proxyQueue is how many chunks a direction holds before its reader
	// stops reading (at most 32 MiB per direction).
	proxyQueue = 1024
)

// Proxy is a TCP proxy on 127.0.0.1 in front of one server, for one
// client's link to it (a fault aims at one client's link by aiming at its
// proxy). Its mode is switched at run time and applies at once to every
// connection, open or new, in both directions.
//
// It is our own small proxy, not toxiproxy's Go packages. Those were
// checked as a library: the only release the module proxy serves
// (v2.5.0) needs its HTTP API server, a Prometheus metrics container and
// a zerolog logger to make a proxy, registers its toxics in a
// package-level registry from init functions, and brings gorilla/mux,
// the Prometheus client and protobuf along. Above all its blackhole (the
// "timeout" toxic) drops bytes from the middle of a live TCP stream and
// keeps the connection open, so after healing the server reads a stream
// with a gap — which no real network gives TCP. What a partition does to
// a TCP connection is hold (retransmit) and deliver late, or break the
// connection; Hold and Drop here are exactly those two.
type Proxy struct {
	upstream string
	listener net.Listener
	wg       sync.WaitGroup // the accept loop and every pump

	mu      sync.Mutex
	mode    LinkMode
	delay   time.Duration
	changed chan struct{} // closed and replaced on every change of mode
	conns   map[*proxyConn]struct{}
	closed  bool
}

// proxyConn is one client connection and its upstream connection.
type proxyConn struct {
	client, server net.Conn
	once           sync.Once
	done           chan struct{} // closed by close: pumps stop waiting
	lostBytes      bool          // guarded by the Proxy's mu
	writersEnded   int           // guarded by the Proxy's mu
}

func (c *proxyConn) close() {
	c.once.Do(func() {
		close(c.done)
		_ = c.client.Close()
		_ = c.server.Close()
	})
}

// NewProxy listens on a free port of 127.0.0.1 and forwards every
// connection to upstream (host:port), in mode Pass.
func NewProxy(upstream string) (*Proxy, error) {
	if _, _, err := net.SplitHostPort(upstream); err != nil {
		return nil, fmt.Errorf("proxy: upstream %s: %w", quote.Q(upstream), err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	p := &Proxy{upstream: upstream, listener: l, changed: make(chan struct{}), conns: map[*proxyConn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the address clients dial instead of the server's.
func (p *Proxy) Addr() string { return p.listener.Addr().String() }

// Upstream is the server's address.
func (p *Proxy) Upstream() string { return p.upstream }

// SetDelay forwards every chunk d after it arrives (mode Delay; d <= 0 is
// Pass). Chunks already held by Hold are delivered d after they arrived.
func (p *Proxy) SetDelay(d time.Duration) {
	if d <= 0 {
		p.setMode(Pass, 0)
		return
	}
	p.setMode(Delay, d)
}

// Hold holds every byte from now on until Heal.
func (p *Proxy) Hold() { p.setMode(Hold, 0) }

// Drop drops every byte from now on; Heal closes the connections that
// lost any.
func (p *Proxy) Drop() { p.setMode(Drop, 0) }

// Heal returns to Pass: held bytes are delivered, connections that lost
// bytes are closed.
func (p *Proxy) Heal() { p.setMode(Pass, 0) }

// Mode is the current mode and delay.
func (p *Proxy) Mode() (LinkMode, time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mode, p.delay
}

// Conns is how many client connections are open through the proxy.
func (p *Proxy) Conns() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.conns)
}

// ResetConnections closes every open connection (both sides); new ones
// are accepted as before.
func (p *Proxy) ResetConnections() {
	p.mu.Lock()
	conns := make([]*proxyConn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	p.mu.Unlock()
	for _, c := range conns {
		c.close()
	}
}

func (p *Proxy) setMode(m LinkMode, d time.Duration) {
	p.mu.Lock()
	var broken []*proxyConn
	if p.mode == Drop && m != Drop {
		for c := range p.conns {
			if c.lostBytes {
				broken = append(broken, c)
			}
		}
	}
	p.mode, p.delay = m, d
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
	for _, c := range broken {
		c.close()
	}
}

// Close stops listening, closes every connection and waits for the
// proxy's goroutines. It is idempotent.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	close(p.changed) // wake every writer that waits, to see closed
	p.changed = make(chan struct{})
	p.mu.Unlock()
	err := p.listener.Close()
	p.ResetConnections()
	p.wg.Wait()
	return err
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		client, err := p.listener.Accept()
		if err != nil {
			return // closed
		}
		server, err := net.DialTimeout("tcp", p.upstream, 5*time.Second)
		if err != nil {
			_ = client.Close() // the client sees the server refuse
			continue
		}
		c := &proxyConn{client: client, server: server, done: make(chan struct{})}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			c.close()
			return
		}
		p.conns[c] = struct{}{}
		p.wg.Add(4)
		p.mu.Unlock()
		toServer := make(chan proxyChunkAt, proxyQueue)
		toClient := make(chan proxyChunkAt, proxyQueue)
		go p.read(c, c.client, toServer)
		go p.write(c, c.server, toServer)
		go p.read(c, c.server, toClient)
		go p.write(c, c.client, toClient)
	}
}

// proxyChunkAt is a chunk of bytes and when it arrived.
type proxyChunkAt struct {
	data []byte
	at   time.Time
}

// read reads src into q until src ends, dropping what arrives in Drop.
func (p *Proxy) read(c *proxyConn, src net.Conn, q chan<- proxyChunkAt) {
	defer p.wg.Done()
	defer close(q)
	for {
		buf := make([]byte, proxyChunk)
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			drop := p.mode == Drop
			if drop {
				c.lostBytes = true
			}
			p.mu.Unlock()
			if !drop {
				select {
				case q <- proxyChunkAt{data: buf[:n], at: time.Now()}:
				case <-c.done:
					return
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// write delivers q's chunks to dst, in order, each when the mode lets it;
// when q ends (its source closed) it half-closes dst, and on any write
// error closes the whole connection.
func (p *Proxy) write(c *proxyConn, dst net.Conn, q <-chan proxyChunkAt) {
	defer p.wg.Done()
	defer p.forget(c)
	for chunk := range q {
		if err := p.waitToDeliver(c, chunk.at); err != nil {
			c.close()
			return
		}
		if _, err := dst.Write(chunk.data); err != nil {
			c.close()
			return
		}
	}
	if tcp, ok := dst.(*net.TCPConn); ok {
		_ = tcp.CloseWrite()
	}
}

// errProxyClosed ends a writer that waits when the proxy or its
// connection closes.
var errProxyClosed = errors.New("proxy or connection closed")

// waitToDeliver blocks until a chunk that arrived at `at` may be
// delivered: at once in Pass, at at+delay in Delay, not while Hold or Drop
// lasts; it gives up when the proxy or the connection closes.
func (p *Proxy) waitToDeliver(c *proxyConn, at time.Time) error {
	for {
		p.mu.Lock()
		mode, delay, changed, closed := p.mode, p.delay, p.changed, p.closed
		p.mu.Unlock()
		if closed {
			return errProxyClosed
		}
		var timer *time.Timer
		var timeout <-chan time.Time // nil (never fires) unless Delay
		switch mode {
		case Pass:
			return nil
		case Delay:
			wait := time.Until(at.Add(delay))
			if wait <= 0 {
				return nil
			}
			timer = time.NewTimer(wait)
			timeout = timer.C
		}
		var err error
		select {
		case <-changed:
		case <-timeout:
		case <-c.done:
			err = errProxyClosed
		}
		if timer != nil {
			timer.Stop()
		}
		if err != nil {
			return err
		}
	}
}

// forget counts a writer's end; when both directions have ended, the
// connection is closed and leaves the set.
func (p *Proxy) forget(c *proxyConn) {
	p.mu.Lock()
	c.writersEnded++
	last := c.writersEnded == 2
	if last {
		delete(p.conns, c)
	}
	p.mu.Unlock()
	if last {
		c.close()
	}
}
