// Package impl is fencelab's reference implementation of a lease-based lock:
// a lock service, its clients and a shared resource (a counter guarded by
// fencing tokens), written as deterministic actors in the style of
// etcd-io/raft.
//
// An actor takes one Input — the runtime starting it, a delivered Message or a
// fired Timer — changes its own state and appends the Effects it wants to an
// Effects buffer: messages to send, timers to set or cancel, and Events that
// tell the runtime what happened (a grant, an expiry, a fenced write...). An
// actor never reads a clock, sleeps, starts a goroutine or draws a random
// number; the one choice a client needs (how long to back off after a
// rejection) comes in with the Input. Time enters only through timers, whose
// durations the untimed explorer ignores and the simulator honours by each
// node's own drifting clock.
//
// The rules live one per file: the lock rules in service.go, the client's
// protocol in client.go, the fencing check in resource.go, and the
// properties in invariants.go, over the global System.
package impl
