package impl

import (
	"fmt"
	"strings"

	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/verdict"
)

// Design is one row of the lock-design × fault matrix (DESIGN.md's table
// of verdicts): where tokens come from and whether they survive a restart
// of the service, what the resource checks, and whether it checks and
// applies an operation in one step. Every fact about a row — its flag
// value, its name in the tables, the assumption it rests on, how the
// actors are built for it and the verdicts DESIGN.md expects of it — is in
// row, below, and nowhere else.
type Design uint8

// Designs, in table order. The first four differ only in what the
// resource checks; the next three take one assumption of DesignFenceAll
// away; the last ones are other designs people deploy.
const (
	DesignNoFencing       Design = iota // no tokens at all
	DesignFenceNone                     // tokens, resource ignores them
	DesignFenceWrites                   // tokens, resource checks writes only
	DesignFenceAll                      // tokens, resource checks every operation
	DesignNonAtomic                     // as all, but a write is checked, then applied in a later step
	DesignRestartVolatile               // as all, the service restarts and forgets its token counter
	DesignRestartDurable                // as all, the service restarts; the counter is persisted before each grant
	DesignUniqueCAS                     // unique unordered tokens, check-and-set at the resource
	DesignRevision                      // etcd/ZooKeeper revision tokens, resource checks >= on every operation
	DesignVersionEquality               // etcd contrib/lock: the storage remembers a version, a write must equal it
	DesignSequencer                     // Chubby/Consul: the resource asks the service whether the sequencer is the holder's; a lock-delay after an expiry
	DesignRedlock                       // Redlock: N independent lock nodes, majority grant, no fencing
	DesignRedlockUnique                 // Redlock with its unique values as tokens, check-and-set at the resource
	DesignRenewal                       // no tokens; the holder renews its lease while its section lasts (Redisson's watchdog)
	numDesigns
)

// Designs lists every design in table order.
func Designs() []Design {
	ds := make([]Design, numDesigns)
	for i := range ds {
		ds[i] = Design(i)
	}
	return ds
}

// Restart is what a design's service does about crashes.
type Restart uint8

// Restart kinds.
const (
	// NoRestart: the service never crashes — the assumption of every row
	// that does not say otherwise.
	NoRestart Restart = iota
	// RestartVolatile: the service may crash and restart, and its token
	// counter lives in memory: after a restart it counts from 0 again.
	RestartVolatile
	// RestartDurable: the service may crash and restart; its token
	// counter is persisted before each grant is sent, so a restart keeps
	// it. The lock itself (who holds it) is lost in both.
	RestartDurable
)

// row is everything a design is. expected and notApplicable are indexed
// in Invariants order.
type row struct {
	flag     string // the --design value
	describe string // the name in DESIGN.md's and the README's tables
	// assumption is what the row's verdicts rest on, in one sentence
	// (fencelab designs prints it).
	assumption string
	// products are the locks people deploy that the row stands for, as
	// they are usually used ("" for a row that is a step of the argument,
	// not a product): "which row am I?" (fencelab designs prints it).
	products string
	tokens   bool
	mode     FenceMode
	// nonAtomic makes the resource check a write's token in one step and
	// apply the write in a later one.
	nonAtomic bool
	restart   Restart
	// uniqueTokens makes the service's tokens unique and unordered.
	uniqueTokens bool
	// revision makes the token the store's revision, which every change
	// of the lock (a grant, a release, an expiry) advances.
	revision bool
	// lockDelay gives the service a lock-delay after an expiry whatever
	// Config.LockDelay says (Config.ServiceLockDelay).
	lockDelay bool
	// redlock makes the lock service N independent lock nodes (Config's
	// Nodes), each a Redis master: a client sets its own unique value on
	// every node (SET NX PX), holds the lock when a majority granted, and
	// releases on every node (delete if the value matches). With tokens,
	// the value is the token (antirez's proposal).
	redlock bool
	// renews makes the holder renew its lease every RenewEvery while its
	// section lasts, and the service extend a lease only for its holder.
	renews bool
	// starves says why not every client can commit all its sections in
	// this row, when it is so by design ("" otherwise): the witness
	// NotEveryClientCommits is then expected unreached, TLC's invariant of
	// that name expected to hold.
	starves  string
	expected [3]verdict.Status
	// notApplicable says why a property expected NotApplicable does not
	// apply to the row.
	notApplicable [3]string
}

