package impl

import (
	"fmt"

	"github.com/fencelab/fencelab/internal/quote"
)

// NodeID names a process. The service and the resource have fixed IDs; the
// clients follow, so a NodeID fits in one byte of a canonical encoding.
// The Redlock rows' further lock nodes (the service is the first of them)
// take the highest IDs, so that every other row's nodes keep theirs.
type NodeID uint8

// Fixed nodes.
const (
	ServiceNode  NodeID = 0
	ResourceNode NodeID = 1
	firstClient  NodeID = 2
	// firstLockNode is the second lock node's ID (LockNode(1)); lock
	// nodes 1 to MaxLockNodes-1 fill the IDs up to 255.
	firstLockNode NodeID = 255 - (MaxLockNodes - 2)
)

// MaxLockNodes is the most independent lock nodes a Redlock row may have
// (--nodes).
const MaxLockNodes = 9

// MaxClients is the largest number of clients a NodeID can name.
const MaxClients = int(firstLockNode - firstClient)

// ClientNode is the NodeID of client i (0-based); it prints as c<i+1>.
func ClientNode(i int) NodeID { return firstClient + NodeID(i) }

// LockNode is the NodeID of lock node k (0-based): the service itself for
// k = 0, so that a one-node lock is the service of every other row. It
// prints as service, service2, service3, ...
func LockNode(k int) NodeID {
	if k == 0 {
		return ServiceNode
	}
	return firstLockNode + NodeID(k-1)
}

// IsClient reports whether n is a client.
func (n NodeID) IsClient() bool { return n >= firstClient && n < firstLockNode }

// IsLockNode reports whether n is a lock node: the service or one of the
// Redlock rows' further nodes.
func (n NodeID) IsLockNode() bool { return n == ServiceNode || n >= firstLockNode }

// ClientIndex is the 0-based index of client n.
func (n NodeID) ClientIndex() int { return int(n - firstClient) }

// LockIndex is the 0-based index of lock node n (LockNode's inverse).
func (n NodeID) LockIndex() int {
	if n == ServiceNode {
		return 0
	}
	return int(n-firstLockNode) + 1
}

// String is the lane name used in traces: service, resource, c1, c2, ...,
// and service2, service3, ... for further lock nodes.
func (n NodeID) String() string {
	switch {
	case n == ServiceNode:
		return "service"
	case n == ResourceNode:
		return "resource"
	case n.IsLockNode():
		return fmt.Sprintf("service%d", n.LockIndex()+1)
	default:
		return fmt.Sprintf("c%d", n.ClientIndex()+1)
	}
}

// ParseNodeID is the one parser of node names: it accepts exactly the
// names String prints (service, resource, c1 … c<MaxClients>, service2 …
// service<MaxLockNodes>) and nothing else: not "c01", "c+1", "c0", " c1"
// or "C1", which a number parser would read as a client.
func ParseNodeID(s string) (NodeID, error) {
	for n := range 256 {
		// 256 names, compared without building a string for a long s.
		if id := NodeID(n); id.IsClient() || id.IsLockNode() || id == ResourceNode {
			if len(s) <= len("service")+2 && id.String() == s {
				return id, nil
			}
		}
	}
	return 0, fmt.Errorf("unknown node %s (want service, resource, c1, c2, ... or, in a Redlock row, service2, service3, ...)", quote.Q(s))
}
