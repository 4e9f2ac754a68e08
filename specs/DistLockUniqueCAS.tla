--------------------------- MODULE DistLockUniqueCAS ---------------------------
(***************************************************************************)
(* Row "unique tokens, check-and-set at the resource" of the lock-design x *)
(* fault matrix (issue 12; DESIGN.md's table): antirez's proposal for      *)
(* Redlock ("Is Redlock safe?", 2016, cited in the README's Sources) — the *)
(* lock's value is a unique random token, and the resource does a check-   *)
(* and-set with it: the holder first SETS the resource's current token to  *)
(* its own, and every later operation must carry the current token.       *)
(*                                                                         *)
(* Tokens are unique but unordered: each grant takes a token from         *)
(* TokenPool never granted before, chosen nondeterministically, so TLC    *)
(* covers every order in which "random" tokens can come (Go draws one      *)
(* fixed order, impl.Scramble of the lease number, outside any randomness).*)
(* The resource compares tokens for equality only; TokenIsMonotonical does *)
(* not apply to the row (a decreasing pair of random tokens means nothing: *)
(* the variant model ..._TokenIsMonotonical_NoTimeouts shows it violated   *)
(* with no fault at all).                                                  *)
(*                                                                         *)
(* The assumptions it rests on: tokens are unique (a token handed out twice *)
(* would let a stale holder's write pass the compare), and the resource's *)
(* set and compare-with-write are each one atomic step.  Then NoLostUpdate *)
(* holds: a write is accepted only if no other holder's read (set) came    *)
(* between its own read and it, so it is based on the latest value.        *)
(* AtMostOneClientHoldLock is violated, as in every row.                   *)
(*                                                                         *)
(* Go: impl/resource.go (FenceCAS), impl/service.go (UniqueTokens).  The  *)
(* rest is DistLockFencing.tla's, which see.                               *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets, TLC

CONSTANTS
    Clients,     \* the client processes (model values; symmetric)
    Service,     \* the lock service process (a model value)
    Validity,    \* the process of the clients' validity timers (a model value)
    InvalidId,   \* the holder id of a lock nobody holds (a model value)
    MaxRetries,  \* how many times a rejected client asks again in a section
    Sections,    \* how many critical sections each client runs
    Timeouts,    \* TRUE: leases expire and beliefs end at any moment
    GiveUp,      \* TRUE: past MaxRetries a client gives the section up
    TokenPool    \* the tokens the service may grant, each at most once (positive numbers)

\* A client is granted at most once per section, so the pool never runs out.
ASSUME /\ Service \notin Clients
       /\ Validity \notin Clients \cup {Service}
       /\ InvalidId \notin Clients \cup {Service, Validity}
       /\ MaxRetries \in Nat
       /\ Sections \in Nat \ {0}
       /\ Timeouts \in BOOLEAN
       /\ GiveUp \in BOOLEAN
       /\ TokenPool \subseteq Nat \ {0}
       /\ Cardinality(TokenPool) >= Sections * Cardinality(Clients)

\* The messages a client sends.  A release names the lease it gives back.
AcquireMsg(c) == [type |-> "acquire", id |-> c, lease |-> 0]
ReleaseMsg(c, l) == [type |-> "release", id |-> c, lease |-> l]

\* What a client sends when its section ends (Go's endSection).
EndMsgs(c, l, ended) ==
    (IF l = 0 THEN <<>> ELSE <<ReleaseMsg(c, l)>>)
    \o (IF ended < Sections THEN <<AcquireMsg(c)>> ELSE <<>>)

(* --algorithm DistLockUniqueCAS {
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
    \* The shared resource: the counter, its current token (set by the
    \* holder's read, 0 before any), and every operation it accepted, in
    \* acceptance order.
    counter = 0,
    current = 0,
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
\* The critical section is two operations.  The read, sent with the grant,
\* SETS the resource's current token to the client's own (check-and-set's
\* "set") and is always accepted; the client abandons the section if its
\* belief ended meanwhile.
ReadCounter:
    current := token;
    accepted := Append(accepted, [op |-> "read", id |-> self, lease |-> lease, token |-> token]);
    if (lock_held[self]) {
        read_val := counter;
    } else {
        abort_section();
        if (committed + aborted < Sections) { goto Receive } else { goto Done };
    };
\* The client checks its belief before it writes; without it, it abandons
\* the section (no write).  Else the resource checks the write.
WriteCounter:
    if (lock_held[self]) {
        \* The "compare": a write is accepted only with the current token.
        if (token = current) {
            counter := read_val + 1;
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
    last_lease = 0,  \* the highest lease number granted; leases are 1, 2, ...
    used = {};       \* the tokens granted so far
{
Serve:
    while (\E c \in Clients : pc[c] /= "Done") {
        either {
            await Len(request_queue) > 0;
            with (req = Head(request_queue)) {
                request_queue := Tail(request_queue);
                if (req.type = "acquire") {
                    if (distLock.status \in {"Available", "Expired"}) {
                        \* Every grant carries a token never granted
                        \* before, in any order: TLC tries every one.
                        with (t \in TokenPool \ used) {
                            distLock := [status |-> "Acquired", id |-> req.id,
                                         lease |-> last_lease + 1, token |-> t];
                            responses_queue[req.id] := Append(responses_queue[req.id],
                                                              [status |-> "granted", lease |-> last_lease + 1,
                                                               token |-> t]);
                            used := used \cup {t};
                        };
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
\* BEGIN TRANSLATION (chksum(pcal) = "7f319551" /\ chksum(tla) = "62caac6d")
VARIABLES distLock, request_queue, responses_queue, lock_held, counter, 
          current, accepted, pc, retries, lease, token, read_val, write_ok, 
          committed, aborted, last_lease, used

vars == << distLock, request_queue, responses_queue, lock_held, counter, 
           current, accepted, pc, retries, lease, token, read_val, write_ok, 
           committed, aborted, last_lease, used >>

ProcSet == (Clients) \cup {Service} \cup {Validity}

Init == (* Global variables *)
        /\ distLock = [status |-> "Available", id |-> InvalidId, lease |-> 0, token |-> 0]
        /\ request_queue = <<>>
        /\ responses_queue = [c \in Clients |-> <<>>]
        /\ lock_held = [c \in Clients |-> FALSE]
        /\ counter = 0
        /\ current = 0
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
        /\ used = {}
        /\ pc = [self \in ProcSet |-> CASE self \in Clients -> "Acquire"
                                        [] self = Service -> "Serve"
                                        [] self = Validity -> "LoseLease"]

Acquire(self) == /\ pc[self] = "Acquire"
                 /\ request_queue' = Append(request_queue, AcquireMsg(self))
                 /\ pc' = [pc EXCEPT ![self] = "Receive"]
                 /\ UNCHANGED << distLock, responses_queue, lock_held, counter, 
                                 current, accepted, retries, lease, token, 
                                 read_val, write_ok, committed, aborted, 
                                 last_lease, used >>

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
                 /\ UNCHANGED << distLock, counter, current, accepted, 
                                 committed, last_lease, used >>

ReadCounter(self) == /\ pc[self] = "ReadCounter"
                     /\ current' = token[self]
                     /\ accepted' = Append(accepted, [op |-> "read", id |-> self, lease |-> lease[self], token |-> token[self]])
                     /\ IF lock_held[self]
                           THEN /\ read_val' = [read_val EXCEPT ![self] = counter]
                                /\ pc' = [pc EXCEPT ![self] = "WriteCounter"]
                                /\ UNCHANGED << request_queue, lock_held, 
                                                retries, lease, token, 
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
                     /\ UNCHANGED << distLock, responses_queue, counter, 
                                     committed, last_lease, used >>

WriteCounter(self) == /\ pc[self] = "WriteCounter"
                      /\ IF lock_held[self]
                            THEN /\ IF token[self] = current
                                       THEN /\ counter' = read_val[self] + 1
                                            /\ accepted' = Append(accepted, [op |-> "write", id |-> self, lease |-> lease[self], token |-> token[self]])
                                            /\ write_ok' = [write_ok EXCEPT ![self] = TRUE]
                                       ELSE /\ TRUE
                                            /\ UNCHANGED << counter, accepted, 
                                                            write_ok >>
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
                                 /\ UNCHANGED << counter, accepted >>
                      /\ UNCHANGED << distLock, responses_queue, current, 
                                      committed, last_lease, used >>

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
                 /\ UNCHANGED << distLock, responses_queue, counter, current, 
                                 accepted, last_lease, used >>

client(self) == Acquire(self) \/ Receive(self) \/ ReadCounter(self)
                   \/ WriteCounter(self) \/ Release(self)

Serve == /\ pc[Service] = "Serve"
         /\ IF \E c \in Clients : pc[c] /= "Done"
               THEN /\ \/ /\ Len(request_queue) > 0
                          /\ LET req == Head(request_queue) IN
                               /\ request_queue' = Tail(request_queue)
                               /\ IF req.type = "acquire"
                                     THEN /\ IF distLock.status \in {"Available", "Expired"}
                                                THEN /\ \E t \in TokenPool \ used:
                                                          /\ distLock' = [status |-> "Acquired", id |-> req.id,
                                                                          lease |-> last_lease + 1, token |-> t]
                                                          /\ responses_queue' = [responses_queue EXCEPT ![req.id] = Append(responses_queue[req.id],
                                                                                                                           [status |-> "granted", lease |-> last_lease + 1,
                                                                                                                            token |-> t])]
                                                          /\ used' = (used \cup {t})
                                                     /\ last_lease' = last_lease + 1
                                                ELSE /\ responses_queue' = [responses_queue EXCEPT ![req.id] = Append(responses_queue[req.id],
                                                                                                                      [status |-> "rejected", lease |-> 0, token |-> 0])]
                                                     /\ UNCHANGED << distLock, 
                                                                     last_lease, 
                                                                     used >>
                                     ELSE /\ IF distLock.status = "Acquired" /\ distLock.id = req.id
                                                /\ distLock.lease = req.lease
                                                THEN /\ distLock' = [status |-> "Available", id |-> InvalidId, lease |-> 0, token |-> 0]
                                                ELSE /\ TRUE
                                                     /\ UNCHANGED distLock
                                          /\ UNCHANGED << responses_queue, 
                                                          last_lease, used >>
                       \/ /\ Timeouts /\ distLock.status = "Acquired"
                          /\ distLock' = [status |-> "Expired", id |-> InvalidId, lease |-> 0, token |-> 0]
                          /\ UNCHANGED <<request_queue, responses_queue, last_lease, used>>
                    /\ pc' = [pc EXCEPT ![Service] = "Serve"]
               ELSE /\ pc' = [pc EXCEPT ![Service] = "Done"]
                    /\ UNCHANGED << distLock, request_queue, responses_queue, 
                                    last_lease, used >>
         /\ UNCHANGED << lock_held, counter, current, accepted, retries, lease, 
                         token, read_val, write_ok, committed, aborted >>

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
                             current, accepted, retries, lease, token, 
                             read_val, write_ok, committed, aborted, 
                             last_lease, used >>

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

TypeInvariant ==
    /\ lock_held \in [Clients -> BOOLEAN]
    /\ counter \in Nat
    /\ current \in TokenPool \cup {0}
    /\ used \subseteq TokenPool
    /\ \A i \in DOMAIN accepted :
           accepted[i] \in [op : {"read", "write"}, id : Clients, lease : 1 .. last_lease, token : used]
    /\ committed \in [Clients -> 0..Sections]
    /\ aborted \in [Clients -> 0..Sections]

\* No two distinct clients believe at the same time that they hold the lock.
AtMostOneClientHoldLock ==
    ~\E c1, c2 \in Clients : c1 /= c2 /\ lock_held[c1] /\ lock_held[c2]

\* Not a property of this row (see the header): the variant model shows it
\* violated without any fault.
TokenIsMonotonical ==
    \A i, j \in DOMAIN accepted : i < j => accepted[i].token <= accepted[j].token

\* Accepted operations with equal tokens come from the same grant.
TokensAreUnique ==
    \A i, j \in DOMAIN accepted :
        accepted[i].token = accepted[j].token => accepted[i].lease = accepted[j].lease

\* The counter equals the number of writes the resource accepted.
NoLostUpdate ==
    LET IsWrite(e) == e.op = "write"
    IN  counter = Len(SelectSeq(accepted, IsWrite))

\* A witness, expected VIOLATED: every client can commit every section.
NotEveryClientCommits == ~(\A c \in Clients : committed[c] = Sections)

\* Clients are interchangeable; used by the safety-only models.
Symmetry == Permutations(Clients)
=============================================================================
