--------------------------- MODULE DistLockNonAtomic ---------------------------
(***************************************************************************)
(* Row "non-atomic resource" of the lock-design x fault matrix (issue 12; *)
(* DESIGN.md's table): DistLockFencing.tla with check "all", except that  *)
(* the resource checks a write's token in one step and applies the write  *)
(* in a later one.                                                         *)
(*                                                                         *)
(* The assumption it makes visible: fencing "all" holds only because the  *)
(* resource checks and applies each operation in ONE atomic step ("mark    *)
(* before use" in Kleppmann's "How to do distributed locking", 2016, and   *)
(* seed 001; cited in the README's Sources).  Here WriteCounter checks the *)
(* token, raises the highest token seen and queues the write; the          *)
(* storage process applies the oldest queued write at some later step      *)
(* (Go: impl/resource.go, DesignNonAtomic, the resource's MsgApply to      *)
(* itself).  Between the two, a newer holder can read the old value and   *)
(* write: the stale write then takes effect after an operation with a     *)
(* newer token (TokenIsMonotonical violated) and over a write it never saw *)
(* (NoLostUpdate violated).  Reads stay atomic: the row takes away only    *)
(* the write's atomicity, which is enough.                                 *)
(*                                                                         *)
(* `accepted' logs operations in the order they take effect; the client   *)
(* hears of its write when it has been applied (Release awaits it).  The  *)
(* rest — clients, service, validity timers, Sections, MaxRetries,         *)
(* Timeouts, GiveUp — is DistLockFencing.tla's, which see.                 *)
(***************************************************************************)
EXTENDS Naturals, Sequences, TLC

CONSTANTS
    Clients,     \* the client processes (model values; symmetric)
    Service,     \* the lock service process (a model value)
    Validity,    \* the process of the clients' validity timers (a model value)
    Storage,     \* the resource's storage process, which applies writes (a model value)
    InvalidId,   \* the holder id of a lock nobody holds (a model value)
    MaxRetries,  \* how many times a rejected client asks again in a section
    Sections,    \* how many critical sections each client runs
    Timeouts,    \* TRUE: leases expire and beliefs end at any moment
    GiveUp       \* TRUE: past MaxRetries a client gives the section up

ASSUME /\ Service \notin Clients
       /\ Validity \notin Clients \cup {Service}
       /\ Storage \notin Clients \cup {Service, Validity}
       /\ InvalidId \notin Clients \cup {Service, Validity, Storage}
       /\ MaxRetries \in Nat
       /\ Sections \in Nat \ {0}
       /\ Timeouts \in BOOLEAN
       /\ GiveUp \in BOOLEAN

\* The messages a client sends.  A release names the lease it gives back.
AcquireMsg(c) == [type |-> "acquire", id |-> c, lease |-> 0]
ReleaseMsg(c, l) == [type |-> "release", id |-> c, lease |-> l]

\* What a client sends when its section ends (Go's endSection).
EndMsgs(c, l, ended) ==
    (IF l = 0 THEN <<>> ELSE <<ReleaseMsg(c, l)>>)
    \o (IF ended < Sections THEN <<AcquireMsg(c)>> ELSE <<>>)

\* Check "all": an operation with token t is accepted when t is at least
\* the highest token seen, high, which it then raises.
Admits(t, high) == t >= high
Raised(t, high) == IF t > high THEN t ELSE high

(* --algorithm DistLockNonAtomic {
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
    accepted = <<>>,
    \* Writes the resource has checked and not yet applied, oldest first
    \* (Go's Resource.pending): each with its client, lease, token and the
    \* value to write.
    pending = <<>>;

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
    if (Admits(token, max_token)) {
        max_token := Raised(token, max_token);
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
\* the section (no write).  Else the resource CHECKS the write (raising
\* the highest token seen) and queues it: it takes effect at a later
\* Apply, and anything may happen in between.
WriteCounter:
    if (lock_held[self]) {
        if (Admits(token, max_token)) {
            max_token := Raised(token, max_token);
            pending := Append(pending, [id |-> self, lease |-> lease, token |-> token, value |-> read_val + 1]);
            write_ok := TRUE;
        };
    } else {
        abort_section();
        if (committed + aborted < Sections) { goto Receive } else { goto Done };
    };
\* The write's reply: the section committed if the write was accepted, else
\* it was fenced off.  Release the lease and ask for the next section's lock.
Release:
    \* The write's reply comes when it has been applied (Go's MsgWriteReply,
    \* sent at the apply).
    await \A i \in DOMAIN pending : pending[i].id /= self;
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
                        \* Every grant carries a token, its lease number:
                        \* larger than every token before.
                        distLock := [status |-> "Acquired", id |-> req.id,
                                     lease |-> last_lease + 1, token |-> last_lease + 1];
                        responses_queue[req.id] := Append(responses_queue[req.id],
                                                          [status |-> "granted", lease |-> last_lease + 1,
                                                           token |-> last_lease + 1]);
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

\* The resource's storage applies the oldest checked write: the counter
\* takes its value and the write is logged as accepted, in the order writes
\* take effect (Go: the resource's MsgApply to itself).  Fair: a checked
\* write is eventually applied.
fair process (storage = Storage)
{
Apply:
    while (\E c \in Clients : pc[c] /= "Done") {
        await Len(pending) > 0;
        with (w = Head(pending)) {
            counter := w.value;
            accepted := Append(accepted, [op |-> "write", id |-> w.id, lease |-> w.lease, token |-> w.token]);
            pending := Tail(pending);
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
\* BEGIN TRANSLATION (chksum(pcal) = "125445bf" /\ chksum(tla) = "6af15578")
VARIABLES distLock, request_queue, responses_queue, lock_held, counter, 
          max_token, accepted, pending, pc, retries, lease, token, read_val, 
          write_ok, committed, aborted, last_lease

vars == << distLock, request_queue, responses_queue, lock_held, counter, 
           max_token, accepted, pending, pc, retries, lease, token, read_val, 
           write_ok, committed, aborted, last_lease >>

ProcSet == (Clients) \cup {Service} \cup {Storage} \cup {Validity}

Init == (* Global variables *)
        /\ distLock = [status |-> "Available", id |-> InvalidId, lease |-> 0, token |-> 0]
        /\ request_queue = <<>>
        /\ responses_queue = [c \in Clients |-> <<>>]
        /\ lock_held = [c \in Clients |-> FALSE]
        /\ counter = 0
        /\ max_token = 0
        /\ accepted = <<>>
        /\ pending = <<>>
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
                                        [] self = Storage -> "Apply"
                                        [] self = Validity -> "LoseLease"]

Acquire(self) == /\ pc[self] = "Acquire"
                 /\ request_queue' = Append(request_queue, AcquireMsg(self))
                 /\ pc' = [pc EXCEPT ![self] = "Receive"]
                 /\ UNCHANGED << distLock, responses_queue, lock_held, counter, 
                                 max_token, accepted, pending, retries, lease, 
                                 token, read_val, write_ok, committed, aborted, 
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
                                 pending, committed, last_lease >>

ReadCounter(self) == /\ pc[self] = "ReadCounter"
                     /\ IF Admits(token[self], max_token)
                           THEN /\ max_token' = Raised(token[self], max_token)
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
                                     pending, committed, last_lease >>

WriteCounter(self) == /\ pc[self] = "WriteCounter"
                      /\ IF lock_held[self]
                            THEN /\ IF Admits(token[self], max_token)
                                       THEN /\ max_token' = Raised(token[self], max_token)
                                            /\ pending' = Append(pending, [id |-> self, lease |-> lease[self], token |-> token[self], value |-> read_val[self] + 1])
                                            /\ write_ok' = [write_ok EXCEPT ![self] = TRUE]
                                       ELSE /\ TRUE
                                            /\ UNCHANGED << max_token, pending, 
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
                                 /\ UNCHANGED << max_token, pending >>
                      /\ UNCHANGED << distLock, responses_queue, counter, 
                                      accepted, committed, last_lease >>

Release(self) == /\ pc[self] = "Release"
                 /\ \A i \in DOMAIN pending : pending[i].id /= self
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
                                 accepted, pending, last_lease >>

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
                                                                     lease |-> last_lease + 1, token |-> last_lease + 1]
                                                     /\ responses_queue' = [responses_queue EXCEPT ![req.id] = Append(responses_queue[req.id],
                                                                                                                      [status |-> "granted", lease |-> last_lease + 1,
                                                                                                                       token |-> last_lease + 1])]
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
         /\ UNCHANGED << lock_held, counter, max_token, accepted, pending, 
                         retries, lease, token, read_val, write_ok, committed, 
                         aborted >>

service == Serve

Apply == /\ pc[Storage] = "Apply"
         /\ IF \E c \in Clients : pc[c] /= "Done"
               THEN /\ Len(pending) > 0
                    /\ LET w == Head(pending) IN
                         /\ counter' = w.value
                         /\ accepted' = Append(accepted, [op |-> "write", id |-> w.id, lease |-> w.lease, token |-> w.token])
                         /\ pending' = Tail(pending)
                    /\ pc' = [pc EXCEPT ![Storage] = "Apply"]
               ELSE /\ pc' = [pc EXCEPT ![Storage] = "Done"]
                    /\ UNCHANGED << counter, accepted, pending >>
         /\ UNCHANGED << distLock, request_queue, responses_queue, lock_held, 
                         max_token, retries, lease, token, read_val, write_ok, 
                         committed, aborted, last_lease >>

storage == Apply

LoseLease == /\ pc[Validity] = "LoseLease"
             /\ IF \E c \in Clients : pc[c] /= "Done"
                   THEN /\ Timeouts
                        /\ \E c \in {b \in Clients : lock_held[b]}:
                             lock_held' = [lock_held EXCEPT ![c] = FALSE]
                        /\ pc' = [pc EXCEPT ![Validity] = "LoseLease"]
                   ELSE /\ pc' = [pc EXCEPT ![Validity] = "Done"]
                        /\ UNCHANGED lock_held
             /\ UNCHANGED << distLock, request_queue, responses_queue, counter, 
                             max_token, accepted, pending, retries, lease, 
                             token, read_val, write_ok, committed, aborted, 
                             last_lease >>

validity == LoseLease

(* Allow infinite stuttering to prevent deadlock on termination. *)
Terminating == /\ \A self \in ProcSet: pc[self] = "Done"
               /\ UNCHANGED vars

Next == service \/ storage \/ validity
           \/ (\E self \in Clients: client(self))
           \/ Terminating

Spec == /\ Init /\ [][Next]_vars
        /\ \A self \in Clients : WF_vars(client(self))
        /\ WF_vars(service)
        /\ WF_vars(storage)

Termination == <>(\A self \in ProcSet: pc[self] = "Done")

\* END TRANSLATION 


-----------------------------------------------------------------------------
(***************************************************************************)
(* Properties (DistLockFencing.tla's, over the order writes take effect).  *)
(***************************************************************************)

TypeInvariant ==
    /\ lock_held \in [Clients -> BOOLEAN]
    /\ counter \in Nat
    /\ max_token \in 0 .. last_lease
    /\ \A i \in DOMAIN accepted :
           accepted[i] \in [op : {"read", "write"}, id : Clients, lease : 1 .. last_lease, token : 1 .. last_lease]
    /\ \A i \in DOMAIN pending :
           pending[i] \in [id : Clients, lease : 1 .. last_lease, token : 1 .. last_lease, value : Nat]
    /\ committed \in [Clients -> 0..Sections]
    /\ aborted \in [Clients -> 0..Sections]

\* No two distinct clients believe at the same time that they hold the lock.
AtMostOneClientHoldLock ==
    ~\E c1, c2 \in Clients : c1 /= c2 /\ lock_held[c1] /\ lock_held[c2]

\* The tokens of the operations that took effect never decrease, in the
\* order they took effect.
TokenIsMonotonical ==
    \A i, j \in DOMAIN accepted : i < j => accepted[i].token <= accepted[j].token

\* The counter equals the number of writes that took effect: no write was
\* computed from a stale read.
NoLostUpdate ==
    LET IsWrite(e) == e.op = "write"
    IN  counter = Len(SelectSeq(accepted, IsWrite))

\* A witness, expected VIOLATED: every client can commit every section.
NotEveryClientCommits == ~(\A c \in Clients : committed[c] = Sections)

\* Clients are interchangeable; used by the safety-only models.
Symmetry == Permutations(Clients)
=============================================================================
