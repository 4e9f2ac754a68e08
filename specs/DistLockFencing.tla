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
(*            before use").                                                *)
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
(* The model follows the Go protocol as DistLock.tla does (see there):    *)
(* a client's belief may end at any moment (LoseLease) and a client that  *)
(* no longer believes abandons its section without writing; a release     *)
(* names its lease and is honoured only for the current holder's current  *)
(* lease (compare-and-delete); each client runs Sections sections.  As in *)
(* Go, the read is on its way to the resource from the grant on: a client *)
(* that stopped believing meanwhile still has its read handled (and, in    *)
(* "all", raise the highest token seen) before it abandons the section.  *)
(* The token of a grant is its lease number (TokenRule = "lease", as in   *)
(* Go); TokenRule = "pairs" is a mutant service that gives leases 2k-1    *)
(* and 2k the same token, which TokensAreUnique must catch (and           *)
(* TokenIsMonotonical, with its <=, does not).  The resource's log of     *)
(* accepted operations carries each operation's lease as a ghost field    *)
(* (the resource never reads it; Go's log has no lease) so that "equal    *)
(* tokens => the same grant" can be stated.                               *)
(*                                                                         *)
(* Fixes of seed 000's two defects:                                        *)
(*   (a) a rejected client waited forever there (a deadlock unless         *)
(*       deadlock checking was off); here it retries, at most MaxRetries   *)
(*       times, then gives the section up (GiveUp), and every model checks *)
(*       deadlock;                                                         *)
(*   (b) seed 000's TokenIsMonotonical held by construction: the client    *)
(*       appended its token to the history only if it was larger than the  *)
(*       last one.  Here the RESOURCE decides, and `accepted' records what *)
(*       it accepted, in acceptance order, so the property has teeth.      *)
(* Other departures (from seed 000 and from Go) are DistLock.tla's.       *)
(***************************************************************************)
EXTENDS Naturals, Sequences, TLC

CONSTANTS
    Clients,     \* the client processes (model values; symmetric)
    Service,     \* the lock service process (a model value)
    Validity,    \* the process of the clients' validity timers (a model value)
    InvalidId,   \* the holder id of a lock nobody holds (a model value)
    MaxRetries,  \* how many times a rejected client asks again in a section
    Sections,    \* how many critical sections each client runs
    Timeouts,    \* TRUE: leases expire and beliefs end at any moment
    GiveUp,      \* TRUE: past MaxRetries a client gives the section up
    Check,       \* the resource's token check: "none", "writes" or "all"
    TokenRule    \* "lease": a grant's token is its lease number (Go);
                 \* "pairs": a mutant service, leases 2k-1 and 2k share a token

ASSUME /\ Service \notin Clients
       /\ Validity \notin Clients \cup {Service}
       /\ InvalidId \notin Clients \cup {Service, Validity}
       /\ MaxRetries \in Nat
       /\ Sections \in Nat \ {0}
       /\ Timeouts \in BOOLEAN
       /\ GiveUp \in BOOLEAN
       /\ Check \in {"none", "writes", "all"}
       /\ TokenRule \in {"lease", "pairs"}

\* The token of the grant with lease number l.
TokenOf(l) == IF TokenRule = "lease" THEN l ELSE (l + 1) \div 2

\* The messages a client sends.  A release names the lease it gives back.
AcquireMsg(c) == [type |-> "acquire", id |-> c, lease |-> 0]
ReleaseMsg(c, l) == [type |-> "release", id |-> c, lease |-> l]

\* What a client sends when its section ends (Go's endSection): the release
\* of the lease it used, if any, and the acquire of its next section, if
\* the section that ends is not its last (ended counts it).
EndMsgs(c, l, ended) ==
    (IF l = 0 THEN <<>> ELSE <<ReleaseMsg(c, l)>>)
    \o (IF ended < Sections THEN <<AcquireMsg(c)>> ELSE <<>>)

\* Whether the resource accepts operation op ("read" or "write") carrying
\* token t when the highest token it has seen is high.
Admits(op, t, high) ==
    CASE Check = "none"   -> TRUE
      [] Check = "writes" -> op = "read" \/ t >= high
      [] Check = "all"    -> t >= high

\* The highest token seen after accepting op with token t.  In "none" the
\* resource keeps no highest token at all, so it stays 0.
Raised(op, t, high) ==
    CASE Check = "none"   -> high
      [] Check = "writes" -> IF op = "write" /\ t > high THEN t ELSE high
      [] Check = "all"    -> IF t > high THEN t ELSE high

(* --algorithm DistLockFencing {
variables
    \* The lock as the service sees it: the current grant's lease number and
    \* token (0 when none).
    distLock = [status |-> "Available", id |-> InvalidId, lease |-> 0, token |-> 0],
    \* Requests from every client to the service, in arrival order.
    request_queue = <<>>,
    \* The service's answers, one queue per client.
    responses_queue = [c \in Clients |-> <<>>],
    \* Whether each client believes it holds the lock (client-local belief).
    lock_held = [c \in Clients |-> FALSE],
    \* The shared resource: the counter, the highest token it has seen, and
    \* every operation it accepted, in acceptance order.
    counter = 0,
    max_token = 0,
    accepted = <<>>;

\* A section ends without effect: the client stops believing, releases the
\* lease it used (if any) and asks for its next section's lock (if any).
\* The caller then goes on to Receive or Done.
macro abort_section() {
    lock_held[self] := FALSE;
    request_queue := request_queue \o EndMsgs(self, lease, committed + aborted + 1);
    aborted := aborted + 1;
    retries := 0;
    lease := 0;
    token := 0;
    read_val := 0;
    write_ok := FALSE;
}

\* Weak fairness: a client whose answer has arrived eventually reads it.
fair process (client \in Clients)
variables
    retries = 0,       \* rejections answered by asking again in this section
    lease = 0,         \* the grant this client is using; 0 means none
    token = 0,         \* that grant's token; 0 means none
    read_val = 0,      \* what this client read from the counter
    write_ok = FALSE,  \* whether the resource accepted its write (the reply)
    committed = 0,     \* sections whose write was accepted
    aborted = 0;       \* sections given up, abandoned or fenced off
{
\* The first section's acquire, and every retry after a rejection.
Acquire:
    request_queue := Append(request_queue, AcquireMsg(self));
Receive:
    await Len(responses_queue[self]) > 0;
    with (resp = Head(responses_queue[self])) {
        responses_queue[self] := Tail(responses_queue[self]);
        if (resp.status = "granted") {
            lock_held[self] := TRUE;
            lease := resp.lease;
            token := resp.token;
        } else if (retries < MaxRetries) {
            \* Unlike seed 000, a rejected client asks again ...
            retries := retries + 1;
            goto Acquire;
        } else if (~GiveUp) {
            \* ... forever, when it may not give up ...
            goto Acquire;
        } else {
            \* ... or gives the section up after MaxRetries, so nobody
            \* waits forever.
            abort_section();
            if (committed + aborted < Sections) { goto Receive } else { goto Done };
        };
    };
\* The critical section is two operations, each checked by the resource.
\* The read was sent with the grant: the resource handles it whatever the
\* client believes now; the client abandons the section if the read was
\* refused (a newer token has been seen) or its belief ended meanwhile.
ReadCounter:
    if (Admits("read", token, max_token)) {
        max_token := Raised("read", token, max_token);
        accepted := Append(accepted, [op |-> "read", id |-> self, lease |-> lease, token |-> token]);
        if (lock_held[self]) {
            read_val := counter;
        } else {
            abort_section();
            if (committed + aborted < Sections) { goto Receive } else { goto Done };
        };
    } else {
        abort_section();
        if (committed + aborted < Sections) { goto Receive } else { goto Done };
    };
\* The client checks its belief before it writes; without it, it abandons
\* the section (no write).  Else the resource checks the write.
WriteCounter:
    if (lock_held[self]) {
        if (Admits("write", token, max_token)) {
            counter := read_val + 1;
            max_token := Raised("write", token, max_token);
            accepted := Append(accepted, [op |-> "write", id |-> self, lease |-> lease, token |-> token]);
            write_ok := TRUE;
        };
    } else {
        abort_section();
        if (committed + aborted < Sections) { goto Receive } else { goto Done };
    };
\* The write's reply: the section committed if the write was accepted, else
\* it was fenced off.  Release the lease and ask for the next section's lock.
Release:
    lock_held[self] := FALSE;
    request_queue := request_queue \o EndMsgs(self, lease, committed + aborted + 1);
    if (write_ok) {
        committed := committed + 1;
    } else {
        aborted := aborted + 1;
    };
    retries := 0;
    lease := 0;
    token := 0;
    read_val := 0;
    write_ok := FALSE;
    if (committed + aborted < Sections) { goto Receive } else { goto Done };
}

\* The service handles one request per step (dequeue, decide, answer are one
\* local, atomic step of a single-threaded server), or lets the lease expire.
\* It stops once every client has finished.
fair process (service = Service)
variables
    last_lease = 0;  \* the highest lease number granted; leases are 1, 2, ...
{
Serve:
    while (\E c \in Clients : pc[c] /= "Done") {
        either {
            await Len(request_queue) > 0;
            with (req = Head(request_queue)) {
                request_queue := Tail(request_queue);
                if (req.type = "acquire") {
                    if (distLock.status \in {"Available", "Expired"}) {
                        \* Every grant carries a token; under TokenRule
                        \* "lease" it is larger than every token before.
                        distLock := [status |-> "Acquired", id |-> req.id,
                                     lease |-> last_lease + 1, token |-> TokenOf(last_lease + 1)];
                        responses_queue[req.id] := Append(responses_queue[req.id],
                                                          [status |-> "granted", lease |-> last_lease + 1,
                                                           token |-> TokenOf(last_lease + 1)]);
                        last_lease := last_lease + 1;
                    } else {
                        responses_queue[req.id] := Append(responses_queue[req.id],
                                                          [status |-> "rejected", lease |-> 0, token |-> 0]);
                    };
                } else if (distLock.status = "Acquired" /\ distLock.id = req.id
                           /\ distLock.lease = req.lease) {
                    \* Compare-and-delete: a release is honoured only from the
                    \* current holder, naming its current lease.
                    distLock := [status |-> "Available", id |-> InvalidId, lease |-> 0, token |-> 0];
                };
            };
        } or {
            \* The TTL: the lease may run out at any moment while held.
            await Timeouts /\ distLock.status = "Acquired";
            distLock := [status |-> "Expired", id |-> InvalidId, lease |-> 0, token |-> 0];
        };
    };
}

\* The clients' validity timers: a client that believes it holds the lock
\* may stop believing at any moment (its timer fired; untimed, any moment
\* is possible).  Not fair: a timer need never fire.  The client notices at
\* its next step (ReadCounter or WriteCounter) and abandons its section.
process (validity = Validity)
{
LoseLease:
    while (\E c \in Clients : pc[c] /= "Done") {
        await Timeouts;
        with (c \in {b \in Clients : lock_held[b]}) {
            lock_held[c] := FALSE;
        };
    };
}
} *)
\* BEGIN TRANSLATION (chksum(pcal) = "360c31c8" /\ chksum(tla) = "e698c660")
VARIABLES distLock, request_queue, responses_queue, lock_held, counter, 
          max_token, accepted, pc, retries, lease, token, read_val, write_ok, 
          committed, aborted, last_lease

vars == << distLock, request_queue, responses_queue, lock_held, counter, 
           max_token, accepted, pc, retries, lease, token, read_val, write_ok, 
           committed, aborted, last_lease >>

ProcSet == (Clients) \cup {Service} \cup {Validity}

Init == (* Global variables *)
        /\ distLock = [status |-> "Available", id |-> InvalidId, lease |-> 0, token |-> 0]
        /\ request_queue = <<>>
        /\ responses_queue = [c \in Clients |-> <<>>]
        /\ lock_held = [c \in Clients |-> FALSE]
        /\ counter = 0
        /\ max_token = 0
        /\ accepted = <<>>
        (* Process client *)
        /\ retries = [self \in Clients |-> 0]
        /\ lease = [self \in Clients |-> 0]
        /\ token = [self \in Clients |-> 0]
        /\ read_val = [self \in Clients |-> 0]
        /\ write_ok = [self \in Clients |-> FALSE]
        /\ committed = [self \in Clients |-> 0]
        /\ aborted = [self \in Clients |-> 0]
        (* Process service *)
        /\ last_lease = 0
        /\ pc = [self \in ProcSet |-> CASE self \in Clients -> "Acquire"
                                        [] self = Service -> "Serve"
                                        [] self = Validity -> "LoseLease"]

Acquire(self) == /\ pc[self] = "Acquire"
                 /\ request_queue' = Append(request_queue, AcquireMsg(self))
                 /\ pc' = [pc EXCEPT ![self] = "Receive"]
                 /\ UNCHANGED << distLock, responses_queue, lock_held, counter, 
                                 max_token, accepted, retries, lease, token, 
                                 read_val, write_ok, committed, aborted, 
                                 last_lease >>

Receive(self) == /\ pc[self] = "Receive"
                 /\ Len(responses_queue[self]) > 0
                 /\ LET resp == Head(responses_queue[self]) IN
                      /\ responses_queue' = [responses_queue EXCEPT ![self] = Tail(responses_queue[self])]
                      /\ IF resp.status = "granted"
                            THEN /\ lock_held' = [lock_held EXCEPT ![self] = TRUE]
                                 /\ lease' = [lease EXCEPT ![self] = resp.lease]
                                 /\ token' = [token EXCEPT ![self] = resp.token]
                                 /\ pc' = [pc EXCEPT ![self] = "ReadCounter"]
                                 /\ UNCHANGED << request_queue, retries, 
                                                 read_val, write_ok, aborted >>
                            ELSE /\ IF retries[self] < MaxRetries
                                       THEN /\ retries' = [retries EXCEPT ![self] = retries[self] + 1]
                                            /\ pc' = [pc EXCEPT ![self] = "Acquire"]
                                            /\ UNCHANGED << request_queue, 
                                                            lock_held, lease, 
                                                            token, read_val, 
                                                            write_ok, aborted >>
                                       ELSE /\ IF ~GiveUp
                                                  THEN /\ pc' = [pc EXCEPT ![self] = "Acquire"]
                                                       /\ UNCHANGED << request_queue, 
                                                                       lock_held, 
                                                                       retries, 
                                                                       lease, 
                                                                       token, 
                                                                       read_val, 
                                                                       write_ok, 
                                                                       aborted >>
                                                  ELSE /\ lock_held' = [lock_held EXCEPT ![self] = FALSE]
                                                       /\ request_queue' = request_queue \o EndMsgs(self, lease[self], committed[self] + aborted[self] + 1)
                                                       /\ aborted' = [aborted EXCEPT ![self] = aborted[self] + 1]
                                                       /\ retries' = [retries EXCEPT ![self] = 0]
                                                       /\ lease' = [lease EXCEPT ![self] = 0]
                                                       /\ token' = [token EXCEPT ![self] = 0]
                                                       /\ read_val' = [read_val EXCEPT ![self] = 0]
                                                       /\ write_ok' = [write_ok EXCEPT ![self] = FALSE]
                                                       /\ IF committed[self] + aborted'[self] < Sections
                                                             THEN /\ pc' = [pc EXCEPT ![self] = "Receive"]
                                                             ELSE /\ pc' = [pc EXCEPT ![self] = "Done"]
                 /\ UNCHANGED << distLock, counter, max_token, accepted, 
                                 committed, last_lease >>

ReadCounter(self) == /\ pc[self] = "ReadCounter"
                     /\ IF Admits("read", token[self], max_token)
                           THEN /\ max_token' = Raised("read", token[self], max_token)
                                /\ accepted' = Append(accepted, [op |-> "read", id |-> self, lease |-> lease[self], token |-> token[self]])
                                /\ IF lock_held[self]
                                      THEN /\ read_val' = [read_val EXCEPT ![self] = counter]
                                           /\ pc' = [pc EXCEPT ![self] = "WriteCounter"]
                                           /\ UNCHANGED << request_queue, 
                                                           lock_held, retries, 
                                                           lease, token, 
                                                           write_ok, aborted >>
                                      ELSE /\ lock_held' = [lock_held EXCEPT ![self] = FALSE]
                                           /\ request_queue' = request_queue \o EndMsgs(self, lease[self], committed[self] + aborted[self] + 1)
                                           /\ aborted' = [aborted EXCEPT ![self] = aborted[self] + 1]
                                           /\ retries' = [retries EXCEPT ![self] = 0]
                                           /\ lease' = [lease EXCEPT ![self] = 0]
                                           /\ token' = [token EXCEPT ![self] = 0]
                                           /\ read_val' = [read_val EXCEPT ![self] = 0]
                                           /\ write_ok' = [write_ok EXCEPT ![self] = FALSE]
                                           /\ IF committed[self] + aborted'[self] < Sections
                                                 THEN /\ pc' = [pc EXCEPT ![self] = "Receive"]
                                                 ELSE /\ pc' = [pc EXCEPT ![self] = "Done"]
                           ELSE /\ lock_held' = [lock_held EXCEPT ![self] = FALSE]
                                /\ request_queue' = request_queue \o EndMsgs(self, lease[self], committed[self] + aborted[self] + 1)
                                /\ aborted' = [aborted EXCEPT ![self] = aborted[self] + 1]
                                /\ retries' = [retries EXCEPT ![self] = 0]
                                /\ lease' = [lease EXCEPT ![self] = 0]
                                /\ token' = [token EXCEPT ![self] = 0]
                                /\ read_val' = [read_val EXCEPT ![self] = 0]
                                /\ write_ok' = [write_ok EXCEPT ![self] = FALSE]
                                /\ IF committed[self] + aborted'[self] < Sections
                                      THEN /\ pc' = [pc EXCEPT ![self] = "Receive"]
                                      ELSE /\ pc' = [pc EXCEPT ![self] = "Done"]
                                /\ UNCHANGED << max_token, accepted >>
                     /\ UNCHANGED << distLock, responses_queue, counter, 
                                     committed, last_lease >>

WriteCounter(self) == /\ pc[self] = "WriteCounter"
                      /\ IF lock_held[self]
                            THEN /\ IF Admits("write", token[self], max_token)
                                       THEN /\ counter' = read_val[self] + 1
                                            /\ max_token' = Raised("write", token[self], max_token)
                                            /\ accepted' = Append(accepted, [op |-> "write", id |-> self, lease |-> lease[self], token |-> token[self]])
                                            /\ write_ok' = [write_ok EXCEPT ![self] = TRUE]
                                       ELSE /\ TRUE
                                            /\ UNCHANGED << counter, max_token, 
                                                            accepted, write_ok >>
                                 /\ pc' = [pc EXCEPT ![self] = "Release"]
                                 /\ UNCHANGED << request_queue, lock_held, 
                                                 retries, lease, token, 
                                                 read_val, aborted >>
                            ELSE /\ lock_held' = [lock_held EXCEPT ![self] = FALSE]
                                 /\ request_queue' = request_queue \o EndMsgs(self, lease[self], committed[self] + aborted[self] + 1)
                                 /\ aborted' = [aborted EXCEPT ![self] = aborted[self] + 1]
                                 /\ retries' = [retries EXCEPT ![self] = 0]
                                 /\ lease' = [lease EXCEPT ![self] = 0]
                                 /\ token' = [token EXCEPT ![self] = 0]
                                 /\ read_val' = [read_val EXCEPT ![self] = 0]
                                 /\ write_ok' = [write_ok EXCEPT ![self] = FALSE]
                                 /\ IF committed[self] + aborted'[self] < Sections
                                       THEN /\ pc' = [pc EXCEPT ![self] = "Receive"]
                                       ELSE /\ pc' = [pc EXCEPT ![self] = "Done"]
                                 /\ UNCHANGED << counter, max_token, accepted >>
                      /\ UNCHANGED << distLock, responses_queue, committed, 
                                      last_lease >>

Release(self) == /\ pc[self] = "Release"
                 /\ lock_held' = [lock_held EXCEPT ![self] = FALSE]
                 /\ request_queue' = request_queue \o EndMsgs(self, lease[self], committed[self] + aborted[self] + 1)
                 /\ IF write_ok[self]
                       THEN /\ committed' = [committed EXCEPT ![self] = committed[self] + 1]
                            /\ UNCHANGED aborted
                       ELSE /\ aborted' = [aborted EXCEPT ![self] = aborted[self] + 1]
                            /\ UNCHANGED committed
                 /\ retries' = [retries EXCEPT ![self] = 0]
                 /\ lease' = [lease EXCEPT ![self] = 0]
                 /\ token' = [token EXCEPT ![self] = 0]
                 /\ read_val' = [read_val EXCEPT ![self] = 0]
                 /\ write_ok' = [write_ok EXCEPT ![self] = FALSE]
                 /\ IF committed'[self] + aborted'[self] < Sections
                       THEN /\ pc' = [pc EXCEPT ![self] = "Receive"]
                       ELSE /\ pc' = [pc EXCEPT ![self] = "Done"]
                 /\ UNCHANGED << distLock, responses_queue, counter, max_token, 
                                 accepted, last_lease >>

client(self) == Acquire(self) \/ Receive(self) \/ ReadCounter(self)
                   \/ WriteCounter(self) \/ Release(self)

Serve == /\ pc[Service] = "Serve"
         /\ IF \E c \in Clients : pc[c] /= "Done"
               THEN /\ \/ /\ Len(request_queue) > 0
                          /\ LET req == Head(request_queue) IN
                               /\ request_queue' = Tail(request_queue)
                               /\ IF req.type = "acquire"
                                     THEN /\ IF distLock.status \in {"Available", "Expired"}
                                                THEN /\ distLock' = [status |-> "Acquired", id |-> req.id,
                                                                     lease |-> last_lease + 1, token |-> TokenOf(last_lease + 1)]
                                                     /\ responses_queue' = [responses_queue EXCEPT ![req.id] = Append(responses_queue[req.id],
                                                                                                                      [status |-> "granted", lease |-> last_lease + 1,
                                                                                                                       token |-> TokenOf(last_lease + 1)])]
                                                     /\ last_lease' = last_lease + 1
                                                ELSE /\ responses_queue' = [responses_queue EXCEPT ![req.id] = Append(responses_queue[req.id],
                                                                                                                      [status |-> "rejected", lease |-> 0, token |-> 0])]
                                                     /\ UNCHANGED << distLock, 
                                                                     last_lease >>
                                     ELSE /\ IF distLock.status = "Acquired" /\ distLock.id = req.id
                                                /\ distLock.lease = req.lease
                                                THEN /\ distLock' = [status |-> "Available", id |-> InvalidId, lease |-> 0, token |-> 0]
                                                ELSE /\ TRUE
                                                     /\ UNCHANGED distLock
                                          /\ UNCHANGED << responses_queue, 
                                                          last_lease >>
                       \/ /\ Timeouts /\ distLock.status = "Acquired"
                          /\ distLock' = [status |-> "Expired", id |-> InvalidId, lease |-> 0, token |-> 0]
                          /\ UNCHANGED <<request_queue, responses_queue, last_lease>>
                    /\ pc' = [pc EXCEPT ![Service] = "Serve"]
               ELSE /\ pc' = [pc EXCEPT ![Service] = "Done"]
                    /\ UNCHANGED << distLock, request_queue, responses_queue, 
                                    last_lease >>
         /\ UNCHANGED << lock_held, counter, max_token, accepted, retries, 
                         lease, token, read_val, write_ok, committed, aborted >>

service == Serve

LoseLease == /\ pc[Validity] = "LoseLease"
             /\ IF \E c \in Clients : pc[c] /= "Done"
                   THEN /\ Timeouts
                        /\ \E c \in {b \in Clients : lock_held[b]}:
                             lock_held' = [lock_held EXCEPT ![c] = FALSE]
                        /\ pc' = [pc EXCEPT ![Validity] = "LoseLease"]
                   ELSE /\ pc' = [pc EXCEPT ![Validity] = "Done"]
                        /\ UNCHANGED lock_held
             /\ UNCHANGED << distLock, request_queue, responses_queue, counter, 
                             max_token, accepted, retries, lease, token, 
                             read_val, write_ok, committed, aborted, 
                             last_lease >>

validity == LoseLease

(* Allow infinite stuttering to prevent deadlock on termination. *)
Terminating == /\ \A self \in ProcSet: pc[self] = "Done"
               /\ UNCHANGED vars

Next == service \/ validity
           \/ (\E self \in Clients: client(self))
           \/ Terminating

Spec == /\ Init /\ [][Next]_vars
        /\ \A self \in Clients : WF_vars(client(self))
        /\ WF_vars(service)

Termination == <>(\A self \in ProcSet: pc[self] = "Done")

\* END TRANSLATION

-----------------------------------------------------------------------------
(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)

\* Lease numbers and tokens handed out so far are 1 .. last_lease.
Leases == 0 .. last_lease

TypeInvariant ==
    /\ distLock \in {[status |-> s, id |-> InvalidId, lease |-> 0, token |-> 0] : s \in {"Available", "Expired"}}
                    \cup {[status |-> "Acquired", id |-> c, lease |-> l, token |-> TokenOf(l)] :
                              c \in Clients, l \in Leases \ {0}}
    /\ \A i \in DOMAIN request_queue :
           request_queue[i] \in {AcquireMsg(c) : c \in Clients}
                                \cup {ReleaseMsg(c, l) : c \in Clients, l \in Leases \ {0}}
    /\ \A c \in Clients :
           \A i \in DOMAIN responses_queue[c] :
               responses_queue[c][i] \in {[status |-> "granted", lease |-> l, token |-> TokenOf(l)] : l \in Leases \ {0}}
                                         \cup {[status |-> "rejected", lease |-> 0, token |-> 0]}
    /\ lock_held \in [Clients -> BOOLEAN]
    /\ counter \in Nat
    /\ max_token \in Leases
    /\ \A i \in DOMAIN accepted :
           accepted[i] \in [op : {"read", "write"}, id : Clients, lease : Leases \ {0}, token : Leases \ {0}]
    /\ retries \in [Clients -> 0..MaxRetries]
    /\ lease \in [Clients -> Leases]
    /\ token \in [Clients -> Leases]
    /\ read_val \in [Clients -> Nat]
    /\ write_ok \in [Clients -> BOOLEAN]
    /\ committed \in [Clients -> 0..Sections]
    /\ aborted \in [Clients -> 0..Sections]
    /\ \A c \in Clients : committed[c] + aborted[c] <= Sections
    /\ last_lease \in Nat

\* No two distinct clients believe at the same time that they hold the lock.
AtMostOneClientHoldLock ==
    ~\E c1, c2 \in Clients :
        /\ c1 /= c2
        /\ lock_held[c1]
        /\ lock_held[c2]

\* The tokens of the operations the resource accepted never decrease, in
\* acceptance order (within one critical section the token repeats).
TokenIsMonotonical ==
    \A i, j \in DOMAIN accepted : i < j => accepted[i].token <= accepted[j].token

\* The companion of TokenIsMonotonical, whose <= lets two different grants
\* carry the same token: operations the resource accepted with equal tokens
\* come from the same grant (equal tokens => the same lease).
TokensAreUnique ==
    \A i, j \in DOMAIN accepted :
        accepted[i].token = accepted[j].token => accepted[i].lease = accepted[j].lease

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
\* a section does not satisfy it.  It holds under Spec's fairness without
\* timeouts and with clients that never give up (Timeouts = GiveUp =
\* FALSE), and is violated when either is allowed.
EveryClientCommits == <>(\A c \in Clients : committed[c] = Sections)

\* A witness, expected VIOLATED: TLC finds a state in which every client has
\* committed every section, so a model in which the properties hold does
\* not hold them vacuously (a resource that refuses everything, or a
\* service that never grants, would make this invariant hold).
NotEveryClientCommits == ~(\A c \in Clients : committed[c] = Sections)

\* The same system without any fairness: a process may simply stop taking
\* steps, forever.  AllClientsFinish fails under it, which shows that the
\* property is not vacuous and that it rests on the fairness of Spec.
UnfairSpec == Init /\ [][Next]_vars

\* Clients are interchangeable; used by the safety-only models.
Symmetry == Permutations(Clients)
=============================================================================
