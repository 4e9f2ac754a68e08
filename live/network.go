package live

import (
	"errors"
	"time"

	livenemesis "github.com/fencelab/fencelab/live/nemesis"
)

// proxyNetwork is the Network hook of live/nemesis's proxies, one in front
// of each server of a deployment: a delay or a blackhole acts on every
// link at once.
type proxyNetwork []*livenemesis.Proxy

func (n proxyNetwork) Delay(d time.Duration) error {
	for _, p := range n {
		p.SetDelay(d)
	}
	return nil
}

// Blackhole drops every byte while on; off heals the links (a connection
// that lost bytes is closed, as TCP cannot deliver a stream with a gap).
func (n proxyNetwork) Blackhole(on bool) error {
	for _, p := range n {
		if on {
			p.Drop()
		} else {
			p.Heal()
		}
	}
	return nil
}

// close closes every proxy.
func (n proxyNetwork) close() error {
	var errs []error
	for _, p := range n {
		errs = append(errs, p.Close())
	}
	return errors.Join(errs...)
}

// behindProxies puts a proxy in front of each of d's servers: clients
// dial the proxies, and the deployment gets the delay and blackhole
// faults. On an error it closes what it opened (the servers are the
// caller's).
func behindProxies(d *Deployment) (*Deployment, error) {
	var net proxyNetwork
	d.LockAddrs = nil
	for _, s := range d.Servers {
		p, err := livenemesis.NewProxy(s.Addr())
		if err != nil {
			net.close()
			return nil, err
		}
		net = append(net, p)
		d.LockAddrs = append(d.LockAddrs, p.Addr())
	}
	d.Network, d.Close = net, net.close
	return d, nil
}
