package live

import (
	"errors"
	"fmt"
	"sync"
	"time"

	livenemesis "github.com/fencelab/fencelab/live/nemesis"
)

// clientLinks is the Network hook of live/nemesis's proxies: each client
// gets its own proxy in front of each of the service's servers, so a
// delay or a blackhole aims at one client's links and leaves the others
// healthy. That is what makes a network fault take effect: a fault on a
// link every client shares holds the waiting clients back with the holder,
// and nobody acquires while the holder's link is cut.
type clientLinks struct {
	upstreams []string

	mu     sync.Mutex
	links  map[int][]*livenemesis.Proxy // by client index
	closed bool
}

func newClientLinks(upstreams []string) *clientLinks {
	return &clientLinks{upstreams: upstreams, links: map[int][]*livenemesis.Proxy{}}
}

// LockAddrs opens client's proxies (once) and returns their addresses, in
// the order of the servers.
func (n *clientLinks) LockAddrs(client int) ([]string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil, errors.New("the proxies are closed")
	}
	ps, ok := n.links[client]
	if !ok {
		for _, up := range n.upstreams {
			p, err := livenemesis.NewProxy(up)
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

func (n *clientLinks) proxies(client int) ([]*livenemesis.Proxy, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	ps, ok := n.links[client]
	if !ok {
		return nil, fmt.Errorf("client %d has no link through the proxy", client)
	}
	return ps, nil
}

// Delay holds every byte of client's links for d (0: no delay).
func (n *clientLinks) Delay(client int, d time.Duration) error {
	ps, err := n.proxies(client)
	for _, p := range ps {
		p.SetDelay(d)
	}
	return err
}

// Blackhole drops every byte of client's links while on; off heals them
// (a connection that lost bytes is closed, as TCP cannot deliver a stream
// with a gap, and the client library dials again).
func (n *clientLinks) Blackhole(client int, on bool) error {
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

// close closes every proxy.
func (n *clientLinks) close() error {
	n.mu.Lock()
	n.closed = true
	links := n.links
	n.links = map[int][]*livenemesis.Proxy{}
	n.mu.Unlock()
	var errs []error
	for _, ps := range links {
		for _, p := range ps {
			errs = append(errs, p.Close())
		}
	}
	return errors.Join(errs...)
}

// behindProxies puts d's servers behind per-client proxies: each client
// dials its own (Network.LockAddrs), and the deployment gets the delay
// and blackhole faults. The store's links (StoreAddrs, the register) stay
// direct: the stale write must reach the resource. d.Close, if any, is
// kept and runs after the proxies close.
func behindProxies(d *Deployment) *Deployment {
	var ups []string
	for _, s := range d.Servers {
		ups = append(ups, s.Addr())
	}
	links := newClientLinks(ups)
	before := d.Close
	d.LockAddrs = nil
	d.Network = links
	d.Close = func() error {
		err := links.close()
		if before != nil {
			err = errors.Join(err, before())
		}
		return err
	}
	return d
}
