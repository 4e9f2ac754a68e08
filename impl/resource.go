package impl

import (
	"encoding/binary"
	"fmt"
)

// FenceMode is the check the resource applies to the tokens operations
// carry (DESIGN.md).
type FenceMode uint8

// Fencing modes.
const (
	// FenceNone accepts every operation; tokens, if any, are ignored.
	FenceNone FenceMode = iota
	// FenceWrites rejects a write whose token is below the highest token
	// seen; reads are neither checked nor raise the highest token. A newer
	// holder's read therefore does not stop an older holder's write.
	FenceWrites
	// FenceAll makes every operation, read or write, first raise the
	// highest token seen and be rejected if its token is below it — "mark
	// before use": once a newer holder has touched the resource, an older
	// holder can do nothing there.
	FenceAll
	// FenceCAS is check-and-set on unique tokens (antirez's proposal for
	// Redlock): a read, the holder's first operation, sets the
	// resource's current token to its own; a write is accepted only if
	// its token is the current one. Tokens are compared for equality
	// only: they need to be unique, not ordered.
	FenceCAS
	// FenceVersion is etcd's contrib/lock storage: reads are not checked;
	// the first write is accepted and its token remembered as the
	// version; every later write is accepted only with that version.
	FenceVersion
	// FenceSequencer is Chubby's sequencer check (Burrows, OSDI 2006,
	// §2.4): the resource keeps no token of its own but asks the lock
	// service whether an operation's token (its sequencer) is the current
	// holder's (MsgCheck, answered by MsgCheckReply) and applies the
	// operation only if it is. It handles one operation at a time: while
	// it waits for an answer, the operations that arrive queue behind the
	// one being checked, so the order in which the service says yes is the
	// order in which operations take effect.
	FenceSequencer
)

func (f FenceMode) String() string {
	switch f {
	case FenceNone:
		return "none"
	case FenceWrites:
		return "writes"
	case FenceAll:
		return "all"
	case FenceCAS:
		return "cas"
	case FenceVersion:
		return "version"
	case FenceSequencer:
		return "sequencer"
	}
	return fmt.Sprintf("FenceMode(%d)", uint8(f))
}

// OpKind is a resource operation.
type OpKind uint8

// Operations on the counter.
const (
	OpRead OpKind = iota + 1
	OpWrite
)

func (k OpKind) String() string {
	switch k {
	case OpRead:
		return "read"
	case OpWrite:
		return "write"
	}
	return fmt.Sprintf("OpKind(%d)", uint8(k))
}

// Op is one operation as the resource handled it (the one-byte fields
// together: 24 bytes, not 32).
type Op struct {
	Client   NodeID
	Kind     OpKind
	Accepted bool
	Token    uint64
	Value    int64 // the value read (if accepted) or the value to write
}

// String describes o, e.g. "c1 write 1 (token 2)", or "c1 write 1" when
// it carries no token (NoToken).
func (o Op) String() string {
	if o.Token == NoToken {
		return fmt.Sprintf("%s %s %d", o.Client, o.Kind, o.Value)
	}
	return fmt.Sprintf("%s %s %d (token %s)", o.Client, o.Kind, o.Value, FormatLease(o.Token))
}

// Resource is the shared counter a lock is meant to protect.
type Resource struct {
	mode    FenceMode
	counter int64
	// maxToken is the highest token seen, as the mode defines "seen"; in
	// FenceCAS the current token, the one the last read set; in
	// FenceVersion the version remembered (0: none yet).
	maxToken uint64
	log      []Op // every operation, in the order it took effect (or was rejected)
	// nonAtomic makes a write two steps (DesignNonAtomic): the check, which
	// raises the highest token seen and queues the write in pending, and
	// later the apply (MsgApply, a message the resource sends itself, as
	// to its storage), which writes the oldest queued write, logs it and
	// answers its client. Any other operation may be handled in between:
	// that is the atomicity fencing all rests on, taken away.
	nonAtomic bool
	pending   []Op // writes checked and not yet applied, oldest first
	// snapshot makes each section one transaction under snapshot
	// isolation (DesignSnapshotFence; admitSnapshot says how it checks).
	snapshot bool
	// queued is a sequencer-checking resource's operations in arrival
	// order (FenceSequencer): the first is the one whose sequencer the
	// service is being asked about, the rest wait their turn.
	queued []Op
}

