------------------------------ MODULE DistLock ------------------------------
(***************************************************************************)
(* A lease-based distributed lock WITHOUT fencing, after "seed 000": the   *)
(* PlusCal model of the Chinese blog post "Distributed lock - part 3"      *)
(* (cited in the README's Sources), which has TLC find two clients that    *)
(* both believe they hold the lock, then adds fencing tokens.              *)
(*                                                                         *)
(* One lock service process owns a single lock.  Clients send requests to  *)
(* it through one FIFO request queue and get answers through a queue each. *)
(* Queues model network delay: a message may sit in a queue for any number *)
(* of steps, and a client may be arbitrarily slow between its steps        *)
(* (process pause).  The lock has a TTL: because TLC has no clocks, the    *)
(* service may expire the lock at any moment while it is acquired -- the   *)
(* asynchronous model, in which a clock may jump arbitrarily.              *)
(*                                                                         *)
(* A client that is granted the lock uses a shared resource, a counter, in *)
(* a critical section of two separate steps: read the counter, then write  *)
(* read+1.  Nothing protects the resource but the clients' belief that     *)
(* they hold the lock, so TLC finds that                                   *)
(*   - two clients can believe they hold the lock (AtMostOneClientHoldLock *)
(*     is violated: the grant to c1 sits in its queue while the lease      *)
(*     expires and c2 is granted), and                                     *)
(*   - an update can be lost (NoLostUpdate is violated: both read the same *)
(*     value and both write it + 1).                                       *)
(*                                                                         *)
(* The model follows the Go protocol (impl/client.go, impl/service.go;     *)
(* DESIGN.md, "Spec actions and the Go steps they stand for"):             *)
(*   - a client's belief may end at any moment (LoseLease, the untimed     *)
(*     form of its validity timer); a client that no longer believes       *)
(*     abandons its section without writing and releases;                  *)
(*   - every grant has an identity, its lease number, and a release names  *)
(*     its lease: the service honours it only if it names the current      *)
(*     holder's current lease (compare-and-delete);                        *)
(*   - each client runs Sections critical sections; a section ends         *)
(*     committed (its write was accepted) or aborted (given up after       *)
(*     MaxRetries rejections, or abandoned), and the step that ends it     *)
(*     sends the release and the next section's acquire, as Go's           *)
(*     endSection does.                                                    *)
(*                                                                         *)
(* Departures from seed 000, and why:                                      *)
(*   - its deadlock: a rejected client waited forever for a grant that     *)
(*     never came, so TLC reported a deadlock unless deadlock checking was *)
(*     turned off.  Here a rejected client retries, at most MaxRetries     *)
(*     times, and then gives the section up (GiveUp); every model runs     *)
(*     with deadlock checking on;                                          *)
(*   - belief, release by lease, sections: above (seed 000 had one         *)
(*     section, a belief that ended only at the client's release, and a    *)
(*     release honoured on the client id alone);                           *)
(*   - the read and the write are each one step: the resource handling    *)
(*     the operation and the client handling its reply are one atomic      *)
(*     step, where Go has a message, a resource step, a reply and a client *)
(*     step (DESIGN.md's table says which Go steps each action covers).    *)
(*                                                                         *)
(* Departures from the Go protocol, and why:                               *)
(*   - requests reach the service in the order they were sent (one FIFO    *)
(*     queue, seed 000's shape); Go's untimed world may reorder messages.  *)
(*     Reordering adds no verdict here (a client has at most one acquire   *)
(*     outstanding), but a Go run that reorders requests has no matching   *)
(*     behaviour;                                                          *)
(*   - the validity timer is untimed and has no "send rule": a grant that  *)
(*     arrives is always believed (Go's default untimed rule, arrival);    *)
(*     under the send rule Go may give a late grant back instead;          *)
(*   - the backoff between a rejection and the next acquire is the pause   *)
(*     between Receive and Acquire, of any length.                         *)
(*                                                                         *)
(* Constants that vary the system (not the protocol): Timeouts = FALSE     *)
(* removes the TTL and the validity timer (no expiry, no LoseLease), and   *)
(* GiveUp = FALSE makes a client past its retry budget ask again instead   *)
(* of giving the section up; together they give the system in which every *)
(* section must commit (EveryClientCommits).                               *)
(*                                                                         *)
(* The state space is kept small on purpose (one or two sections per       *)
(* client, a small retry bound) so that 3-client models check in seconds.  *)
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
    GiveUp       \* TRUE: past MaxRetries a client gives the section up

ASSUME /\ Service \notin Clients
       /\ Validity \notin Clients \cup {Service}
       /\ InvalidId \notin Clients \cup {Service, Validity}
       /\ MaxRetries \in Nat
       /\ Sections \in Nat \ {0}
       /\ Timeouts \in BOOLEAN
       /\ GiveUp \in BOOLEAN

\* The messages a client sends.  A release names the lease it gives back.
AcquireMsg(c) == [type |-> "acquire", id |-> c, lease |-> 0]
ReleaseMsg(c, l) == [type |-> "release", id |-> c, lease |-> l]

\* What a client sends when its section ends (Go's endSection): the release
\* of the lease it used, if any, and the acquire of its next section, if
\* the section that ends is not its last (ended counts it).
EndMsgs(c, l, ended) ==
    (IF l = 0 THEN <<>> ELSE <<ReleaseMsg(c, l)>>)
    \o (IF ended < Sections THEN <<AcquireMsg(c)>> ELSE <<>>)

(* --algorithm DistLock {
variables
    \* The lock as the service sees it: "Expired" is kept apart from
    \* "Available" so a trace shows that the TTL, not a release, freed it;
    \* lease is the current grant's number (0 when none).
    distLock = [status |-> "Available", id |-> InvalidId, lease |-> 0],
    \* Requests from every client to the service, in arrival order.
    request_queue = <<>>,
    \* The service's answers, one queue per client.
    responses_queue = [c \in Clients |-> <<>>],
    \* Whether each client believes it holds the lock (client-local belief).
    lock_held = [c \in Clients |-> FALSE],
    \* The shared resource: a counter, and how many writes it accepted.
    counter = 0,
    writes = 0;

\* A section ends without effect: the client stops believing, releases the
\* lease it used (if any) and asks for its next section's lock (if any).
\* The caller then goes on to Receive or Done.
macro abort_section() {
    lock_held[self] := FALSE;
    request_queue := request_queue \o EndMsgs(self, lease, committed + aborted + 1);
    aborted := aborted + 1;
    retries := 0;
    lease := 0;
    read_val := 0;
}

\* Weak fairness: a client whose answer has arrived eventually reads it.
fair process (client \in Clients)
variables
    retries = 0,    \* rejections answered by asking again in this section
    lease = 0,      \* the grant this client is using; 0 means none
    read_val = 0,   \* what this client read from the counter
    committed = 0,  \* sections whose write was accepted
    aborted = 0;    \* sections given up or abandoned
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
\* The critical section is two steps, so another client can act in between.
\* A client whose belief ended (LoseLease) while its read was on the way
\* abandons the section when the reply comes, as Go's client does.
ReadCounter:
    if (lock_held[self]) {
        read_val := counter;
    } else {
        abort_section();
        if (committed + aborted < Sections) { goto Receive } else { goto Done };
    };
\* The client checks its belief before it writes; without it, it abandons
\* the section (no write).
WriteCounter:
    if (lock_held[self]) {
        counter := read_val + 1;
        writes := writes + 1;
    } else {
        abort_section();
        if (committed + aborted < Sections) { goto Receive } else { goto Done };
    };
\* The write's reply: the section committed.  Release the lease and ask
\* for the next section's lock.
Release:
    lock_held[self] := FALSE;
    request_queue := request_queue \o EndMsgs(self, lease, committed + aborted + 1);
    committed := committed + 1;
    retries := 0;
    lease := 0;
    read_val := 0;
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
                        distLock := [status |-> "Acquired", id |-> req.id, lease |-> last_lease + 1];
                        responses_queue[req.id] := Append(responses_queue[req.id],
                                                          [status |-> "granted", lease |-> last_lease + 1]);
                        last_lease := last_lease + 1;
                    } else {
                        responses_queue[req.id] := Append(responses_queue[req.id],
                                                          [status |-> "rejected", lease |-> 0]);
                    };
                } else if (distLock.status = "Acquired" /\ distLock.id = req.id
                           /\ distLock.lease = req.lease) {
                    \* Compare-and-delete: a release is honoured only from the
                    \* current holder, naming its current lease.
                    distLock := [status |-> "Available", id |-> InvalidId, lease |-> 0];
                };
            };
        } or {
            \* The TTL: the lease may run out at any moment while held.
            await Timeouts /\ distLock.status = "Acquired";
            distLock := [status |-> "Expired", id |-> InvalidId, lease |-> 0];
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
\* BEGIN TRANSLATION (chksum(pcal) = "8a067c0f" /\ chksum(tla) = "c22ed64b")
VARIABLES distLock, request_queue, responses_queue, lock_held, counter, 
          writes, pc, retries, lease, read_val, committed, aborted, 
          last_lease

vars == << distLock, request_queue, responses_queue, lock_held, counter, 
           writes, pc, retries, lease, read_val, committed, aborted, 
           last_lease >>

ProcSet == (Clients) \cup {Service} \cup {Validity}

Init == (* Global variables *)
        /\ distLock = [status |-> "Available", id |-> InvalidId, lease |-> 0]
        /\ request_queue = <<>>
        /\ responses_queue = [c \in Clients |-> <<>>]
        /\ lock_held = [c \in Clients |-> FALSE]
        /\ counter = 0
        /\ writes = 0
        (* Process client *)
        /\ retries = [self \in Clients |-> 0]
        /\ lease = [self \in Clients |-> 0]
        /\ read_val = [self \in Clients |-> 0]
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
                                 writes, retries, lease, read_val, committed, 
                                 aborted, last_lease >>

Receive(self) == /\ pc[self] = "Receive"
                 /\ Len(responses_queue[self]) > 0
                 /\ LET resp == Head(responses_queue[self]) IN
                      /\ responses_queue' = [responses_queue EXCEPT ![self] = Tail(responses_queue[self])]
                      /\ IF resp.status = "granted"
                            THEN /\ lock_held' = [lock_held EXCEPT ![self] = TRUE]
                                 /\ lease' = [lease EXCEPT ![self] = resp.lease]
                                 /\ pc' = [pc EXCEPT ![self] = "ReadCounter"]
                                 /\ UNCHANGED << request_queue, retries, 
                                                 read_val, aborted >>
                            ELSE /\ IF retries[self] < MaxRetries
                                       THEN /\ retries' = [retries EXCEPT ![self] = retries[self] + 1]
                                            /\ pc' = [pc EXCEPT ![self] = "Acquire"]
                                            /\ UNCHANGED << request_queue, 
                                                            lock_held, lease, 
                                                            read_val, aborted >>
                                       ELSE /\ IF ~GiveUp
                                                  THEN /\ pc' = [pc EXCEPT ![self] = "Acquire"]
                                                       /\ UNCHANGED << request_queue, 
                                                                       lock_held, 
                                                                       retries, 
                                                                       lease, 
                                                                       read_val, 
                                                                       aborted >>
                                                  ELSE /\ lock_held' = [lock_held EXCEPT ![self] = FALSE]
                                                       /\ request_queue' = request_queue \o EndMsgs(self, lease[self], committed[self] + aborted[self] + 1)
                                                       /\ aborted' = [aborted EXCEPT ![self] = aborted[self] + 1]
                                                       /\ retries' = [retries EXCEPT ![self] = 0]
                                                       /\ lease' = [lease EXCEPT ![self] = 0]
                                                       /\ read_val' = [read_val EXCEPT ![self] = 0]
                                                       /\ IF committed[self] + aborted'[self] < Sections
                                                             THEN /\ pc' = [pc EXCEPT ![self] = "Receive"]
                                                             ELSE /\ pc' = [pc EXCEPT ![self] = "Done"]
                 /\ UNCHANGED << distLock, counter, writes, committed, 
                                 last_lease >>

ReadCounter(self) == /\ pc[self] = "ReadCounter"
                     /\ IF lock_held[self]
                           THEN /\ read_val' = [read_val EXCEPT ![self] = counter]
                                /\ pc' = [pc EXCEPT ![self] = "WriteCounter"]
                                /\ UNCHANGED << request_queue, lock_held, 
                                                retries, lease, aborted >>
                           ELSE /\ lock_held' = [lock_held EXCEPT ![self] = FALSE]
                                /\ request_queue' = request_queue \o EndMsgs(self, lease[self], committed[self] + aborted[self] + 1)
                                /\ aborted' = [aborted EXCEPT ![self] = aborted[self] + 1]
                                /\ retries' = [retries EXCEPT ![self] = 0]
                                /\ lease' = [lease EXCEPT ![self] = 0]
                                /\ read_val' = [read_val EXCEPT ![self] = 0]
                                /\ IF committed[self] + aborted'[self] < Sections
                                      THEN /\ pc' = [pc EXCEPT ![self] = "Receive"]
                                      ELSE /\ pc' = [pc EXCEPT ![self] = "Done"]
                     /\ UNCHANGED << distLock, responses_queue, counter, 
                                     writes, committed, last_lease >>

WriteCounter(self) == /\ pc[self] = "WriteCounter"
                      /\ IF lock_held[self]
                            THEN /\ counter' = read_val[self] + 1
                                 /\ writes' = writes + 1
                                 /\ pc' = [pc EXCEPT ![self] = "Release"]
                                 /\ UNCHANGED << request_queue, lock_held, 
                                                 retries, lease, read_val, 
                                                 aborted >>
                            ELSE /\ lock_held' = [lock_held EXCEPT ![self] = FALSE]
                                 /\ request_queue' = request_queue \o EndMsgs(self, lease[self], committed[self] + aborted[self] + 1)
                                 /\ aborted' = [aborted EXCEPT ![self] = aborted[self] + 1]
                                 /\ retries' = [retries EXCEPT ![self] = 0]
                                 /\ lease' = [lease EXCEPT ![self] = 0]
                                 /\ read_val' = [read_val EXCEPT ![self] = 0]
                                 /\ IF committed[self] + aborted'[self] < Sections
                                       THEN /\ pc' = [pc EXCEPT ![self] = "Receive"]
                                       ELSE /\ pc' = [pc EXCEPT ![self] = "Done"]
                                 /\ UNCHANGED << counter, writes >>
                      /\ UNCHANGED << distLock, responses_queue, committed, 
                                      last_lease >>

Release(self) == /\ pc[self] = "Release"
                 /\ lock_held' = [lock_held EXCEPT ![self] = FALSE]
                 /\ request_queue' = request_queue \o EndMsgs(self, lease[self], committed[self] + aborted[self] + 1)
                 /\ committed' = [committed EXCEPT ![self] = committed[self] + 1]
                 /\ retries' = [retries EXCEPT ![self] = 0]
                 /\ lease' = [lease EXCEPT ![self] = 0]
                 /\ read_val' = [read_val EXCEPT ![self] = 0]
                 /\ IF committed'[self] + aborted[self] < Sections
                       THEN /\ pc' = [pc EXCEPT ![self] = "Receive"]
                       ELSE /\ pc' = [pc EXCEPT ![self] = "Done"]
                 /\ UNCHANGED << distLock, responses_queue, counter, writes, 
                                 aborted, last_lease >>

client(self) == Acquire(self) \/ Receive(self) \/ ReadCounter(self)
                   \/ WriteCounter(self) \/ Release(self)

Serve == /\ pc[Service] = "Serve"
         /\ IF \E c \in Clients : pc[c] /= "Done"
               THEN /\ \/ /\ Len(request_queue) > 0
                          /\ LET req == Head(request_queue) IN
                               /\ request_queue' = Tail(request_queue)
                               /\ IF req.type = "acquire"
                                     THEN /\ IF distLock.status \in {"Available", "Expired"}
                                                THEN /\ distLock' = [status |-> "Acquired", id |-> req.id, lease |-> last_lease + 1]
                                                     /\ responses_queue' = [responses_queue EXCEPT ![req.id] = Append(responses_queue[req.id],
                                                                                                                      [status |-> "granted", lease |-> last_lease + 1])]
                                                     /\ last_lease' = last_lease + 1
                                                ELSE /\ responses_queue' = [responses_queue EXCEPT ![req.id] = Append(responses_queue[req.id],
                                                                                                                      [status |-> "rejected", lease |-> 0])]
                                                     /\ UNCHANGED << distLock, 
                                                                     last_lease >>
                                     ELSE /\ IF distLock.status = "Acquired" /\ distLock.id = req.id
                                                /\ distLock.lease = req.lease
                                                THEN /\ distLock' = [status |-> "Available", id |-> InvalidId, lease |-> 0]
                                                ELSE /\ TRUE
                                                     /\ UNCHANGED distLock
                                          /\ UNCHANGED << responses_queue, 
                                                          last_lease >>
                       \/ /\ Timeouts /\ distLock.status = "Acquired"
                          /\ distLock' = [status |-> "Expired", id |-> InvalidId, lease |-> 0]
                          /\ UNCHANGED <<request_queue, responses_queue, last_lease>>
                    /\ pc' = [pc EXCEPT ![Service] = "Serve"]
               ELSE /\ pc' = [pc EXCEPT ![Service] = "Done"]
                    /\ UNCHANGED << distLock, request_queue, responses_queue, 
                                    last_lease >>
         /\ UNCHANGED << lock_held, counter, writes, retries, lease, read_val, 
                         committed, aborted >>

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
                             writes, retries, lease, read_val, committed, 
                             aborted, last_lease >>

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

Leases == 0 .. last_lease

TypeInvariant ==
    /\ distLock \in {[status |-> s, id |-> InvalidId, lease |-> 0] : s \in {"Available", "Expired"}}
                    \cup {[status |-> "Acquired", id |-> c, lease |-> l] : c \in Clients, l \in Leases \ {0}}
    /\ \A i \in DOMAIN request_queue :
           request_queue[i] \in {AcquireMsg(c) : c \in Clients}
                                \cup {ReleaseMsg(c, l) : c \in Clients, l \in Leases \ {0}}
    /\ \A c \in Clients :
           \A i \in DOMAIN responses_queue[c] :
               responses_queue[c][i] \in {[status |-> "granted", lease |-> l] : l \in Leases \ {0}}
                                         \cup {[status |-> "rejected", lease |-> 0]}
    /\ lock_held \in [Clients -> BOOLEAN]
    /\ counter \in Nat
    /\ writes \in Nat
    /\ retries \in [Clients -> 0..MaxRetries]
    /\ lease \in [Clients -> Leases]
    /\ read_val \in [Clients -> Nat]
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

\* Every accepted write incremented the counter: no critical section wrote a
\* value computed from a stale read.
NoLostUpdate == counter = writes

\* Every client eventually finishes (after its sections, each committed,
\* given up or abandoned).  Checked under the weak fairness of the processes
\* above.  Giving up satisfies it: see EveryClientCommits.
AllClientsFinish == <>(\A c \in Clients : pc[c] = "Done")

\* Every client eventually commits every section.  Giving up or abandoning
\* a section does not satisfy it.  It holds under Spec's fairness without
\* timeouts and with clients that never give up (Timeouts = GiveUp =
\* FALSE), and is violated when either is allowed.
EveryClientCommits == <>(\A c \in Clients : committed[c] = Sections)

\* A witness, expected VIOLATED: TLC finds a state in which every client has
\* committed every section, so a model in which the properties hold does
\* not hold them vacuously (a service that never grants, or a client that
\* never writes, would make this invariant hold).
NotEveryClientCommits == ~(\A c \in Clients : committed[c] = Sections)

\* The same system without any fairness: a process may simply stop taking
\* steps, forever.  AllClientsFinish fails under it, which shows that the
\* property is not vacuous and that it rests on the fairness of Spec.
UnfairSpec == Init /\ [][Next]_vars

\* Clients are interchangeable; used by the safety-only models.
Symmetry == Permutations(Clients)
=============================================================================
