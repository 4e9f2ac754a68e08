// Package check is the judge of a live run: from its history, the
// properties of impl's invariants a live history can tell and the two
// linearizability checks, each violated, holds or unknown, and the
// models' expected verdict of every property in a design row.
package check

import (
	"fmt"
	"time"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/linearizability"
	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/verdict"
)

// Properties lists what the judge decides, in the order tables show them:
// impl's invariants a live history can tell (liveInvariants), impl's
// client-side NoActionPastValidity, then Porcupine's two checks.
func Properties() []string {
	var names []string
	for _, inv := range liveInvariants() {
		names = append(names, inv.Name)
	}
	return append(names, impl.NoActionPastValidity, linearizability.SectionsLinearizable, linearizability.RegisterLinearizable)
}

// liveInvariants are impl's invariants but the service-side token
// properties (TokensAreUnique, TokensIncreaseInGrantOrder): they read the
// service's grants in use, which a real lock service does not show the
// harness; the history has the clients' beliefs and the resource's log.
func liveInvariants() []impl.Property {
	var ps []impl.Property
	for _, inv := range impl.Invariants() {
		if inv.Name != impl.TokensAreUnique && inv.Name != impl.TokensIncreaseInGrantOrder {
			ps = append(ps, inv)
		}
	}
	return ps
}

// Expected is what the models say of property in design d: impl.Expected
// for impl's invariants; for the critical sections' linearizability, what
// they say of NoLostUpdate (a lost update is exactly a history the atomic
// counter cannot explain); the resource's own linearizability holds in
// every row whose resource is the atomic fenced register (the store obeys
// its fencing rule, or it is broken), and in the others falls with
// TokenIsMonotonical (impl.Design.AtomicRegister: an operation that
// passed a stale fence is the row's point).
func Expected(d impl.Design, property string) verdict.Status {
	switch property {
	case linearizability.SectionsLinearizable:
		return impl.Expected(d, impl.NoLostUpdate)
	case linearizability.RegisterLinearizable:
		if !d.AtomicRegister() {
			return impl.Expected(d, impl.TokenIsMonotonical)
		}
		return verdict.Holds
	}
	return impl.Expected(d, property)
}

// ExpectedOf is Expected for a setup's client line: the checked client is
// the models' client and keeps their every verdict; the unchecked client
// does not check its validity, so NoActionPastValidity is expected
// violated (under a fault that outlasts its validity; "not observed"
// otherwise) — measured on its own line, and not a failure of the models.
// Every other property keeps the row's verdict: what the resource's
// fencing still guards against a client that does not check.
func ExpectedOf(d impl.Design, unchecked bool, property string) verdict.Status {
	if unchecked && property == impl.NoActionPastValidity && Expected(d, property) == verdict.Holds {
		return verdict.Violated
	}
	return Expected(d, property)
}

// Inconclusive is the Detail of a verdict not violated in a run where the
// fault did not take effect: it did not do what its story needs (see
// effectOf). Such a verdict is Unknown, never Holds.
const Inconclusive = "inconclusive: the fault did not take effect"

// NothingCommitted is the Detail of NoLostUpdate and SectionsLinearizable
// not violated in a run where no section's write was accepted: nothing
// could be lost, so they are Unknown, never Holds.
const NothingCommitted = "inconclusive: no write was accepted, so no update could be lost"

// Belief is an interval in which a client believed it held the lock: from
// its acquire's return to its release's call (or its end) — for a checked
// client (history.History.Unchecked false) to the end of its grant's
// validity if that comes first, as impl's client stops believing when its
// validity timer fires — unless it acted later (NoActionPastValidity's
// breach): a read or write is a belief, so it lasts to its last call.
type Belief struct {
	Client     int
	Token      uint64
	Start, End int64 // wall UnixNano
	// Call is when the grant's acquire was called; Until when its
	// validity ended (validUntil); Released when its release returned
	// without an error (0 if it did not).
	Call, Until, Released int64
}

// Judgement is the judge's decision on one run.
type Judgement struct {
	Verdicts verdict.Set
	// TookEffect: the run's fault did what its story needs, which Effect
	// says (effectOf); Overlap says which two beliefs overlapped, if any
	// did (AtMostOneClientHoldLock's violation).
	TookEffect bool
	Effect     string
	Overlap    string
	// Witness says how the run shows a service's safety mechanism at
	// work through its fault (witness; "" when it does not): what a
	// setup's claim of safety (setup.Setup.Safe) needs from each run.
	Witness string
	Beliefs []Belief
	// Committed counts the sections whose write the resource accepted;
	// Refused the operations it refused (the witness that fencing acted).
	Committed, Refused int
	// Errors counts the calls that returned an error.
	Errors int

	Sections    []linearizability.Section
	ResourceOps []linearizability.ResourceOp
	// SectionsCheck and ResourceCheck are Porcupine's results, for the
	// saved page; nil when the history could not be checked.
	SectionsCheck, ResourceCheck *linearizability.Result
}

