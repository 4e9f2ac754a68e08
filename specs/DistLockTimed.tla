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
(* Renewal (design `renewal', Renewals > 0), as Go renews under the send   *)
(* rule.  While its window is open, a client may send a renewal naming its *)
(* lease and note its clock (`rsent'), one at a time and at most Renewals  *)
(* times a section.  The service handles it at any later moment: if the   *)
(* lease it names is the current one and unexpired (the service's clock   *)
(* has advanced less than TTL since the last grant or renewal) it restarts *)
(* the lease from then -- lastGrant becomes its clock, so the lock-delay   *)
(* too counts from the renewal -- and grants; otherwise it refuses.  The   *)
(* client takes the answer in the same step.  Granted while the renewal's  *)
(* own window is open: the client's window is now the renewal's, from its *)
(* send (`sent').  Granted after that: nothing changes.  Refused: the      *)
(* belief ends, and with it the section (a client that does not believe    *)
(* does not write).  A client that is done ignores the answer; the lease   *)
(* is restarted all the same.  Why this is sound for safety:               *)
(*   - Go renews TTL/3 of its clock after a grant or a granted renewal.    *)
(*     Here a client may renew at ANY moment its window is open, and after *)
(*     a grant that extended nothing (Go stops renewing then): more        *)
(*     behaviours than Go's.  Not with its window ended and its timer not  *)
(*     yet handled (a pause): Go may send that renewal, but it handles the *)
(*     overdue timer before the answer can come, so the renewal extends    *)
(*     nothing; it only restarts the lease, which postpones the next       *)
(*     grant.  Leaving it out loses no violation.                          *)
(*   - The renewal may be handled late by any amount, like the acquire,    *)
(*     and for the same reason: the window counts from the renewal's send, *)
(*     no later than the service's restart, so to the derivation a granted *)
(*     renewal is an acquire sent at its send and granted when handled.    *)
(*     The answer is taken at once: a later answer would only keep the     *)
(*     client on its older window, which ends first, so it loses no        *)
(*     violation either.                                                   *)
(*   - Go renews up to 255 times a section, the models at most Renewals    *)
(*     (1): by the point above a further renewal tells the first's story   *)
(*     again from a later send, with the same bounds.                      *)
(*   - MaxStart must now reach the earliest grant after the LATEST         *)
(*     renewal, handled at once: its window is open only until the tick    *)
(*     ceil((TTL - M + J)/(Q - R)) - 1, and the next grant comes           *)
(*     ceil((TTL + L - J)/(Q + R)) ticks after it at the earliest.  A      *)
(*     renewal handled later only postpones that grant.                    *)
(* `asked' keeps the acquire's send (the ORIGINAL window's start) and      *)
(* `beyond' records that the first write accepted was sent past that       *)
(* window: the witness that renewal is not vacuous.  With Renewals = 0     *)
(* nothing here is ever enabled and every new variable is constant or      *)
(* equals an old one (asked = sent), so the models without renewal keep    *)
(* their state counts.                                                     *)
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
    Fencing,    \* "off" or "all"
    Renewals    \* renewals a holder may send per section (0: it never renews)

ASSUME /\ Service \notin Clients
       /\ Q \in Nat /\ R \in Nat /\ R < Q
       /\ J \in Nat /\ P \in Nat /\ D \in Nat /\ MaxStart \in Nat
       /\ TTL \in Nat /\ M \in Nat /\ M < TTL /\ L \in Nat
       /\ Fencing \in {"off", "all"}
       /\ Renewals \in Nat

Nodes == Clients \cup {Service}

\* No write in flight.
NoWrite == [v |-> -1, t |-> 0, a |-> 0, x |-> FALSE]

VARIABLES
    now,       \* real time, in ticks
    rate,      \* each node's clock rate, in units per tick (0: not chosen yet, or forgotten)
    off,       \* each node's clock step so far (0 until it is stepped)
    lastGrant, \* the service's clock at its last grant (0 before the first)
    nextTok,   \* the token of the next grant (1: nothing granted yet)
    req,       \* whether each client's acquire is in flight
    resp,      \* the answer in flight to each client: "none", or a grant or refusal with its token
    pc,        \* each client's place: Idle, Wait, Read, Think, Done
    sent,      \* each client's clock when its window started: its acquire's send, or a granted renewal's
    held,      \* whether each client believes it holds the lock
    late,      \* ticks each client's validity timer has been due but not handled
    token,     \* each client's token (0: none)
    rval,      \* what each client read
    wr,        \* each client's write in flight: value v, token t, age a in ticks, x sent past its original window (NoWrite: none)
    counter,   \* the shared resource
    writes,    \* how many writes the resource accepted
    maxTok,    \* the highest token the resource has seen
    \* Renewal (Renewals > 0; with Renewals = 0 each stays as Init sets it,
    \* but asked, which equals sent).
    renewals,  \* renewals each client sent in its section
    rsent,     \* each client's clock when it sent its renewal in flight (0: none)
    rreq,      \* the lease (token) each client's renewal in flight names (0: none)
    asked,     \* each client's clock when it sent its acquire: its original window's start (the witness's)
    beyond     \* the first write accepted was sent past its section's original window (the witness's)

vars == <<now, rate, off, lastGrant, nextTok, req, resp, pc, sent, held, late,
          token, rval, wr, counter, writes, maxTok,
          renewals, rsent, rreq, asked, beyond>>

\* The renewal state a client forgets when it is done (its renewal in
\* flight, rreq, is the network's, not the client's).
clientRenewal == <<renewals, rsent, asked>>

Clock(n) == rate[n] * now + off[n]

\* The lock is free once the service's clock has advanced TTL + L since the
\* last grant: the lease (TTL), then the lock-delay (L).
Free == nextTok = 1 \/ Clock(Service) - lastGrant >= TTL + L

\* A client's validity timer: due once its clock has advanced TTL - M since
\* its window started (its acquire's send, or a granted renewal's), while
\* it waits for the grant or holds the lock.
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
    /\ renewals = [c \in Clients |-> 0]
    /\ rsent = [c \in Clients |-> 0]
    /\ rreq = [c \in Clients |-> 0]
    /\ asked = [c \in Clients |-> 0]
    /\ beyond = FALSE

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
                   rval, counter, writes, maxTok, clientRenewal, rreq, beyond>>

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
                   token, rval, wr, counter, writes, maxTok, clientRenewal, rreq, beyond>>

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
                   writes, maxTok, clientRenewal, rreq, beyond>>

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
           /\ asked' = [asked EXCEPT ![c] = r * now]
    /\ UNCHANGED <<now, off, lastGrant, nextTok, resp, held, late, token, rval,
                   wr, counter, writes, maxTok, renewals, rsent, rreq, beyond>>

\* The client is done: its belief ends, and whatever it knew about its
\* clock and its section is forgotten (nothing depends on it any more, so
\* forgetting it only merges states that behave alike).  A renewal it
\* sent stays in flight: the service may still restart the lease.
Finish(c) ==
    /\ pc' = [pc EXCEPT ![c] = "Done"]
    /\ held' = [held EXCEPT ![c] = FALSE]
    /\ rate' = [rate EXCEPT ![c] = 0]
    /\ off' = [off EXCEPT ![c] = 0]
    /\ sent' = [sent EXCEPT ![c] = 0]
    /\ late' = [late EXCEPT ![c] = 0]
    /\ token' = [token EXCEPT ![c] = 0]
    /\ rval' = [rval EXCEPT ![c] = 0]
    /\ renewals' = [renewals EXCEPT ![c] = 0]
    /\ rsent' = [rsent EXCEPT ![c] = 0]
    /\ asked' = [asked EXCEPT ![c] = 0]

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
              /\ UNCHANGED <<rate, off, sent, late, rval, clientRenewal>>
         ELSE IF pc[c] = "Wait"
         THEN Finish(c)
         ELSE UNCHANGED <<pc, held, rate, off, sent, late, token, rval, clientRenewal>>
    /\ UNCHANGED <<now, lastGrant, nextTok, req, wr, counter, writes, maxTok, rreq, beyond>>

\* The client renews: while it believes and its window is open, with no
\* renewal of its own unanswered, within Renewals a section -- at any
\* such moment (see the header: Go's period of TTL/3 is one of them).  It
\* notes its clock: a granted renewal's window counts from here.
Renew(c) ==
    /\ pc[c] \in {"Read", "Think"}
    /\ held[c]
    /\ ~Due(c)
    /\ renewals[c] < Renewals
    /\ rreq[c] = 0
    /\ renewals' = [renewals EXCEPT ![c] = @ + 1]
    /\ rsent' = [rsent EXCEPT ![c] = Clock(c)]
    /\ rreq' = [rreq EXCEPT ![c] = token[c]]
    /\ UNCHANGED <<now, rate, off, lastGrant, nextTok, req, resp, pc, sent, held, late,
                   token, rval, wr, counter, writes, maxTok, asked, beyond>>

\* The renewal of client c arrives (any time after it was sent) and is
\* handled: granted, and the lease restarted from the service's clock now,
\* only if it names the current lease (the last one granted) and that
\* lease has not expired; refused otherwise -- after an expiry the lease is
\* gone for good, a renewal is never a grant.  The client takes the
\* answer in the same step (see the header: a later answer only keeps it
\* longer on its older window, which ends first).  Granted while the
\* renewal's own window is open: the belief's window is now the
\* renewal's, from its send.  Granted after that: nothing changes (the
\* belief stays on the old window, which ended before).  Refused: the
\* belief ends, and the section with it.  A client that is done
\* ignores the answer.
ServeRenewal(c) ==
    /\ rreq[c] /= 0
    /\ rreq' = [rreq EXCEPT ![c] = 0]
    /\ LET current == rreq[c] = nextTok - 1 /\ Clock(Service) - lastGrant < TTL
       IN /\ lastGrant' = IF current THEN Clock(Service) ELSE lastGrant
          /\ IF pc[c] = "Done"
               THEN UNCHANGED <<pc, held, rate, off, sent, late, token, rval, clientRenewal>>
             ELSE IF ~current
               THEN Finish(c)
             ELSE /\ rsent' = [rsent EXCEPT ![c] = 0]
                  /\ sent' = IF Clock(c) - rsent[c] < TTL - M
                               THEN [sent EXCEPT ![c] = rsent[c]]
                               ELSE sent
                  /\ UNCHANGED <<pc, held, rate, off, late, token, rval, renewals, asked>>
    /\ UNCHANGED <<now, nextTok, req, resp, wr, counter, writes, maxTok, beyond>>

\* The critical section, 1: read the counter (atomically at the resource).
Read(c) ==
    /\ pc[c] = "Read"
    /\ held[c]
    /\ IF Admits(token[c])
         THEN /\ rval' = [rval EXCEPT ![c] = counter]
              /\ maxTok' = Raised(token[c])
              /\ pc' = [pc EXCEPT ![c] = "Think"]
              /\ UNCHANGED <<held, rate, off, sent, late, token, clientRenewal>>
         ELSE \* Refused: a newer token has been seen; abandon the section.
              /\ Finish(c)
              /\ UNCHANGED maxTok
    /\ UNCHANGED <<now, lastGrant, nextTok, req, resp, wr, counter, writes, rreq, beyond>>

\* The critical section, 2: after thinking (any time), check the belief
\* and send read + 1.  From here the write is out of the client's hands
\* (it lands within P + D, see Tick).  The client is then done with the
\* lock and stops believing -- where a release would go; a client that
\* never gets here believes until its validity timer is handled, which is
\* the longest belief there is.  The write notes (x, for the witness)
\* whether it leaves past the section's original window while the current
\* one is open: only a granted renewal makes that possible.
Check(c) ==
    /\ pc[c] = "Think"
    /\ held[c]
    /\ wr' = [wr EXCEPT ![c] = [v |-> rval[c] + 1, t |-> token[c], a |-> 0,
                                x |-> Clock(c) - asked[c] >= TTL - M /\ ~Due(c)]]
    /\ Finish(c)
    /\ UNCHANGED <<now, lastGrant, nextTok, req, resp, counter, writes, maxTok, rreq, beyond>>

\* The validity timer is handled: the belief ends, and so does whatever the
\* client was doing (waiting for the grant, or a section not yet sent).
Expire(c) ==
    /\ Due(c)
    /\ Finish(c)
    /\ UNCHANGED <<now, lastGrant, nextTok, req, resp, wr, counter, writes, maxTok, rreq, beyond>>

\* The write lands at the resource.
Land(c) ==
    /\ InFlight(c)
    /\ wr' = [wr EXCEPT ![c] = NoWrite]
    /\ IF Admits(wr[c].t)
         THEN /\ counter' = wr[c].v
              /\ writes' = writes + 1
              /\ maxTok' = Raised(wr[c].t)
              /\ beyond' = (beyond \/ (writes = 0 /\ wr[c].x))
         ELSE UNCHANGED <<counter, writes, maxTok, beyond>>
    /\ UNCHANGED <<now, rate, off, lastGrant, nextTok, req, resp, pc, sent, held, late,
                   token, rval, clientRenewal, rreq>>

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
                          \/ Renew(c) \/ ServeRenewal(c)
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
    /\ \A c \in Clients : wr[c] = NoWrite \/ wr[c] \in [v : Nat \ {0}, t : Tokens, a : 0 .. P + D, x : BOOLEAN]
    /\ counter \in Nat
    /\ writes \in Nat
    /\ maxTok \in Tokens
    /\ renewals \in [Clients -> 0 .. Renewals]
    /\ rsent \in [Clients -> Int]
    /\ rreq \in [Clients -> Tokens]
    /\ asked \in [Clients -> Int]
    /\ beyond \in BOOLEAN

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

\* A witness of renewal, expected VIOLATED: it fails only if the first
\* write accepted was sent past its section's original validity window
\* (only a granted renewal lets a client believe, and write, then) and
\* the other client's section commits after it: the renewed lease ends
\* and the lock is handed on, so a renewing model where the properties
\* hold does renew, and hand over a renewed lease.
NeverBothCommitPastWindow == ~(beyond /\ writes = 2)

\* Clients are interchangeable; every model checks safety only.
Symmetry == Permutations(Clients)

\* The witnesses' search (CONSTRAINT): a witness's trace need only exist,
\* and one found among some of a model's behaviours is one of the
\* model's, so the witnesses look among perfect clocks only -- rate Q,
\* never stepped -- and find both sections committing among a few thousand
\* states instead of a quarter of a million.  A model that checks a
\* property never narrows its search.
PerfectClocks == \A n \in Nodes : rate[n] \in {0, Q} /\ off[n] = 0
=============================================================================