// NewResource returns a counter at zero with the given check.
func NewResource(mode FenceMode) Resource { return Resource{mode: mode} }

// Clone returns an independent copy of r.
func (r Resource) Clone() Resource {
	r.log = append([]Op(nil), r.log...)
	r.pending = append([]Op(nil), r.pending...)
	r.queued = append([]Op(nil), r.queued...)
	return r
}

// Pending is the writes checked and not yet applied (a non-atomic
// resource), oldest first; callers must not modify it.
func (r *Resource) Pending() []Op { return r.pending }

// Queued is a sequencer-checking resource's operations not yet answered,
// the one being checked first; callers must not modify it.
func (r *Resource) Queued() []Op { return r.queued }

// Mode is the check the resource applies.
func (r *Resource) Mode() FenceMode { return r.mode }

// Counter is the counter's value.
func (r *Resource) Counter() int64 { return r.counter }

// MaxToken is the highest token the resource has seen (FenceCAS: the
// current token).
func (r *Resource) MaxToken() uint64 { return r.maxToken }

// Log is every operation in the order handled; callers must not modify it.
func (r *Resource) Log() []Op { return r.log }

// Step handles one read or write.
func (r *Resource) Step(in *Input, out *Effects) {
	if in.Kind != InputMessage {
		return
	}
	m := &in.Msg
	var op Op
	var reply Message
	switch m.Kind {
	case MsgRead, MsgWrite:
		if r.mode == FenceSequencer {
			r.enqueue(m, out)
			return
		}
	}
	switch m.Kind {
	case MsgCheckReply:
		if len(r.queued) == 0 || r.queued[0].Token != m.Token {
			return // every answer is the head's: only defensive
		}
		op = r.queued[0]
		r.queued = append(r.queued[:0], r.queued[1:]...)
		op.Accepted = m.OK
		switch {
		case op.Kind == OpRead && op.Accepted:
			op.Value = r.counter
		case op.Kind == OpWrite && op.Accepted:
			r.counter = op.Value
		}
		reply = Message{Kind: MsgReadReply, OK: op.Accepted, Value: op.Value}
		if op.Kind == OpWrite {
			reply = Message{Kind: MsgWriteReply, OK: op.Accepted}
		}
		if len(r.queued) > 0 {
			r.askService(r.queued[0].Token, out)
		}
	case MsgRead:
		op = Op{Client: m.From, Kind: OpRead, Token: m.Token, Accepted: r.admit(OpRead, m.Token)}
		if op.Accepted {
			op.Value = r.counter
		}
		reply = Message{Kind: MsgReadReply, OK: op.Accepted, Value: op.Value}
	case MsgWrite:
		op = Op{Client: m.From, Kind: OpWrite, Token: m.Token, Value: m.Value, Accepted: r.admit(OpWrite, m.Token)}
		if op.Accepted && r.nonAtomic {
			// Checked now, applied later: the reply waits for the apply.
			r.pending = append(r.pending, op)
			out.send(Message{Kind: MsgApply, From: ResourceNode, To: ResourceNode})
			out.event(Event{Kind: EvOpChecked, Node: ResourceNode, Peer: m.From, Token: m.Token, Op: op})
			return
		}
		if op.Accepted {
			r.counter = m.Value
		}
		reply = Message{Kind: MsgWriteReply, OK: op.Accepted}
	case MsgApply:
		if len(r.pending) == 0 {
			return // every apply has a queued write: only defensive
		}
		op = r.pending[0]
		r.pending = append(r.pending[:0], r.pending[1:]...)
		r.counter = op.Value
		reply = Message{Kind: MsgWriteReply, OK: true}
	default:
		return
	}
	r.log = append(r.log, op)
	reply.From, reply.To, reply.Token = ResourceNode, op.Client, op.Token
	out.send(reply)
	kind := EvOpAccepted
	if !op.Accepted {
		kind = EvOpRejected
	}
	out.event(Event{Kind: kind, Node: ResourceNode, Peer: op.Client, Token: op.Token, Op: op})
}