// Violated reports whether any property was violated.
func (j *Judgement) Violated() bool {
	for _, v := range j.Verdicts {
		if v.Status == verdict.Violated {
			return true
		}
	}
	return false
}

// Judge decides every property of Properties over one run: h (sorted), the
// design row d, the setup's lease ttl, and res, the resource's state
// after the run — its log of operations in acceptance order and its
// counter (the register's, or one replayed from a real store's audit).
// The error is the harness's, with the judgement: an overlap of beliefs
// that no fault of h's log explains (*UnexplainedOverlap).
func Judge(h *history.History, d impl.Design, ttl time.Duration, res *impl.Resource, timeout time.Duration) (*Judgement, error) {
	j := &Judgement{}
	j.Beliefs = beliefs(h, ttl)
	_, j.Overlap = overlap(j.Beliefs, h.Start)
	j.TookEffect, j.Effect = tookEffect(h.Faults, j.Beliefs, h.Start)
	j.Witness = witness(h, j.Beliefs)
	j.Sections, j.ResourceOps, j.Committed, j.Refused, j.Errors = operations(h)
	var harnessErr error
	if u := unexplained(h.Faults, j.Beliefs, h.Start); u != nil {
		harnessErr = u
	}

	conclude := func(v verdict.Verdict) verdict.Verdict {
		switch {
		case Expected(d, v.Property) == verdict.NotApplicable:
			v.Status, v.Detail = verdict.NotApplicable, impl.NotApplicableWhy(d, v.Property)
		case v.Status == verdict.Holds && !j.TookEffect:
			v.Status, v.Detail = verdict.Unknown, Inconclusive
		case v.Status == verdict.Holds && j.Committed == 0 && (v.Property == impl.NoLostUpdate || v.Property == linearizability.SectionsLinearizable):
			// A resource that accepted no write (a store that refuses
			// everything) lost nothing because it kept nothing.
			v.Status, v.Detail = verdict.Unknown, NothingCommitted
		}
		return v
	}

	hold := verdict.Verdict{Property: impl.AtMostOneClientHoldLock, Status: verdict.Holds, Covered: fmt.Sprintf("%d beliefs", len(j.Beliefs))}
	if j.Overlap != "" {
		hold.Status, hold.Detail = verdict.Violated, j.Overlap
	}
	j.Verdicts.Put(conclude(hold))
	j.Verdicts.Put(conclude(pastValidity(h)))

	sys := &impl.System{Resource: *res}
	for _, inv := range liveInvariants() {
		if inv.Name == impl.AtMostOneClientHoldLock {
			continue // about beliefs, which the processes' records tell
		}
		v := verdict.Verdict{Property: inv.Name, Status: verdict.Holds, Covered: ResourceCovered(res)}
		if b := inv.Check(sys); b != nil {
			v.Status, v.Detail = verdict.Violated, b.Explanation
		}
		j.Verdicts.Put(conclude(v))
	}

	if why := unchecked(h, j); why != "" {
		for _, p := range []string{linearizability.SectionsLinearizable, linearizability.RegisterLinearizable} {
			j.Verdicts.Put(conclude(verdict.Verdict{Property: p, Status: verdict.Unknown, Detail: why}))
		}
		return j, harnessErr
	}
	sr := linearizability.CheckSections(j.Sections, timeout)
	rr := linearizability.CheckResource(j.ResourceOps, d.Mode(), timeout)
	j.SectionsCheck, j.ResourceCheck = &sr, &rr
	for _, v := range []verdict.Verdict{sr.Verdict, rr.Verdict} {
		if v.Status == verdict.Violated && v.Detail == "" {
			v.Detail = "Porcupine found no linearization of the history (" + pageOf(v.Property) + " shows how far it got)"
		}
		j.Verdicts.Put(conclude(v))
	}
	return j, harnessErr
}

