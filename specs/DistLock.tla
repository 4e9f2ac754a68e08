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
(* Fix of seed 000's deadlock: there, a rejected client waited forever for *)
(* a grant that never came, so TLC reported a deadlock unless deadlock     *)
(* checking was turned off.  Here a rejected client retries, at most       *)
(* MaxRetries times, and then gives up; every model runs with deadlock     *)
(* checking on.                                                            *)
(*                                                                         *)
(* The state space is kept small on purpose (one critical section per      *)
(* client, a small retry bound) so that 3-client models check in seconds.  *)
(***************************************************************************)
EXTENDS Naturals, Sequences, TLC

CONSTANTS
    Clients,     \* the client processes (model values; symmetric)
    Service,     \* the lock service process (a model value)
    InvalidId,   \* the holder id of a lock nobody holds (a model value)
    MaxRetries   \* how many times a rejected client asks again

ASSUME /\ Service \notin Clients
       /\ InvalidId \notin Clients \cup {Service}
       /\ MaxRetries \in Nat

(* --algorithm DistLock {
variables
    \* The lock as the service sees it.  "Expired" is kept apart from
    \* "Available" so a trace shows that the TTL, not a release, freed it.
    distLock = [status |-> "Available", id |-> InvalidId],
    \* Requests from every client to the service, in arrival order.
    request_queue = <<>>,
    \* The service's answers, one queue per client.
    responses_queue = [c \in Clients |-> <<>>],
    \* Whether each client believes it holds the lock (client-local belief).
    lock_held = [c \in Clients |-> FALSE],
    \* The shared resource: a counter, and how many writes it accepted.
    counter = 0,
    writes = 0;

\* Weak fairness: a client whose answer has arrived eventually reads it.
fair process (client \in Clients)
variables
    retries = 0,   \* rejections answered by asking again so far
    read_val = 0;  \* what this client read from the counter
{
Acquire:
    request_queue := Append(request_queue, [type |-> "acquire", id |-> self]);
Receive:
    await Len(responses_queue[self]) > 0;
    with (resp = Head(responses_queue[self])) {
        responses_queue[self] := Tail(responses_queue[self]);
        if (resp = "granted") {
            lock_held[self] := TRUE;
        } else if (retries < MaxRetries) {
            \* Unlike seed 000, a rejected client asks again ...
            retries := retries + 1;
            goto Acquire;
        } else {
            \* ... and gives up after MaxRetries, so nobody waits forever.
            goto Done;
        };
    };
\* The critical section is two steps, so another client can act in between.
ReadCounter:
    read_val := counter;
WriteCounter:
    counter := read_val + 1;
    writes := writes + 1;
Release:
    lock_held[self] := FALSE;
    request_queue := Append(request_queue, [type |-> "release", id |-> self]);
}

\* The service handles one request per step (dequeue, decide, answer are one
\* local, atomic step of a single-threaded server), or lets the lease expire.
\* It stops once every client has finished.
fair process (service = Service)
{
Serve:
    while (\E c \in Clients : pc[c] /= "Done") {
        either {
            await Len(request_queue) > 0;
            with (req = Head(request_queue)) {
                request_queue := Tail(request_queue);
                if (req.type = "acquire") {
                    if (distLock.status \in {"Available", "Expired"}) {
                        distLock := [status |-> "Acquired", id |-> req.id];
                        responses_queue[req.id] := Append(responses_queue[req.id], "granted");
                    } else {
                        responses_queue[req.id] := Append(responses_queue[req.id], "rejected");
                    };
                } else if (distLock.status = "Acquired" /\ distLock.id = req.id) {
                    \* A release is honoured only from the current holder.
                    distLock := [status |-> "Available", id |-> InvalidId];
                };
            };
        } or {
            \* The TTL: the lease may run out at any moment while held.
            await distLock.status = "Acquired";
            distLock := [status |-> "Expired", id |-> InvalidId];
        };
    };
}
} *)
\* BEGIN TRANSLATION (chksum(pcal) = "2faefa9b" /\ chksum(tla) = "fefba771")
VARIABLES distLock, request_queue, responses_queue, lock_held, counter, 
          writes, pc, retries, read_val

vars == << distLock, request_queue, responses_queue, lock_held, counter, 
           writes, pc, retries, read_val >>

ProcSet == (Clients) \cup {Service}

Init == (* Global variables *)
        /\ distLock = [status |-> "Available", id |-> InvalidId]
        /\ request_queue = <<>>
        /\ responses_queue = [c \in Clients |-> <<>>]
        /\ lock_held = [c \in Clients |-> FALSE]
        /\ counter = 0
        /\ writes = 0
        (* Process client *)
        /\ retries = [self \in Clients |-> 0]
        /\ read_val = [self \in Clients |-> 0]
        /\ pc = [self \in ProcSet |-> CASE self \in Clients -> "Acquire"
                                        [] self = Service -> "Serve"]

Acquire(self) == /\ pc[self] = "Acquire"
                 /\ request_queue' = Append(request_queue, [type |-> "acquire", id |-> self])
                 /\ pc' = [pc EXCEPT ![self] = "Receive"]
                 /\ UNCHANGED << distLock, responses_queue, lock_held, counter, 
                                 writes, retries, read_val >>

Receive(self) == /\ pc[self] = "Receive"
                 /\ Len(responses_queue[self]) > 0
                 /\ LET resp == Head(responses_queue[self]) IN
                      /\ responses_queue' = [responses_queue EXCEPT ![self] = Tail(responses_queue[self])]
                      /\ IF resp = "granted"
                            THEN /\ lock_held' = [lock_held EXCEPT ![self] = TRUE]
                                 /\ pc' = [pc EXCEPT ![self] = "ReadCounter"]
                                 /\ UNCHANGED retries
                            ELSE /\ IF retries[self] < MaxRetries
                                       THEN /\ retries' = [retries EXCEPT ![self] = retries[self] + 1]
                                            /\ pc' = [pc EXCEPT ![self] = "Acquire"]
                                       ELSE /\ pc' = [pc EXCEPT ![self] = "Done"]
                                            /\ UNCHANGED retries
                                 /\ UNCHANGED lock_held
                 /\ UNCHANGED << distLock, request_queue, counter, writes, 
                                 read_val >>

ReadCounter(self) == /\ pc[self] = "ReadCounter"
                     /\ read_val' = [read_val EXCEPT ![self] = counter]
                     /\ pc' = [pc EXCEPT ![self] = "WriteCounter"]
                     /\ UNCHANGED << distLock, request_queue, responses_queue, 
                                     lock_held, counter, writes, retries >>

WriteCounter(self) == /\ pc[self] = "WriteCounter"
                      /\ counter' = read_val[self] + 1
                      /\ writes' = writes + 1
                      /\ pc' = [pc EXCEPT ![self] = "Release"]
                      /\ UNCHANGED << distLock, request_queue, responses_queue, 
                                      lock_held, retries, read_val >>

Release(self) == /\ pc[self] = "Release"
                 /\ lock_held' = [lock_held EXCEPT ![self] = FALSE]
                 /\ request_queue' = Append(request_queue, [type |-> "release", id |-> self])
                 /\ pc' = [pc EXCEPT ![self] = "Done"]
                 /\ UNCHANGED << distLock, responses_queue, counter, writes, 
                                 retries, read_val >>

client(self) == Acquire(self) \/ Receive(self) \/ ReadCounter(self)
                   \/ WriteCounter(self) \/ Release(self)

Serve == /\ pc[Service] = "Serve"
         /\ IF \E c \in Clients : pc[c] /= "Done"
               THEN /\ \/ /\ Len(request_queue) > 0
                          /\ LET req == Head(request_queue) IN
                               /\ request_queue' = Tail(request_queue)
                               /\ IF req.type = "acquire"
                                     THEN /\ IF distLock.status \in {"Available", "Expired"}
                                                THEN /\ distLock' = [status |-> "Acquired", id |-> req.id]
                                                     /\ responses_queue' = [responses_queue EXCEPT ![req.id] = Append(responses_queue[req.id], "granted")]
                                                ELSE /\ responses_queue' = [responses_queue EXCEPT ![req.id] = Append(responses_queue[req.id], "rejected")]
                                                     /\ UNCHANGED distLock
                                     ELSE /\ IF distLock.status = "Acquired" /\ distLock.id = req.id
                                                THEN /\ distLock' = [status |-> "Available", id |-> InvalidId]
                                                ELSE /\ TRUE
                                                     /\ UNCHANGED distLock
                                          /\ UNCHANGED responses_queue
                       \/ /\ distLock.status = "Acquired"
                          /\ distLock' = [status |-> "Expired", id |-> InvalidId]
                          /\ UNCHANGED <<request_queue, responses_queue>>
                    /\ pc' = [pc EXCEPT ![Service] = "Serve"]
               ELSE /\ pc' = [pc EXCEPT ![Service] = "Done"]
                    /\ UNCHANGED << distLock, request_queue, responses_queue >>
         /\ UNCHANGED << lock_held, counter, writes, retries, read_val >>

service == Serve

(* Allow infinite stuttering to prevent deadlock on termination. *)
Terminating == /\ \A self \in ProcSet: pc[self] = "Done"
               /\ UNCHANGED vars

Next == service
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
    /\ distLock \in {[status |-> s, id |-> InvalidId] : s \in {"Available", "Expired"}}
                    \cup {[status |-> "Acquired", id |-> c] : c \in Clients}
    /\ \A i \in DOMAIN request_queue :
           /\ request_queue[i].type \in {"acquire", "release"}
           /\ request_queue[i].id \in Clients
    /\ \A c \in Clients :
           \A i \in DOMAIN responses_queue[c] :
               responses_queue[c][i] \in {"granted", "rejected"}
    /\ lock_held \in [Clients -> BOOLEAN]
    /\ counter \in Nat
    /\ writes \in Nat
    /\ retries \in [Clients -> 0..MaxRetries]
    /\ read_val \in [Clients -> Nat]

\* No two distinct clients believe at the same time that they hold the lock.
AtMostOneClientHoldLock ==
    ~\E c1, c2 \in Clients :
        /\ c1 /= c2
        /\ lock_held[c1]
        /\ lock_held[c2]

\* Every accepted write incremented the counter: no critical section wrote a
\* value computed from a stale read.
NoLostUpdate == counter = writes

\* Every client eventually finishes (after its critical section, or after
\* giving up).  Checked under the weak fairness of the processes above.
AllClientsFinish == <>(\A c \in Clients : pc[c] = "Done")

\* The same system without any fairness: a process may simply stop taking
\* steps, forever.  AllClientsFinish fails under it, which shows that the
\* property is not vacuous and that it rests on the fairness of Spec.
UnfairSpec == Init /\ [][Next]_vars

\* Clients are interchangeable; used by the safety-only models.
Symmetry == Permutations(Clients)
=============================================================================
