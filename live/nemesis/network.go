package nemesis

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// ClientLinks is the Network hook of live/nemesis's proxies: each client
// gets its own proxy in front of each of the service's servers, so a
// delay or a blackhole aims at one client's links and leaves the others
// healthy. That is what makes a network fault take effect: a fault on a
// link every client shares holds the waiting clients back with the holder,
// and nobody acquires while the holder's link is cut.
type ClientLinks struct {
	upstreams []string

	mu     sync.Mutex
	links  map[int][]*Proxy // by client index
	closed bool
}

// NewClientLinks is no proxy yet in front of upstreams (the servers'
// addresses): each client's open with its first LockAddrs.
func NewClientLinks(upstreams []string) *ClientLinks {
	return &ClientLinks{upstreams: upstreams, links: map[int][]*Proxy{}}
}

// LockAddrs opens client's proxies (once) and returns their addresses, in
// the order of the servers.
func (n *ClientLinks) LockAddrs(client int) ([]string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil, errors.New("the proxies are closed")
	}
	ps, ok := n.links[client]
	if !ok {
		for _, up := range n.upstreams {
			p, err := NewProxy(up)
			if err != nil {
				for _, q := range ps {
					q.Close()
				}
				return nil, err
			}
			ps = append(ps, p)
		}
		n.links[client] = ps
	}
	var addrs []string
	for _, p := range ps {
		addrs = append(addrs, p.Addr())
	}
	return addrs, nil
}

func (n *ClientLinks) proxies(client int) ([]*Proxy, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	ps, ok := n.links[client]
	if !ok {
		return nil, fmt.Errorf("client %d has no link through the proxy", client)
	}
	return ps, nil
}

// Delay holds every byte of client's links for d (0: no delay).
func (n *ClientLinks) Delay(client int, d time.Duration) error {
	ps, err := n.proxies(client)
	for _, p := range ps {
		p.SetDelay(d)
	}
	return err
}

// Blackhole drops every byte of client's links while on; off heals them
// (a connection that lost bytes is closed, as TCP cannot deliver a stream
// with a gap, and the client library dials again).
func (n *ClientLinks) Blackhole(client int, on bool) error {
	ps, err := n.proxies(client)
	for _, p := range ps {
		if on {
			p.Drop()
		} else {
			p.Heal()
		}
	}
	return err
}

// Close closes every proxy.
func (n *ClientLinks) Close() error {
	n.mu.Lock()
	n.closed = true
	links := n.links
	n.links = map[int][]*Proxy{}
	n.mu.Unlock()
	var errs []error
	for _, ps := range links {
		for _, p := range ps {
			errs = append(errs, p.Close())
		}
	}
	return errors.Join(errs...)
}

// Network is the hook of TCP proxies between each client and the lock's
// servers (live/nemesis's Proxy, one per client and server): the delay
// and blackhole faults, aimed at one client's links.
type Network interface {
	// LockAddrs are the addresses client (0-based) dials instead of the
	// servers': its own links.
	LockAddrs(client int) ([]string, error)
	// Delay holds every byte of client's links for d (0: no delay).
	Delay(client int, d time.Duration) error
	// Blackhole drops every byte of client's links while on.
	Blackhole(client int, on bool) error
}

// Stepper is the hook of a clock shim inside a server (an LD_PRELOAD
// library): the clock-step fault.
type Stepper interface {
	// Step moves the server's wall clock by d (forward when positive).
	Step(d time.Duration) error
}