// beliefs are the clients' belief intervals, in the order they began;
// ttl is the setup's lease, for validUntil.
func beliefs(h *history.History, ttl time.Duration) []Belief {
	open := map[int]*Belief{}
	until := map[int]int64{}   // a checked client's open belief's validity end (0: none)
	acted := map[int]int64{}   // the open belief's last read or write call
	calls := map[int]int64{}   // the client's last acquire call
	releasing := map[int]int{} // the client's belief its release ends: its index in out
	var out []Belief
	end := func(c int, wall int64) {
		b := open[c]
		b.End = wall
		if u := until[c]; u != 0 && u < wall {
			b.End = min(max(u, acted[c], b.Start), wall)
		}
		out = append(out, *b)
		delete(open, c)
	}
	for _, r := range h.Records {
		switch {
		case r.Op == history.OpAcquire && r.Ev == history.Call:
			calls[r.Client] = r.Wall
		case r.Op == history.OpAcquire && r.Ev == history.Return && r.OK:
			call, ok := calls[r.Client]
			if !ok {
				call = r.Wall // no call recorded: the return's time, the latest it can be
			}
			open[r.Client] = &Belief{Client: r.Client, Token: r.Token, Start: r.Wall, Call: call, Until: validUntil(call, r, ttl)}
			until[r.Client], acted[r.Client] = 0, 0
			if !h.Unchecked {
				until[r.Client] = r.ValidUntil
			}
		case r.Op == history.OpRelease && r.Ev == history.Call && open[r.Client] != nil:
			end(r.Client, r.Wall)
			releasing[r.Client] = len(out) - 1
		case r.Op == history.OpExpire && open[r.Client] != nil:
			end(r.Client, r.Wall)
		case (r.Op == history.OpRead || r.Op == history.OpWrite) && r.Ev == history.Call:
			acted[r.Client] = r.Wall
		case r.Op == history.OpRelease && r.Ev == history.Return:
			if i, ok := releasing[r.Client]; ok && r.Error == "" {
				out[i].Released = r.Wall
			}
			delete(releasing, r.Client)
		}
	}
	// A client that ended still believing believed until it ended; one
	// the nemesis killed, until the kill (the harness sees its end a
	// moment later, and a session lock freed by the closed connection can
	// be granted in that moment).
	ends := map[int]int64{}
	for _, e := range h.Exits {
		ends[e.Client] = e.Wall
	}
	for c, k := range kills(h) {
		if e, ok := ends[c]; !ok || k < e {
			ends[c] = k
		}
	}
	for c := range h.Clients {
		if open[c] != nil {
			last := h.End
			if e, ok := ends[c]; ok && e < last {
				last = e
			}
			end(c, last)
		}
	}
	return out
}

// pastValidity decides impl's NoActionPastValidity on the records: a read
// or write called when its client's grant was no longer valid by
// impl.MayAct (at or after the ValidUntil its acquire's return recorded,
// before the release) violates it. A grant without a recorded end (a
// session lock, a history from before clients checked) is not judged.
func pastValidity(h *history.History) verdict.Verdict {
	v := verdict.Verdict{Property: impl.NoActionPastValidity, Status: verdict.Holds}
	until := map[int]int64{}
	ops, windows := 0, 0
	for _, r := range h.Records {
		switch {
		case r.Op == history.OpAcquire && r.Ev == history.Return:
			until[r.Client] = 0
			if r.OK && r.ValidUntil != 0 {
				until[r.Client] = r.ValidUntil
				windows++
			}
		case r.Op == history.OpRelease && r.Ev == history.Call:
			until[r.Client] = 0
		case (r.Op == history.OpRead || r.Op == history.OpWrite) && r.Ev == history.Call:
			ops++
			u := until[r.Client]
			if u == 0 || impl.MayAct(time.Unix(0, r.Wall), time.Unix(0, u)) || v.Status == verdict.Violated {
				continue
			}
			v.Status = verdict.Violated
			v.Detail = fmt.Sprintf("%s called its %s (token %d) at %s, %v after its grant's validity ended at %s",
				history.ClientName(r.Client), r.Op, r.Token, seconds(r.Wall-h.Start), time.Duration(r.Wall-u), seconds(u-h.Start))
		}
	}
	v.Covered = fmt.Sprintf("%d reads and writes, %d grants with a validity window", ops, windows)
	return v
}

