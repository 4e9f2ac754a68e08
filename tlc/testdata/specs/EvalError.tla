---- MODULE EvalError ----
EXTENDS Naturals, Sequences
VARIABLE s, i
Init == s = <<10, 20>> /\ i = 1
Next == /\ i' = i + 1
        /\ s' = <<s[i + 1], 0>>
====
