-------------------------- MODULE TraceDistLock --------------------------
(***************************************************************************)
(* Trace validation of DistLock.tla (Go -> TLA+): TLC accepts a trace of a *)
(* Go run iff some behaviour of the UNMODIFIED spec produces it.  The spec *)
(* steps like impl.World (one spec step is one node handling one input),   *)
(* so each line of a trace names the spec action it must be (label and     *)
(* process: package conform's SpecAction) and the spec state after it (the *)
(* abstraction of the Go state, conform.Abstract), as a tuple in the order *)
(* of the translation's vars.                                              *)
(*                                                                         *)
(* The traces come from a generated module TraceData (package conform):    *)
(* Traces is a sequence of traces, TraceClients the clients' names.  TLC   *)
(* checks all of them in one run (tr is chosen in the initial state); a    *)
(* trace is accepted only when its last line is matched, which prints      *)
(* <<"fencelab-accepted", tr>>.  A trace that no spec step can continue    *)
(* simply ends there, unprinted: REJECTED, never accepted by default.      *)
(* Verbose also prints every matched line, to find the first unmatched Go  *)
(* step.                                                                   *)
(*                                                                         *)
(* Standard practice: etcd-io/raft's tla/Traceetcdraft.tla; Kuppe et al.,  *)
(* "Validating traces of distributed programs against TLA+                 *)
(* specifications".                                                        *)
(***************************************************************************)
EXTENDS DistLock, TraceData

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
      [] line.label = "Renew"        -> Renew(line.proc)
      [] line.label = "Renewed"      -> Renewed(line.proc)
      [] line.label = "Serve"        -> Serve
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
