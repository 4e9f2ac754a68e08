package impl

import (
	"fmt"
	"strconv"
)

// Redlock's values. A Redlock client sets a random value on every node
// (SET key value NX PX ttl) and releases only where the value is still
// its own; antirez's proposal hands the same value to the resource as a
// token. What the algorithm needs of "random" is that no two acquires use
// the same value, so a value here is the acquire's identity — the client,
// its section and its attempt in the section — unique by construction,
// with no random draw in the actor. Its order means nothing to anyone:
// nodes and the resource compare values for equality only.
//
// The client is part of the value so that values of different clients
// differ; renaming clients (symmetry) renames it there too
// (renameValue), and a client's own encoding leaves it out (localValue),
// so that a client's encoding names no client.

// A value's top 16 bits are valueTag and bits 24 to 47 zero: no lease
// number looks like one, and a scrambled token (unique-cas) only once in
// 2⁴⁰ — which matters only to FormatLease, since the actors treat values
// as values in the Redlock rows alone.
const (
	valueTag    = uint64(0x7ed1) << 48
	valueClient = 16 // the client's NodeID sits above the attempt
)

// redlockValue is the value of client id's attempt retries of section
// section (both 0-based, each below 256).
func redlockValue(id NodeID, section, retries int) uint64 {
	return valueTag | uint64(id)<<valueClient | uint64(section)<<8 | uint64(retries)
}

// isValue reports whether v is a Redlock value rather than a lease number.
func isValue(v uint64) bool { return v>>48 == valueTag>>48 && (v>>24)&0xffffff == 0 }

// valueOwner is the client whose value v is.
func valueOwner(v uint64) NodeID { return NodeID(v >> valueClient) }

// localValue is v without its client, for the client's own encoding; 0
// stays 0.
func localValue(v uint64) uint64 {
	if !isValue(v) {
		return v
	}
	return v &^ (uint64(0xff) << valueClient)
}

// withOwner puts client id back into a value localValue stripped.
func withOwner(v uint64, id NodeID) uint64 {
	if !isValue(v) {
		return v
	}
	return localValue(v) | uint64(id)<<valueClient
}

// renameValue renames the client inside a Redlock value; any other value
// is returned as it is.
func renameValue(v uint64, rename func(NodeID) NodeID) uint64 {
	if !isValue(v) {
		return v
	}
	return withOwner(v, rename(valueOwner(v)))
}

// FormatLease writes a lease or token for people: a lease number as
// itself, a Redlock value as its client, section and attempt (c1:1.0, the
// first attempt of c1's first section).
func FormatLease(v uint64) string {
	if !isValue(v) {
		return strconv.FormatUint(v, 10)
	}
	return fmt.Sprintf("%s:%d.%d", valueOwner(v), (v>>8)&0xff+1, v&0xff)
}

// SplitValue is a Redlock value's client, section and attempt (both
// 0-based, as redlockValue takes them); false for a value that is no
// Redlock value (a lease number, 0).
func SplitValue(v uint64) (client NodeID, section, attempt int, ok bool) {
	if !isValue(v) {
		return 0, 0, 0, false
	}
	return valueOwner(v) & 0xff, int(v>>8) & 0xff, int(v) & 0xff, true
}
