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
(* Fixes of seed 000's two defects:                                        *)
(*   (a) a rejected client waited forever there (a deadlock unless         *)
(*       deadlock checking was off); here it retries, at most MaxRetries   *)
(*       times, then gives up, and every model checks deadlock;            *)
(*   (b) seed 000's TokenIsMonotonical held by construction: the client    *)
(*       appended its token to the history only if it was larger than the  *)
(*       last one.  Here the RESOURCE decides, and `accepted' records what *)
(*       it accepted, in acceptance order, so the property has teeth.      *)
(***************************************************************************)
EXTENDS Naturals, Sequences, TLC

CONSTANTS
    Clients,     \* the client processes (model values; symmetric)
    Service,     \* the lock service process (a model value)
    InvalidId,   \* the holder id of a lock nobody holds (a model value)
    MaxRetries,  \* how many times a rejected client asks again
    Check        \* the resource's token check: "none", "writes" or "all"

ASSUME /\ Service \notin Clients
       /\ InvalidId \notin Clients \cup {Service}
       /\ MaxRetries \in Nat
       /\ Check \in {"none", "writes", "all"}

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
    \* The lock as the service sees it, with the token of the current grant.
    distLock = [status |-> "Available", id |-> InvalidId, token |-> 0],
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

\* Weak fairness: a client whose answer has arrived eventually reads it.
fair process (client \in Clients)
variables
    retries = 0,   \* rejections answered by asking again so far
    token = 0,     \* the token of this client's grant; 0 means none
    read_val = 0;  \* what this client read from the counter
{
Acquire:
    request_queue := Append(request_queue, [type |-> "acquire", id |-> self, token |-> 0]);
Receive:
    await Len(responses_queue[self]) > 0;
    with (resp = Head(responses_queue[self])) {
        responses_queue[self] := Tail(responses_queue[self]);
        if (resp.status = "granted") {
            lock_held[self] := TRUE;
            token := resp.token;
        } else if (retries < MaxRetries) {
            \* Unlike seed 000, a rejected client asks again ...
            retries := retries + 1;
            goto Acquire;
        } else {
            \* ... and gives up after MaxRetries, so nobody waits forever.
            goto Done;
        };
    };
\* The critical section is two operations, each checked by the resource.
ReadCounter:
    if (Admits("read", token, max_token)) {
        read_val := counter;
        max_token := Raised("read", token, max_token);
        accepted := Append(accepted, [op |-> "read", id |-> self, token |-> token]);
    } else {
        \* Refused: a newer token has been seen; abandon the section.
        goto Release;
    };
WriteCounter:
    if (Admits("write", token, max_token)) {
        counter := read_val + 1;
        max_token := Raised("write", token, max_token);
        accepted := Append(accepted, [op |-> "write", id |-> self, token |-> token]);
    };
Release:
    lock_held[self] := FALSE;
    request_queue := Append(request_queue, [type |-> "release", id |-> self, token |-> token]);
}

\* The service handles one request per step (dequeue, decide, answer are one
\* local, atomic step of a single-threaded server), or lets the lease expire.
\* It stops once every client has finished.
fair process (service = Service)
variables
    next_token = 1;  \* the token of the next grant; tokens only grow
{
Serve:
    while (\E c \in Clients : pc[c] /= "Done") {
        either {
            await Len(request_queue) > 0;
            with (req = Head(request_queue)) {
                request_queue := Tail(request_queue);
                if (req.type = "acquire") {
                    if (distLock.status \in {"Available", "Expired"}) {
                        distLock := [status |-> "Acquired", id |-> req.id, token |-> next_token];
                        responses_queue[req.id] := Append(responses_queue[req.id],
                                                          [status |-> "granted", token |-> next_token]);
                        next_token := next_token + 1;
                    } else {
                        responses_queue[req.id] := Append(responses_queue[req.id],
                                                          [status |-> "rejected", token |-> 0]);
                    };
                } else if (distLock.status = "Acquired" /\ distLock.id = req.id
                           /\ distLock.token = req.token) {
                    \* A release is honoured only from the current holder,
                    \* identified by its token too.
                    distLock := [status |-> "Available", id |-> InvalidId, token |-> 0];
                };
            };
        } or {
            \* The TTL: the lease may run out at any moment while held.
            await distLock.status = "Acquired";
            distLock := [status |-> "Expired", id |-> InvalidId, token |-> 0];
        };
    };
}
} *)
\* BEGIN TRANSLATION (chksum(pcal) = "368a2c17" /\ chksum(tla) = "1f39a549")
VARIABLES distLock, request_queue, responses_queue, lock_held, counter, 
          max_token, accepted, pc, retries, token, read_val, next_token

vars == << distLock, request_queue, responses_queue, lock_held, counter, 
           max_token, accepted, pc, retries, token, read_val, next_token >>

ProcSet == (Clients) \cup {Service}

Init == (* Global variables *)
        /\ distLock = [status |-> "Available", id |-> InvalidId, token |-> 0]
        /\ request_queue = <<>>
        /\ responses_queue = [c \in Clients |-> <<>>]
        /\ lock_held = [c \in Clients |-> FALSE]
        /\ counter = 0
        /\ max_token = 0
        /\ accepted = <<>>
        (* Process client *)
        /\ retries = [self \in Clients |-> 0]
        /\ token = [self \in Clients |-> 0]
        /\ read_val = [self \in Clients |-> 0]
        (* Process service *)
        /\ next_token = 1
        /\ pc = [self \in ProcSet |-> CASE self \in Clients -> "Acquire"
                                        [] self = Service -> "Serve"]

Acquire(self) == /\ pc[self] = "Acquire"
                 /\ request_queue' = Append(request_queue, [type |-> "acquire", id |-> self, token |-> 0])
                 /\ pc' = [pc EXCEPT ![self] = "Receive"]
                 /\ UNCHANGED << distLock, responses_queue, lock_held, counter, 
                                 max_token, accepted, retries, token, read_val, 
                                 next_token >>

Receive(self) == /\ pc[self] = "Receive"
                 /\ Len(responses_queue[self]) > 0
                 /\ LET resp == Head(responses_queue[self]) IN
                      /\ responses_queue' = [responses_queue EXCEPT ![self] = Tail(responses_queue[self])]
                      /\ IF resp.status = "granted"
                            THEN /\ lock_held' = [lock_held EXCEPT ![self] = TRUE]
                                 /\ token' = [token EXCEPT ![self] = resp.token]
                                 /\ pc' = [pc EXCEPT ![self] = "ReadCounter"]
                                 /\ UNCHANGED retries
                            ELSE /\ IF retries[self] < MaxRetries
                                       THEN /\ retries' = [retries EXCEPT ![self] = retries[self] + 1]
                                            /\ pc' = [pc EXCEPT ![self] = "Acquire"]
                                       ELSE /\ pc' = [pc EXCEPT ![self] = "Done"]
                                            /\ UNCHANGED retries
                                 /\ UNCHANGED << lock_held, token >>
                 /\ UNCHANGED << distLock, request_queue, counter, max_token, 
                                 accepted, read_val, next_token >>

ReadCounter(self) == /\ pc[self] = "ReadCounter"
                     /\ IF Admits("read", token[self], max_token)
                           THEN /\ read_val' = [read_val EXCEPT ![self] = counter]
                                /\ max_token' = Raised("read", token[self], max_token)
                                /\ accepted' = Append(accepted, [op |-> "read", id |-> self, token |-> token[self]])
                                /\ pc' = [pc EXCEPT ![self] = "WriteCounter"]
                           ELSE /\ pc' = [pc EXCEPT ![self] = "Release"]
                                /\ UNCHANGED << max_token, accepted, read_val >>
                     /\ UNCHANGED << distLock, request_queue, responses_queue, 
                                     lock_held, counter, retries, token, 
                                     next_token >>

WriteCounter(self) == /\ pc[self] = "WriteCounter"
                      /\ IF Admits("write", token[self], max_token)
                            THEN /\ counter' = read_val[self] + 1
                                 /\ max_token' = Raised("write", token[self], max_token)
                                 /\ accepted' = Append(accepted, [op |-> "write", id |-> self, token |-> token[self]])
                            ELSE /\ TRUE
                                 /\ UNCHANGED << counter, max_token, accepted >>
                      /\ pc' = [pc EXCEPT ![self] = "Release"]
                      /\ UNCHANGED << distLock, request_queue, responses_queue, 
                                      lock_held, retries, token, read_val, 
                                      next_token >>

Release(self) == /\ pc[self] = "Release"
                 /\ lock_held' = [lock_held EXCEPT ![self] = FALSE]
                 /\ request_queue' = Append(request_queue, [type |-> "release", id |-> self, token |-> token[self]])
                 /\ pc' = [pc EXCEPT ![self] = "Done"]
                 /\ UNCHANGED << distLock, responses_queue, counter, max_token, 
                                 accepted, retries, token, read_val, 
                                 next_token >>

client(self) == Acquire(self) \/ Receive(self) \/ ReadCounter(self)
                   \/ WriteCounter(self) \/ Release(self)

Serve == /\ pc[Service] = "Serve"
         /\ IF \E c \in Clients : pc[c] /= "Done"
               THEN /\ \/ /\ Len(request_queue) > 0
                          /\ LET req == Head(request_queue) IN
                               /\ request_queue' = Tail(request_queue)
                               /\ IF req.type = "acquire"
                                     THEN /\ IF distLock.status \in {"Available", "Expired"}
                                                THEN /\ distLock' = [status |-> "Acquired", id |-> req.id, token |-> next_token]
                                                     /\ responses_queue' = [responses_queue EXCEPT ![req.id] = Append(responses_queue[req.id],
                                                                                                                      [status |-> "granted", token |-> next_token])]
                                                     /\ next_token' = next_token + 1
                                                ELSE /\ responses_queue' = [responses_queue EXCEPT ![req.id] = Append(responses_queue[req.id],
                                                                                                                      [status |-> "rejected", token |-> 0])]
                                                     /\ UNCHANGED << distLock, 
                                                                     next_token >>
                                     ELSE /\ IF distLock.status = "Acquired" /\ distLock.id = req.id
                                                /\ distLock.token = req.token
                                                THEN /\ distLock' = [status |-> "Available", id |-> InvalidId, token |-> 0]
                                                ELSE /\ TRUE
                                                     /\ UNCHANGED distLock
                                          /\ UNCHANGED << responses_queue, 
                                                          next_token >>
                       \/ /\ distLock.status = "Acquired"
                          /\ distLock' = [status |-> "Expired", id |-> InvalidId, token |-> 0]
                          /\ UNCHANGED <<request_queue, responses_queue, next_token>>
                    /\ pc' = [pc EXCEPT ![Service] = "Serve"]
               ELSE /\ pc' = [pc EXCEPT ![Service] = "Done"]
                    /\ UNCHANGED << distLock, request_queue, responses_queue, 
                                    next_token >>
         /\ UNCHANGED << lock_held, counter, max_token, accepted, retries, 
                         token, read_val >>

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

\* Tokens handed out so far are 1 .. next_token - 1.
Tokens == 0 .. next_token

TypeInvariant ==
    /\ distLock \in {[status |-> s, id |-> InvalidId, token |-> 0] : s \in {"Available", "Expired"}}
                    \cup {[status |-> "Acquired", id |-> c, token |-> t] : c \in Clients, t \in Tokens \ {0}}
    /\ \A i \in DOMAIN request_queue :
           /\ request_queue[i].type \in {"acquire", "release"}
           /\ request_queue[i].id \in Clients
           /\ request_queue[i].token \in Tokens
    /\ \A c \in Clients :
           \A i \in DOMAIN responses_queue[c] :
               responses_queue[c][i] \in [status : {"granted", "rejected"}, token : Tokens]
    /\ lock_held \in [Clients -> BOOLEAN]
    /\ counter \in Nat
    /\ max_token \in Tokens
    /\ \A i \in DOMAIN accepted :
           accepted[i] \in [op : {"read", "write"}, id : Clients, token : Tokens \ {0}]
    /\ retries \in [Clients -> 0..MaxRetries]
    /\ token \in [Clients -> Tokens]
    /\ read_val \in [Clients -> Nat]
    /\ next_token \in Nat \ {0}

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

\* The counter equals the number of writes the resource accepted: no
\* accepted write was computed from a stale read.
NoLostUpdate ==
    LET IsWrite(e) == e.op = "write"
    IN  counter = Len(SelectSeq(accepted, IsWrite))

\* Every client eventually finishes (after its critical section, after a
\* refused operation, or after giving up).  Checked under the weak fairness
\* of the processes above.
AllClientsFinish == <>(\A c \in Clients : pc[c] = "Done")

\* The same system without any fairness: a process may simply stop taking
\* steps, forever.  AllClientsFinish fails under it, which shows that the
\* property is not vacuous and that it rests on the fairness of Spec.
UnfairSpec == Init /\ [][Next]_vars

\* Clients are interchangeable; used by the safety-only models.
Symmetry == Permutations(Clients)
=============================================================================