const (
	v  = verdict.Violated
	h  = verdict.Holds
	na = verdict.NotApplicable
)

func (d Design) row() row {
	switch d {
	case DesignNoFencing:
		return row{flag: "off", describe: "no fencing (no tokens)",
			products:      "a single Redis instance locked with SET key value NX PX ttl (no token); MySQL GET_LOCK comes closest (see below)",
			assumption:    "no tokens: safety rests on timing alone — every lease outlives its holder's pauses, delays and clock errors — which the asynchronous model never grants",
			expected:      [3]verdict.Status{v, na, v},
			notApplicable: [3]string{1: "there are no tokens to order"}}
	case DesignFenceNone:
		return row{flag: "none", describe: "tokens, mode none", tokens: true, mode: FenceNone,
			products:   "a lock that hands out a token (Redis SET NX PX plus an INCR counter, etcd or ZooKeeper) when the resource never looks at it",
			assumption: "tokens are handed out but the resource ignores them: safety rests on timing alone",
			expected:   [3]verdict.Status{v, v, v}}
	case DesignFenceWrites:
		return row{flag: "writes", describe: "tokens, mode writes", tokens: true, mode: FenceWrites,
			products:   "any lock whose token the resource checks on writes only, not on reads",
			assumption: "the resource checks writes only: a newer holder's read does not fence an older holder's write",
			expected:   [3]verdict.Status{v, v, v}}
	case DesignFenceAll:
		return row{flag: "all", describe: "tokens, mode all", tokens: true, mode: FenceAll,
			products:   "a fencing token from a counter that never goes back, checked by the resource on every read and write, atomically (Kleppmann's fencing)",
			assumption: "the token counter never goes back (the service never restarts, or persists it) and the resource checks and applies each operation in one atomic step",
			expected:   [3]verdict.Status{v, h, h}}
	case DesignNonAtomic:
		return row{flag: "nonatomic", describe: "tokens, mode all, non-atomic resource", tokens: true, mode: FenceAll, nonAtomic: true,
			products:   "a resource that checks the token, then writes in a second step (a read-then-write without a transaction)",
			assumption: "as all, but the resource checks a write's token in one step and applies the write in a later one, so another operation can come between: the atomicity all rests on, taken away",
			expected:   [3]verdict.Status{v, v, v}}
	case DesignRestartVolatile:
		return row{flag: "restart-volatile", describe: "tokens, mode all, service restarts, volatile counter", tokens: true, mode: FenceAll, restart: RestartVolatile,
			products:   "a token counter kept in memory by a lock server that may restart (Redis INCR without persistence)",
			assumption: "as all, but the service may crash and restart, and its token counter lives in memory: after a restart it hands out token 1 again",
			expected:   [3]verdict.Status{v, h, v}}
	case DesignRestartDurable:
		return row{flag: "restart-durable", describe: "tokens, mode all, service restarts, durable counter", tokens: true, mode: FenceAll, restart: RestartDurable,
			products:   "a token counter persisted before each grant (Redis INCR with appendfsync always, a database sequence)",
			assumption: "as all, the service may crash and restart (forgetting who holds the lock), and its token counter is persisted before each grant is sent",
			expected:   [3]verdict.Status{v, h, h}}
	case DesignUniqueCAS:
		return row{flag: "unique-cas", describe: "unique tokens, check-and-set at the resource", tokens: true, mode: FenceCAS, uniqueTokens: true,
			products:      "unique random lock values used as tokens, compared-and-set by the resource (antirez's answer to Kleppmann)",
			assumption:    "tokens are unique (never handed out twice) and the resource compares and sets in one atomic step: a holder's read sets the resource's token, a write is accepted only with that token (antirez's proposal for Redlock)",
			expected:      [3]verdict.Status{v, na, h},
			notApplicable: [3]string{1: "the tokens are unique but unordered: the resource compares them for equality, and their order means nothing"}}
	case DesignRevision:
		return row{flag: "revision", describe: "revision tokens, resource checks ≥", tokens: true, mode: FenceAll, revision: true,
			products:   "etcd's concurrency.Mutex with its revision (the key's CreateRevision) checked by the resource; ZooKeeper and Curator's InterProcessMutex with the lock node's zxid or sequence number checked",
			assumption: "the token is the lock key's creation revision (etcd) or zxid (ZooKeeper): the store's revision, durable (replicated) and advanced by every change, so it only grows — with gaps; the resource checks ≥ on every operation",
			expected:   [3]verdict.Status{v, h, h}}
	case DesignVersionEquality:
		return row{flag: "version-equality", describe: "version equality (etcd contrib/lock)", tokens: true, mode: FenceVersion, uniqueTokens: true,
			products:      "etcd's contrib/lock (the storage keeps the first write's version)",
			assumption:    "as etcd's contrib/lock demo: the version is the holder's lease ID (unique, unordered; one per grant here); the storage remembers the version of the first write, and accepts a later write only with that very version; reads are not checked",
			expected:      [3]verdict.Status{v, na, h},
			notApplicable: [3]string{1: "the versions are lease IDs, unique but unordered: the storage compares them for equality"},
			starves:       "the storage remembers the first write's version and refuses every other version forever: only the first written section ever commits (a version is one grant's lease here; with one etcd session per client, only that client's)"}
	case DesignSequencer:
		return row{flag: "sequencer", describe: "sequencer checked with the service (Chubby, Consul)", tokens: true, mode: FenceSequencer, lockDelay: true,
			products:   "Chubby's sequencers (CheckSequencer) and Consul's sessions (lock-delay, the resource asking Consul who holds the lock)",
			assumption: "the resource asks the lock service whether each operation's sequencer is the current holder's and applies it only if so, one operation at a time, so operations take effect in the order the service said yes (Chubby's CheckSequencer); the lock-delay after an expiry protects only resources that do not check, and only under timing bounds",
			expected:   [3]verdict.Status{v, h, h}}
	case DesignRedlock:
		return row{flag: "redlock", describe: "Redlock, no fencing", redlock: true, restart: RestartVolatile,
			products:      "Redlock over N Redis masters: redsync (Go), Redisson RedLock and the other Redlock clients",
			assumption:    "a majority of N independent lock nodes granted and the client's validity (TTL − time since its first send − drift allowance) has not run out: safety rests on every node's clock and memory — a node whose clock jumps forward, or that restarts without persistence, lets a second client win a majority",
			expected:      [3]verdict.Status{v, na, v},
			notApplicable: [3]string{1: "there are no tokens to order"}}
	case DesignRedlockUnique:
		return row{flag: "redlock-unique", describe: "Redlock, unique values as tokens, check-and-set", redlock: true, restart: RestartVolatile, tokens: true, mode: FenceCAS, uniqueTokens: true,
			products:      "Redlock with its unique values compared-and-set by the resource (antirez's proposal)",
			assumption:    "as redlock, and the resource checks the client's unique value with an atomic check-and-set (antirez's proposal): a holder's read sets the resource's token, a write is accepted only with it",
			expected:      [3]verdict.Status{v, na, h},
			notApplicable: [3]string{1: "the tokens are the clients' unique values, unordered: the resource compares them for equality, and their order means nothing"}}
	case DesignRenewal:
		return row{flag: "renewal", describe: "no fencing, lease renewed (Redisson's watchdog)", renews: true,
			products:      "Redisson's RLock with its watchdog; etcd's concurrency.Mutex when the resource does not check its revision (the session's KeepAlive renews the lease)",
			assumption:    "no tokens; the holder renews its lease every TTL/3 while its section lasts and the service extends only the holder's current lease: a section may outlast the TTL, but a pause longer than what is left of the lease stops the renewals with the work, and the paused holder resumes still believing",
			expected:      [3]verdict.Status{v, na, v},
			notApplicable: [3]string{1: "there are no tokens to order"}}
	}
	return row{flag: fmt.Sprintf("Design(%d)", uint8(d))}
}

