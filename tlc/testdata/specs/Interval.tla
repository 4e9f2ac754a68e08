---- MODULE Interval ----
EXTENDS Integers, Sequences
VARIABLES r, n, str, f, set, rec
Init == /\ r = 1..3
        /\ n = -2
        /\ str = "a\"b\\c"
        /\ f = [k \in 1..2 |-> k * 10]
        /\ set = {"x", "y"}
        /\ rec = [a |-> 1..0, b |-> <<-1, "q">>]
Next == /\ n' = n + 1
        /\ r' = 1..(n + 5)
        /\ UNCHANGED <<str, f, set, rec>>
Inv == n < 1
====
