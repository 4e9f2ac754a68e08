---------------------------- MODULE DistLockTimed ----------------------------
(***************************************************************************)
(* The lease lock of DistLock.tla WITH TIME: discrete real time (integer   *)
(* ticks), a clock per node that drifts and may step, bounded pauses and   *)
(* bounded delays.  DistLock.tla lets the lease expire at any moment (the  *)
(* asynchronous model) and so loses both properties; this spec asks WHEN   *)
(* an unfenced lease lock keeps them.  DESIGN.md, "When a lease lock is    *)
(* safe without fencing", derives the condition; the models check it one   *)
(* tick inside (holds) and one tick outside (violated).                    *)
(*                                                                         *)
(* Time.  `now' is real time in ticks.  A node n's clock reads             *)
(*     Clock(n) = rate[n] * now + off[n]                                   *)
(* in clock units; a perfect clock runs Q units per tick, so one clock     *)
(* unit is 1/Q tick and TTL, M, L, J are in clock units while P, D,        *)
(* MaxStart are in ticks.                                                  *)
(*   - Drift: rate[n] is chosen once, at Init, in Q-R .. Q+R, so           *)
(*     rho = R/Q and a clock advances between (1-rho) and (1+rho) times    *)
(*     real time.  A constant rate is no loss: each property below rests   *)
(*     on one interval per node (the client's validity, the service's      *)
(*     lease plus lock-delay), a clock's advance over an interval depends  *)
(*     only on its mean rate there, and that mean lies in the same range,  *)
(*     reached at its ends by the constant extreme rates.  Clocks are      *)
(*     computed from `now', not stored, so drift costs no states.          *)
(*   - Steps: each clock may be stepped ONCE, by any amount in -J .. J     *)
(*     (off[n] goes from 0 to that amount at any moment).  So the net      *)
(*     step over any interval a node measures is within +-J, which is      *)
(*     what J means in DESIGN.md's condition.                              *)
(*                                                                         *)
(* The lease, Redlock's rule (what the Go code follows).  A client counts  *)
(* its validity from the moment it SENT the acquire: it believes it holds  *)
(* the lock until its own clock has advanced TTL - M since the send; a     *)
(* grant handled after that is treated as lost.  The service grants if     *)
(* the lock is free and counts from the grant on its own clock: the lease  *)
(* expires after TTL, and the lock is then held back for L, so the next    *)
(* grant needs its clock to have advanced TTL + L since the last grant.    *)
(* (Measuring L from the moment the expiry is handled instead can only     *)
(* grant later.)  The service's steps are not paused: a late grant only    *)
(* shortens the holder's belief, a late expiry only postpones the next     *)
(* grant.  There is no release: a release comes after the holder's write   *)
(* has landed and its belief has ended, so it can only hand the lock on    *)
(* when that is already safe; leaving it out keeps the state space small.  *)
(*                                                                         *)
(* Pauses and delays -- which bounds the spec imposes, and why only these: *)
(*   - A client's belief ends when it HANDLES its validity timer (or       *)
(*     when it has sent its write and is done with the lock; a client      *)
(*     that thinks on believes until the timer, the longest belief).  The  *)
(*     timer is handled at most P ticks after it is due (`late'); a        *)
(*     paused client keeps believing meanwhile.                            *)
(*   - A critical section: read the counter (an atomic step at the         *)
(*     resource), think, then check the belief and send the write.  The    *)
(*     write may be held by a pause and delayed in the network: it lands   *)
(*     at most P + D ticks after the check (its `age').  Nothing else the  *)
(*     client does depends on the moment of the send, so the two delays    *)
(*     just add up.  A read that landed later could only see more, so an   *)
(*     atomic read is the worst case.                                      *)
(*   - Everything else may be ARBITRARILY slow: a client may take its      *)
(*     steps (acquire before MaxStart, handle the grant, read, check)      *)
(*     whenever it likes, and the acquire and the grant may be late by     *)
(*     any amount.  This is a sound over-approximation for safety (more    *)
(*     behaviours than the bounds allow), and it loses no worst case:      *)
(*     validity counts from the send, so a late request or grant only      *)
(*     shortens a belief.  That is why D enters only through the write.    *)
(*   - Real time starts with the first acquire and stops when every        *)
(*     client is done and no write is in flight; the other client must     *)
(*     ask by MaxStart.  Time shifts change nothing (only clock            *)
(*     DIFFERENCES matter), so the first acquire may as well be at 0, and  *)
(*     MaxStart only has to reach the earliest moment of the next grant.   *)
(*                                                                         *)
(* Fencing is the constant Fencing: "off" (no check) or "all" (the         *)
(* resource checks every operation, read or write, against the highest     *)
(* token seen and raises it first: "mark before use", as in                *)
(* DistLockFencing.tla with Check = "all").  A refused read abandons the   *)
(* section; a refused write is dropped.                                    *)
(*                                                                         *)
(* Every model has two clients and one critical section each.              *)
(***************************************************************************)
EXTENDS Integers, TLC

CONSTANTS
    Clients,    \* the client processes (model values; symmetric)
    Service,    \* the lock service (a model value)
    Q,          \* clock units per tick of a perfect clock
    R,          \* drift: a clock runs Q-R .. Q+R units per tick (rho = R/Q)
    J,          \* each clock may be stepped once, by at most J units
    P,          \* a due validity timer is handled within P ticks; a write is held at most P ticks before it is sent
    D,          \* a write is delayed in the network at most D ticks
    TTL,        \* the lease, in clock units
    M,          \* the client's margin: it believes for TTL - M of its clock units since the send
    L,          \* the lock-delay: after a lease expires the service waits L more units before granting again
    MaxStart,   \* a client asks for the lock at some tick in 0 .. MaxStart
    Fencing     \* "off" or "all"

ASSUME /\ Service \notin Clients
       /\ Q \in Nat /\ R \in Nat /\ R < Q
       /\ J \in Nat /\ P \in Nat /\ D \in Nat /\ MaxStart \in Nat
       /\ TTL \in Nat /\ M \in Nat /\ M < TTL /\ L \in Nat
       /\ Fencing \in {"off", "all"}

Nodes == Clients \cup {Service}

\* No write in flight.
NoWrite == [v |-> -1, t |-> 0, a |-> 0]

VARIABLES
    now,       \* real time, in ticks
    rate,      \* each node's clock rate, in units per tick (0: not chosen yet, or forgotten)
    off,       \* each node's clock step so far (0 until it is stepped)
    lastGrant, \* the service's clock at its last grant (0 before the first)
    nextTok,   \* the token of the next grant (1: nothing granted yet)
    req,       \* whether each client's acquire is in flight
    resp,      \* the answer in flight to each client: "none", or a grant or refusal with its token
    pc,        \* each client's place: Idle, Wait, Read, Think, Done
    sent,      \* each client's clock when it sent its acquire
    held,      \* whether each client believes it holds the lock
    late,      \* ticks each client's validity timer has been due but not handled
    token,     \* each client's token (0: none)
    rval,      \* what each client read
    wr,        \* each client's write in flight: value v, token t, age a in ticks (NoWrite: none)
    counter,   \* the shared resource
    writes,    \* how many writes the resource accepted
    maxTok     \* the highest token the resource has seen

vars == <<now, rate, off, lastGrant, nextTok, req, resp, pc, sent, held, late,
          token, rval, wr, counter, writes, maxTok>>

Clock(n) == rate[n] * now + off[n]

\* The lock is free once the service's clock has advanced TTL + L since the
\* last grant: the lease (TTL), then the lock-delay (L).
Free == nextTok = 1 \/ Clock(Service) - lastGrant >= TTL + L

\* A client's validity timer: due once its clock has advanced TTL - M since
\* it sent its acquire, while it waits for the grant or holds the lock.
Due(c) == pc[c] \in {"Wait", "Read", "Think"} /\ Clock(c) - sent[c] >= TTL - M

InFlight(c) == wr[c] /= NoWrite

\* The resource's check on an operation with token t ("all" only).
Admits(t) == Fencing = "off" \/ t >= maxTok
Raised(t) == IF Fencing = "all" /\ t > maxTok THEN t ELSE maxTok

Init ==
    /\ now = 0
    /\ rate = [n \in Nodes |-> 0]
    /\ off = [n \in Nodes |-> 0]
    /\ lastGrant = 0
    /\ nextTok = 1
    /\ req = [c \in Clients |-> FALSE]
    /\ resp = [c \in Clients |-> [st |-> "none", t |-> 0]]
    /\ pc = [c \in Clients |-> "Idle"]
    /\ sent = [c \in Clients |-> 0]
    /\ held = [c \in Clients |-> FALSE]
    /\ late = [c \in Clients |-> 0]
    /\ token = [c \in Clients |-> 0]
    /\ rval = [c \in Clients |-> 0]
    /\ wr = [c \in Clients |-> NoWrite]
    /\ counter = 0
    /\ writes = 0
    /\ maxTok = 0

-----------------------------------------------------------------------------
(* Time and clocks.                                                        *)

\* One tick of real time.  It may not pass a bound: a validity timer due
\* for P ticks must be handled first, a write P + D ticks old must land
\* first, and a client that has not asked by MaxStart must ask first.
\* Time starts with the first acquire: before it nothing is measured (no
\* clock rate is chosen yet), so idle ticks before it would only shift the
\* whole run in time.  Time stops once nothing is left to happen.
Tick ==
    /\ \E c \in Clients : pc[c] /= "Done" \/ InFlight(c)
    /\ \E c \in Clients : pc[c] /= "Idle"
    /\ \A c \in Clients : Due(c) => late[c] < P
    /\ \A c \in Clients : InFlight(c) => wr[c].a < P + D
    /\ \A c \in Clients : pc[c] = "Idle" => now < MaxStart
    /\ now' = now + 1
    /\ late' = [c \in Clients |-> IF Due(c) THEN late[c] + 1 ELSE 0]
    /\ wr' = [c \in Clients |-> IF InFlight(c) THEN [wr[c] EXCEPT !.a = @ + 1] ELSE wr[c]]
    /\ UNCHANGED <<rate, off, lastGrant, nextTok, req, resp, pc, sent, held, token,
                   rval, counter, writes, maxTok>>

\* A clock is stepped, once, by up to J units either way -- while it
\* measures an interval that matters: a client's from its send until it is
\* done, the service's from its first grant while a client may still be
\* granted.  (Only clock DIFFERENCES matter, so a step outside such an
\* interval is no step at all; allowing the one step only inside is the
\* stronger adversary.)
Measuring(n) ==
    IF n = Service
      THEN nextTok > 1 /\ \E c \in Clients : pc[c] \in {"Idle", "Wait"}
      ELSE pc[n] \in {"Wait", "Read", "Think"}

StepClock(n) ==
    /\ off[n] = 0
    /\ Measuring(n)
    /\ \E s \in (-J .. J) \ {0} : off' = [off EXCEPT ![n] = s]
    /\ UNCHANGED <<now, rate, lastGrant, nextTok, req, resp, pc, sent, held, late,
                   token, rval, wr, counter, writes, maxTok>>

-----------------------------------------------------------------------------
(* The service.                                                            *)

\* The acquire of client c arrives (any time after it was sent) and is
\* answered at once: granted with a fresh token if the lock is free.
Serve(c) ==
    /\ req[c]
    /\ req' = [req EXCEPT ![c] = FALSE]
    /\ IF nextTok = 1
         THEN \* The first grant: the service's clock starts to matter, so
              \* its rate is chosen now (as the client's at its send).
              /\ \E r \in Q - R .. Q + R :
                     /\ rate' = [rate EXCEPT ![Service] = r]
                     /\ lastGrant' = r * now
              /\ resp' = [resp EXCEPT ![c] = [st |-> "granted", t |-> nextTok]]
              /\ nextTok' = nextTok + 1
         ELSE IF Free
         THEN /\ resp' = [resp EXCEPT ![c] = [st |-> "granted", t |-> nextTok]]
              /\ lastGrant' = Clock(Service)
              /\ nextTok' = nextTok + 1
              /\ UNCHANGED rate
         ELSE /\ resp' = [resp EXCEPT ![c] = [st |-> "refused", t |-> 0]]
              /\ UNCHANGED <<rate, lastGrant, nextTok>>
    /\ UNCHANGED <<now, off, pc, sent, held, late, token, rval, wr, counter,
                   writes, maxTok>>

-----------------------------------------------------------------------------
(* A client.                                                               *)

\* The client asks for the lock and notes its clock.  Its clock rate is
\* chosen here, not at Init: before the send nothing depends on it, and
\* choosing it late keeps equivalent states apart no longer than needed.
Acquire(c) ==
    /\ pc[c] = "Idle"
    /\ pc' = [pc EXCEPT ![c] = "Wait"]
    /\ req' = [req EXCEPT ![c] = TRUE]
    /\ \E r \in Q - R .. Q + R :
           /\ rate' = [rate EXCEPT ![c] = r]
           /\ sent' = [sent EXCEPT ![c] = r * now]
    /\ UNCHANGED <<now, off, lastGrant, nextTok, resp, held, late, token, rval,
                   wr, counter, writes, maxTok>>

\* The client is done: its belief ends, and whatever it knew about its
\* clock and its section is forgotten (nothing depends on it any more, so
\* forgetting it only merges states that behave alike).
Finish(c) ==
    /\ pc' = [pc EXCEPT ![c] = "Done"]
    /\ held' = [held EXCEPT ![c] = FALSE]
    /\ rate' = [rate EXCEPT ![c] = 0]
    /\ off' = [off EXCEPT ![c] = 0]
    /\ sent' = [sent EXCEPT ![c] = 0]
    /\ late' = [late EXCEPT ![c] = 0]
    /\ token' = [token EXCEPT ![c] = 0]
    /\ rval' = [rval EXCEPT ![c] = 0]

\* The answer arrives.  A grant handled within the validity window starts
\* the belief; a refusal, or a grant handled too late (it is treated as
\* lost: the client cannot tell how much of the lease is left), ends the
\* attempt.  An answer to a client that gave up is dropped.
Receive(c) ==
    /\ resp[c].st /= "none"
    /\ resp' = [resp EXCEPT ![c] = [st |-> "none", t |-> 0]]
    /\ IF pc[c] = "Wait" /\ resp[c].st = "granted" /\ Clock(c) - sent[c] < TTL - M
         THEN /\ pc' = [pc EXCEPT ![c] = "Read"]
              /\ held' = [held EXCEPT ![c] = TRUE]
              /\ token' = [token EXCEPT ![c] = resp[c].t]
              /\ UNCHANGED <<rate, off, sent, late, rval>>
         ELSE IF pc[c] = "Wait"
         THEN Finish(c)
         ELSE UNCHANGED <<pc, held, rate, off, sent, late, token, rval>>
    /\ UNCHANGED <<now, lastGrant, nextTok, req, wr, counter, writes, maxTok>>

\* The critical section, 1: read the counter (atomically at the resource).
Read(c) ==
    /\ pc[c] = "Read"
    /\ held[c]
    /\ IF Admits(token[c])
         THEN /\ rval' = [rval EXCEPT ![c] = counter]
              /\ maxTok' = Raised(token[c])
              /\ pc' = [pc EXCEPT ![c] = "Think"]
              /\ UNCHANGED <<held, rate, off, sent, late, token>>
         ELSE \* Refused: a newer token has been seen; abandon the section.
              /\ Finish(c)
              /\ UNCHANGED maxTok
    /\ UNCHANGED <<now, lastGrant, nextTok, req, resp, wr, counter, writes>>

\* The critical section, 2: after thinking (any time), check the belief
\* and send read + 1.  From here the write is out of the client's hands
\* (it lands within P + D, see Tick).  The client is then done with the
\* lock and stops believing -- where a release would go; a client that
\* never gets here believes until its validity timer is handled, which is
\* the longest belief there is.
Check(c) ==
    /\ pc[c] = "Think"
    /\ held[c]
    /\ wr' = [wr EXCEPT ![c] = [v |-> rval[c] + 1, t |-> token[c], a |-> 0]]
    /\ Finish(c)
    /\ UNCHANGED <<now, lastGrant, nextTok, req, resp, counter, writes, maxTok>>

\* The validity timer is handled: the belief ends, and so does whatever the
\* client was doing (waiting for the grant, or a section not yet sent).
Expire(c) ==
    /\ Due(c)
    /\ Finish(c)
    /\ UNCHANGED <<now, lastGrant, nextTok, req, resp, wr, counter, writes, maxTok>>

\* The write lands at the resource.
Land(c) ==
    /\ InFlight(c)
    /\ wr' = [wr EXCEPT ![c] = NoWrite]
    /\ IF Admits(wr[c].t)
         THEN /\ counter' = wr[c].v
              /\ writes' = writes + 1
              /\ maxTok' = Raised(wr[c].t)
         ELSE UNCHANGED <<counter, writes, maxTok>>
    /\ UNCHANGED <<now, rate, off, lastGrant, nextTok, req, resp, pc, sent, held, late,
                   token, rval>>

\* Every client is done and every write has landed: the run is over (a
\* stuttering step, so that deadlock checking stays on for everything else).
Terminating ==
    /\ \A c \in Clients : pc[c] = "Done" /\ ~InFlight(c)
    /\ UNCHANGED vars

Next ==
    \/ Tick
    \/ \E n \in Nodes : StepClock(n)
    \/ \E c \in Clients : Serve(c) \/ Acquire(c) \/ Receive(c) \/ Read(c)
                          \/ Check(c) \/ Expire(c) \/ Land(c)
    \/ Terminating

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)

Tokens == 0 .. nextTok

TypeInvariant ==
    /\ now \in Nat
    /\ rate \in [Nodes -> {0} \cup (Q - R .. Q + R)]
    /\ off \in [Nodes -> -J .. J]
    /\ lastGrant \in Int
    /\ nextTok \in Nat \ {0}
    /\ req \in [Clients -> BOOLEAN]
    /\ resp \in [Clients -> [st : {"none", "granted", "refused"}, t : Tokens]]
    /\ pc \in [Clients -> {"Idle", "Wait", "Read", "Think", "Done"}]
    /\ sent \in [Clients -> Int]
    /\ held \in [Clients -> BOOLEAN]
    /\ late \in [Clients -> 0 .. P]
    /\ token \in [Clients -> Tokens]
    /\ rval \in [Clients -> Nat]
    /\ \A c \in Clients : wr[c] = NoWrite \/ wr[c] \in [v : Nat \ {0}, t : Tokens, a : 0 .. P + D]
    /\ counter \in Nat
    /\ writes \in Nat
    /\ maxTok \in Tokens

\* No two distinct clients believe at the same time that they hold the lock.
AtMostOneClientHoldLock ==
    ~\E c1, c2 \in Clients :
        /\ c1 /= c2
        /\ held[c1]
        /\ held[c2]

\* The counter equals the number of writes the resource accepted: no
\* accepted write was computed from a stale read.
NoLostUpdate == counter = writes

\* A witness, expected VIOLATED: it fails only if both clients' sections
\* commit, which shows that a model where the properties hold does hand
\* the lock from one client to the other (it is not safe by starving).
NeverBothCommit == writes < 2

\* Clients are interchangeable; every model checks safety only.
Symmetry == Permutations(Clients)
=============================================================================
