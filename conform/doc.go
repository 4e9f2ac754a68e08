// Package conform checks Go runs against the TLA+ specs (trace
// validation, Go → TLA+): a run of impl.World — a seeded random walk, an
// explorer counterexample, a simulator run — is recorded as the sequence
// of its steps, each with the spec action it maps to and the spec state
// after it, and TLC accepts the trace if and only if some behaviour of
// the spec produces it (specs/TraceDistLock.tla, specs/TraceDistLockFencing.tla).
//
// It also replays TLC's counterexamples in Go (TLA+ → Go: Replay,
// ReplayModel). Both directions rest on package distlockspec, the one
// place that knows the specs' variables: its abstraction function
// (distlockspec.Abstract) and action mapping (distlockspec.SpecAction).
//
// Traces become a generated TLA+ module (TLC 1.7.4 has no Json module),
// many traces per module and per TLC run (Validate), so that the JVM
// starts once for hundreds of traces.
package conform