// valid reports whether d is one of Designs.
func (d Design) valid() bool { return d < numDesigns }

// String is the design's flag value (Flags lists them).
func (d Design) String() string { return d.row().flag }

// Describe is the design as DESIGN.md's table names it.
func (d Design) Describe() string { return d.row().describe }

// Assumption is what the design's verdicts rest on, in one sentence.
func (d Design) Assumption() string { return d.row().assumption }

// Products are the locks people deploy that the design stands for.
func (d Design) Products() string { return d.row().products }

// WithoutRow names the locks people deploy that no row stands for, each
// with why: "which row am I?" answered for them too.
func WithoutRow() []string {
	return []string{
		"MySQL GET_LOCK: a session lock, held while the connection lives, with no lease and no token — no row: " +
			"off comes closest (a holder cut off from the server loses the lock while it still believes, and nothing fences its writes)",
	}
}

// Tokens reports whether grants carry fencing tokens.
func (d Design) Tokens() bool { return d.row().tokens }

// Mode is the resource's check.
func (d Design) Mode() FenceMode { return d.row().mode }

// NonAtomic reports whether the resource checks a write and applies it in
// a later step.
func (d Design) NonAtomic() bool { return d.row().nonAtomic }

// Restart is what the design's service does about crashes.
func (d Design) Restart() Restart { return d.row().restart }

