----------------------------- MODULE DistLockCrash -----------------------------
(***************************************************************************)
(* A holder's death in DistLockFencing.tla: LockFreedAfterHolderDeath, the *)
(* liveness column the live harness measures under its holder-death fault  *)
(* (fencelab-live --fault holder-death: SIGKILL of the holder, no release  *)
(* sent).                                                                  *)
(*                                                                         *)
(* TLA+ states a crash as the absence of fairness: the victim client may   *)
(* stop taking steps for ever, at any point, the lock in its hands; the    *)
(* service, the resource and the other clients keep the weak fairness of  *)
(* Spec.  A lock the victim holds must then be taken from it: by its own   *)
(* release if it lives, by the service's lease timer if it died.  The      *)
(* property rests on that timer alone: with Timeouts = FALSE the lease     *)
(* never expires and a dead holder keeps the lock for ever (violated: the  *)
(* lock that never frees of Hazelcast #14961 or etcd #17470).              *)
(*                                                                         *)
(* The untimed spec says "eventually"; the bound (TTL + ε, the session     *)
(* timeout + ε, ε at a connection's close) is the live harness's figure.   *)
(***************************************************************************)
EXTENDS DistLockFencing

\* The client that may die: any one will do, the clients being alike.
Victim == CHOOSE c \in Clients : TRUE

CrashSpec == /\ Init /\ [][Next]_vars
             /\ \A c \in Clients \ {Victim} : WF_vars(client(c))
             /\ WF_vars(service)
             /\ WF_vars(resource)

LockFreedAfterHolderDeath ==
    (distLock.status = "Acquired" /\ distLock.id = Victim) ~> (distLock.id /= Victim)
=============================================================================
