------------------------------ MODULE DistLock ------------------------------
(***************************************************************************)
(* A lease-based distributed lock WITHOUT fencing, after "seed 000": the   *)
(* PlusCal model of the Chinese blog post "Distributed lock - part 3"      *)
(* (cited in the README's Sources), which has TLC find two clients that    *)
(* both believe they hold the lock, then adds fencing tokens.              *)
(*                                                                         *)
(* The spec steps like the Go code's untimed world (impl/world.go): ONE    *)
(* SPEC STEP IS ONE STEP OF impl.World, one node handling one input -- a   *)
(* client's start, a message delivered, a timer fired -- and each variable *)
(* is a field of Go's state (package conform's abstraction; DESIGN.md,     *)
(* "Spec actions and the Go steps they stand for", maps every action to    *)
(* its Go step).  So TLC's distinct states equal the explorer's, and a Go  *)
(* run can be checked against the spec step for step (TraceDistLock.tla).  *)
(*                                                                         *)
(* One lock service process owns a single lock.  The messages in flight    *)
(* are a set, network, any of which may be delivered next (the network     *)
(* neither loses nor duplicates, but reorders); a message may stay in      *)
(* flight for any number of steps, and a process may be arbitrarily slow   *)
(* between its steps (a pause).  Timers are pending flags (timers) that    *)
(* fire in their own step; untimed, any pending timer may fire at any      *)
(* moment: the service's lease timer (the TTL: expiry), and each client's  *)
(* validity timer (its belief ends: seed 000's LoseLease), backoff timer   *)
(* and think timer.  The resource, a counter, is a process of its own that *)
(* handles one read or write per step and replies.                         *)
(*                                                                         *)
(* A critical section is Go's: the grant's arrival sends the read; the     *)
(* read's reply (the client still believing) starts the think timer; its   *)
(* firing checks the belief and sends read+1; the write's reply ends the   *)
(* section, which sends the release (naming its lease: the service honours *)
(* it only for the current holder's current lease, compare-and-delete) and *)
(* the next section's acquire.  A client that no longer believes abandons  *)
(* its section without writing.  Nothing protects the resource but the     *)
(* clients' belief, so TLC finds that                                      *)
(*   - two clients can believe they hold the lock (AtMostOneClientHoldLock *)
(*     is violated: c1's grant is in flight while the lease expires and c2 *)
(*     is granted), and                                                    *)
(*   - an update can be lost (NoLostUpdate is violated: both read the same *)
(*     value and both write it + 1).                                       *)
(*                                                                         *)
(* Departures from seed 000, and why:                                      *)
(*   - its deadlock: a rejected client waited forever for a grant that never *)
(*     came, so TLC reported a deadlock unless deadlock checking was turned *)
(*     off.  Here a rejected client backs off and retries, at most         *)
(*     MaxRetries times, and then gives the section up (GiveUp); every model *)
(*     runs with deadlock checking on;                                     *)
(*   - Go's shape: a network set instead of FIFO queues, the resource a    *)
(*     process, the client's labels its phases, beliefs that end by a timer, *)
(*     releases by lease, Sections sections per client.                    *)
(*                                                                         *)
(* Departures from Go, and why: no lock-delay (DistLockTimed.tla has it)   *)
(* and no timer lengths (untimed); FairSpec adds the fairness of delivery  *)
(* that Go's untimed world does not have, for EveryClientCommits.          *)
(*                                                                         *)
(* Renewal (design renewal, Renewals > 0; Redisson's watchdog, etcd's      *)
(* KeepAlive): a holder's renewal timer, set with the grant, sends a       *)
(* renewal of its lease, at most Renewals a section; the service extends   *)
(* the lease (its lease timer set again) only for the holder naming its    *)
(* current lease, and answers either way; a granted answer extends the     *)
(* holder's belief (its validity timer set again), a refused one ends it,  *)
(* and any other answer (another lease, a belief or section already ended) *)
(* changes nothing.  The client's two renewal steps, Renew and Renewed,    *)
(* are actions of their own outside the algorithm (a renewal's answer may  *)
(* reach a client in any phase, Done included), taken by RenewalSpec.      *)
(* Untimed, setting a pending timer again changes nothing, so a renewed    *)
(* lease may still expire at any moment: renewal's verdicts are those      *)
(* without it.  Only the arrival rule is modelled with renewal (Go's send  *)
(* rule gives a renewal a second validity timer).                          *)
(*                                                                         *)
(* Constants that vary the system (not the protocol): Timeouts = FALSE     *)
(* keeps the lease and validity timers from firing (no expiry, no belief   *)
(* loss), and GiveUp = FALSE makes a client past its retry budget ask      *)
(* again instead of giving the section up; together they give the system   *)
(* in which every section must commit (EveryClientCommits).  Validity is   *)
(* when a client's validity window starts: "arrival" (of the grant; the    *)
(* explorer's default and every model's) or "send" (of the acquire; a      *)
(* grant that lands after its window is given back), as Go's rule.         *)
(*                                                                         *)
(* The state space is kept small on purpose (one or two sections per       *)
(* client, a small retry bound); the largest models are marked slow in     *)
(* models.json.                                                            *)
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
    Renewals     \* renewals a holder sends per section (0: it never renews)

ASSUME /\ Service \notin Clients
       /\ Resource \notin Clients \cup {Service}
       /\ InvalidId \notin Clients \cup {Service, Resource}
       /\ Validity \in {"arrival", "send"}
       /\ MaxRetries \in Nat
       /\ Sections \in Nat \ {0}
       /\ Timeouts \in BOOLEAN
       /\ GiveUp \in BOOLEAN
       /\ Renewals \in Nat
       /\ Renewals > 0 => Validity = "arrival"

\* A message, with every field of Go's impl.Message (fields a type does not
\* use are 0 or FALSE, as in Go, so equal messages are equal records).
\* Without fencing a token is always 0, as in Go's design "off".
Msg(type, from, to, l, t, v, ok) ==
    [type |-> type, from |-> from, to |-> to, lease |-> l, token |-> t, value |-> v, ok |-> ok]
AcquireMsg(c)     == Msg("acquire", c, Service, 0, 0, 0, FALSE)
ReleaseMsg(c, l)  == Msg("release", c, Service, l, 0, 0, FALSE)
GrantMsg(c, l)    == Msg("grant", Service, c, l, 0, 0, FALSE)
RejectMsg(c)      == Msg("reject", Service, c, 0, 0, 0, FALSE)
ReadMsg(c, t)     == Msg("read", c, Resource, 0, t, 0, FALSE)
WriteMsg(c, t, v) == Msg("write", c, Resource, 0, t, v, FALSE)
ReplyMsg(type, c, t, v, ok) == Msg(type, Resource, c, 0, t, v, ok)
RenewMsg(c, l)    == Msg("renew", c, Service, l, 0, 0, FALSE)
RenewedMsg(c, l, ok) == Msg("renewed", Service, c, l, 0, 0, ok)

\* A pending timer: its node and its kind (Go's impl.PendingTimer).
Timer(n, k) == [node |-> n, kind |-> k]
LeaseTimer == Timer(Service, "lease")
ValidityTimer(c) == Timer(c, "validity")
BackoffTimer(c) == Timer(c, "backoff")
ThinkTimer(c) == Timer(c, "think")
RenewalTimer(c) == Timer(c, "renew")

\* The renewal timer a grant sets, in a design that renews.
GrantRenewalTimers(c) == IF Renewals > 0 THEN {RenewalTimer(c)} ELSE {}

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
    ELSE IF l # 0 THEN ts \ {ValidityTimer(c), RenewalTimer(c)} ELSE ts

(* --algorithm DistLock {
variables
    \* The lock as the service sees it: "Expired" is kept apart from
    \* "Available" so a trace shows that the TTL, not a release, freed it;
    \* lease is the current grant's number (0 when none).
    distLock = [status |-> "Available", id |-> InvalidId, lease |-> 0],
    \* The messages in flight: any of them may be delivered next.  A set:
    \* a client has at most one acquire or operation outstanding and a
    \* release names its lease, so no two messages in flight are equal.
    network = {},
    \* The pending timers (node, kind); any of them may fire next.
    timers = {},
    \* Whether each client believes it holds the lock (client-local belief).
    lock_held = [c \in Clients |-> FALSE],
    \* The grant each client is using; 0 means none.  Global, as in
    \* DistLockFencing.tla, whose resource reads it.
    lease = [c \in Clients |-> 0],
    \* The shared resource: the counter and every operation it handled, in
    \* order (Go's log).  Without fencing it accepts everything.
    counter = 0,
    ops = <<>>;

\* A section ends (Go's endSection), committed if ok: the client stops
\* believing and forgets its grant.  The caller sends EndMsgs and sets
\* EndTimers first (they read the grant), then goes on to Receive or Done.
macro end_section(ok) {
    if (ok) { committed := committed + 1 } else { aborted := aborted + 1 };
    lock_held[self] := FALSE;
    retries := 0;
    late := FALSE;
    lease[self] := 0;
    read_val := 0;
    renewals := 0;
    renewed := FALSE;
}

\* Weak fairness: a client that can handle an input eventually does.  Its
\* labels are Go's client phases: Acquire (Idle), Receive (Acquiring),
\* Backoff (BackingOff), ReadCounter (Reading), WriteCounter (Thinking),
\* Release (Writing), Done (Finished); each step handles one input.
fair process (client \in Clients)
variables
    retries = 0,       \* rejections answered by asking again in this section
    late = FALSE,      \* send rule: the window ended while acquiring
    read_val = 0,      \* what this client read from the counter
    committed = 0,     \* sections whose write was accepted
    aborted = 0,       \* sections given up, abandoned or fenced off
    renewals = 0,      \* renewals sent in this section
    renewed = FALSE;   \* a renewal granted in this section extended the belief
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
                network := (network \ {m}) \cup {ReadMsg(self, 0)};
                timers := (IF Validity = "arrival" THEN timers \cup {ValidityTimer(self)} ELSE timers)
                          \cup GrantRenewalTimers(self);
                lock_held[self] := TRUE;
                lease[self] := m.lease;
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
        \* A client that no longer believes stops renewing.
        timers := timers \ {ValidityTimer(self), RenewalTimer(self)};
        lock_held[self] := FALSE;
        goto ReadCounter;
    };
\* Thinking: the think timer fires and the client decides: it checks its
\* belief and writes read+1, or abandons the section without writing.
WriteCounter:
    either {
        await ThinkTimer(self) \in timers;
        if (lock_held[self]) {
            network := network \cup {WriteMsg(self, 0, read_val + 1)};
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
        \* A client that no longer believes stops renewing.
        timers := timers \ {ValidityTimer(self), RenewalTimer(self)};
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
        \* A client that no longer believes stops renewing.
        timers := timers \ {ValidityTimer(self), RenewalTimer(self)};
        lock_held[self] := FALSE;
        goto Release;
    };
}

\* The service handles one request per step (a single-threaded server), or
\* its lease timer fires (the TTL: untimed, at any moment while held).
fair process (service = Service)
variables
    last_lease = 0;  \* the highest lease number granted; leases are 1, 2, ...
{
Serve:
    while (TRUE) {
        either {
            with (m \in {x \in network : x.to = Service /\ x.type = "acquire"}) {
                if (distLock.status = "Acquired") {
                    network := (network \ {m}) \cup {RejectMsg(m.from)};
                } else {
                    distLock := [status |-> "Acquired", id |-> m.from, lease |-> last_lease + 1];
                    network := (network \ {m}) \cup {GrantMsg(m.from, last_lease + 1)};
                    timers := timers \cup {LeaseTimer};
                    last_lease := last_lease + 1;
                };
            };
        } or {
            with (m \in {x \in network : x.to = Service /\ x.type = "release"}) {
                network := network \ {m};
                \* Compare-and-delete: a release is honoured only from the
                \* current holder, naming its current lease.
                if (distLock.status = "Acquired" /\ distLock.id = m.from /\ distLock.lease = m.lease) {
                    distLock := [status |-> "Available", id |-> InvalidId, lease |-> 0];
                    timers := timers \ {LeaseTimer};
                };
            };
        } or {
            with (m \in {x \in network : x.to = Service /\ x.type = "renew"}) {
                \* A renewal extends the lease (a fresh TTL: the lease timer
                \* set again) only for the current holder naming its current
                \* lease, as Redisson's renewal script extends the key only
                \* while it holds the client's value; after an expiry or a
                \* release it is refused, never a grant.  Answered either way.
                if (distLock.status = "Acquired" /\ distLock.id = m.from /\ distLock.lease = m.lease) {
                    network := (network \ {m}) \cup {RenewedMsg(m.from, m.lease, TRUE)};
                    timers := timers \cup {LeaseTimer};
                } else {
                    network := (network \ {m}) \cup {RenewedMsg(m.from, m.lease, FALSE)};
                };
            };
        } or {
            await Timeouts /\ LeaseTimer \in timers;
            timers := timers \ {LeaseTimer};
            distLock := [status |-> "Expired", id |-> InvalidId, lease |-> 0];
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

\* The resource handles one operation per step: without fencing it accepts
\* every operation, logs it and replies.
fair process (resource = Resource)
{
Access:
    while (TRUE) {
        with (m \in {x \in network : x.to = Resource},
              v = IF m.type = "read" THEN counter ELSE m.value) {
            if (m.type = "write") { counter := m.value };
            ops := Append(ops, [op |-> m.type, id |-> m.from, token |-> 0, ok |-> TRUE, value |-> v]);
            network := (network \ {m}) \cup {ReplyMsg(m.type \o "_reply", m.from, 0,
                                                      IF m.type = "read" THEN v ELSE 0, TRUE)};
        };
    };
}
} *)
\* BEGIN TRANSLATION (chksum(pcal) = "c244463" /\ chksum(tla) = "382f7850")
VARIABLES distLock, network, timers, lock_held, lease, counter, ops, pc, 
          retries, late, read_val, committed, aborted, renewals, renewed, 
          last_lease

vars == << distLock, network, timers, lock_held, lease, counter, ops, pc, 
           retries, late, read_val, committed, aborted, renewals, renewed, 
           last_lease >>

ProcSet == (Clients) \cup {Service} \cup {Resource}

Init == (* Global variables *)
        /\ distLock = [status |-> "Available", id |-> InvalidId, lease |-> 0]
        /\ network = {}
        /\ timers = {}
        /\ lock_held = [c \in Clients |-> FALSE]
        /\ lease = [c \in Clients |-> 0]
        /\ counter = 0
        /\ ops = <<>>
        (* Process client *)
        /\ retries = [self \in Clients |-> 0]
        /\ late = [self \in Clients |-> FALSE]
        /\ read_val = [self \in Clients |-> 0]
        /\ committed = [self \in Clients |-> 0]
        /\ aborted = [self \in Clients |-> 0]
        /\ renewals = [self \in Clients |-> 0]
        /\ renewed = [self \in Clients |-> FALSE]
        (* Process service *)
        /\ last_lease = 0
        /\ pc = [self \in ProcSet |-> CASE self \in Clients -> "Acquire"
                                        [] self = Service -> "Serve"
                                        [] self = Resource -> "Access"]

Acquire(self) == /\ pc[self] = "Acquire"
                 /\ network' = (network \cup {AcquireMsg(self)})
                 /\ timers' = AcquireTimers(self, timers)
                 /\ pc' = [pc EXCEPT ![self] = "Receive"]
                 /\ UNCHANGED << distLock, lock_held, lease, counter, ops, 
                                 retries, late, read_val, committed, aborted, 
                                 renewals, renewed, last_lease >>

Receive(self) == /\ pc[self] = "Receive"
                 /\ \/ /\ \E m \in {x \in network : x.to = self /\ x.type = "grant"}:
                            IF ~late[self]
                               THEN /\ network' = ((network \ {m}) \cup {ReadMsg(self, 0)})
                                    /\ timers' = (IF Validity = "arrival" THEN timers \cup {ValidityTimer(self)} ELSE timers)
                                                 \cup GrantRenewalTimers(self)
                                    /\ lock_held' = [lock_held EXCEPT ![self] = TRUE]
                                    /\ lease' = [lease EXCEPT ![self] = m.lease]
                                    /\ pc' = [pc EXCEPT ![self] = "ReadCounter"]
                                    /\ UNCHANGED << retries, late, read_val, 
                                                    committed, aborted, 
                                                    renewals, renewed >>
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
                                                               lease, read_val, 
                                                               committed, 
                                                               aborted, 
                                                               renewals, 
                                                               renewed >>
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
                                               /\ read_val' = [read_val EXCEPT ![self] = 0]
                                               /\ renewals' = [renewals EXCEPT ![self] = 0]
                                               /\ renewed' = [renewed EXCEPT ![self] = FALSE]
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
                                                    read_val, committed, 
                                                    aborted, renewals, renewed >>
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
                                    /\ read_val' = [read_val EXCEPT ![self] = 0]
                                    /\ renewals' = [renewals EXCEPT ![self] = 0]
                                    /\ renewed' = [renewed EXCEPT ![self] = FALSE]
                                    /\ IF committed'[self] + aborted'[self] < Sections
                                          THEN /\ pc' = [pc EXCEPT ![self] = "Receive"]
                                          ELSE /\ pc' = [pc EXCEPT ![self] = "Done"]
                    \/ /\ Timeouts /\ ValidityTimer(self) \in timers
                       /\ timers' = timers \ {ValidityTimer(self)}
                       /\ late' = [late EXCEPT ![self] = Validity = "send"]
                       /\ pc' = [pc EXCEPT ![self] = "Receive"]
                       /\ UNCHANGED <<network, lock_held, lease, retries, read_val, committed, aborted, renewals, renewed>>
                 /\ UNCHANGED << distLock, counter, ops, last_lease >>

Backoff(self) == /\ pc[self] = "Backoff"
                 /\ BackoffTimer(self) \in timers
                 /\ network' = (network \cup {AcquireMsg(self)})
                 /\ timers' = AcquireTimers(self, timers \ {BackoffTimer(self)})
                 /\ late' = [late EXCEPT ![self] = FALSE]
                 /\ pc' = [pc EXCEPT ![self] = "Receive"]
                 /\ UNCHANGED << distLock, lock_held, lease, counter, ops, 
                                 retries, read_val, committed, aborted, 
                                 renewals, renewed, last_lease >>

ReadCounter(self) == /\ pc[self] = "ReadCounter"
                     /\ \/ /\ \E m \in {x \in network : x.to = self /\ x.type = "read_reply"}:
                                IF m.ok /\ lock_held[self]
                                   THEN /\ network' = network \ {m}
                                        /\ timers' = (timers \cup {ThinkTimer(self)})
                                        /\ read_val' = [read_val EXCEPT ![self] = m.value]
                                        /\ pc' = [pc EXCEPT ![self] = "WriteCounter"]
                                        /\ UNCHANGED << lock_held, lease, 
                                                        retries, late, 
                                                        committed, aborted, 
                                                        renewals, renewed >>
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
                                        /\ read_val' = [read_val EXCEPT ![self] = 0]
                                        /\ renewals' = [renewals EXCEPT ![self] = 0]
                                        /\ renewed' = [renewed EXCEPT ![self] = FALSE]
                                        /\ IF committed'[self] + aborted'[self] < Sections
                                              THEN /\ pc' = [pc EXCEPT ![self] = "Receive"]
                                              ELSE /\ pc' = [pc EXCEPT ![self] = "Done"]
                        \/ /\ Timeouts /\ ValidityTimer(self) \in timers
                           /\ timers' = timers \ {ValidityTimer(self), RenewalTimer(self)}
                           /\ lock_held' = [lock_held EXCEPT ![self] = FALSE]
                           /\ pc' = [pc EXCEPT ![self] = "ReadCounter"]
                           /\ UNCHANGED <<network, lease, retries, late, read_val, committed, aborted, renewals, renewed>>
                     /\ UNCHANGED << distLock, counter, ops, last_lease >>

WriteCounter(self) == /\ pc[self] = "WriteCounter"
                      /\ \/ /\ ThinkTimer(self) \in timers
                            /\ IF lock_held[self]
                                  THEN /\ network' = (network \cup {WriteMsg(self, 0, read_val[self] + 1)})
                                       /\ timers' = timers \ {ThinkTimer(self)}
                                       /\ pc' = [pc EXCEPT ![self] = "Release"]
                                       /\ UNCHANGED << lock_held, lease, 
                                                       retries, late, read_val, 
                                                       committed, aborted, 
                                                       renewals, renewed >>
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
                                       /\ read_val' = [read_val EXCEPT ![self] = 0]
                                       /\ renewals' = [renewals EXCEPT ![self] = 0]
                                       /\ renewed' = [renewed EXCEPT ![self] = FALSE]
                                       /\ IF committed'[self] + aborted'[self] < Sections
                                             THEN /\ pc' = [pc EXCEPT ![self] = "Receive"]
                                             ELSE /\ pc' = [pc EXCEPT ![self] = "Done"]
                         \/ /\ Timeouts /\ ValidityTimer(self) \in timers
                            /\ timers' = timers \ {ValidityTimer(self), RenewalTimer(self)}
                            /\ lock_held' = [lock_held EXCEPT ![self] = FALSE]
                            /\ pc' = [pc EXCEPT ![self] = "WriteCounter"]
                            /\ UNCHANGED <<network, lease, retries, late, read_val, committed, aborted, renewals, renewed>>
                      /\ UNCHANGED << distLock, counter, ops, last_lease >>

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
                            /\ read_val' = [read_val EXCEPT ![self] = 0]
                            /\ renewals' = [renewals EXCEPT ![self] = 0]
                            /\ renewed' = [renewed EXCEPT ![self] = FALSE]
                            /\ IF committed'[self] + aborted'[self] < Sections
                                  THEN /\ pc' = [pc EXCEPT ![self] = "Receive"]
                                  ELSE /\ pc' = [pc EXCEPT ![self] = "Done"]
                    \/ /\ Timeouts /\ ValidityTimer(self) \in timers
                       /\ timers' = timers \ {ValidityTimer(self), RenewalTimer(self)}
                       /\ lock_held' = [lock_held EXCEPT ![self] = FALSE]
                       /\ pc' = [pc EXCEPT ![self] = "Release"]
                       /\ UNCHANGED <<network, lease, retries, late, read_val, committed, aborted, renewals, renewed>>
                 /\ UNCHANGED << distLock, counter, ops, last_lease >>

client(self) == Acquire(self) \/ Receive(self) \/ Backoff(self)
                   \/ ReadCounter(self) \/ WriteCounter(self)
                   \/ Release(self)

Serve == /\ pc[Service] = "Serve"
         /\ \/ /\ \E m \in {x \in network : x.to = Service /\ x.type = "acquire"}:
                    IF distLock.status = "Acquired"
                       THEN /\ network' = ((network \ {m}) \cup {RejectMsg(m.from)})
                            /\ UNCHANGED << distLock, timers, last_lease >>
                       ELSE /\ distLock' = [status |-> "Acquired", id |-> m.from, lease |-> last_lease + 1]
                            /\ network' = ((network \ {m}) \cup {GrantMsg(m.from, last_lease + 1)})
                            /\ timers' = (timers \cup {LeaseTimer})
                            /\ last_lease' = last_lease + 1
            \/ /\ \E m \in {x \in network : x.to = Service /\ x.type = "release"}:
                    /\ network' = network \ {m}
                    /\ IF distLock.status = "Acquired" /\ distLock.id = m.from /\ distLock.lease = m.lease
                          THEN /\ distLock' = [status |-> "Available", id |-> InvalidId, lease |-> 0]
                               /\ timers' = timers \ {LeaseTimer}
                          ELSE /\ TRUE
                               /\ UNCHANGED << distLock, timers >>
               /\ UNCHANGED last_lease
            \/ /\ \E m \in {x \in network : x.to = Service /\ x.type = "renew"}:
                    IF distLock.status = "Acquired" /\ distLock.id = m.from /\ distLock.lease = m.lease
                       THEN /\ network' = ((network \ {m}) \cup {RenewedMsg(m.from, m.lease, TRUE)})
                            /\ timers' = (timers \cup {LeaseTimer})
                       ELSE /\ network' = ((network \ {m}) \cup {RenewedMsg(m.from, m.lease, FALSE)})
                            /\ UNCHANGED timers
               /\ UNCHANGED <<distLock, last_lease>>
            \/ /\ Timeouts /\ LeaseTimer \in timers
               /\ timers' = timers \ {LeaseTimer}
               /\ distLock' = [status |-> "Expired", id |-> InvalidId, lease |-> 0]
               /\ UNCHANGED <<network, last_lease>>
            \/ /\ /\ \A c \in Clients : pc[c] = "Done"
                  /\ network = {}
                  /\ timers = {}
               /\ TRUE
               /\ UNCHANGED <<distLock, network, timers, last_lease>>
         /\ pc' = [pc EXCEPT ![Service] = "Serve"]
         /\ UNCHANGED << lock_held, lease, counter, ops, retries, late, 
                         read_val, committed, aborted, renewals, renewed >>

service == Serve

Access == /\ pc[Resource] = "Access"
          /\ \E m \in {x \in network : x.to = Resource}:
               LET v == IF m.type = "read" THEN counter ELSE m.value IN
                 /\ IF m.type = "write"
                       THEN /\ counter' = m.value
                       ELSE /\ TRUE
                            /\ UNCHANGED counter
                 /\ ops' = Append(ops, [op |-> m.type, id |-> m.from, token |-> 0, ok |-> TRUE, value |-> v])
                 /\ network' = ((network \ {m}) \cup {ReplyMsg(m.type \o "_reply", m.from, 0,
                                                               IF m.type = "read" THEN v ELSE 0, TRUE)})
          /\ pc' = [pc EXCEPT ![Resource] = "Access"]
          /\ UNCHANGED << distLock, timers, lock_held, lease, retries, late, 
                          read_val, committed, aborted, renewals, renewed, 
                          last_lease >>

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

Leases == 0 .. last_lease

\* The writes the resource accepted (without fencing, every write).
writes == Len(SelectSeq(ops, LAMBDA e : e.op = "write" /\ e.ok))

MsgTypes == {"acquire", "release", "grant", "reject", "read", "read_reply", "write", "write_reply", "renew", "renewed"}
Nodes == Clients \cup {Service, Resource}

TypeInvariant ==
    /\ distLock \in {[status |-> s, id |-> InvalidId, lease |-> 0] : s \in {"Available", "Expired"}}
                    \cup {[status |-> "Acquired", id |-> c, lease |-> l] : c \in Clients, l \in Leases \ {0}}
    /\ \A m \in network :
           /\ m.type \in MsgTypes /\ m.from \in Nodes /\ m.to \in Nodes
           /\ m.lease \in Leases /\ m.token = 0 /\ m.value \in Nat /\ m.ok \in BOOLEAN
    /\ timers \subseteq {LeaseTimer} \cup {Timer(c, k) : c \in Clients, k \in {"validity", "backoff", "think", "renew"}}
    /\ lock_held \in [Clients -> BOOLEAN]
    /\ counter \in Nat
    /\ \A i \in DOMAIN ops :
           ops[i] \in [op : {"read", "write"}, id : Clients, token : {0}, ok : {TRUE}, value : Nat]
    /\ retries \in [Clients -> 0..MaxRetries]
    /\ late \in [Clients -> BOOLEAN]
    /\ lease \in [Clients -> Leases]
    /\ read_val \in [Clients -> Nat]
    /\ committed \in [Clients -> 0..Sections]
    /\ aborted \in [Clients -> 0..Sections]
    /\ \A c \in Clients : committed[c] + aborted[c] <= Sections
    /\ renewals \in [Clients -> 0..Renewals]
    /\ renewed \in [Clients -> BOOLEAN]
    /\ last_lease \in Nat

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

\* Every accepted write incremented the counter: no critical section wrote a
\* value computed from a stale read.
NoLostUpdate == counter = writes

\* Every client eventually finishes (after its sections, each committed,
\* given up or abandoned).  Checked under the weak fairness of the processes
\* above.  Giving up satisfies it: see EveryClientCommits.
AllClientsFinish == <>(\A c \in Clients : pc[c] = "Done")

\* Every client eventually commits every section.  Giving up or abandoning
\* a section does not satisfy it.  It holds under FairSpec's fairness without
\* timeouts and with clients that never give up (Timeouts = GiveUp =
\* FALSE), and is violated when either is allowed.
EveryClientCommits == <>(\A c \in Clients : committed[c] = Sections)

\* A witness, expected VIOLATED: TLC finds a state in which every client has
\* committed every section, so a model in which the properties hold does
\* not hold them vacuously (a service that never grants, or a client that
\* never writes, would make this invariant hold).
NotEveryClientCommits == ~(\A c \in Clients : committed[c] = Sections)

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
-----------------------------------------------------------------------------
(***************************************************************************)
(* Renewal (Renewals > 0): the client's two renewal steps, each one step   *)
(* of Go's client (impl/client.go: its TimerRenew and MsgRenewed), outside *)
(* the algorithm because a renewal's answer may reach the client in any    *)
(* phase, Done included.  With Renewals = 0 neither is ever enabled.       *)
(***************************************************************************)
\* The renewal timer fires: believing, and within its budget, the client
\* sends a renewal of its lease (the next timer is set by a granted answer).
Renew(self) ==
    /\ RenewalTimer(self) \in timers
    /\ timers' = timers \ {RenewalTimer(self)}
    /\ IF lock_held[self] /\ renewals[self] < Renewals
       THEN /\ network' = network \cup {RenewMsg(self, lease[self])}
            /\ renewals' = [renewals EXCEPT ![self] = @ + 1]
       ELSE UNCHANGED << network, renewals >>
    /\ UNCHANGED << distLock, lock_held, lease, counter, ops, pc, retries, late,
                    read_val, committed, aborted, renewed, last_lease >>

\* The service's answer to a renewal arrives.  Only an answer for the lease
\* the client still believes in counts: granted, the belief goes on (the
\* validity timer set again; untimed, a pending timer stays as it is) and,
\* within the budget, the next renewal is timed; refused, the lease is gone
\* and the belief ends.  Any other answer is dropped.
Renewed(self) ==
    \E m \in {x \in network : x.to = self /\ x.type = "renewed"} :
        /\ network' = network \ {m}
        /\ IF lock_held[self] /\ m.lease = lease[self]
           THEN IF m.ok
                THEN /\ timers' = timers \cup {ValidityTimer(self)}
                                 \cup (IF renewals[self] < Renewals THEN {RenewalTimer(self)} ELSE {})
                     /\ renewed' = [renewed EXCEPT ![self] = TRUE]
                     /\ UNCHANGED lock_held
                ELSE /\ timers' = timers \ {RenewalTimer(self)}
                     /\ lock_held' = [lock_held EXCEPT ![self] = FALSE]
                     /\ UNCHANGED renewed
           ELSE UNCHANGED << timers, lock_held, renewed >>
        /\ UNCHANGED << distLock, lease, counter, ops, pc, retries, late, read_val,
                        committed, aborted, renewals, last_lease >>

RenewalNext == \E c \in Clients : Renew(c) \/ Renewed(c)
\* The spec of the renewing models: the algorithm's steps and the client's
\* renewal steps (safety only: no fairness).
RenewalSpec == Init /\ [][Next \/ RenewalNext]_vars

\* A witness of the renewing models, expected VIOLATED: a client whose
\* belief a granted renewal extended is told its section's write was
\* accepted (the explorer's SectionCommitsAfterRenewal).  A service that
\* refuses every renewal would make it hold.
NoSectionCommitsAfterRenewal ==
    ~\E c \in Clients :
        /\ renewed[c]
        /\ pc[c] = "Release"
        /\ \E m \in network : m.to = c /\ m.type = "write_reply" /\ m.ok
=============================================================================
