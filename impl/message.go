package impl

import (
	"encoding/binary"
	"fmt"
)

//go:generate go tool stringer -type=MsgKind -trimprefix=Msg

// MsgKind is the type of a message.
type MsgKind uint8

// Messages between clients and the service, and between clients and the
// resource. There is no acknowledgement of a release: like Redis's
// compare-and-delete, the client does not wait for it. Leases are renewed
// only in the designs that say so (Design.Renews): a client whose lease
// runs out stops believing it holds the lock, and the resource's fencing
// is what has to cope.
const (
	MsgAcquire    MsgKind = iota + 1 // client → service: grant me the lock
	MsgRelease                       // client → service: release the lock if Lease is still mine
	MsgGrant                         // service → client: the lock is yours under Lease (and Token with fencing)
	MsgReject                        // service → client: the lock is taken
	MsgRead                          // client → resource: read the counter, with Token
	MsgReadReply                     // resource → client: OK and Value read
	MsgWrite                         // client → resource: set the counter to Value, with Token
	MsgWriteReply                    // resource → client: OK tells whether the write was accepted
	// MsgApply is a non-atomic resource's message to itself (to its
	// storage): apply the oldest write checked and not yet applied.
	MsgApply
	// MsgCheck is a sequencer-checking resource's question to the service
	// (Chubby's CheckSequencer): is Token the current holder's? MsgCheckReply
	// is the answer, OK, with the Token asked about.
	MsgCheck
	MsgCheckReply
	// MsgRenew is a renewing client's request (Design.Renews): extend
	// Lease, if it is still the current lease and mine (Redisson's
	// watchdog, etcd's KeepAlive). Appended after the others so that the
	// canonical order of the other designs' messages is unchanged.
	MsgRenew
	// MsgRenewed is the service's answer to MsgRenew: OK tells whether
	// Lease was extended by a fresh TTL.
	MsgRenewed
)

// Message is a plain value; fields a kind does not use are zero, so equal
// messages encode equally. The one-byte fields come first, together: 32
// bytes instead of 40, copied with every send and delivery.
type Message struct {
	Kind     MsgKind
	From, To NodeID
	OK       bool
	Lease    uint64 // identity of a grant: what a release must match
	Token    uint64 // fencing token; NoToken when the design has none
	Value    int64  // the counter value read or to write
}

// Encode appends the canonical encoding of m to b.
func (m Message) Encode(b []byte) []byte {
	b = append(b, byte(m.Kind), byte(m.From), byte(m.To), boolByte(m.OK))
	b = binary.AppendUvarint(b, m.Lease)
	b = binary.AppendUvarint(b, m.Token)
	return binary.AppendVarint(b, m.Value)
}

// NoToken is the Token of a message or operation that carries none (the
// rows without tokens, an operation before any grant): grants hand out
// tokens from 1, so 0 is never a token, and no text prints it as one.
const NoToken uint64 = 0

// String describes m for traces, e.g. "Grant(lease 2, token 2)".
func (m Message) String() string {
	switch m.Kind {
	case MsgAcquire, MsgReject:
		if isValue(m.Lease) {
			return fmt.Sprintf("%s(value %s)", m.Kind, FormatLease(m.Lease))
		}
		return m.Kind.String()
	case MsgRelease, MsgRenew:
		return fmt.Sprintf("%s(%s)", m.Kind, leaseWord(m.Lease))
	case MsgRenewed:
		return fmt.Sprintf("Renewed(%s, %s)", leaseWord(m.Lease), okString(m.OK))
	case MsgGrant:
		if m.Token == NoToken {
			return fmt.Sprintf("Grant(%s)", leaseWord(m.Lease))
		}
		return fmt.Sprintf("Grant(lease %d, token %d)", m.Lease, m.Token)
	case MsgRead:
		if m.Token == NoToken {
			return "Read"
		}
		return fmt.Sprintf("Read(token %s)", FormatLease(m.Token))
	case MsgReadReply:
		if !m.OK {
			return "ReadReply(rejected)"
		}
		return fmt.Sprintf("ReadReply(%d)", m.Value)
	case MsgWrite:
		if m.Token == NoToken {
			return fmt.Sprintf("Write(%d)", m.Value)
		}
		return fmt.Sprintf("Write(%d, token %s)", m.Value, FormatLease(m.Token))
	case MsgWriteReply:
		return fmt.Sprintf("WriteReply(%s)", okString(m.OK))
	case MsgApply:
		return "Apply(oldest checked write)"
	case MsgCheck:
		return fmt.Sprintf("Check(%s)", tokenWord(m.Token))
	case MsgCheckReply:
		if m.OK {
			return fmt.Sprintf("CheckReply(%s current)", tokenWord(m.Token))
		}
		return fmt.Sprintf("CheckReply(%s not current)", tokenWord(m.Token))
	default:
		return m.Kind.String()
	}
}

// tokenWord names a token in a message: "token 3", or "no token" for
// NoToken (only the sequencer row checks tokens, and its operations
// always carry one).
func tokenWord(t uint64) string {
	if t == NoToken {
		return "no token"
	}
	return "token " + FormatLease(t)
}

// leaseWord names a lease, or a Redlock value, in a message.
func leaseWord(v uint64) string {
	if isValue(v) {
		return "value " + FormatLease(v)
	}
	return fmt.Sprintf("lease %d", v)
}

func okString(ok bool) string {
	if ok {
		return "ok"
	}
	return "rejected"
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}