// enqueue takes in a read or write of a sequencer-checking resource: it
// joins the queue, and if nothing was being checked the service is asked
// about its sequencer at once.
func (r *Resource) enqueue(m *Message, out *Effects) {
	op := Op{Client: m.From, Kind: OpRead, Token: m.Token}
	if m.Kind == MsgWrite {
		op.Kind, op.Value = OpWrite, m.Value
	}
	r.queued = append(r.queued, op)
	if len(r.queued) == 1 {
		r.askService(op.Token, out)
	}
}

// askService asks the lock service whether token is the current holder's.
func (r *Resource) askService(token uint64, out *Effects) {
	out.send(Message{Kind: MsgCheck, From: ResourceNode, To: ServiceNode, Token: token})
	out.event(Event{Kind: EvSequencerAsked, Node: ResourceNode, Token: token})
}

// admit is the fencing check: it decides whether an operation with token is
// accepted and raises the highest token seen as the mode says.
func (r *Resource) admit(kind OpKind, token uint64) bool {
	if r.snapshot {
		return r.admitSnapshot(kind, token)
	}
	switch r.mode {
	case FenceCAS:
		if kind == OpRead {
			r.maxToken = token // set: the holder's first operation
			return true
		}
		return token == r.maxToken // compare
	case FenceVersion:
		switch {
		case kind == OpRead:
			return true
		case r.maxToken == 0:
			r.maxToken = token // the first write: its version is remembered
			return true
		}
		return token == r.maxToken
	case FenceWrites:
		if kind == OpRead {
			return true
		}
	case FenceAll:
	default:
		return true
	}
	if token < r.maxToken {
		return false
	}
	r.maxToken = token
	return true
}

// admitSnapshot is the check of a resource whose client runs its section
// as one transaction under snapshot isolation (an epoch fence read under
// PostgreSQL's REPEATABLE READ): the read begins the transaction and
// takes its snapshot, in which the fence is the committed one — checked,
// and raised only when the transaction commits; the write, later, checks
// the fence in that same snapshot, which its read already passed, and
// commits, raising the fence to its token if it is higher. A newer
// holder's operations committed in between are not in the snapshot. The
// transaction of a section that never writes is never committed and
// raises nothing. The writes do not conflict with each other (each adds
// a version, as an INSERT does), so nothing else refuses the stale one.
func (r *Resource) admitSnapshot(kind OpKind, token uint64) bool {
	if kind == OpRead {
		return token >= r.maxToken
	}
	r.maxToken = max(r.maxToken, token)
	return true
}

// Encode appends the canonical encoding of r's state to b.
func (r *Resource) Encode(b []byte) []byte {
	b = binary.AppendVarint(b, r.counter)
	b = binary.AppendUvarint(b, r.maxToken)
	b = binary.AppendUvarint(b, uint64(len(r.log)))
	for _, op := range r.log {
		b = append(b, byte(op.Client), byte(op.Kind), boolByte(op.Accepted))
		b = binary.AppendUvarint(b, op.Token)
		b = binary.AppendVarint(b, op.Value)
	}
	if r.nonAtomic {
		// Only a non-atomic resource has pending writes: the other
		// designs' encodings stay as they were.
		b = binary.AppendUvarint(b, uint64(len(r.pending)))
		for _, op := range r.pending {
			b = append(b, byte(op.Client))
			b = binary.AppendUvarint(b, op.Token)
			b = binary.AppendVarint(b, op.Value)
		}
	}
	if r.mode == FenceSequencer {
		b = binary.AppendUvarint(b, uint64(len(r.queued)))
		for _, op := range r.queued {
			b = append(b, byte(op.Client), byte(op.Kind))
			b = binary.AppendUvarint(b, op.Token)
			b = binary.AppendVarint(b, op.Value)
		}
	}
	return b
}
