---- MODULE TwoViolations ----
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x < 5 /\ x' = x + 1
Inv == x /= 2 /\ x /= 4
====
