--------------------------- MODULE DistLockFencing ---------------------------
(***************************************************************************)
(* The lease-based lock of DistLock.tla WITH fencing tokens (Kleppmann,   *)
(* "How to do distributed locking", 2016; the fencing variant of the blog  *)
(* post "Distributed lock - part 3"; both cited in the README's Sources):  *)
(* every grant carries a token strictly larger than every token granted    *)
(* before, the client presents its token with every operation on the      *)
(* shared resource, and the resource may refuse an operation whose token   *)
(* is stale.  How the resource checks tokens is the constant Check:        *)
(*                                                                         *)
(*   "none"   every operation is accepted (tokens exist but are ignored);  *)
(*   "writes" a write whose token is below the highest token seen is       *)
(*            refused; reads are not checked and do not raise the highest  *)
(*            token seen;                                                  *)
(*   "all"    every operation, read or write, first raises the highest     *)
(*            token seen and is refused if its token is below it ("mark    *)
(*            before use");                                                *)
(*   "sequencer" Chubby's sequencer check: the resource asks the service   *)
(*            whether the token is the current holder's (a "check" and    *)
(*            its "check_reply") and applies the operation only if so,     *)
(*            one operation at a time (the others queue); the service     *)
(*            has a lock-delay after an expiry (untimed: its timer may     *)
(*            fire at any moment).                                         *)
(*                                                                         *)
(* A critical section is two separate operations on a counter: read it,    *)
(* then write read+1, each carrying the token.  A client whose operation   *)
(* is refused abandons its critical section and releases the lock.         *)
(*                                                                         *)
(* What TLC shows:                                                         *)
(*   - fencing never stops two clients from BELIEVING they hold the lock:  *)
(*     AtMostOneClientHoldLock is violated in every mode;                  *)
(*   - "none" and "writes" lose updates and accept tokens out of order.    *)
(*     The "writes" case is the subtle one: the newer holder reads before  *)
(*     the stale holder writes; the read does not raise the highest token  *)
(*     seen, so the stale write is accepted, and the newer holder then     *)
(*     writes the same value again;                                        *)
(*   - "all" keeps TokenIsMonotonical and NoLostUpdate.                    *)
(*                                                                         *)
(* The model steps like impl.World, as DistLock.tla does (see there): one  *)
(* spec step is one Go step, the messages in flight a set, the timers      *)
(* pending flags, the resource a process of its own whose log (ops) is     *)
(* every operation it handled, in order, as Go's.  A client whose          *)
(* operation is refused, or whose belief ended, abandons its section; a    *)
(* release names its lease (compare-and-delete); each client runs Sections *)
(* sections.  The token of a grant is its lease number (TokenRule =        *)
(* "lease", as in Go); TokenRule = "pairs" is a mutant service that gives  *)
(* leases 2k-1 and 2k the same token, which TokensAreUnique must catch     *)
(* (and TokenIsMonotonical, with its <=, does not); TokenRule = "down"     *)
(* hands out tokens that go down, which TokensIncreaseInGrantOrder must    *)
(* catch.  The log carries each operation's lease as a ghost field (the    *)
(* sender's lease, which the resource never reads; Go's log has no lease). *)
(*                                                                         *)
(* The matrix's rows that take an assumption of "all" away, or deploy     *)
(* another design (issue 12; impl/designs.go, DESIGN.md), are constants   *)
(* of this one spec, each stepping as impl.World does for its design:     *)
(*                                                                         *)
(*   nonatomic         NonAtomic = TRUE: a write is checked (and the      *)
(*                     highest token raised) in one resource step and     *)
(*                     applied in a later one (Go's MsgApply);            *)
(*   snapshot-fence    Check = "snapshot": each section is a transaction  *)
(*                     under snapshot isolation; its read is checked      *)
(*                     against the committed fence and takes the          *)
(*                     snapshot, its write is checked in that snapshot    *)
(*                     (which the read passed) and commits, raising the   *)
(*                     fence (Admits, Raised);                            *)
(*   restart-volatile  ServiceRestart = "volatile": the service may crash *)
(*                     and restart, forgetting the lock, its timers and   *)
(*                     its lease counter (the token);                     *)
(*   restart-durable   ServiceRestart = "durable": the same, the counter  *)
(*                     persisted by a step of its own before the grant is *)
(*                     sent (a restart in between loses only the grant);  *)
(*   unique-cas        TokenRule = "unique", Check = "cas": unique,       *)
(*                     unordered tokens; a read sets the resource's       *)
(*                     current token, a write must carry it;              *)
(*   revision          TokenRule = "revision", Check = "all": the token   *)
(*                     is the store's revision, advanced by every grant,  *)
(*                     honoured release and expiry;                       *)
(*   version-equality  TokenRule = "unique", Check = "version": the first *)
(*                     write's version is remembered, a later write must  *)
(*                     carry it; reads are not checked.                   *)
(*                                                                         *)
(* Every other row has NonAtomic = FALSE and ServiceRestart = "never".    *)
(*                                                                         *)
(* Fixes of seed 000's two defects:                                        *)
(*   (a) a rejected client waited forever there (a deadlock unless         *)
(*       deadlock checking was off); here it retries, at most MaxRetries   *)
(*       times, then gives the section up (GiveUp), and every model checks *)
(*       deadlock;                                                         *)
(*   (b) seed 000's TokenIsMonotonical held by construction: the client    *)
(*       appended its token to the history only if it was larger than the  *)
(*       last one.  Here the RESOURCE decides: ops logs what it handled,   *)
(*       and accepted is what it accepted, in order, so the property has   *)
(*       teeth.                                                            *)
(* Other departures (from seed 000 and from Go) are DistLock.tla's.       *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets, TLC

CONSTANTS
    Clients,     \* the client processes (model values; symmetric)
    Service,     \* the lock service process (a model value)
    Resource,    \* the shared resource process (a model value)
    InvalidId,   \* the holder id of a lock nobody holds (a model value)
    Validity,    \* when a client's validity window starts: "arrival" or "send"
    MaxRetries,  \* how many times a rejected client asks again in a section
    Sections,    \* how many critical sections each client runs
    Timeouts,    \* TRUE: lease and validity timers may fire
    GiveUp,      \* TRUE: past MaxRetries a client gives the section up
    Check,       \* the resource's token check: "none", "writes", "all",
                 \* "sequencer", "cas" (check-and-set), "version" (version equality)
                 \* or "snapshot" (all's fence read in a transaction's snapshot)
    TokenRule,   \* "lease": a grant's token is its lease number (Go);
                 \* "pairs": a mutant service, leases 2k-1 and 2k share a token;
                 \* "down": a mutant service whose tokens go down (17 - lease);
                 \* "unique": Go's unique unordered tokens (impl.Scramble);
                 \* "revision": the store's revision (etcd, ZooKeeper)
    ServiceRestart, \* "never"; "volatile" or "durable": the service may crash
                    \* and restart, its lease counter lost or persisted
    NonAtomic    \* TRUE: the resource checks a write, and applies it later

ASSUME /\ Service \notin Clients
       /\ Resource \notin Clients \cup {Service}
       /\ InvalidId \notin Clients \cup {Service, Resource}
       /\ Validity \in {"arrival", "send"}
       /\ MaxRetries \in Nat
       /\ Sections \in Nat \ {0}
       /\ Timeouts \in BOOLEAN
       /\ GiveUp \in BOOLEAN
       /\ Check \in {"none", "writes", "all", "sequencer", "cas", "version", "snapshot"}
       /\ TokenRule \in {"lease", "pairs", "down", "unique", "revision"}
       /\ ServiceRestart \in {"never", "volatile", "durable"}
       /\ NonAtomic \in BOOLEAN
       \* Go's store revision does not survive its service's restart; no row
       \* combines them.
       /\ TokenRule = "revision" => ServiceRestart = "never"

\* How many times the service may crash and restart in a run: Go's
\* impl.UntimedRestarts (one restart is enough to hand a token out twice;
\* a bound keeps a stuck state a deadlock), none if it never restarts.
MaxRestarts == IF ServiceRestart = "never" THEN 0 ELSE 1

\* TokenRule "unique": Go's token of lease l is impl.Scramble(l), a 64-bit
\* bijection whose order says nothing of l's.  TLC's integers are 32-bit,
\* so the spec uses the ranks of Scramble(1), ..., Scramble(16) among
\* themselves: the same equalities and the same order as Go's tokens,
\* hence the same behaviours and state counts (conform.Abstract maps a
\* Go token to its rank; a test checks this table against impl.Scramble).
\* A lease beyond 16 is an error in TLC, never a silent wrong token.
UniqueTokens == <<8, 15, 4, 11, 10, 12, 3, 13, 9, 2, 6, 7, 16, 5, 1, 14>>

\* The token of the grant with lease number l, the store's revision being
\* rev after the grant (Go's Service.token).
TokenOf(l, rev) ==
    CASE TokenRule = "lease"    -> l
      [] TokenRule = "pairs"    -> (l + 1) \div 2
      [] TokenRule = "down"     -> 17 - l
      [] TokenRule = "unique"   -> UniqueTokens[l]
      [] TokenRule = "revision" -> rev

\* The store's revision after a change of the lock (a grant, an honoured
\* release, an expiry): it advances only when tokens are revisions (Go's
\* Service.revise), else it stays 0.
Revised(rev) == IF TokenRule = "revision" THEN rev + 1 ELSE rev

\* A message, with every field of Go's impl.Message (fields a type does not
\* use are 0 or FALSE, as in Go, so equal messages are equal records).
Msg(type, from, to, l, t, v, ok) ==
    [type |-> type, from |-> from, to |-> to, lease |-> l, token |-> t, value |-> v, ok |-> ok]
AcquireMsg(c)     == Msg("acquire", c, Service, 0, 0, 0, FALSE)
ReleaseMsg(c, l)  == Msg("release", c, Service, l, 0, 0, FALSE)
GrantMsg(c, l, t) == Msg("grant", Service, c, l, t, 0, FALSE)
RejectMsg(c)      == Msg("reject", Service, c, 0, 0, 0, FALSE)
ReadMsg(c, t)     == Msg("read", c, Resource, 0, t, 0, FALSE)
WriteMsg(c, t, v) == Msg("write", c, Resource, 0, t, v, FALSE)
ReplyMsg(type, c, t, v, ok) == Msg(type, Resource, c, 0, t, v, ok)
\* Check "sequencer": is t the current holder's token?  And the answer.
CheckMsg(t)          == Msg("check", Resource, Service, 0, t, 0, FALSE)
CheckReplyMsg(t, ok) == Msg("check_reply", Service, Resource, 0, t, 0, ok)

\* A pending timer: its node and its kind (Go's impl.PendingTimer).
Timer(n, k) == [node |-> n, kind |-> k]
LeaseTimer == Timer(Service, "lease")
ValidityTimer(c) == Timer(c, "validity")
BackoffTimer(c) == Timer(c, "backoff")
ThinkTimer(c) == Timer(c, "think")
LockDelayTimer == Timer(Service, "lock-delay")
\* ServiceRestart "durable": the store has the counter; the grant may leave.
PersistTimer == Timer(Service, "persist")

\* The service of check "sequencer" holds an expired lock back for a
\* lock-delay (Chubby, Consul); pending, its timer is Go's Delayed.
LockDelay == Check = "sequencer"

\* The timers after a client sends an acquire (Go's acquire): under the send
\* rule the validity window starts now.
AcquireTimers(c, ts) == IF Validity = "send" THEN ts \cup {ValidityTimer(c)} ELSE ts

\* What a client sends when its section ends (Go's endSection): the release
\* of the lease it used, if any, and the acquire of its next section, if
\* the section that ends is not its last (ended counts it).
EndMsgs(c, l, ended) ==
    (IF l = 0 THEN {} ELSE {ReleaseMsg(c, l)})
    \cup (IF ended < Sections THEN {AcquireMsg(c)} ELSE {})

\* The timers after a section ends (Go's endSection): under the arrival rule
\* the validity timer runs only while a lease is used; under the send rule
\* it runs from the last acquire on, is set again by the next acquire and
\* cancelled when the client finishes.
EndTimers(c, l, ended, ts) ==
    IF Validity = "send"
    THEN IF ended < Sections THEN ts \cup {ValidityTimer(c)} ELSE ts \ {ValidityTimer(c)}
    ELSE IF l # 0 THEN ts \ {ValidityTimer(c)} ELSE ts

\* Whether the resource accepts operation op ("read" or "write") carrying
\* token t when the highest token it has seen is high (Go's admit).  In
\* "cas" high is the current token, the one the last read set; in
\* "version" the version remembered (0: none yet).  In "snapshot" high is
\* the committed fence: a read begins its section's transaction and is
\* checked against it; the write checks the fence in the read's snapshot,
\* which the read passed, so it is accepted whatever was committed since
\* (Go's admitSnapshot).
Admits(op, t, high) ==
    CASE Check = "none"    -> TRUE
      [] Check = "writes"  -> op = "read" \/ t >= high
      [] Check = "all"     -> t >= high
      [] Check = "cas"     -> op = "read" \/ t = high
      [] Check = "version" -> op = "read" \/ high = 0 \/ t = high
      [] Check = "snapshot" -> op = "write" \/ t >= high

\* The highest token seen after accepting op with token t.  In "none" the
\* resource keeps no highest token at all, so it stays 0.  In "cas" a read
\* sets the current token; in "version" the first write's is remembered; in
\* "snapshot" only a commit (the write) raises the fence.
Raised(op, t, high) ==
    CASE Check = "none"    -> high
      [] Check = "writes"  -> IF op = "write" /\ t > high THEN t ELSE high
      [] Check = "all"     -> IF t > high THEN t ELSE high
      [] Check = "cas"     -> IF op = "read" THEN t ELSE high
      [] Check = "version" -> IF op = "write" /\ high = 0 THEN t ELSE high
      [] Check = "snapshot" -> IF op = "write" /\ t > high THEN t ELSE high

(* --algorithm DistLockFencing {
variables
    \* The lock as the service sees it: the current grant's lease number and
    \* token (0 when none).
    distLock = [status |-> "Available", id |-> InvalidId, lease |-> 0, token |-> 0],
    \* The messages in flight: any of them may be delivered next.  A set:
    \* a client has at most one acquire or operation outstanding and a
    \* release names its lease, so no two messages in flight are equal.
    network = {},
    \* The pending timers (node, kind); any of them may fire next.
    timers = {},
    \* Whether each client believes it holds the lock (client-local belief).
    lock_held = [c \in Clients |-> FALSE],
    \* The grant each client is using; 0 means none.  Global only because
    \* the resource's log reads it as a ghost field (see ops).
    lease = [c \in Clients |-> 0],
    \* The shared resource: the counter, the highest token it has seen, and
    \* every operation it handled, in order (Go's log); lease is a ghost
    \* field, the grant the operation was sent under.
    counter = 0,
    max_token = 0,
    ops = <<>>,
    \* NonAtomic: the writes checked and not yet applied, oldest first (Go's
    \* Resource.pending).  Each has one MsgApply in flight in Go, all of them
    \* equal messages; the spec's network is a set, so the applies in flight
    \* are this queue's length, not messages.
    pending = <<>>,
    \* ServiceRestart: impl.World's Restarts, the service's restarts so far,
    \* and HeldAtRestart, the clients that believed they held the lock at a
    \* restart (the witness NoSectionCommitsAcrossRestart reads it).
    restarts = 0,
    held_at_restart = {};

\* A section ends (Go's endSection), committed if ok: the client stops
\* believing and forgets its grant.  The caller sends EndMsgs and sets
\* EndTimers first (they read the grant), then goes on to Receive or Done.
macro end_section(ok) {
    if (ok) { committed := committed + 1 } else { aborted := aborted + 1 };
    lock_held[self] := FALSE;
    retries := 0;
    late := FALSE;
    lease[self] := 0;
    token := 0;
    read_val := 0;
}

\* Weak fairness: a client that can handle an input eventually does.  Its
\* labels are Go's client phases: Acquire (Idle), Receive (Acquiring),
\* Backoff (BackingOff), ReadCounter (Reading), WriteCounter (Thinking),
\* Release (Writing), Done (Finished); each step handles one input.
fair process (client \in Clients)
variables
    retries = 0,       \* rejections answered by asking again in this section
    late = FALSE,      \* send rule: the window ended while acquiring
    token = 0,         \* that grant's token; 0 means none
    read_val = 0,      \* what this client read from the counter
    committed = 0,     \* sections whose write was accepted
    aborted = 0;       \* sections given up, abandoned or fenced off
{
\* The runtime starts the client: it asks for the lock.
Acquire:
    network := network \cup {AcquireMsg(self)};
    timers := AcquireTimers(self, timers);
\* Acquiring: the answer arrives, or (send rule) the window ends first.
Receive:
    either {
        with (m \in {x \in network : x.to = self /\ x.type = "grant"}) {
            if (~late) {
                \* It holds the lock; the read is sent at once.
                network := (network \ {m}) \cup {ReadMsg(self, m.token)};
                timers := IF Validity = "arrival" THEN timers \cup {ValidityTimer(self)} ELSE timers;
                lock_held[self] := TRUE;
                lease[self] := m.lease;
                token := m.token;
                goto ReadCounter;
            } else if (retries < MaxRetries \/ ~GiveUp) {
                \* Send rule, the grant came too late: give it back and ask
                \* again, counting a retry.
                network := (network \ {m}) \cup {ReleaseMsg(self, m.lease), AcquireMsg(self)};
                timers := AcquireTimers(self, timers);
                if (retries < MaxRetries) { retries := retries + 1 };
                late := FALSE;
                goto Receive;
            } else {
                network := (network \ {m}) \cup {ReleaseMsg(self, m.lease)}
                           \cup EndMsgs(self, 0, committed + aborted + 1);
                timers := EndTimers(self, 0, committed + aborted + 1, timers);
                end_section(FALSE);
                if (committed + aborted < Sections) { goto Receive } else { goto Done };
            };
        };
    } or {
        with (m \in {x \in network : x.to = self /\ x.type = "reject"}) {
            if (retries < MaxRetries \/ ~GiveUp) {
                \* Unlike seed 000, a rejected client backs off and asks
                \* again (forever when it may not give up) ...
                network := network \ {m};
                timers := (IF Validity = "send" THEN timers \ {ValidityTimer(self)} ELSE timers)
                          \cup {BackoffTimer(self)};
                if (retries < MaxRetries) { retries := retries + 1 };
                goto Backoff;
            } else {
                \* ... or gives the section up after MaxRetries.
                network := (network \ {m}) \cup EndMsgs(self, 0, committed + aborted + 1);
                timers := EndTimers(self, 0, committed + aborted + 1, timers);
                end_section(FALSE);
                if (committed + aborted < Sections) { goto Receive } else { goto Done };
            };
        };
    } or {
        await Timeouts /\ ValidityTimer(self) \in timers;
        timers := timers \ {ValidityTimer(self)};
        late := Validity = "send";
        goto Receive;
    };
\* BackingOff: the backoff timer fires and the client asks again.
Backoff:
    await BackoffTimer(self) \in timers;
    network := network \cup {AcquireMsg(self)};
    timers := AcquireTimers(self, timers \ {BackoffTimer(self)});
    late := FALSE;
    goto Receive;
\* Reading: the read's reply arrives; refused, or no longer believing, the
\* client abandons the section.  Or its validity timer fires (LoseLease).
ReadCounter:
    either {
        with (m \in {x \in network : x.to = self /\ x.type = "read_reply"}) {
            if (m.ok /\ lock_held[self]) {
                network := network \ {m};
                timers := timers \cup {ThinkTimer(self)};
                read_val := m.value;
                goto WriteCounter;
            } else {
                network := (network \ {m}) \cup EndMsgs(self, lease[self], committed + aborted + 1);
                timers := EndTimers(self, lease[self], committed + aborted + 1, timers);
                end_section(FALSE);
                if (committed + aborted < Sections) { goto Receive } else { goto Done };
            };
        };
    } or {
        await Timeouts /\ ValidityTimer(self) \in timers;
        timers := timers \ {ValidityTimer(self)};
        lock_held[self] := FALSE;
        goto ReadCounter;
    };
\* Thinking: the think timer fires and the client decides: it checks its
\* belief and writes read+1, or abandons the section without writing.
WriteCounter:
    either {
        await ThinkTimer(self) \in timers;
        if (lock_held[self]) {
            network := network \cup {WriteMsg(self, token, read_val + 1)};
            timers := timers \ {ThinkTimer(self)};
            goto Release;
        } else {
            network := network \cup EndMsgs(self, lease[self], committed + aborted + 1);
            timers := EndTimers(self, lease[self], committed + aborted + 1, timers \ {ThinkTimer(self)});
            end_section(FALSE);
            if (committed + aborted < Sections) { goto Receive } else { goto Done };
        };
    } or {
        await Timeouts /\ ValidityTimer(self) \in timers;
        timers := timers \ {ValidityTimer(self)};
        lock_held[self] := FALSE;
        goto WriteCounter;
    };
\* Writing: the write's reply arrives; the section committed if the write
\* was accepted, else it was fenced off.  Release the lease and ask for the
\* next section's lock.  Or the validity timer fires.
Release:
    either {
        with (m \in {x \in network : x.to = self /\ x.type = "write_reply"}) {
            network := (network \ {m}) \cup EndMsgs(self, lease[self], committed + aborted + 1);
            timers := EndTimers(self, lease[self], committed + aborted + 1, timers);
            end_section(m.ok);
            if (committed + aborted < Sections) { goto Receive } else { goto Done };
        };
    } or {
        await Timeouts /\ ValidityTimer(self) \in timers;
        timers := timers \ {ValidityTimer(self)};
        lock_held[self] := FALSE;
        goto Release;
    };
}

\* The service handles one request per step (a single-threaded server), or
\* its lease timer fires (the TTL: untimed, at any moment while held).
fair process (service = Service)
variables
    last_lease = 0,  \* the highest lease number granted; leases are 1, 2, ...
    revision = 0;    \* TokenRule "revision": the store's revision, else 0
{
Serve:
    while (TRUE) {
        either {
            with (m \in {x \in network : x.to = Service /\ x.type = "acquire"}) {
                if (distLock.status \in {"Acquired", "Persisting"} \/ LockDelayTimer \in timers) {
                    network := (network \ {m}) \cup {RejectMsg(m.from)};
                } else if (ServiceRestart = "durable") {
                    \* A durable counter is persisted by a step of its own,
                    \* before the grant (Go's acquire under RestartDurable):
                    \* last_lease is the store's value from here on, and the
                    \* grant waits for the persist timer (the store's
                    \* answer).  A restart in between loses the grant, never
                    \* the counter.
                    distLock := [status |-> "Persisting", id |-> m.from, lease |-> last_lease + 1,
                                 token |-> TokenOf(last_lease + 1, revision)];
                    network := network \ {m};
                    timers := timers \cup {PersistTimer};
                    last_lease := last_lease + 1;
                } else {
                    \* Every grant carries a token; under TokenRule "lease"
                    \* it is larger than every token before.
                    distLock := [status |-> "Acquired", id |-> m.from, lease |-> last_lease + 1,
                                 token |-> TokenOf(last_lease + 1, Revised(revision))];
                    network := (network \ {m}) \cup
                               {GrantMsg(m.from, last_lease + 1, TokenOf(last_lease + 1, Revised(revision)))};
                    timers := timers \cup {LeaseTimer};
                    last_lease := last_lease + 1;
                    revision := Revised(revision);
                };
            };
        } or {
            with (m \in {x \in network : x.to = Service /\ x.type = "release"}) {
                network := network \ {m};
                \* Compare-and-delete: a release is honoured only from the
                \* current holder, naming its current lease.
                if (distLock.status = "Acquired" /\ distLock.id = m.from /\ distLock.lease = m.lease) {
                    distLock := [status |-> "Available", id |-> InvalidId, lease |-> 0, token |-> 0];
                    timers := timers \ {LeaseTimer};
                    revision := Revised(revision);
                };
            };
        } or {
            await Timeouts /\ LeaseTimer \in timers;
            timers := (timers \ {LeaseTimer}) \cup (IF LockDelay THEN {LockDelayTimer} ELSE {});
            distLock := [status |-> "Expired", id |-> InvalidId, lease |-> 0, token |-> 0];
            revision := Revised(revision);
        } or {
            \* ServiceRestart "durable": the store holds the counter, the
            \* grant persisted for is sent (Go's TimerPersist).
            await PersistTimer \in timers;
            timers := (timers \ {PersistTimer}) \cup {LeaseTimer};
            distLock.status := "Acquired";
            network := network \cup {GrantMsg(distLock.id, distLock.lease, distLock.token)};
        } or {
            \* The lock-delay ends: the expired lock may be granted again.
            await LockDelayTimer \in timers;
            timers := timers \ {LockDelayTimer};
        } or {
            \* Chubby's CheckSequencer: is the token the current holder's?
            with (m \in {x \in network : x.to = Service /\ x.type = "check"}) {
                network := (network \ {m}) \cup
                           {CheckReplyMsg(m.token, distLock.status = "Acquired" /\ distLock.token = m.token)};
            };
        } or {
            \* ServiceRestart: the service crashes and restarts (Go's
            \* InputRestart, impl.World's restart action: at most MaxRestarts
            \* times, only while some client has not finished).  Lost: who
            \* holds the lock (it is Available), the lease timer, a grant
            \* persisted and not yet sent, and unless "durable" the lease
            \* counter, which is the token ("durable": last_lease is the
            \* store's, persisted before each grant).  Messages in flight
            \* wait for it, as in Go.
            await restarts < MaxRestarts /\ \E c \in Clients : pc[c] /= "Done";
            \* A grant persisted and not sent is lost; its client's
            \* connection drops, which it sees as a rejection.
            if (distLock.status = "Persisting") { network := network \cup {RejectMsg(distLock.id)} };
            distLock := [status |-> "Available", id |-> InvalidId, lease |-> 0, token |-> 0];
            timers := timers \ {LeaseTimer, LockDelayTimer, PersistTimer};
            if (ServiceRestart = "volatile") { last_lease := 0 };
            revision := 0;
            restarts := restarts + 1;
            held_at_restart := held_at_restart \cup {c \in Clients : lock_held[c]};
        } or {
            \* Every client has finished and nothing is left in flight: the
            \* system stutters (no Go step), so a finished run is no deadlock.
            await /\ \A c \in Clients : pc[c] = "Done"
                  /\ network = {}
                  /\ timers = {};
            skip;
        };
    };
}

\* The resource handles one operation per step: the fencing check, the
\* counter, its log, and the reply.  NonAtomic: an accepted write is only
\* checked (and queued) by its step; a later step applies the oldest.
\* Check "sequencer": an operation joins the queue, and the service is
\* asked about the head's token; its answer decides the head, and the
\* next is asked about.
fair process (resource = Resource)
variables
    queue = <<>>;  \* check "sequencer": the operations not yet answered
{
Access:
    while (TRUE) {
      if (Check = "sequencer") {
        either {
            with (m \in {x \in network : x.to = Resource /\ x.type \in {"read", "write"}}) {
                network := (network \ {m}) \cup (IF queue = <<>> THEN {CheckMsg(m.token)} ELSE {});
                queue := Append(queue, m);
            };
        } or {
            with (r \in {x \in network : x.to = Resource /\ x.type = "check_reply"},
                  m = Head(queue),
                  v = IF m.type = "read" THEN (IF r.ok THEN counter ELSE 0) ELSE m.value) {
                if (m.type = "write" /\ r.ok) { counter := m.value };
                ops := Append(ops, [op |-> m.type, id |-> m.from, token |-> m.token, ok |-> r.ok,
                                    value |-> v, lease |-> lease[m.from]]);
                network := (network \ {r}) \cup {ReplyMsg(m.type \o "_reply", m.from, m.token,
                                                          IF m.type = "read" THEN v ELSE 0, r.ok)}
                           \cup (IF Len(queue) > 1 THEN {CheckMsg(queue[2].token)} ELSE {});
                queue := Tail(queue);
            };
        };
      } else
        either {
            with (m \in {x \in network : x.to = Resource},
                  ok = Admits(m.type, m.token, max_token),
                  v = IF m.type = "read" THEN (IF ok THEN counter ELSE 0) ELSE m.value) {
                max_token := IF ok THEN Raised(m.type, m.token, max_token) ELSE max_token;
                if (NonAtomic /\ m.type = "write" /\ ok) {
                    \* Checked now, applied later (Go: the resource sends
                    \* itself MsgApply); the reply waits for the apply.
                    pending := Append(pending, [id |-> m.from, token |-> m.token, value |-> m.value,
                                                lease |-> lease[m.from]]);
                    network := network \ {m};
                } else {
                    if (m.type = "write" /\ ok) { counter := m.value };
                    ops := Append(ops, [op |-> m.type, id |-> m.from, token |-> m.token, ok |-> ok,
                                        value |-> v, lease |-> lease[m.from]]);
                    network := (network \ {m}) \cup {ReplyMsg(m.type \o "_reply", m.from, m.token,
                                                              IF m.type = "read" THEN v ELSE 0, ok)};
                };
            };
        } or {
            \* NonAtomic: an apply arrives (Go's MsgApply) and the oldest
            \* checked write takes effect, whatever came in between.
            await pending /= <<>>;
            counter := Head(pending).value;
            ops := Append(ops, [op |-> "write", id |-> Head(pending).id, token |-> Head(pending).token,
                                ok |-> TRUE, value |-> Head(pending).value, lease |-> Head(pending).lease]);
            network := network \cup {ReplyMsg("write_reply", Head(pending).id, Head(pending).token, 0, TRUE)};
            pending := Tail(pending);
        };
    };
}
} *)
\* BEGIN TRANSLATION (chksum(pcal) = "fa2e876" /\ chksum(tla) = "108fd448")
VARIABLES distLock, network, timers, lock_held, lease, counter, max_token, 
          ops, pending, restarts, held_at_restart, pc, retries, late, token, 
          read_val, committed, aborted, last_lease, revision, queue

vars == << distLock, network, timers, lock_held, lease, counter, max_token, 
           ops, pending, restarts, held_at_restart, pc, retries, late, token, 
           read_val, committed, aborted, last_lease, revision, queue >>

ProcSet == (Clients) \cup {Service} \cup {Resource}

Init == (* Global variables *)
        /\ distLock = [status |-> "Available", id |-> InvalidId, lease |-> 0, token |-> 0]
        /\ network = {}
        /\ timers = {}
        /\ lock_held = [c \in Clients |-> FALSE]
        /\ lease = [c \in Clients |-> 0]
        /\ counter = 0
        /\ max_token = 0
        /\ ops = <<>>
        /\ pending = <<>>
        /\ restarts = 0
        /\ held_at_restart = {}
        (* Process client *)
        /\ retries = [self \in Clients |-> 0]
        /\ late = [self \in Clients |-> FALSE]
        /\ token = [self \in Clients |-> 0]
        /\ read_val = [self \in Clients |-> 0]
        /\ committed = [self \in Clients |-> 0]
        /\ aborted = [self \in Clients |-> 0]
        (* Process service *)
        /\ last_lease = 0
        /\ revision = 0
        (* Process resource *)
        /\ queue = <<>>
        /\ pc = [self \in ProcSet |-> CASE self \in Clients -> "Acquire"
                                        [] self = Service -> "Serve"
                                        [] self = Resource -> "Access"]

Acquire(self) == /\ pc[self] = "Acquire"
                 /\ network' = (network \cup {AcquireMsg(self)})
                 /\ timers' = AcquireTimers(self, timers)
                 /\ pc' = [pc EXCEPT ![self] = "Receive"]
                 /\ UNCHANGED << distLock, lock_held, lease, counter, 
                                 max_token, ops, pending, restarts, 
                                 held_at_restart, retries, late, token, 
                                 read_val, committed, aborted, last_lease, 
                                 revision, queue >>

Receive(self) == /\ pc[self] = "Receive"
                 /\ \/ /\ \E m \in {x \in network : x.to = self /\ x.type = "grant"}:
                            IF ~late[self]
                               THEN /\ network' = ((network \ {m}) \cup {ReadMsg(self, m.token)})
                                    /\ timers' = (IF Validity = "arrival" THEN timers \cup {ValidityTimer(self)} ELSE timers)
                                    /\ lock_held' = [lock_held EXCEPT ![self] = TRUE]
                                    /\ lease' = [lease EXCEPT ![self] = m.lease]
                                    /\ token' = [token EXCEPT ![self] = m.token]
                                    /\ pc' = [pc EXCEPT ![self] = "ReadCounter"]
                                    /\ UNCHANGED << retries, late, read_val, 
                                                    committed, aborted >>
                               ELSE /\ IF retries[self] < MaxRetries \/ ~GiveUp
                                          THEN /\ network' = ((network \ {m}) \cup {ReleaseMsg(self, m.lease), AcquireMsg(self)})
                                               /\ timers' = AcquireTimers(self, timers)
                                               /\ IF retries[self] < MaxRetries
                                                     THEN /\ retries' = [retries EXCEPT ![self] = retries[self] + 1]
                                                     ELSE /\ TRUE
                                                          /\ UNCHANGED retries
                                               /\ late' = [late EXCEPT ![self] = FALSE]
                                               /\ pc' = [pc EXCEPT ![self] = "Receive"]
                                               /\ UNCHANGED << lock_held, 
                                                               lease, token, 
                                                               read_val, 
                                                               committed, 
                                                               aborted >>
                                          ELSE /\ network' = ((network \ {m}) \cup {ReleaseMsg(self, m.lease)}
                                                              \cup EndMsgs(self, 0, committed[self] + aborted[self] + 1))
                                               /\ timers' = EndTimers(self, 0, committed[self] + aborted[self] + 1, timers)
                                               /\ IF FALSE
                                                     THEN /\ committed' = [committed EXCEPT ![self] = committed[self] + 1]
                                                          /\ UNCHANGED aborted
                                                     ELSE /\ aborted' = [aborted EXCEPT ![self] = aborted[self] + 1]
                                                          /\ UNCHANGED committed
                                               /\ lock_held' = [lock_held EXCEPT ![self] = FALSE]
                                               /\ retries' = [retries EXCEPT ![self] = 0]
                                               /\ late' = [late EXCEPT ![self] = FALSE]
                                               /\ lease' = [lease EXCEPT ![self] = 0]
                                               /\ token' = [token EXCEPT ![self] = 0]
                                               /\ read_val' = [read_val EXCEPT ![self] = 0]
                                               /\ IF committed'[self] + aborted'[self] < Sections
                                                     THEN /\ pc' = [pc EXCEPT ![self] = "Receive"]
                                                     ELSE /\ pc' = [pc EXCEPT ![self] = "Done"]
                    \/ /\ \E m \in {x \in network : x.to = self /\ x.type = "reject"}:
                            IF retries[self] < MaxRetries \/ ~GiveUp
                               THEN /\ network' = network \ {m}
                                    /\ timers' = (IF Validity = "send" THEN timers \ {ValidityTimer(self)} ELSE timers)
                                                 \cup {BackoffTimer(self)}
                                    /\ IF retries[self] < MaxRetries
                                          THEN /\ retries' = [retries EXCEPT ![self] = retries[self] + 1]
                                          ELSE /\ TRUE
                                               /\ UNCHANGED retries
                                    /\ pc' = [pc EXCEPT ![self] = "Backoff"]
                                    /\ UNCHANGED << lock_held, lease, late, 
                                                    token, read_val, committed, 
                                                    aborted >>
                               ELSE /\ network' = ((network \ {m}) \cup EndMsgs(self, 0, committed[self] + aborted[self] + 1))
                                    /\ timers' = EndTimers(self, 0, committed[self] + aborted[self] + 1, timers)
                                    /\ IF FALSE
                                          THEN /\ committed' = [committed EXCEPT ![self] = committed[self] + 1]
                                               /\ UNCHANGED aborted
                                          ELSE /\ aborted' = [aborted EXCEPT ![self] = aborted[self] + 1]
                                               /\ UNCHANGED committed
                                    /\ lock_held' = [lock_held EXCEPT ![self] = FALSE]
                                    /\ retries' = [retries EXCEPT ![self] = 0]
                                    /\ late' = [late EXCEPT ![self] = FALSE]
                                    /\ lease' = [lease EXCEPT ![self] = 0]
                                    /\ token' = [token EXCEPT ![self] = 0]
                                    /\ read_val' = [read_val EXCEPT ![self] = 0]
                                    /\ IF committed'[self] + aborted'[self] < Sections
                                          THEN /\ pc' = [pc EXCEPT ![self] = "Receive"]
                                          ELSE /\ pc' = [pc EXCEPT ![self] = "Done"]
                    \/ /\ Timeouts /\ ValidityTimer(self) \in timers
                       /\ timers' = timers \ {ValidityTimer(self)}
                       /\ late' = [late EXCEPT ![self] = Validity = "send"]
                       /\ pc' = [pc EXCEPT ![self] = "Receive"]
                       /\ UNCHANGED <<network, lock_held, lease, retries, token, read_val, committed, aborted>>
                 /\ UNCHANGED << distLock, counter, max_token, ops, pending, 
                                 restarts, held_at_restart, last_lease, 
                                 revision, queue >>

Backoff(self) == /\ pc[self] = "Backoff"
                 /\ BackoffTimer(self) \in timers
                 /\ network' = (network \cup {AcquireMsg(self)})
                 /\ timers' = AcquireTimers(self, timers \ {BackoffTimer(self)})
                 /\ late' = [late EXCEPT ![self] = FALSE]
                 /\ pc' = [pc EXCEPT ![self] = "Receive"]
                 /\ UNCHANGED << distLock, lock_held, lease, counter, 
                                 max_token, ops, pending, restarts, 
                                 held_at_restart, retries, token, read_val, 
                                 committed, aborted, last_lease, revision, 
                                 queue >>

ReadCounter(self) == /\ pc[self] = "ReadCounter"
                     /\ \/ /\ \E m \in {x \in network : x.to = self /\ x.type = "read_reply"}:
                                IF m.ok /\ lock_held[self]
                                   THEN /\ network' = network \ {m}
                                        /\ timers' = (timers \cup {ThinkTimer(self)})
                                        /\ read_val' = [read_val EXCEPT ![self] = m.value]
                                        /\ pc' = [pc EXCEPT ![self] = "WriteCounter"]
                                        /\ UNCHANGED << lock_held, lease, 
                                                        retries, late, token, 
                                                        committed, aborted >>
                                   ELSE /\ network' = ((network \ {m}) \cup EndMsgs(self, lease[self], committed[self] + aborted[self] + 1))
                                        /\ timers' = EndTimers(self, lease[self], committed[self] + aborted[self] + 1, timers)
                                        /\ IF FALSE
                                              THEN /\ committed' = [committed EXCEPT ![self] = committed[self] + 1]
                                                   /\ UNCHANGED aborted
                                              ELSE /\ aborted' = [aborted EXCEPT ![self] = aborted[self] + 1]
                                                   /\ UNCHANGED committed
                                        /\ lock_held' = [lock_held EXCEPT ![self] = FALSE]
                                        /\ retries' = [retries EXCEPT ![self] = 0]
                                        /\ late' = [late EXCEPT ![self] = FALSE]
                                        /\ lease' = [lease EXCEPT ![self] = 0]
                                        /\ token' = [token EXCEPT ![self] = 0]
                                        /\ read_val' = [read_val EXCEPT ![self] = 0]
                                        /\ IF committed'[self] + aborted'[self] < Sections
                                              THEN /\ pc' = [pc EXCEPT ![self] = "Receive"]
                                              ELSE /\ pc' = [pc EXCEPT ![self] = "Done"]
                        \/ /\ Timeouts /\ ValidityTimer(self) \in timers
                           /\ timers' = timers \ {ValidityTimer(self)}
                           /\ lock_held' = [lock_held EXCEPT ![self] = FALSE]
                           /\ pc' = [pc EXCEPT ![self] = "ReadCounter"]
                           /\ UNCHANGED <<network, lease, retries, late, token, read_val, committed, aborted>>
                     /\ UNCHANGED << distLock, counter, max_token, ops, 
                                     pending, restarts, held_at_restart, 
                                     last_lease, revision, queue >>

WriteCounter(self) == /\ pc[self] = "WriteCounter"
                      /\ \/ /\ ThinkTimer(self) \in timers
                            /\ IF lock_held[self]
                                  THEN /\ network' = (network \cup {WriteMsg(self, token[self], read_val[self] + 1)})
                                       /\ timers' = timers \ {ThinkTimer(self)}
                                       /\ pc' = [pc EXCEPT ![self] = "Release"]
                                       /\ UNCHANGED << lock_held, lease, 
                                                       retries, late, token, 
                                                       read_val, committed, 
                                                       aborted >>
                                  ELSE /\ network' = (network \cup EndMsgs(self, lease[self], committed[self] + aborted[self] + 1))
                                       /\ timers' = EndTimers(self, lease[self], committed[self] + aborted[self] + 1, timers \ {ThinkTimer(self)})
                                       /\ IF FALSE
                                             THEN /\ committed' = [committed EXCEPT ![self] = committed[self] + 1]
                                                  /\ UNCHANGED aborted
                                             ELSE /\ aborted' = [aborted EXCEPT ![self] = aborted[self] + 1]
                                                  /\ UNCHANGED committed
                                       /\ lock_held' = [lock_held EXCEPT ![self] = FALSE]
                                       /\ retries' = [retries EXCEPT ![self] = 0]
                                       /\ late' = [late EXCEPT ![self] = FALSE]
                                       /\ lease' = [lease EXCEPT ![self] = 0]
                                       /\ token' = [token EXCEPT ![self] = 0]
                                       /\ read_val' = [read_val EXCEPT ![self] = 0]
                                       /\ IF committed'[self] + aborted'[self] < Sections
                                             THEN /\ pc' = [pc EXCEPT ![self] = "Receive"]
                                             ELSE /\ pc' = [pc EXCEPT ![self] = "Done"]
                         \/ /\ Timeouts /\ ValidityTimer(self) \in timers
                            /\ timers' = timers \ {ValidityTimer(self)}
                            /\ lock_held' = [lock_held EXCEPT ![self] = FALSE]
                            /\ pc' = [pc EXCEPT ![self] = "WriteCounter"]
                            /\ UNCHANGED <<network, lease, retries, late, token, read_val, committed, aborted>>
                      /\ UNCHANGED << distLock, counter, max_token, ops, 
                                      pending, restarts, held_at_restart, 
                                      last_lease, revision, queue >>

Release(self) == /\ pc[self] = "Release"
                 /\ \/ /\ \E m \in {x \in network : x.to = self /\ x.type = "write_reply"}:
                            /\ network' = ((network \ {m}) \cup EndMsgs(self, lease[self], committed[self] + aborted[self] + 1))
                            /\ timers' = EndTimers(self, lease[self], committed[self] + aborted[self] + 1, timers)
                            /\ IF m.ok
                                  THEN /\ committed' = [committed EXCEPT ![self] = committed[self] + 1]
                                       /\ UNCHANGED aborted
                                  ELSE /\ aborted' = [aborted EXCEPT ![self] = aborted[self] + 1]
                                       /\ UNCHANGED committed
                            /\ lock_held' = [lock_held EXCEPT ![self] = FALSE]
                            /\ retries' = [retries EXCEPT ![self] = 0]
                            /\ late' = [late EXCEPT ![self] = FALSE]
                            /\ lease' = [lease EXCEPT ![self] = 0]
                            /\ token' = [token EXCEPT ![self] = 0]
                            /\ read_val' = [read_val EXCEPT ![self] = 0]
                            /\ IF committed'[self] + aborted'[self] < Sections
                                  THEN /\ pc' = [pc EXCEPT ![self] = "Receive"]
                                  ELSE /\ pc' = [pc EXCEPT ![self] = "Done"]
                    \/ /\ Timeouts /\ ValidityTimer(self) \in timers
                       /\ timers' = timers \ {ValidityTimer(self)}
                       /\ lock_held' = [lock_held EXCEPT ![self] = FALSE]
                       /\ pc' = [pc EXCEPT ![self] = "Release"]
                       /\ UNCHANGED <<network, lease, retries, late, token, read_val, committed, aborted>>
                 /\ UNCHANGED << distLock, counter, max_token, ops, pending, 
                                 restarts, held_at_restart, last_lease, 
                                 revision, queue >>

client(self) == Acquire(self) \/ Receive(self) \/ Backoff(self)
                   \/ ReadCounter(self) \/ WriteCounter(self)
                   \/ Release(self)

Serve == /\ pc[Service] = "Serve"
         /\ \/ /\ \E m \in {x \in network : x.to = Service /\ x.type = "acquire"}:
                    IF distLock.status \in {"Acquired", "Persisting"} \/ LockDelayTimer \in timers
                       THEN /\ network' = ((network \ {m}) \cup {RejectMsg(m.from)})
                            /\ UNCHANGED << distLock, timers, last_lease, 
                                            revision >>
                       ELSE /\ IF ServiceRestart = "durable"
                                  THEN /\ distLock' = [status |-> "Persisting", id |-> m.from, lease |-> last_lease + 1,
                                                       token |-> TokenOf(last_lease + 1, revision)]
                                       /\ network' = network \ {m}
                                       /\ timers' = (timers \cup {PersistTimer})
                                       /\ last_lease' = last_lease + 1
                                       /\ UNCHANGED revision
                                  ELSE /\ distLock' = [status |-> "Acquired", id |-> m.from, lease |-> last_lease + 1,
                                                       token |-> TokenOf(last_lease + 1, Revised(revision))]
                                       /\ network' = ((network \ {m}) \cup
                                                      {GrantMsg(m.from, last_lease + 1, TokenOf(last_lease + 1, Revised(revision)))})
                                       /\ timers' = (timers \cup {LeaseTimer})
                                       /\ last_lease' = last_lease + 1
                                       /\ revision' = Revised(revision)
               /\ UNCHANGED <<restarts, held_at_restart>>
            \/ /\ \E m \in {x \in network : x.to = Service /\ x.type = "release"}:
                    /\ network' = network \ {m}
                    /\ IF distLock.status = "Acquired" /\ distLock.id = m.from /\ distLock.lease = m.lease
                          THEN /\ distLock' = [status |-> "Available", id |-> InvalidId, lease |-> 0, token |-> 0]
                               /\ timers' = timers \ {LeaseTimer}
                               /\ revision' = Revised(revision)
                          ELSE /\ TRUE
                               /\ UNCHANGED << distLock, timers, revision >>
               /\ UNCHANGED <<restarts, held_at_restart, last_lease>>
            \/ /\ Timeouts /\ LeaseTimer \in timers
               /\ timers' = ((timers \ {LeaseTimer}) \cup (IF LockDelay THEN {LockDelayTimer} ELSE {}))
               /\ distLock' = [status |-> "Expired", id |-> InvalidId, lease |-> 0, token |-> 0]
               /\ revision' = Revised(revision)
               /\ UNCHANGED <<network, restarts, held_at_restart, last_lease>>
            \/ /\ PersistTimer \in timers
               /\ timers' = ((timers \ {PersistTimer}) \cup {LeaseTimer})
               /\ distLock' = [distLock EXCEPT !.status = "Acquired"]
               /\ network' = (network \cup {GrantMsg(distLock'.id, distLock'.lease, distLock'.token)})
               /\ UNCHANGED <<restarts, held_at_restart, last_lease, revision>>
            \/ /\ LockDelayTimer \in timers
               /\ timers' = timers \ {LockDelayTimer}
               /\ UNCHANGED <<distLock, network, restarts, held_at_restart, last_lease, revision>>
            \/ /\ \E m \in {x \in network : x.to = Service /\ x.type = "check"}:
                    network' = ((network \ {m}) \cup
                                {CheckReplyMsg(m.token, distLock.status = "Acquired" /\ distLock.token = m.token)})
               /\ UNCHANGED <<distLock, timers, restarts, held_at_restart, last_lease, revision>>
            \/ /\ restarts < MaxRestarts /\ \E c \in Clients : pc[c] /= "Done"
               /\ IF distLock.status = "Persisting"
                     THEN /\ network' = (network \cup {RejectMsg(distLock.id)})
                     ELSE /\ TRUE
                          /\ UNCHANGED network
               /\ distLock' = [status |-> "Available", id |-> InvalidId, lease |-> 0, token |-> 0]
               /\ timers' = timers \ {LeaseTimer, LockDelayTimer, PersistTimer}
               /\ IF ServiceRestart = "volatile"
                     THEN /\ last_lease' = 0
                     ELSE /\ TRUE
                          /\ UNCHANGED last_lease
               /\ revision' = 0
               /\ restarts' = restarts + 1
               /\ held_at_restart' = (held_at_restart \cup {c \in Clients : lock_held[c]})
            \/ /\ /\ \A c \in Clients : pc[c] = "Done"
                  /\ network = {}
                  /\ timers = {}
               /\ TRUE
               /\ UNCHANGED <<distLock, network, timers, restarts, held_at_restart, last_lease, revision>>
         /\ pc' = [pc EXCEPT ![Service] = "Serve"]
         /\ UNCHANGED << lock_held, lease, counter, max_token, ops, pending, 
                         retries, late, token, read_val, committed, aborted, 
                         queue >>

service == Serve

Access == /\ pc[Resource] = "Access"
          /\ IF Check = "sequencer"
                THEN /\ \/ /\ \E m \in {x \in network : x.to = Resource /\ x.type \in {"read", "write"}}:
                                /\ network' = ((network \ {m}) \cup (IF queue = <<>> THEN {CheckMsg(m.token)} ELSE {}))
                                /\ queue' = Append(queue, m)
                           /\ UNCHANGED <<counter, ops>>
                        \/ /\ \E r \in {x \in network : x.to = Resource /\ x.type = "check_reply"}:
                                LET m == Head(queue) IN
                                  LET v == IF m.type = "read" THEN (IF r.ok THEN counter ELSE 0) ELSE m.value IN
                                    /\ IF m.type = "write" /\ r.ok
                                          THEN /\ counter' = m.value
                                          ELSE /\ TRUE
                                               /\ UNCHANGED counter
                                    /\ ops' = Append(ops, [op |-> m.type, id |-> m.from, token |-> m.token, ok |-> r.ok,
                                                           value |-> v, lease |-> lease[m.from]])
                                    /\ network' = ((network \ {r}) \cup {ReplyMsg(m.type \o "_reply", m.from, m.token,
                                                                                  IF m.type = "read" THEN v ELSE 0, r.ok)}
                                                   \cup (IF Len(queue) > 1 THEN {CheckMsg(queue[2].token)} ELSE {}))
                                    /\ queue' = Tail(queue)
                     /\ UNCHANGED << max_token, pending >>
                ELSE /\ \/ /\ \E m \in {x \in network : x.to = Resource}:
                                LET ok == Admits(m.type, m.token, max_token) IN
                                  LET v == IF m.type = "read" THEN (IF ok THEN counter ELSE 0) ELSE m.value IN
                                    /\ max_token' = IF ok THEN Raised(m.type, m.token, max_token) ELSE max_token
                                    /\ IF NonAtomic /\ m.type = "write" /\ ok
                                          THEN /\ pending' = Append(pending, [id |-> m.from, token |-> m.token, value |-> m.value,
                                                                              lease |-> lease[m.from]])
                                               /\ network' = network \ {m}
                                               /\ UNCHANGED << counter, ops >>
                                          ELSE /\ IF m.type = "write" /\ ok
                                                     THEN /\ counter' = m.value
                                                     ELSE /\ TRUE
                                                          /\ UNCHANGED counter
                                               /\ ops' = Append(ops, [op |-> m.type, id |-> m.from, token |-> m.token, ok |-> ok,
                                                                      value |-> v, lease |-> lease[m.from]])
                                               /\ network' = ((network \ {m}) \cup {ReplyMsg(m.type \o "_reply", m.from, m.token,
                                                                                             IF m.type = "read" THEN v ELSE 0, ok)})
                                               /\ UNCHANGED pending
                        \/ /\ pending /= <<>>
                           /\ counter' = Head(pending).value
                           /\ ops' = Append(ops, [op |-> "write", id |-> Head(pending).id, token |-> Head(pending).token,
                                                  ok |-> TRUE, value |-> Head(pending).value, lease |-> Head(pending).lease])
                           /\ network' = (network \cup {ReplyMsg("write_reply", Head(pending).id, Head(pending).token, 0, TRUE)})
                           /\ pending' = Tail(pending)
                           /\ UNCHANGED max_token
                     /\ queue' = queue
          /\ pc' = [pc EXCEPT ![Resource] = "Access"]
          /\ UNCHANGED << distLock, timers, lock_held, lease, restarts, 
                          held_at_restart, retries, late, token, read_val, 
                          committed, aborted, last_lease, revision >>

resource == Access

(* Allow infinite stuttering to prevent deadlock on termination. *)
Terminating == /\ \A self \in ProcSet: pc[self] = "Done"
               /\ UNCHANGED vars

Next == service \/ resource
           \/ (\E self \in Clients: client(self))
           \/ Terminating

Spec == /\ Init /\ [][Next]_vars
        /\ \A self \in Clients : WF_vars(client(self))
        /\ WF_vars(service)
        /\ WF_vars(resource)

Termination == <>(\A self \in ProcSet: pc[self] = "Done")

\* END TRANSLATION

-----------------------------------------------------------------------------
(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)

\* Lease numbers handed out so far are 1 .. last_lease; after a volatile
\* restart an old holder may still use a lease above it.
Leases == IF ServiceRestart = "volatile" THEN Nat ELSE 0 .. last_lease

\* The tokens handed out so far are among these.
Tokens ==
    CASE TokenRule \in {"lease", "pairs"} -> Leases
      [] TokenRule \in {"unique", "down"} -> 0 .. Len(UniqueTokens) + 1
      [] TokenRule = "revision"          -> 0 .. revision

\* The operations the resource accepted, in acceptance order.
accepted == SelectSeq(ops, LAMBDA e : e.ok)

MsgTypes == {"acquire", "release", "grant", "reject", "read", "read_reply", "write", "write_reply",
             "check", "check_reply"}
Nodes == Clients \cup {Service, Resource}

TypeInvariant ==
    /\ distLock \in {[status |-> s, id |-> InvalidId, lease |-> 0, token |-> 0] : s \in {"Available", "Expired"}}
                    \cup {[status |-> s, id |-> c, lease |-> l, token |-> TokenOf(l, revision)] :
                              s \in {"Acquired", "Persisting"}, c \in Clients, l \in (0 .. last_lease) \ {0}}
    /\ distLock.status = "Persisting" => ServiceRestart = "durable" /\ PersistTimer \in timers
    /\ \A m \in network :
           /\ m.type \in MsgTypes /\ m.from \in Nodes /\ m.to \in Nodes
           /\ m.lease \in Leases /\ m.token \in Tokens /\ m.value \in Nat /\ m.ok \in BOOLEAN
    /\ timers \subseteq {LeaseTimer, LockDelayTimer, PersistTimer} \cup {Timer(c, k) : c \in Clients, k \in {"validity", "backoff", "think"}}
    /\ lock_held \in [Clients -> BOOLEAN]
    /\ counter \in Nat
    /\ max_token \in Tokens
    /\ \A i \in DOMAIN ops :
           ops[i] \in [op : {"read", "write"}, id : Clients, token : Tokens, ok : BOOLEAN,
                       value : Nat, lease : Leases]
    /\ \A i \in DOMAIN pending :
           pending[i] \in [id : Clients, token : Tokens, value : Nat, lease : Leases]
    /\ NonAtomic \/ pending = <<>>
    /\ restarts \in 0 .. MaxRestarts
    /\ held_at_restart \subseteq Clients
    /\ retries \in [Clients -> 0..MaxRetries]
    /\ late \in [Clients -> BOOLEAN]
    /\ lease \in [Clients -> Leases]
    /\ token \in [Clients -> Tokens]
    /\ read_val \in [Clients -> Nat]
    /\ committed \in [Clients -> 0..Sections]
    /\ aborted \in [Clients -> 0..Sections]
    /\ \A c \in Clients : committed[c] + aborted[c] <= Sections
    /\ last_lease \in Nat
    /\ revision \in Nat

\* No two distinct clients believe at the same time that they hold the lock.
AtMostOneClientHoldLock ==
    ~\E c1, c2 \in Clients :
        /\ c1 /= c2
        /\ lock_held[c1]
        /\ lock_held[c2]

\* A client never acts on a belief past its validity window: a client that
\* believes it holds the lock (and so may send its read or write) has its
\* validity timer pending, whichever rule started it (impl's
\* NoActionPastValidity, a client-side invariant every design keeps).
NoActionPastValidity ==
    \A c \in Clients : lock_held[c] => ValidityTimer(c) \in timers

\* The tokens of the operations the resource accepted never decrease, in
\* acceptance order (within one critical section the token repeats).
TokenIsMonotonical ==
    \A i, j \in DOMAIN accepted : i < j => accepted[i].token <= accepted[j].token

\* The service-side token properties: what the service hands out, whatever
\* the resource does with it (TokenIsMonotonical holds in every row whose
\* resource checks every operation, whatever tokens the service gives, since
\* the resource's own >= check guarantees it).  The tokens in use: each
\* client's while it uses a grant, the service's current grant's, and every
\* accepted operation's (the log remembers a finished client's).  A grant
\* still in flight is in use once it arrives.
TokensInUse ==
    {[id |-> c, token |-> token[c]] : c \in {x \in Clients : lease[x] /= 0}}
    \cup (IF distLock.status = "Acquired" THEN {[id |-> distLock.id, token |-> distLock.token]} ELSE {})
    \cup {[id |-> accepted[i].id, token |-> accepted[i].token] : i \in DOMAIN accepted}

\* No two clients use one token (TokenIsMonotonical's <= lets two grants
\* carry one).  A volatile restart numbers leases from 1 again, so the
\* service hands token 1 out again while an old holder, or the resource's
\* log, still has it; the mutant TokenRule "pairs" gives it twice outright.
TokensAreUnique ==
    \A u1, u2 \in TokensInUse : u1.token = u2.token => u1.id = u2.id

\* The token the service's next grant carries (Go's Service.NextToken).
NextToken == TokenOf(last_lease + 1, Revised(revision))

\* The token the service grants next is larger than every token in use:
\* checked in every state, each grant's token is larger than every earlier
\* grant's still in use, so tokens increase in grant order.  A volatile
\* restart breaks it (the next token is 1 again), and so does the mutant
\* TokenRule "down"; unique unordered tokens do not keep it, by design.
TokensIncreaseInGrantOrder ==
    \A u \in TokensInUse : u.token < NextToken

\* The counter equals the number of writes the resource accepted: no
\* accepted write was computed from a stale read.
NoLostUpdate ==
    LET IsWrite(e) == e.op = "write"
    IN  counter = Len(SelectSeq(accepted, IsWrite))

\* Every client eventually finishes (after its sections, each committed,
\* given up, abandoned or fenced off).  Checked under the weak fairness of
\* the processes above.  Giving up satisfies it: see EveryClientCommits.
AllClientsFinish == <>(\A c \in Clients : pc[c] = "Done")

\* Every client eventually commits every section.  Giving up or abandoning
\* a section does not satisfy it.  It holds under FairSpec's fairness without
\* timeouts and with clients that never give up (Timeouts = GiveUp =
\* FALSE), and is violated when either is allowed.
EveryClientCommits == <>(\A c \in Clients : committed[c] = Sections)

\* A witness, expected VIOLATED: TLC finds a state in which every client has
\* committed every section, so a model in which the properties hold does
\* not hold them vacuously (a resource that refuses everything, or a
\* service that never grants, would make this invariant hold).
NotEveryClientCommits == ~(\A c \in Clients : committed[c] = Sections)

\* A witness, expected VIOLATED where NotEveryClientCommits holds by design
\* (Check "version": only the first written section ever commits): some
\* section commits, so the holds there are not vacuous altogether.
NoSectionCommits == \A c \in Clients : committed[c] = 0

\* A witness, expected VIOLATED in a model of a restarting service expected
\* to hold: a client that held the lock when the service restarted still
\* committed its section, and so did every other client (the explorer's
\* SectionSpansRestart), so a restart does not make the properties hold
\* vacuously by stopping every section.
NoSectionCommitsAcrossRestart ==
    ~(held_at_restart /= {} /\ \A c \in Clients : committed[c] = Sections)

\* Go's untimed world delivers the messages in flight in any order, so the
\* weak fairness of the processes alone lets the service answer a retrying
\* client's acquires forever and never take the holder's release, which
\* is in flight all along: no real network does that.  FairSpec adds the
\* fairness of delivery, each client's acquires and releases to the
\* service kind by kind: a message the service could take all along is
\* eventually taken.  EveryClientCommits is checked under it.
Deliver(c, t) == \E m \in network : m.from = c /\ m.type = t /\ m \notin network'
FairSpec == Spec /\ \A c \in Clients, t \in {"acquire", "release"} : WF_vars(Serve /\ Deliver(c, t))

\* The same system without any fairness: a process may simply stop taking
\* steps, forever.  AllClientsFinish fails under it, which shows that the
\* property is not vacuous and that it rests on the fairness of Spec.
UnfairSpec == Init /\ [][Next]_vars

\* Clients are interchangeable; used by the safety-only models.
Symmetry == Permutations(Clients)
=============================================================================
