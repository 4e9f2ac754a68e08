package impl

import "fmt"

// NodeID names a process. The service and the resource have fixed IDs; the
// clients follow, so a NodeID fits in one byte of a canonical encoding.
type NodeID uint8

// Fixed nodes.
const (
	ServiceNode  NodeID = 0
	ResourceNode NodeID = 1
	firstClient  NodeID = 2
)

// MaxClients is the largest number of clients a NodeID can name.
const MaxClients = 255 - int(firstClient)

// ClientNode is the NodeID of client i (0-based); it prints as c<i+1>.
func ClientNode(i int) NodeID { return firstClient + NodeID(i) }

// IsClient reports whether n is a client.
func (n NodeID) IsClient() bool { return n >= firstClient }

// ClientIndex is the 0-based index of client n.
func (n NodeID) ClientIndex() int { return int(n - firstClient) }

// String is the lane name used in traces: service, resource, c1, c2, ...
func (n NodeID) String() string {
	switch {
	case n == ServiceNode:
		return "service"
	case n == ResourceNode:
		return "resource"
	default:
		return fmt.Sprintf("c%d", n.ClientIndex()+1)
	}
}
