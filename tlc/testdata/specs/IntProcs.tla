---- MODULE IntProcs ----
EXTENDS Naturals
(* --algorithm IntProcs
variables inside = 0;
process P \in 1..2
begin
  Enter: inside := inside + 1;
  Leave: inside := inside - 1;
end process;
end algorithm; *)
\* BEGIN TRANSLATION
VARIABLES inside, pc

vars == << inside, pc >>

ProcSet == (1..2)

Init == (* Global variables *)
        /\ inside = 0
        /\ pc = [self \in ProcSet |-> "Enter"]

Enter(self) == /\ pc[self] = "Enter"
               /\ inside' = inside + 1
               /\ pc' = [pc EXCEPT ![self] = "Leave"]

Leave(self) == /\ pc[self] = "Leave"
               /\ inside' = inside - 1
               /\ pc' = [pc EXCEPT ![self] = "Done"]

P(self) == Enter(self) \/ Leave(self)

(* Allow infinite stuttering to prevent deadlock on termination. *)
Terminating == /\ \A self \in ProcSet: pc[self] = "Done"
               /\ UNCHANGED vars

Next == (\E self \in 1..2: P(self))
           \/ Terminating

Spec == Init /\ [][Next]_vars

Termination == <>(\A self \in ProcSet: pc[self] = "Done")

\* END TRANSLATION
Mutex == inside <= 1
====