// overlap finds the first two beliefs of different clients that overlap.
func overlap(bs []Belief, t0 int64) (bool, string) {
	for i, a := range bs {
		for _, b := range bs[i+1:] {
			if a.Client != b.Client && a.Start < b.End && b.Start < a.End {
				return true, fmt.Sprintf("%s (%s) and %s (%s) both believed they held the lock from %s to %s",
					history.ClientName(a.Client), interval(a, t0), history.ClientName(b.Client), interval(b, t0),
					seconds(max(a.Start, b.Start)-t0), seconds(min(a.End, b.End)-t0))
			}
		}
	}
	return false, ""
}

func interval(b Belief, t0 int64) string {
	s := fmt.Sprintf("%s to %s", seconds(b.Start-t0), seconds(b.End-t0))
	if b.Token != 0 {
		s = fmt.Sprintf("token %d, %s", b.Token, s)
	}
	return s
}

func seconds(ns int64) string { return fmt.Sprintf("%.3f s", time.Duration(ns).Seconds()) }

// operations turns the records into Porcupine's sections and resource
// operations (times since h.Start), and counts committed sections, refused
// operations and calls that failed. A read or write whose call has no
// return, or returned an error, has an unknown effect: it is left out and
// counted in Errors (unchecked then makes the Porcupine checks Unknown).
func operations(h *history.History) (secs []linearizability.Section, ops []linearizability.ResourceOp, committed, refused, errs int) {
	type pending struct {
		call  history.Record
		valid bool
	}
	calls := map[[2]any]pending{}
	section := map[int]*linearizability.Section{}
	rel := func(wall int64) int64 { return max(wall-h.Start, 0) }
	for _, r := range h.Records {
		key := [2]any{r.Client, r.Op}
		if r.Ev == history.Call {
			calls[key] = pending{call: r, valid: true}
			if r.Op == history.OpRead {
				section[r.Client] = &linearizability.Section{Client: r.Client, Token: r.Token, Call: rel(r.Wall)}
			}
			continue
		}
		p := calls[key]
		delete(calls, key)
		if r.Error != "" {
			errs++
		}
		if r.Op != history.OpRead && r.Op != history.OpWrite {
			continue
		}
		if !p.valid || r.Error != "" {
			delete(section, r.Client)
			continue
		}
		op := linearizability.ResourceOp{Client: r.Client, Kind: impl.OpRead, Token: r.Token, Accepted: r.OK, Call: rel(p.call.Wall), Return: rel(r.Wall)}
		if r.Op == history.OpWrite {
			op.Kind, op.Value = impl.OpWrite, p.call.Value
		} else if r.OK {
			op.Value = r.Value
		}
		if !r.OK {
			refused++
		}
		ops = append(ops, op)
		s := section[r.Client]
		if s == nil {
			continue
		}
		switch {
		case r.Op == history.OpRead && r.OK:
			s.Read = r.Value
			continue // the section goes on with its write
		case r.Op == history.OpWrite && r.OK:
			s.Committed = true
			committed++
		}
		s.Return = rel(r.Wall)
		secs = append(secs, *s)
		delete(section, r.Client)
	}
	for _, p := range calls {
		if p.call.Op == history.OpRead || p.call.Op == history.OpWrite {
			errs++ // called, never returned: the client ended mid-call
		}
	}
	return secs, ops, committed, refused, errs
}

// unchecked says why Porcupine cannot judge the run ("" when it can): an
// operation on the resource whose effect is unknown.
func unchecked(h *history.History, j *Judgement) string {
	for _, r := range h.Records {
		if (r.Op == history.OpRead || r.Op == history.OpWrite) && r.Ev == history.Return && r.Error != "" {
			return fmt.Sprintf("%s's %s returned an error, so its effect is unknown: %s", history.ClientName(r.Client), r.Op, r.Error)
		}
	}
	calls := map[[2]any]int{}
	for _, r := range h.Records {
		if r.Op == history.OpRead || r.Op == history.OpWrite {
			if r.Ev == history.Call {
				calls[[2]any{r.Client, r.Op}]++
			} else {
				calls[[2]any{r.Client, r.Op}]--
			}
		}
	}
	for k, n := range calls {
		if n != 0 {
			return fmt.Sprintf("%s's %s was called and never returned", history.ClientName(k[0].(int)), k[1])
		}
	}
	return ""
}

// The pages of a saved run that draw the Porcupine checks: the critical
// sections' (PorcupineFile) and the resource's operations' (RegisterFile).
const (
	PorcupineFile = "porcupine.html"
	RegisterFile  = "register.html"
)

// pageOf is the saved page that draws a Porcupine check.
func pageOf(property string) string {
	if property == linearizability.RegisterLinearizable {
		return RegisterFile
	}
	return PorcupineFile
}
