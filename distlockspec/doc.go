// Package distlockspec is the adapter between fencelab's Go system
// (package impl) and its TLA+ specs, DistLock.tla, DistLockFencing.tla and
// their trace specs: the one place that knows the specs' variables,
// constants and labels.
//
// It reads TLC's counterexamples of those specs (parsed by package tlc)
// as fencelab traces (Trace): lanes from pc, messages from network and the
// queues, expiries from distLock, rejections from ops, tokens and the
// resource's lane. It checks that a manifest's designs are rows of the
// matrix (CheckDesigns; package tlc passes them on uninterpreted).
package distlockspec
