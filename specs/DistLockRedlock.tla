--------------------------- MODULE DistLockRedlock ---------------------------
(***************************************************************************)
(* Redlock (the Redis documentation's distributed lock; Kleppmann, "How to *)
(* do distributed locking", 2016; antirez, "Is Redlock safe?"; cited in    *)
(* the README's Sources): the lock is N independent lock nodes, Redis      *)
(* masters that share nothing.  A client sets its own unique value on      *)
(* every node (SET key value NX PX ttl), waits for every answer, and holds *)
(* the lock if a majority granted and its validity window is still open;  *)
(* otherwise it releases on every node and backs off.  Its release goes to *)
(* every node, and a node deletes the key only if the value matches.  A   *)
(* node's key expires by the node's own clock (untimed: at any moment,     *)
(* the clock jump of Kleppmann's first counterexample), and a node may     *)
(* crash and restart without persistence, forgetting its key (his second). *)
(*                                                                         *)
(* Fencing is the constant Fencing:                                        *)
(*   "none"   the resource accepts every operation (row redlock);          *)
(*   "unique" antirez's proposal: the client's value is its token, and the *)
(*            resource checks it with check-and-set — a read sets the      *)
(*            resource's current token, a write is accepted only with it   *)
(*            (row redlock-unique, the resource of row unique-cas).        *)
(*                                                                         *)
(* What TLC shows: AtMostOneClientHoldLock is violated in both rows (a    *)
(* node lets a key go early, or forgets it, and a second client wins a     *)
(* majority); NoLostUpdate is violated without fencing and holds with the  *)
(* unique values checked by check-and-set.  The rows' models take the     *)
(* send rule (Validity "send": the window starts at the acquire's send,   *)
(* and a majority whose last answer comes after it closed is given back), *)
(* so that NoActionPastValidity — no client acts on a belief past its     *)
(* window — has teeth: the test-only mutant LateMajority violates it.     *)
(* Without the faults (no timer fires, no restart) Redlock's majority     *)
(* keeps AtMostOneClientHoldLock, and the mutant Quorum "half" does not.  *)
(*                                                                         *)
(* The model steps like impl.World with a Redlock row's system (DESIGN.md, *)
(* "Spec actions and the Go steps they stand for"): one spec step is one   *)
(* Go step — a node handling one input — the messages in flight a set,    *)
(* the timers a set of (node, kind), the resource a process, each lock     *)
(* node a process, the restart (at most MaxRestarts in a run, while some   *)
(* client has not finished: impl.UntimedRestarts) a step of the node that  *)
(* restarts.  A value is <<client, section, attempt>>, unique by           *)
(* construction as Go's (impl/redlock.go); NoValue stands for Go's 0.      *)
(* Because the steps are Go's, TLC's distinct states equal the explorer's  *)
(* (fencelab explore --design redlock --nodes 3 --retries 0: the explorer  *)
(* counts the restart count and who held the lock at a restart, as         *)
(* restarts and held_at_restart here).                                     *)
(*                                                                         *)
(* The client's protocol and the resource follow DistLockFencing.tla's    *)
(* labels (Acquire, Receive, Backoff, ReadCounter, WriteCounter, Release,  *)
(* Done); what differs is what a Redlock row changes: the answers counted  *)
(* to a majority, the value, the releases to every node, and N nodes.     *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets, TLC

CONSTANTS
    Clients,     \* the client processes (model values; symmetric)
    LockNodes,   \* the independent lock nodes (model values); N = their number
    Resource,    \* the shared resource process (a model value)
    InvalidId,   \* the holder id of a key nobody holds (a model value)
    NoValue,     \* no value, no token (Go's 0; a model value)
    Validity,    \* when a client's validity window starts: "arrival" or "send"
    MaxRetries,  \* how many failed acquires a client answers by asking again in a section
    Sections,    \* how many critical sections each client runs
    Timeouts,    \* TRUE: lease and validity timers may fire
    GiveUp,      \* TRUE: past MaxRetries a client gives the section up
    MaxRestarts, \* how many node restarts a run may have (Go: impl.UntimedRestarts)
    Fencing,     \* "none" (row redlock) or "unique" (row redlock-unique)
    \* Test-only mutant clients (no design has them; the rows' variant
    \* models show that a verdict flips): Quorum "half" counts N \div 2
    \* grants a majority (Go's is "majority", N \div 2 + 1); LateMajority
    \* TRUE holds on a majority whose answers came after the client's
    \* validity window closed (Go's client gives it back).
    Quorum,
    LateMajority

ASSUME /\ LockNodes # {}
       /\ LockNodes \cap Clients = {}
       /\ Resource \notin Clients \cup LockNodes
       /\ InvalidId \notin Clients \cup LockNodes \cup {Resource}
       /\ Validity \in {"arrival", "send"}
       /\ MaxRetries \in Nat
       /\ Sections \in Nat \ {0}
       /\ Timeouts \in BOOLEAN
       /\ GiveUp \in BOOLEAN
       /\ MaxRestarts \in Nat
       /\ Fencing \in {"none", "unique"}
       /\ Quorum \in {"majority", "half"}
       /\ LateMajority \in BOOLEAN

N == Cardinality(LockNodes)
Majority == IF Quorum = "majority" THEN N \div 2 + 1 ELSE N \div 2

\* Whether a client that counted g grants on its last answer, late when
\* its window closed while it acquired (send rule), holds the lock:
\* Redlock's rule, a majority and the window still open.
Wins(g, l) == g >= Majority /\ (~l \/ LateMajority)

\* A message, with every field of Go's impl.Message (fields a type does not
\* use are NoValue, 0 or FALSE, as Go's are 0).
Msg(type, from, to, l, t, v, ok) ==
    [type |-> type, from |-> from, to |-> to, lease |-> l, token |-> t, value |-> v, ok |-> ok]
AcquireMsg(c, n, val) == Msg("acquire", c, n, val, NoValue, 0, FALSE)
ReleaseMsg(c, n, val) == Msg("release", c, n, val, NoValue, 0, FALSE)
GrantMsg(n, c, val)   == Msg("grant", n, c, val, NoValue, 0, FALSE)
RejectMsg(n, c)       == Msg("reject", n, c, NoValue, NoValue, 0, FALSE)
ReadMsg(c, t)         == Msg("read", c, Resource, NoValue, t, 0, FALSE)
WriteMsg(c, t, v)     == Msg("write", c, Resource, NoValue, t, v, FALSE)
ReplyMsg(type, c, t, v, ok) == Msg(type, Resource, c, NoValue, t, v, ok)

\* SET key value NX PX ttl on every node, and the release on every node.
AcquireAll(c, val) == {AcquireMsg(c, n, val) : n \in LockNodes}
ReleaseAll(c, val) == {ReleaseMsg(c, n, val) : n \in LockNodes}

\* The value of client c's attempt r of its section s (both from 0).
Value(c, s, r) == <<c, s, r>>

\* A pending timer: its node and its kind (Go's impl.PendingTimer).
Timer(n, k) == [node |-> n, kind |-> k]
LeaseTimer(n) == Timer(n, "lease")
ValidityTimer(c) == Timer(c, "validity")
BackoffTimer(c) == Timer(c, "backoff")
ThinkTimer(c) == Timer(c, "think")

\* A node's key: none (never set, released, or forgotten) or expired.
Free == [status |-> "Available", id |-> InvalidId, value |-> NoValue]
Gone == [status |-> "Expired", id |-> InvalidId, value |-> NoValue]

\* The timers after a client sends its acquires (Go's acquire): under the
\* send rule the validity window starts now.
AcquireTimers(c, ts) == IF Validity = "send" THEN ts \cup {ValidityTimer(c)} ELSE ts

\* What a client sends when its section ends (Go's endSection): the
\* release of the value it held, if any, on every node, and the acquires of
\* its next section, if the section that ends (ended counts it) is not its
\* last.
EndMsgs(c, l, ended) ==
    (IF l = NoValue THEN {} ELSE ReleaseAll(c, l))
    \cup (IF ended < Sections THEN AcquireAll(c, Value(c, ended, 0)) ELSE {})

\* The timers after a section ends (Go's endSection), as DistLockFencing's.
EndTimers(c, l, ended, ts) ==
    IF Validity = "send"
    THEN IF ended < Sections THEN ts \cup {ValidityTimer(c)} ELSE ts \ {ValidityTimer(c)}
    ELSE IF l # NoValue THEN ts \ {ValidityTimer(c)} ELSE ts

(* --algorithm DistLockRedlock {
variables
    \* Each node's key: who holds it under which value.
    locks = [n \in LockNodes |-> Free],
    \* The messages in flight: any of them may be delivered next.
    network = {},
    \* The pending timers (node, kind); any of them may fire next.
    timers = {},
    \* Whether each client believes it holds the lock (client-local belief).
    lock_held = [c \in Clients |-> FALSE],
    \* The shared resource: the counter, the current token of its
    \* check-and-set ("unique"; NoValue before the first read), and every
    \* operation it handled, in order (Go's log).
    counter = 0,
    cas_token = NoValue,
    ops = <<>>,
    \* The node restarts so far, and the clients that believed they held
    \* the lock at one (Go's World.Restarts and HeldAtRestart).
    restarts = 0,
    held_at_restart = {};

\* A section ends (Go's endSection), committed if ok.  The caller sends
\* EndMsgs and sets EndTimers first (they read the value held).
macro end_section(ok) {
    if (ok) { committed := committed + 1 } else { aborted := aborted + 1 };
    lock_held[self] := FALSE;
    retries := 0;
    late := FALSE;
    lease := NoValue;
    token := NoValue;
    read_val := 0;
}

fair process (client \in Clients)
variables
    retries = 0,       \* failed acquires answered by asking again in this section
    late = FALSE,      \* send rule: the window ended while acquiring
    lease = NoValue,   \* the value it holds the lock under
    token = NoValue,   \* its token at the resource ("unique": the value)
    read_val = 0,      \* what this client read from the counter
    committed = 0,     \* sections whose write was accepted
    aborted = 0,       \* sections given up, abandoned or fenced off
    answers = 0,       \* the answers to its acquires in flight so far
    grants = 0;        \* the grants among them
{
\* The runtime starts the client: it asks every node.
Acquire:
    network := network \cup AcquireAll(self, Value(self, 0, 0));
    timers := AcquireTimers(self, timers);
\* Acquiring: a node answers; on the last answer the client decides.  Or
\* (send rule) its window ends first.
Receive:
    either {
        with (m \in {x \in network : x.to = self /\ x.type \in {"grant", "reject"}},
              g = grants + (IF m.type = "grant" THEN 1 ELSE 0),
              v = Value(self, committed + aborted, retries)) {
            if (answers + 1 < N) {
                network := network \ {m};
                answers := answers + 1;
                grants := g;
                goto Receive;
            } else if (Wins(g, late)) {
                \* A majority, in time: it holds the lock; the read is sent.
                with (t = IF Fencing = "unique" THEN v ELSE NoValue) {
                    network := (network \ {m}) \cup {ReadMsg(self, t)};
                    timers := IF Validity = "arrival" THEN timers \cup {ValidityTimer(self)} ELSE timers;
                    lock_held[self] := TRUE;
                    lease := v;
                    token := t;
                    answers := 0;
                    grants := 0;
                    goto ReadCounter;
                };
            } else if (retries < MaxRetries \/ ~GiveUp) {
                \* No majority, or too late: release on every node, back off.
                network := (network \ {m}) \cup ReleaseAll(self, v);
                timers := (IF Validity = "send" THEN timers \ {ValidityTimer(self)} ELSE timers)
                          \cup {BackoffTimer(self)};
                if (retries < MaxRetries) { retries := retries + 1 };
                answers := 0;
                grants := 0;
                goto Backoff;
            } else {
                \* ... or, past MaxRetries, give the section up.
                network := (network \ {m}) \cup ReleaseAll(self, v)
                           \cup EndMsgs(self, NoValue, committed + aborted + 1);
                timers := EndTimers(self, NoValue, committed + aborted + 1, timers);
                end_section(FALSE);
                answers := 0;
                grants := 0;
                if (committed + aborted < Sections) { goto Receive } else { goto Done };
            };
        };
    } or {
        await Timeouts /\ ValidityTimer(self) \in timers;
        timers := timers \ {ValidityTimer(self)};
        late := Validity = "send";
        goto Receive;
    };
\* BackingOff: the backoff timer fires and the client asks every node again.
Backoff:
    await BackoffTimer(self) \in timers;
    network := network \cup AcquireAll(self, Value(self, committed + aborted, retries));
    timers := AcquireTimers(self, timers \ {BackoffTimer(self)});
    late := FALSE;
    goto Receive;
\* Reading: the read's reply arrives; or its validity timer fires.
ReadCounter:
    either {
        with (m \in {x \in network : x.to = self /\ x.type = "read_reply"}) {
            if (m.ok /\ lock_held[self]) {
                network := network \ {m};
                timers := timers \cup {ThinkTimer(self)};
                read_val := m.value;
                goto WriteCounter;
            } else {
                network := (network \ {m}) \cup EndMsgs(self, lease, committed + aborted + 1);
                timers := EndTimers(self, lease, committed + aborted + 1, timers);
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
\* Thinking: the think timer fires; it checks its belief and writes read+1,
\* or abandons the section without writing.
WriteCounter:
    either {
        await ThinkTimer(self) \in timers;
        if (lock_held[self]) {
            network := network \cup {WriteMsg(self, token, read_val + 1)};
            timers := timers \ {ThinkTimer(self)};
            goto Release;
        } else {
            network := network \cup EndMsgs(self, lease, committed + aborted + 1);
            timers := EndTimers(self, lease, committed + aborted + 1, timers \ {ThinkTimer(self)});
            end_section(FALSE);
            if (committed + aborted < Sections) { goto Receive } else { goto Done };
        };
    } or {
        await Timeouts /\ ValidityTimer(self) \in timers;
        timers := timers \ {ValidityTimer(self)};
        lock_held[self] := FALSE;
        goto WriteCounter;
    };
\* Writing: the write's reply arrives; release on every node and ask for
\* the next section's lock.  Or the validity timer fires.
Release:
    either {
        with (m \in {x \in network : x.to = self /\ x.type = "write_reply"}) {
            network := (network \ {m}) \cup EndMsgs(self, lease, committed + aborted + 1);
            timers := EndTimers(self, lease, committed + aborted + 1, timers);
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

\* A lock node (a Redis master) handles one request per step, or its key's
\* lease timer fires (its own clock: untimed, at any moment), or it
\* crashes and restarts without persistence.
fair process (node \in LockNodes)
{
Serve:
    while (TRUE) {
        either {
            with (m \in {x \in network : x.to = self /\ x.type = "acquire"}) {
                if (locks[self].status = "Acquired") {
                    network := (network \ {m}) \cup {RejectMsg(self, m.from)};
                } else {
                    \* SET NX: the key did not exist; it holds the value.
                    locks[self] := [status |-> "Acquired", id |-> m.from, value |-> m.lease];
                    network := (network \ {m}) \cup {GrantMsg(self, m.from, m.lease)};
                    timers := timers \cup {LeaseTimer(self)};
                };
            };
        } or {
            with (m \in {x \in network : x.to = self /\ x.type = "release"}) {
                network := network \ {m};
                \* Delete only if the value matches.
                if (locks[self].status = "Acquired" /\ locks[self].id = m.from /\ locks[self].value = m.lease) {
                    locks[self] := Free;
                    timers := timers \ {LeaseTimer(self)};
                };
            };
        } or {
            await Timeouts /\ LeaseTimer(self) \in timers;
            timers := timers \ {LeaseTimer(self)};
            locks[self] := Gone;
        } or {
            \* Crash and restart without persistence (no fsync): the key is
            \* gone.  Go's World restarts a node at most MaxRestarts times,
            \* and only while some client has not finished.
            await restarts < MaxRestarts /\ \E c \in Clients : pc[c] # "Done";
            locks[self] := Free;
            timers := timers \ {LeaseTimer(self)};
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

\* The resource handles one operation per step: the check, the counter,
\* its log, and the reply.
fair process (resource = Resource)
{
Access:
    while (TRUE) {
        with (m \in {x \in network : x.to = Resource},
              ok = (Fencing = "unique" /\ m.type = "write") => m.token = cas_token,
              v = IF m.type = "read" THEN counter ELSE m.value) {
            cas_token := IF Fencing = "unique" /\ m.type = "read" THEN m.token ELSE cas_token;
            if (m.type = "write" /\ ok) { counter := m.value };
            ops := Append(ops, [op |-> m.type, id |-> m.from, token |-> m.token, ok |-> ok, value |-> v]);
            network := (network \ {m}) \cup {ReplyMsg(m.type \o "_reply", m.from, m.token,
                                                      IF m.type = "read" THEN v ELSE 0, ok)};
        };
    };
}
} *)
\* BEGIN TRANSLATION
VARIABLES locks, network, timers, lock_held, counter, cas_token, ops, 
          restarts, held_at_restart, pc, retries, late, lease, token, 
          read_val, committed, aborted, answers, grants

vars == << locks, network, timers, lock_held, counter, cas_token, ops, 
           restarts, held_at_restart, pc, retries, late, lease, token, 
           read_val, committed, aborted, answers, grants >>

ProcSet == (Clients) \cup (LockNodes) \cup {Resource}

Init == (* Global variables *)
        /\ locks = [n \in LockNodes |-> Free]
        /\ network = {}
        /\ timers = {}
        /\ lock_held = [c \in Clients |-> FALSE]
        /\ counter = 0
        /\ cas_token = NoValue
        /\ ops = <<>>
        /\ restarts = 0
        /\ held_at_restart = {}
        (* Process client *)
        /\ retries = [self \in Clients |-> 0]
        /\ late = [self \in Clients |-> FALSE]
        /\ lease = [self \in Clients |-> NoValue]
        /\ token = [self \in Clients |-> NoValue]
        /\ read_val = [self \in Clients |-> 0]
        /\ committed = [self \in Clients |-> 0]
        /\ aborted = [self \in Clients |-> 0]
        /\ answers = [self \in Clients |-> 0]
        /\ grants = [self \in Clients |-> 0]
        /\ pc = [self \in ProcSet |-> CASE self \in Clients -> "Acquire"
                                        [] self \in LockNodes -> "Serve"
                                        [] self = Resource -> "Access"]

Acquire(self) == /\ pc[self] = "Acquire"
                 /\ network' = (network \cup AcquireAll(self, Value(self, 0, 0)))
                 /\ timers' = AcquireTimers(self, timers)
                 /\ pc' = [pc EXCEPT ![self] = "Receive"]
                 /\ UNCHANGED << locks, lock_held, counter, cas_token, ops, 
                                 restarts, held_at_restart, retries, late, 
                                 lease, token, read_val, committed, aborted, 
                                 answers, grants >>

Receive(self) == /\ pc[self] = "Receive"
                 /\ \/ /\ \E m \in {x \in network : x.to = self /\ x.type \in {"grant", "reject"}}:
                            LET g == grants[self] + (IF m.type = "grant" THEN 1 ELSE 0) IN
                              LET v == Value(self, committed[self] + aborted[self], retries[self]) IN
                                IF answers[self] + 1 < N
                                   THEN /\ network' = network \ {m}
                                        /\ answers' = [answers EXCEPT ![self] = answers[self] + 1]
                                        /\ grants' = [grants EXCEPT ![self] = g]
                                        /\ pc' = [pc EXCEPT ![self] = "Receive"]
                                        /\ UNCHANGED << timers, lock_held, 
                                                        retries, late, lease, 
                                                        token, read_val, 
                                                        committed, aborted >>
                                   ELSE /\ IF Wins(g, late[self])
                                              THEN /\ LET t == IF Fencing = "unique" THEN v ELSE NoValue IN
                                                        /\ network' = ((network \ {m}) \cup {ReadMsg(self, t)})
                                                        /\ timers' = (IF Validity = "arrival" THEN timers \cup {ValidityTimer(self)} ELSE timers)
                                                        /\ lock_held' = [lock_held EXCEPT ![self] = TRUE]
                                                        /\ lease' = [lease EXCEPT ![self] = v]
                                                        /\ token' = [token EXCEPT ![self] = t]
                                                        /\ answers' = [answers EXCEPT ![self] = 0]
                                                        /\ grants' = [grants EXCEPT ![self] = 0]
                                                        /\ pc' = [pc EXCEPT ![self] = "ReadCounter"]
                                                   /\ UNCHANGED << retries, 
                                                                   late, 
                                                                   read_val, 
                                                                   committed, 
                                                                   aborted >>
                                              ELSE /\ IF retries[self] < MaxRetries \/ ~GiveUp
                                                         THEN /\ network' = ((network \ {m}) \cup ReleaseAll(self, v))
                                                              /\ timers' = (IF Validity = "send" THEN timers \ {ValidityTimer(self)} ELSE timers)
                                                                           \cup {BackoffTimer(self)}
                                                              /\ IF retries[self] < MaxRetries
                                                                    THEN /\ retries' = [retries EXCEPT ![self] = retries[self] + 1]
                                                                    ELSE /\ TRUE
                                                                         /\ UNCHANGED retries
                                                              /\ answers' = [answers EXCEPT ![self] = 0]
                                                              /\ grants' = [grants EXCEPT ![self] = 0]
                                                              /\ pc' = [pc EXCEPT ![self] = "Backoff"]
                                                              /\ UNCHANGED << lock_held, 
                                                                              late, 
                                                                              lease, 
                                                                              token, 
                                                                              read_val, 
                                                                              committed, 
                                                                              aborted >>
                                                         ELSE /\ network' = ((network \ {m}) \cup ReleaseAll(self, v)
                                                                             \cup EndMsgs(self, NoValue, committed[self] + aborted[self] + 1))
                                                              /\ timers' = EndTimers(self, NoValue, committed[self] + aborted[self] + 1, timers)
                                                              /\ IF FALSE
                                                                    THEN /\ committed' = [committed EXCEPT ![self] = committed[self] + 1]
                                                                         /\ UNCHANGED aborted
                                                                    ELSE /\ aborted' = [aborted EXCEPT ![self] = aborted[self] + 1]
                                                                         /\ UNCHANGED committed
                                                              /\ lock_held' = [lock_held EXCEPT ![self] = FALSE]
                                                              /\ retries' = [retries EXCEPT ![self] = 0]
                                                              /\ late' = [late EXCEPT ![self] = FALSE]
                                                              /\ lease' = [lease EXCEPT ![self] = NoValue]
                                                              /\ token' = [token EXCEPT ![self] = NoValue]
                                                              /\ read_val' = [read_val EXCEPT ![self] = 0]
                                                              /\ answers' = [answers EXCEPT ![self] = 0]
                                                              /\ grants' = [grants EXCEPT ![self] = 0]
                                                              /\ IF committed'[self] + aborted'[self] < Sections
                                                                    THEN /\ pc' = [pc EXCEPT ![self] = "Receive"]
                                                                    ELSE /\ pc' = [pc EXCEPT ![self] = "Done"]
                    \/ /\ Timeouts /\ ValidityTimer(self) \in timers
                       /\ timers' = timers \ {ValidityTimer(self)}
                       /\ late' = [late EXCEPT ![self] = Validity = "send"]
                       /\ pc' = [pc EXCEPT ![self] = "Receive"]
                       /\ UNCHANGED <<network, lock_held, retries, lease, token, read_val, committed, aborted, answers, grants>>
                 /\ UNCHANGED << locks, counter, cas_token, ops, restarts, 
                                 held_at_restart >>

Backoff(self) == /\ pc[self] = "Backoff"
                 /\ BackoffTimer(self) \in timers
                 /\ network' = (network \cup AcquireAll(self, Value(self, committed[self] + aborted[self], retries[self])))
                 /\ timers' = AcquireTimers(self, timers \ {BackoffTimer(self)})
                 /\ late' = [late EXCEPT ![self] = FALSE]
                 /\ pc' = [pc EXCEPT ![self] = "Receive"]
                 /\ UNCHANGED << locks, lock_held, counter, cas_token, ops, 
                                 restarts, held_at_restart, retries, lease, 
                                 token, read_val, committed, aborted, answers, 
                                 grants >>

ReadCounter(self) == /\ pc[self] = "ReadCounter"
                     /\ \/ /\ \E m \in {x \in network : x.to = self /\ x.type = "read_reply"}:
                                IF m.ok /\ lock_held[self]
                                   THEN /\ network' = network \ {m}
                                        /\ timers' = (timers \cup {ThinkTimer(self)})
                                        /\ read_val' = [read_val EXCEPT ![self] = m.value]
                                        /\ pc' = [pc EXCEPT ![self] = "WriteCounter"]
                                        /\ UNCHANGED << lock_held, retries, 
                                                        late, lease, token, 
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
                                        /\ lease' = [lease EXCEPT ![self] = NoValue]
                                        /\ token' = [token EXCEPT ![self] = NoValue]
                                        /\ read_val' = [read_val EXCEPT ![self] = 0]
                                        /\ IF committed'[self] + aborted'[self] < Sections
                                              THEN /\ pc' = [pc EXCEPT ![self] = "Receive"]
                                              ELSE /\ pc' = [pc EXCEPT ![self] = "Done"]
                        \/ /\ Timeouts /\ ValidityTimer(self) \in timers
                           /\ timers' = timers \ {ValidityTimer(self)}
                           /\ lock_held' = [lock_held EXCEPT ![self] = FALSE]
                           /\ pc' = [pc EXCEPT ![self] = "ReadCounter"]
                           /\ UNCHANGED <<network, retries, late, lease, token, read_val, committed, aborted>>
                     /\ UNCHANGED << locks, counter, cas_token, ops, restarts, 
                                     held_at_restart, answers, grants >>

WriteCounter(self) == /\ pc[self] = "WriteCounter"
                      /\ \/ /\ ThinkTimer(self) \in timers
                            /\ IF lock_held[self]
                                  THEN /\ network' = (network \cup {WriteMsg(self, token[self], read_val[self] + 1)})
                                       /\ timers' = timers \ {ThinkTimer(self)}
                                       /\ pc' = [pc EXCEPT ![self] = "Release"]
                                       /\ UNCHANGED << lock_held, retries, 
                                                       late, lease, token, 
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
                                       /\ lease' = [lease EXCEPT ![self] = NoValue]
                                       /\ token' = [token EXCEPT ![self] = NoValue]
                                       /\ read_val' = [read_val EXCEPT ![self] = 0]
                                       /\ IF committed'[self] + aborted'[self] < Sections
                                             THEN /\ pc' = [pc EXCEPT ![self] = "Receive"]
                                             ELSE /\ pc' = [pc EXCEPT ![self] = "Done"]
                         \/ /\ Timeouts /\ ValidityTimer(self) \in timers
                            /\ timers' = timers \ {ValidityTimer(self)}
                            /\ lock_held' = [lock_held EXCEPT ![self] = FALSE]
                            /\ pc' = [pc EXCEPT ![self] = "WriteCounter"]
                            /\ UNCHANGED <<network, retries, late, lease, token, read_val, committed, aborted>>
                      /\ UNCHANGED << locks, counter, cas_token, ops, restarts, 
                                      held_at_restart, answers, grants >>

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
                            /\ lease' = [lease EXCEPT ![self] = NoValue]
                            /\ token' = [token EXCEPT ![self] = NoValue]
                            /\ read_val' = [read_val EXCEPT ![self] = 0]
                            /\ IF committed'[self] + aborted'[self] < Sections
                                  THEN /\ pc' = [pc EXCEPT ![self] = "Receive"]
                                  ELSE /\ pc' = [pc EXCEPT ![self] = "Done"]
                    \/ /\ Timeouts /\ ValidityTimer(self) \in timers
                       /\ timers' = timers \ {ValidityTimer(self)}
                       /\ lock_held' = [lock_held EXCEPT ![self] = FALSE]
                       /\ pc' = [pc EXCEPT ![self] = "Release"]
                       /\ UNCHANGED <<network, retries, late, lease, token, read_val, committed, aborted>>
                 /\ UNCHANGED << locks, counter, cas_token, ops, restarts, 
                                 held_at_restart, answers, grants >>

client(self) == Acquire(self) \/ Receive(self) \/ Backoff(self)
                   \/ ReadCounter(self) \/ WriteCounter(self)
                   \/ Release(self)

Serve(self) == /\ pc[self] = "Serve"
               /\ \/ /\ \E m \in {x \in network : x.to = self /\ x.type = "acquire"}:
                          IF locks[self].status = "Acquired"
                             THEN /\ network' = ((network \ {m}) \cup {RejectMsg(self, m.from)})
                                  /\ UNCHANGED << locks, timers >>
                             ELSE /\ locks' = [locks EXCEPT ![self] = [status |-> "Acquired", id |-> m.from, value |-> m.lease]]
                                  /\ network' = ((network \ {m}) \cup {GrantMsg(self, m.from, m.lease)})
                                  /\ timers' = (timers \cup {LeaseTimer(self)})
                     /\ UNCHANGED <<restarts, held_at_restart>>
                  \/ /\ \E m \in {x \in network : x.to = self /\ x.type = "release"}:
                          /\ network' = network \ {m}
                          /\ IF locks[self].status = "Acquired" /\ locks[self].id = m.from /\ locks[self].value = m.lease
                                THEN /\ locks' = [locks EXCEPT ![self] = Free]
                                     /\ timers' = timers \ {LeaseTimer(self)}
                                ELSE /\ TRUE
                                     /\ UNCHANGED << locks, timers >>
                     /\ UNCHANGED <<restarts, held_at_restart>>
                  \/ /\ Timeouts /\ LeaseTimer(self) \in timers
                     /\ timers' = timers \ {LeaseTimer(self)}
                     /\ locks' = [locks EXCEPT ![self] = Gone]
                     /\ UNCHANGED <<network, restarts, held_at_restart>>
                  \/ /\ restarts < MaxRestarts /\ \E c \in Clients : pc[c] # "Done"
                     /\ locks' = [locks EXCEPT ![self] = Free]
                     /\ timers' = timers \ {LeaseTimer(self)}
                     /\ restarts' = restarts + 1
                     /\ held_at_restart' = (held_at_restart \cup {c \in Clients : lock_held[c]})
                     /\ UNCHANGED network
                  \/ /\ /\ \A c \in Clients : pc[c] = "Done"
                        /\ network = {}
                        /\ timers = {}
                     /\ TRUE
                     /\ UNCHANGED <<locks, network, timers, restarts, held_at_restart>>
               /\ pc' = [pc EXCEPT ![self] = "Serve"]
               /\ UNCHANGED << lock_held, counter, cas_token, ops, retries, 
                               late, lease, token, read_val, committed, 
                               aborted, answers, grants >>

node(self) == Serve(self)

Access == /\ pc[Resource] = "Access"
          /\ \E m \in {x \in network : x.to = Resource}:
               LET ok == (Fencing = "unique" /\ m.type = "write") => m.token = cas_token IN
                 LET v == IF m.type = "read" THEN counter ELSE m.value IN
                   /\ cas_token' = (IF Fencing = "unique" /\ m.type = "read" THEN m.token ELSE cas_token)
                   /\ IF m.type = "write" /\ ok
                         THEN /\ counter' = m.value
                         ELSE /\ TRUE
                              /\ UNCHANGED counter
                   /\ ops' = Append(ops, [op |-> m.type, id |-> m.from, token |-> m.token, ok |-> ok, value |-> v])
                   /\ network' = ((network \ {m}) \cup {ReplyMsg(m.type \o "_reply", m.from, m.token,
                                                                 IF m.type = "read" THEN v ELSE 0, ok)})
          /\ pc' = [pc EXCEPT ![Resource] = "Access"]
          /\ UNCHANGED << locks, timers, lock_held, restarts, held_at_restart, 
                          retries, late, lease, token, read_val, committed, 
                          aborted, answers, grants >>

resource == Access

(* Allow infinite stuttering to prevent deadlock on termination. *)
Terminating == /\ \A self \in ProcSet: pc[self] = "Done"
               /\ UNCHANGED vars

Next == resource
           \/ (\E self \in Clients: client(self))
           \/ (\E self \in LockNodes: node(self))
           \/ Terminating

Spec == /\ Init /\ [][Next]_vars
        /\ \A self \in Clients : WF_vars(client(self))
        /\ \A self \in LockNodes : WF_vars(node(self))
        /\ WF_vars(resource)

Termination == <>(\A self \in ProcSet: pc[self] = "Done")

\* END TRANSLATION

-----------------------------------------------------------------------------
(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)

\* The operations the resource accepted, in acceptance order.
accepted == SelectSeq(ops, LAMBDA e : e.ok)

Values == {Value(c, s, r) : c \in Clients, s \in 0..Sections, r \in 0..MaxRetries} \cup {NoValue}
MsgTypes == {"acquire", "release", "grant", "reject", "read", "read_reply", "write", "write_reply"}
Nodes == Clients \cup LockNodes \cup {Resource}

TypeInvariant ==
    /\ locks \in [LockNodes -> {Free, Gone} \cup
                               {[status |-> "Acquired", id |-> c, value |-> v] : c \in Clients, v \in Values \ {NoValue}}]
    /\ \A m \in network :
           /\ m.type \in MsgTypes /\ m.from \in Nodes /\ m.to \in Nodes
           /\ m.lease \in Values /\ m.token \in Values /\ m.value \in Nat /\ m.ok \in BOOLEAN
    /\ timers \subseteq {LeaseTimer(n) : n \in LockNodes}
                        \cup {Timer(c, k) : c \in Clients, k \in {"validity", "backoff", "think"}}
    /\ lock_held \in [Clients -> BOOLEAN]
    /\ counter \in Nat
    /\ cas_token \in Values
    /\ \A i \in DOMAIN ops :
           ops[i] \in [op : {"read", "write"}, id : Clients, token : Values, ok : BOOLEAN, value : Nat]
    /\ restarts \in 0..MaxRestarts
    /\ held_at_restart \subseteq Clients
    /\ retries \in [Clients -> 0..MaxRetries]
    /\ late \in [Clients -> BOOLEAN]
    /\ lease \in [Clients -> Values]
    /\ token \in [Clients -> Values]
    /\ read_val \in [Clients -> Nat]
    /\ committed \in [Clients -> 0..Sections]
    /\ aborted \in [Clients -> 0..Sections]
    /\ answers \in [Clients -> 0..N]
    /\ grants \in [Clients -> 0..N]

\* No two distinct clients believe at the same time that they hold the lock.
AtMostOneClientHoldLock ==
    ~\E c1, c2 \in Clients :
        /\ c1 /= c2
        /\ lock_held[c1]
        /\ lock_held[c2]

\* The counter equals the number of writes the resource accepted: no
\* accepted write was computed from a stale read.
NoLostUpdate ==
    LET IsWrite(e) == e.op = "write"
    IN  counter = Len(SelectSeq(accepted, IsWrite))

\* A client never acts on a belief past its validity window: a client that
\* believes it holds the lock (and so may send its read or write) has its
\* validity timer pending, whichever rule started it.  Every design keeps
\* it; a client that holds on a majority that came after its window closed
\* (LateMajority) does not.
NoActionPastValidity ==
    \A c \in Clients : lock_held[c] => ValidityTimer(c) \in timers

\* TokenIsMonotonical does not apply: without fencing there are no tokens,
\* and the unique values are unordered (a tuple has no order to check).

\* A witness, expected VIOLATED: TLC finds a state in which every client has
\* committed every section, so a model in which the properties hold does
\* not hold them vacuously.
NotEveryClientCommits == ~(\A c \in Clients : committed[c] = Sections)

\* A witness, expected VIOLATED: a client that believed it held the lock
\* when a node restarted, and every other client, still commit all their
\* sections (the explorer's SectionSpansRestart).
NoSectionCommitsAcrossRestart ==
    ~(held_at_restart # {} /\ \A c \in Clients : committed[c] = Sections)

\* Clients are interchangeable; used by the safety-only models.
Symmetry == Permutations(Clients)

\* Clients are interchangeable, and so are the lock nodes: a client asks
\* every node at once and counts any majority, any node may restart, and
\* no property names a node. The safety-only models that look for a
\* violation use both (a third or less of the states, the same shortest
\* counterexamples: BFS reaches each class of states at the depth of its
\* first member); the model that holds counts its states with clients
\* alone, as the explorer does, so that the two counts can be compared.
ClientAndNodeSymmetry ==
    {p @@ q : p \in Permutations(Clients), q \in Permutations(LockNodes)}
=============================================================================
