---- MODULE Wrapper ----
EXTENDS Naturals
VARIABLES inside, pc
M == INSTANCE IntProcs
Init == M!Init
Next == M!Next
Spec == Init /\ [][Next]_<<inside, pc>>
Mutex == M!Mutex
====
