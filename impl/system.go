package impl

import (
	"fmt"
	"strings"
	"time"
)

// System is the global state every invariant is written over: all actors.
// Runtimes add what is in flight (messages, timers) themselves.
type System struct {
	// Service is the lock service, or in a Redlock row the first of its
	// independent lock nodes (LockNode(0)); LockNodes are the others.
	Service   Service
	LockNodes []Service
	Clients   []Client
	Resource  Resource
}

// NewSystem builds the initial state for c.
func NewSystem(c Config) (*System, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	sc := ServiceConfig{TTL: c.TTL, LockDelay: c.ServiceLockDelay(), Fencing: c.Design.Tokens(), UniqueTokens: c.Design.UniqueTokens(), RevisionTokens: c.Design.Revision(), Restart: c.Design.Restart(), ClientValues: c.Design.Redlock()}
	s := &System{
		Service:  NewService(sc),
		Clients:  make([]Client, c.Clients),
		Resource: NewResource(c.Design.Mode()),
	}
	var nodes int // a Redlock client's lock nodes; 0: the one service
	if c.Design.Redlock() {
		nodes = c.LockNodes()
		for k := 1; k < nodes; k++ {
			sc.Node = LockNode(k)
			s.LockNodes = append(s.LockNodes, NewService(sc))
		}
	}
	s.Resource.nonAtomic = c.Design.NonAtomic()
	s.Resource.snapshot = c.Design.SnapshotFence()
	cc := ClientConfig{
		Sections: c.Sections, MaxRetries: c.Retries, Validity: c.TTL - c.Margin, Rule: c.Validity, Think: c.Think,
		Nodes: nodes, ValueTokens: c.Design.Redlock() && c.Design.Tokens(),
	}
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
	if len(s.LockNodes) > 0 {
		c.LockNodes = append([]Service(nil), s.LockNodes...)
	}
	return c
}

// CopyFrom sets s to src's state, reusing s's memory: a runtime that
// branches from one state many times (the explorer) copies instead of
// cloning. s and src must come from the same Config.
func (s *System) CopyFrom(src *System) {
	s.Service = src.Service
	if len(src.LockNodes) > 0 {
		s.LockNodes = append(s.LockNodes[:0], src.LockNodes...)
	}
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
	// A Redlock value names its client (renameValue); in every other row
	// leases and tokens name nobody.
	value := func(v uint64) uint64 { return v }
	if s.Redlock() {
		value = func(v uint64) uint64 { return renameValue(v, rename) }
	}
	for k := range s.NumLockNodes() {
		if l := &s.LockNode(k).lock; l.Status == Acquired || l.Status == Persisting {
			l.Holder, l.Lease = rename(l.Holder), value(l.Lease)
		}
	}
	var buf [8]Client // no allocation for the few clients of a model
	old := append(buf[:0], s.Clients...)
	for i, c := range old {
		c.id = ClientNode(perm[i])
		c.lease, c.token = value(c.lease), value(c.token)
		s.Clients[perm[i]] = c
	}
	s.Resource.maxToken = value(s.Resource.maxToken)
	for i := range s.Resource.log {
		s.Resource.log[i].Client = rename(s.Resource.log[i].Client)
		s.Resource.log[i].Token = value(s.Resource.log[i].Token)
	}
	for i := range s.Resource.pending {
		s.Resource.pending[i].Client = rename(s.Resource.pending[i].Client)
	}
	for i := range s.Resource.queued {
		s.Resource.queued[i].Client = rename(s.Resource.queued[i].Client)
	}
}

// Redlock reports whether s is a Redlock row's system: its lock nodes
// store the clients' values.
func (s *System) Redlock() bool { return s.Service.cfg.ClientValues }

// NumLockNodes is the number of lock nodes: 1, the service, or a Redlock
// row's N.
func (s *System) NumLockNodes() int { return 1 + len(s.LockNodes) }

// LockNode is lock node k (0: the service).
func (s *System) LockNode(k int) *Service {
	if k == 0 {
		return &s.Service
	}
	return &s.LockNodes[k-1]
}

// Nodes lists every node in lane order: the service (and a Redlock row's
// further lock nodes), clients, resource.
func (s *System) Nodes() []NodeID {
	nodes := make([]NodeID, 0, len(s.Clients)+1+s.NumLockNodes())
	for k := range s.NumLockNodes() {
		nodes = append(nodes, LockNode(k))
	}
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
func (s *System) Step(n NodeID, in *Input, out *Effects) {
	switch {
	case n == ServiceNode:
		s.Service.Step(in, out)
	case n.IsLockNode():
		if k := n.LockIndex(); k < s.NumLockNodes() {
			s.LockNode(k).Step(in, out)
		}
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
	for k := range s.LockNodes {
		b = s.LockNodes[k].Encode(b)
	}
	for i := range s.Clients {
		b = s.Clients[i].Encode(b)
	}
	return s.Resource.Encode(b)
}

// String summarises s on one line, for debugging and test failures.
func (s *System) String() string {
	var b strings.Builder
	for k := range s.NumLockNodes() {
		l := s.LockNode(k).lock
		if k > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "lock=%s", l.Status)
		if l.Status == Acquired || l.Status == Persisting {
			fmt.Fprintf(&b, "(%s, lease %s)", l.Holder, FormatLease(l.Lease))
		}
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
