package impl

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/verdict"
)

// Design is one row of the lock-design × fault matrix (DESIGN.md's table
// of verdicts): where tokens come from and whether they survive a restart
// of the service, what the resource checks, and whether it checks and
// applies an operation in one step. Every fact about a row — its flag
// value, its name in the tables, the assumption it rests on, how the
// actors are built for it, the verdicts DESIGN.md expects of it and the TLC
// models that check it — is in its record, one file per row (row_<flag>.go),
// and nowhere else.
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
	DesignSnapshotFence                 // as all, but a write is a transaction checked against the fence of its begin's snapshot, applied at its commit
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
	// counter is persisted by a step of its own before each grant is sent
	// (Persisting, then TimerPersist), so a restart keeps it; a crash
	// between the two loses only the grant. The lock itself (who holds
	// it) is lost in both.
	RestartDurable
)

// row is everything a design is, one record per row, each in its own file
// (row_off.go, row_all.go, ...: a new row is a new file, a constant above
// and a case in Design.row). expected and notApplicable are indexed in
// Invariants order.
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
	// snapshotFence makes a section's operations one transaction under
	// snapshot isolation (mode all's fence): the read begins it, checked
	// against the committed fence; the write, in the same snapshot, is
	// checked against that same fence — which the read passed, so it
	// cannot fail — and commits, raising the fence to its token. What a
	// newer holder committed since the read is not seen.
	snapshotFence bool
	restart       Restart
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
	expected [5]verdict.Status
	// notApplicable says why a property expected NotApplicable does not
	// apply to the row.
	notApplicable [5]string
	// specs are the TLA+ specs as the row instantiates them and the TLC
	// models that check it (tlcmodels.go; go generate writes them into
	// specs/). A function, so that building the record for the facts the
	// actors read on every step allocates nothing: only Specs builds them.
	specs func() []SpecModels
}

const (
	v  = verdict.Violated
	h  = verdict.Holds
	na = verdict.NotApplicable
)

// row is design d's record, declared in its own file (row_<flag>.go).
func (d Design) row() row {
	switch d {
	case DesignNoFencing:
		return rowOff()
	case DesignFenceNone:
		return rowFenceNone()
	case DesignFenceWrites:
		return rowFenceWrites()
	case DesignFenceAll:
		return rowFenceAll()
	case DesignNonAtomic:
		return rowNonAtomic()
	case DesignRestartVolatile:
		return rowRestartVolatile()
	case DesignRestartDurable:
		return rowRestartDurable()
	case DesignUniqueCAS:
		return rowUniqueCAS()
	case DesignRevision:
		return rowRevision()
	case DesignVersionEquality:
		return rowVersionEquality()
	case DesignSequencer:
		return rowSequencer()
	case DesignRedlock:
		return rowRedlock()
	case DesignRedlockUnique:
		return rowRedlockUnique()
	case DesignRenewal:
		return rowRenewal()
	case DesignSnapshotFence:
		return rowSnapshotFence()
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

// SnapshotFence reports whether the resource checks a section's operations
// against the fence of the snapshot its read took (its transaction's
// begin), the fence raised only by the write's commit.
func (d Design) SnapshotFence() bool { return d.row().snapshotFence }

// AtomicRegister reports whether the design's resource is the atomic
// fenced register the simulator's register model (package
// linearizability) specifies. A resource that applies a checked write in a
// later step (NonAtomic), or checks against a snapshot's fence
// (SnapshotFence), is not: its illegal register histories are its row's
// point, and they are TokenIsMonotonical's violations.
func (d Design) AtomicRegister() bool { return !d.NonAtomic() && !d.SnapshotFence() }

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

// Specs are the TLA+ specs as design d instantiates them, with the TLC
// models that check it: cmd/specgen writes every specs/*.cfg and
// specs/models.json from them (go generate ./...).
//
// Every untimed model expected to pass also checks the client-side
// invariants (ClientInvariants: NoActionPastValidity), which every design
// must keep: they are added here, once for every row.
func (d Design) Specs() []SpecModels {
	specs := d.row().specs
	if specs == nil {
		return nil
	}
	out := specs()
	for i := range out {
		if out[i].Timed {
			continue // the timed spec's clients are clocks, not impl's
		}
		for j := range out[i].Models {
			m := &out[i].Models[j]
			for _, p := range ClientInvariants() {
				if m.Violates == "" && !slices.Contains(m.Invariants, p.Name) {
					m.Invariants = append(m.Invariants, p.Name)
				}
			}
		}
	}
	return out
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

// ParseDesigns reads a list of designs (--design): empty for every
// design, else a comma-separated list, each at most once, kept in table
// order.
func ParseDesigns(s string) ([]Design, error) {
	if strings.TrimSpace(s) == "" {
		return Designs(), nil
	}
	var ds []Design
	for _, part := range strings.Split(s, ",") {
		d, err := ParseDesign(strings.TrimSpace(part))
		if err != nil {
			return nil, err
		}
		if !slices.Contains(ds, d) {
			ds = append(ds, d)
		}
	}
	slices.Sort(ds)
	return ds, nil
}

// Expected is DESIGN.md's table of verdicts under the asynchronous model
// (TLC and the explorer) and under the simulator's default faults: what
// property does in design d — verdict.Holds, verdict.Violated or
// verdict.NotApplicable (DESIGN.md's "—"; NotApplicableWhy says why). It is
// the one copy of the table in code; tests of every runtime compare
// against it. Without faults every applicable property holds in every
// design.
func Expected(d Design, property string) verdict.Status {
	if p, ok := LookupProperty(property); ok && p.client && d.valid() {
		// A client-side invariant: every design keeps it.
		return verdict.Holds
	}
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
