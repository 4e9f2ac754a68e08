------------------------- MODULE TraceDistLockRedlock -------------------------
(***************************************************************************)
(* Trace validation of DistLockRedlock.tla (Go -> TLA+), as                *)
(* TraceDistLockFencing.tla for DistLockFencing.tla: TLC accepts a trace   *)
(* of a Go run of a Redlock row iff some behaviour of the UNMODIFIED spec  *)
(* produces it.  Each line names the spec action it must be (label and    *)
(* process: package distlockspec's SpecAction; a lock node's step is       *)
(* Serve of that node, n1, n2, ...) and the spec state after it (the       *)
(* abstraction of the Go state, distlockspec.Abstract), as a tuple in the  *)
(* order of the translation's vars.                                        *)
(*                                                                         *)
(* The traces come from a generated module TraceData (package conform):    *)
(* Traces, TraceClients and TraceLockNodes, the lock nodes' names.  A      *)
(* trace is accepted only when its last line is matched, which prints     *)
(* <<"fencelab-accepted", tr>>; a trace no spec step can continue ends     *)
(* there, unprinted: REJECTED.                                             *)
(***************************************************************************)
EXTENDS DistLockRedlock, TraceData

CONSTANT Verbose   \* TRUE: print <<"fencelab-matched", tr, line>> for every line matched

VARIABLES tr, ln   \* the trace, and its line the state matches

\* The spec action a line names.
Step(line) ==
    CASE line.label = "Acquire"      -> Acquire(line.proc)
      [] line.label = "Receive"      -> Receive(line.proc)
      [] line.label = "Backoff"      -> Backoff(line.proc)
      [] line.label = "ReadCounter"  -> ReadCounter(line.proc)
      [] line.label = "WriteCounter" -> WriteCounter(line.proc)
      [] line.label = "Release"      -> Release(line.proc)
      [] line.label = "Serve"        -> Serve(line.proc)
      [] line.label = "Access"       -> Access
      [] OTHER                       -> FALSE

\* Printed once a trace's last line is matched: the trace is accepted.
Accept(t, l) == l = Len(Traces[t]) => PrintT(<<"fencelab-accepted", t>>)

TraceInit ==
    /\ tr \in DOMAIN Traces
    /\ ln = 1
    /\ Init
    /\ vars = Traces[tr][1].state
    /\ Verbose => PrintT(<<"fencelab-matched", tr, 1>>)
    /\ Accept(tr, 1)

TraceNext ==
    /\ ln < Len(Traces[tr])
    /\ ln' = ln + 1
    /\ tr' = tr
    /\ Step(Traces[tr][ln + 1])
    /\ vars' = Traces[tr][ln + 1].state
    /\ Verbose => PrintT(<<"fencelab-matched", tr, ln + 1>>)
    /\ Accept(tr, ln + 1)
=============================================================================
