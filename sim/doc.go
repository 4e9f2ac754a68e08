// Package sim holds the runtimes that drive the actors of package impl: the
// exhaustive explorer (sim/explore) and the seeded, timed fault simulator.
// Both tell what they found as a trace.Trace built by sim/steptrace.
package sim
