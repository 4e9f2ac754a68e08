// Package sim is the seeded, timed fault simulator that drives the actors
// of package impl (its untimed sibling is package explore, which
// enumerates impl.World). Both tell what they found as a trace.Trace built
// by trace/steptrace.
//
// # The simulator
//
// A run is single-threaded and deterministic: virtual time, a priority
// queue of events ordered by time and then by insertion (queue.go), and
// the seed as the only source of randomness: the schedule's faults are
// drawn from one stream of it (Generate), and each message's normal
// latency and each retry backoff from counter-based draws keyed by the
// seed, the link or client, and a counter (faults.go, draws), so that a
// small change of schedule does not redraw the whole run. Effects are
// carried out in impl.Effects.CarryOut's order, as in the untimed world. The actors never see
// a clock or a random number: the runtime fires their timers by each
// node's own clock and hands a client its backoff with the rejection.
//
// Faults come from an explicit Schedule (faults.go, where the whole NPC
// fault model lives): latency spikes (N), pauses of any node (P), clock
// rates and clock steps (C). Generate draws a schedule from a seed, swarm
// style — the seed also picks which fault classes are on and how strong
// they may be, within Config's bounds; ReadSchedule reads one from JSON;
// Runner.Shrink reduces a failing one. A seed and the flags, or a schedule
// file and the flags, replay a run byte for byte.
//
// Each run checks impl's invariants after every step that can change what
// they read (Runner.checkFast, equivalent to checking after every step), detects stalls
// (no progress for longer than any fault can explain, no events left, or
// a step budget spent) and records the history that Runner.Check judges
// with Porcupine. Batch runs many seeds across goroutines — one Runner per
// goroutine and design, never shared — and merges the results in seed
// order, so a summary does not depend on the number of workers. Traces
// are built only for the runs a person reads (Runner.Record, NewReplay).
//
// Wall-clock figures (runs/s, events/s, simulated-time speedup) differ
// from run to run of the same command, so Summary.WriteSpeed is meant for
// stderr: fencelab sim keeps stdout byte-identical for the same flags.
package sim
