// Package distlockspec is the adapter between fencelab's Go system
// (package impl) and its TLA+ specs DistLock.tla and DistLockFencing.tla
// with their trace specs: the one place that knows the specs' variables,
// constants and labels. Package tlc drives TLC and knows none of them;
// package conform checks Go runs against the specs through this package.
//
// Go → spec: which designs a spec models and with which constants
// (Designs, Spec, SpecConstants, TraceCfg), the abstraction function
// (Abstract: impl.World's state as the spec's variables, in the order
// Vars lists them) and the action mapping (SpecAction, Mappings: which
// spec action, of which process, each impl.World step is; the specs step
// like impl.World, so the mapping is one to one, and DESIGN.md's table
// "Spec actions and the Go steps they stand for" is the same table in
// prose).
//
// Spec → Go: the design a model's constants select (DesignOfConstants,
// DesignOf), whether a counterexample is of a model of a Go configuration
// (CheckShape) and whether a state TLC printed is a Go world's
// (SameState); TLC's counterexamples of the specs as fencelab traces
// (Trace: lanes from pc, messages from network and the queues, expiries
// from distLock, rejections from ops and the tokens, the resource's
// lane); and the check that a manifest's designs are rows of the matrix
// (CheckDesigns; package tlc passes design names on uninterpreted).
package distlockspec