// Revision reports whether the design's token is the store's revision,
// advanced by every change of the lock, rather than the lease number.
func (d Design) Revision() bool { return d.row().revision }

// LockDelay reports whether the design's service always holds an expired
// lock back for a lock-delay (Config.ServiceLockDelay).
func (d Design) LockDelay() bool { return d.row().lockDelay }

// Renews reports whether the design's clients renew their lease while a
// section lasts (and its service answers renewals).
func (d Design) Renews() bool { return d.row().renews }

// Starves says why not every client can commit all its sections in design
// d, where that is so by design; "" where every client can.
func (d Design) Starves() string { return d.row().starves }

// Redlock reports whether the design's lock is N independent lock nodes
// granting by majority (Config.Nodes) rather than one service.
func (d Design) Redlock() bool { return d.row().redlock }

// DefaultNodes is the number of lock nodes of design d when Config.Nodes
// is 0: Redlock's five, or the one service.
func (d Design) DefaultNodes() int {
	if d.Redlock() {
		return 5
	}
	return 1
}

// UniqueTokens reports whether the design's tokens are unique and
// unordered (Scramble) rather than the lease numbers.
func (d Design) UniqueTokens() bool { return d.row().uniqueTokens }

// Flags lists every design's flag value, for error messages: "off, none,
// writes, all, …".
func Flags() string {
	var names []string
	for _, d := range Designs() {
		names = append(names, d.String())
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// ParseDesign reads a design's flag value.
func ParseDesign(s string) (Design, error) {
	for _, d := range Designs() {
		if d.String() == s {
			return d, nil
		}
	}
	return 0, fmt.Errorf("unknown design %s (want %s)", quote.Q(s), Flags())
}

// Expected is DESIGN.md's table of verdicts under the asynchronous model
// (TLC and the explorer) and under the simulator's default faults: what
// property does in design d — verdict.Holds, verdict.Violated or
// verdict.NotApplicable (DESIGN.md's "—"; NotApplicableWhy says why). It is
// the one copy of the table in code; tests of every runtime compare
// against it. Without faults every applicable property holds in every
// design.
func Expected(d Design, property string) verdict.Status {
	k := invariantIndex(property)
	if k < 0 || !d.valid() {
		return verdict.NotApplicable
	}
	return d.row().expected[k]
}

// NotApplicableWhy says why property does not apply to design d ("" when
// it does).
func NotApplicableWhy(d Design, property string) string {
	if Expected(d, property) != verdict.NotApplicable {
		return ""
	}
	if k := invariantIndex(property); k >= 0 {
		return d.row().notApplicable[k]
	}
	return "not a property of the table"
}
