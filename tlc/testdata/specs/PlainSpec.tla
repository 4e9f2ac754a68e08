---- MODULE PlainSpec ----
EXTENDS Naturals
VARIABLES a, b
Init == a = 0 /\ b = 0
IncA == a < 2 /\ a' = a + 1 /\ b' = b
IncB == b < 2 /\ b' = b + 1 /\ a' = a
Next == IncA \/ IncB
Inv == ~(a = 2 /\ b = 1)
====
