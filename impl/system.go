package impl

import (
	"fmt"
	"strings"
	"time"
)

// System is the global state every invariant is written over: all actors.
// Runtimes add what is in flight (messages, timers) themselves.
type System struct {
	Service  Service
	Clients  []Client
	Resource Resource
}

// NewSystem builds the initial state for c.
func NewSystem(c Config) (*System, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	s := &System{
		Service:  NewService(ServiceConfig{TTL: c.TTL, LockDelay: c.ServiceLockDelay(), Fencing: c.Design.Tokens(), UniqueTokens: c.Design.UniqueTokens(), RevisionTokens: c.Design.Revision(), Restart: c.Design.Restart()}),
		Clients:  make([]Client, c.Clients),
		Resource: NewResource(c.Design.Mode()),
	}
	s.Resource.nonAtomic = c.Design.NonAtomic()
	cc := ClientConfig{Sections: c.Sections, MaxRetries: c.Retries, Validity: c.TTL - c.Margin, Rule: c.Validity, Think: c.Think}
	if c.Design.Renews() {
		cc.Renewals, cc.RenewEvery = TimedRenewals, RenewEvery(c.TTL)
		if c.Renewals > 0 {
			cc.Renewals = c.Renewals
		}
	}
	for i := range s.Clients {
		s.Clients[i] = NewClient(ClientNode(i), cc)
	}
	return s, nil
}

// TimedRenewals bounds a renewing client's renewals per section in a timed
// runtime: a section may last that many renewal periods past its grant
// (85 TTLs), far beyond any think time the simulator draws; only the
// counter's byte bounds it.
const TimedRenewals = maxCount

// RenewEvery is a renewing client's renewal period for lease ttl: a third
// of it, as Redisson's watchdog (internalLockLeaseTime / 3) and etcd's
// KeepAlive (TTL / 3) do.
func RenewEvery(ttl time.Duration) time.Duration { return ttl / 3 }

// Clone returns an independent copy of s.
func (s *System) Clone() *System {
	c := &System{Service: s.Service.Clone(), Clients: make([]Client, len(s.Clients)), Resource: s.Resource.Clone()}
	copy(c.Clients, s.Clients)
	return c
}

// CopyFrom sets s to src's state, reusing s's memory: a runtime that
// branches from one state many times (the explorer) copies instead of
// cloning. s and src must come from the same Config.
func (s *System) CopyFrom(src *System) {
	s.Service = src.Service
	s.Clients = append(s.Clients[:0], src.Clients...)
	log := append(s.Resource.log[:0], src.Resource.log...)
	pending := append(s.Resource.pending[:0], src.Resource.pending...)
	queued := append(s.Resource.queued[:0], src.Resource.queued...)
	s.Resource = src.Resource
	s.Resource.log, s.Resource.pending, s.Resource.queued = log, pending, queued
}

// PermuteClients renames client i to client perm[i] everywhere in the
// actors' state: the holder at the service, the clients' places and
// identities, the clients named in the resource's log. Clients are
// interchangeable — they share one configuration — so the renamed system
// behaves exactly as the original with the names changed; a runtime uses
// this to explore one state per class of client-symmetric states. The
// runtime renames what it holds itself (messages in flight, timers). perm
// must be a permutation of 0..len(s.Clients)-1.
func (s *System) PermuteClients(perm []int) {
	rename := func(n NodeID) NodeID {
		if !n.IsClient() || n.ClientIndex() >= len(perm) {
			return n
		}
		return ClientNode(perm[n.ClientIndex()])
	}
	if l := &s.Service.lock; l.Status == Acquired {
		l.Holder = rename(l.Holder)
	}
	var buf [8]Client // no allocation for the few clients of a model
	old := append(buf[:0], s.Clients...)
	for i, c := range old {
		c.id = ClientNode(perm[i])
		s.Clients[perm[i]] = c
	}
	for i := range s.Resource.log {
		s.Resource.log[i].Client = rename(s.Resource.log[i].Client)
	}
	for i := range s.Resource.pending {
		s.Resource.pending[i].Client = rename(s.Resource.pending[i].Client)
	}
	for i := range s.Resource.queued {
		s.Resource.queued[i].Client = rename(s.Resource.queued[i].Client)
	}
}

// Nodes lists every node in lane order: service, clients, resource.
func (s *System) Nodes() []NodeID {
	nodes := make([]NodeID, 0, len(s.Clients)+2)
	nodes = append(nodes, ServiceNode)
	for i := range s.Clients {
		nodes = append(nodes, ClientNode(i))
	}
	return append(nodes, ResourceNode)
}

// Lanes are the nodes' names in lane order, for traces.
func (s *System) Lanes() []string {
	nodes := s.Nodes()
	lanes := make([]string, len(nodes))
	for i, n := range nodes {
		lanes[i] = n.String()
	}
	return lanes
}

// Step delivers in to node n.
func (s *System) Step(n NodeID, in Input, out *Effects) {
	switch {
	case n == ServiceNode:
		s.Service.Step(in, out)
	case n == ResourceNode:
		s.Resource.Step(in, out)
	case n.ClientIndex() < len(s.Clients):
		s.Clients[n.ClientIndex()].Step(in, out)
	}
}

// AllDone reports whether every client ran all its sections.
func (s *System) AllDone() bool {
	for i := range s.Clients {
		if !s.Clients[i].Done() {
			return false
		}
	}
	return true
}

// Encode appends the canonical encoding of every actor's state to b.
func (s *System) Encode(b []byte) []byte {
	b = s.Service.Encode(b)
	for i := range s.Clients {
		b = s.Clients[i].Encode(b)
	}
	return s.Resource.Encode(b)
}

// String summarises s on one line, for debugging and test failures.
func (s *System) String() string {
	var b strings.Builder
	l := s.Service.lock
	fmt.Fprintf(&b, "lock=%s", l.Status)
	if l.Status == Acquired {
		fmt.Fprintf(&b, "(%s, lease %d)", l.Holder, l.Lease)
	}
	for i := range s.Clients {
		c := &s.Clients[i]
		fmt.Fprintf(&b, " %s=%s/holds=%t", c.id, c.phase, c.holds)
	}
	fmt.Fprintf(&b, " counter=%d ops=%d", s.Resource.counter, len(s.Resource.log))
	if len(s.Resource.pending) > 0 {
		fmt.Fprintf(&b, " pending=%d", len(s.Resource.pending))
	}
	if len(s.Resource.queued) > 0 {
		fmt.Fprintf(&b, " queued=%d", len(s.Resource.queued))
	}
	return b.String()
}
