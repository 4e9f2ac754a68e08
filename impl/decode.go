package impl

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Decoding is the inverse of the canonical encodings. A runtime that keeps
// many states — the explorer's breadth-first frontier — stores them as the
// bytes Encode produced and decodes one when it needs it, which costs a few
// dozen bytes per state instead of a tree of Go values for the garbage
// collector to scan. Only the dynamic state is encoded: a decoder fills an
// actor built with the same configuration (NewSystem with the same Config),
// whose configuration and identity it keeps.

// errTruncated is returned when an encoding ends early or a varint is bad.
var errTruncated = errors.New("truncated or malformed encoding")

// decoder reads an encoding, remembering the first error so callers can
// read every field and check once.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) byte() byte {
	if d.err != nil {
		return 0
	}
	if len(d.b) == 0 {
		d.err = errTruncated
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *decoder) bool() bool {
	switch v := d.byte(); v {
	case 0:
		return false
	case 1:
		return true
	default:
		if d.err == nil {
			d.err = fmt.Errorf("bad boolean byte %d", v)
		}
		return false
	}
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errTruncated
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errTruncated
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) done(what string) ([]byte, error) {
	if d.err != nil {
		return nil, fmt.Errorf("decode %s: %w", what, d.err)
	}
	return d.b, nil
}

// DecodeMessage reads a message encoded by Message.Encode from the front of
// b and returns it with the rest of b.
func DecodeMessage(b []byte) (Message, []byte, error) {
	d := decoder{b: b}
	m := Message{Kind: MsgKind(d.byte()), From: NodeID(d.byte()), To: NodeID(d.byte()), OK: d.bool()}
	m.Lease = d.uvarint()
	m.Token = d.uvarint()
	m.Value = d.varint()
	rest, err := d.done("message")
	if err != nil {
		return Message{}, nil, err
	}
	return m, rest, nil
}

// Decode sets s's state from the front of b, as Service.Encode wrote it
// it, and returns the rest of b. The service keeps its configuration.
func (s *Service) Decode(b []byte) ([]byte, error) {
	d := decoder{b: b}
	l := &s.lock
	l.Status, l.Holder, l.Delayed = LockStatus(d.byte()), NodeID(d.byte()), d.bool()
	l.Lease = d.uvarint()
	l.LastLease = d.uvarint()
	l.Revision = 0
	if s.cfg.RevisionTokens {
		l.Revision = d.uvarint()
	}
	l.Persisted = 0
	if s.cfg.Restart == RestartDurable && !s.cfg.ClientValues {
		l.Persisted = d.uvarint()
	}
	return d.done("service")
}

// Decode sets c's state from the front of b, as Client.Encode wrote it, and
// returns the rest of b. The client keeps its configuration and identity.
func (c *Client) Decode(b []byte) ([]byte, error) {
	d := decoder{b: b}
	c.phase, c.holds, c.late, c.retries, c.committed, c.aborted = Phase(d.byte()), d.bool(), d.bool(), d.byte(), d.byte(), d.byte()
	c.lease = d.uvarint()
	c.token = d.uvarint()
	c.read = d.varint()
	c.renewals, c.onRenewalWindow, c.renewalLate, c.extended = 0, false, false, false
	if c.cfg.Nodes == 0 && c.cfg.Renewals > 0 {
		c.renewals, c.onRenewalWindow, c.renewalLate, c.extended = d.byte(), d.bool(), d.bool(), d.bool()
	}
	c.answers, c.grants = 0, 0
	if c.cfg.Nodes > 0 {
		c.lease, c.token = withOwner(c.lease, c.id), withOwner(c.token, c.id)
		c.answers, c.grants = d.byte(), d.byte()
	}
	return d.done("client")
}

// Decode sets r's state from the front of b, as Resource.Encode wrote it,
// and returns the rest of b. It reuses the capacity of r's log, so r must
// not share its log with another Resource (Clone never does).
func (r *Resource) Decode(b []byte) ([]byte, error) {
	d := decoder{b: b}
	r.counter = d.varint()
	r.maxToken = d.uvarint()
	n := d.uvarint()
	if d.err == nil && n > uint64(len(d.b)) { // every op takes at least one byte
		d.err = fmt.Errorf("log of %d operations in %d bytes", n, len(d.b))
	}
	r.log = r.log[:0]
	for i := uint64(0); i < n && d.err == nil; i++ {
		op := Op{Client: NodeID(d.byte()), Kind: OpKind(d.byte()), Accepted: d.bool()}
		op.Token = d.uvarint()
		op.Value = d.varint()
		r.log = append(r.log, op)
	}
	r.pending = r.pending[:0]
	if r.nonAtomic {
		n := d.uvarint()
		if d.err == nil && n > uint64(len(d.b)) {
			d.err = fmt.Errorf("%d pending writes in %d bytes", n, len(d.b))
		}
		for i := uint64(0); i < n && d.err == nil; i++ {
			op := Op{Client: NodeID(d.byte()), Kind: OpWrite, Accepted: true}
			op.Token = d.uvarint()
			op.Value = d.varint()
			r.pending = append(r.pending, op)
		}
	}
	r.queued = r.queued[:0]
	if r.mode == FenceSequencer {
		n := d.uvarint()
		if d.err == nil && n > uint64(len(d.b)) {
			d.err = fmt.Errorf("%d queued operations in %d bytes", n, len(d.b))
		}
		for i := uint64(0); i < n && d.err == nil; i++ {
			op := Op{Client: NodeID(d.byte()), Kind: OpKind(d.byte())}
			op.Token = d.uvarint()
			op.Value = d.varint()
			r.queued = append(r.queued, op)
		}
	}
	return d.done("resource")
}

// Decode sets every actor's state from the front of b, as System.Encode
// wrote it for a system built from the same Config, and returns the rest of
// b (where a runtime appends what is in flight).
func (s *System) Decode(b []byte) ([]byte, error) {
	b, err := s.Service.Decode(b)
	if err != nil {
		return nil, err
	}
	for k := range s.LockNodes {
		if b, err = s.LockNodes[k].Decode(b); err != nil {
			return nil, fmt.Errorf("%s: %w", LockNode(k+1), err)
		}
	}
	for i := range s.Clients {
		if b, err = s.Clients[i].Decode(b); err != nil {
			return nil, fmt.Errorf("%s: %w", s.Clients[i].id, err)
		}
	}
	return s.Resource.Decode(b)
}
