------------------------ MODULE TraceHistoryFencing ------------------------
(***************************************************************************)
(* Trace validation of a recorded history (docs/history.md) against       *)
(* DistLockFencing.tla: TLC searches the UNMODIFIED spec for a behaviour   *)
(* whose resource log (ops) is the history's, operation by operation, in  *)
(* the order the resource decided them (client, read or write, token,     *)
(* accepted, value).  Every other step of the spec (messages, timers,     *)
(* grants, expiries) is hidden: a history shows only what the resource    *)
(* did, so any step may happen between two of its operations.  k counts  *)
(* the history's operations matched; a step that appends to ops must      *)
(* append the next one.                                                    *)
(*                                                                         *)
(* The history comes from a generated module HistoryData (package         *)
(* live/report): HistoryOps, the log, and HistoryClients, the clients'    *)
(* names.  NotExplained is the invariant TLC is asked to check: it is     *)
(* violated exactly when the whole log was matched, so a violation is the *)
(* behaviour that explains the history (ACCEPTED), and a search that ends *)
(* without one proves no behaviour of the spec does (REJECTED).           *)
(***************************************************************************)
EXTENDS DistLockFencing, HistoryData

VARIABLE k   \* how many of HistoryOps the spec's ops has matched

Matches(o, h) ==
    /\ o.op = h.op
    /\ o.id = h.id
    /\ o.token = h.token
    /\ o.ok = h.ok
    /\ o.value = h.value

TraceInit == Init /\ k = 0

TraceNext ==
    /\ Next
    /\ IF Len(ops') > Len(ops)
       THEN /\ k < Len(HistoryOps)
            /\ Matches(ops'[Len(ops')], HistoryOps[k + 1])
            /\ k' = k + 1
       ELSE k' = k

NotExplained == k < Len(HistoryOps)
=============================================================================
