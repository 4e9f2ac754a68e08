// Package server starts and controls real lock services — etcd, Redis,
// ZooKeeper, MariaDB — as child processes of fencelab, each on 127.0.0.1 on
// a free port with a data folder of its own, so that a fault can pause
// (SIGSTOP), kill and restart the very process that serves the lock.
package server

import "context"

// Runner is a Server of its own process, which can exit by itself (an
// in-process server, such as the example lock's, cannot).
type Runner interface {
	Running() bool
}

// Server is one running instance of a real service.
//
// Every Server is started by this package on 127.0.0.1 and owns a data
// folder it created; Stop removes it. Nothing here ever signals a process
// it did not start.
type Server interface {
	// Name is the instance's name in histories and fault logs
	// ("redis-1", "etcd").
	Name() string
	// Addr is host:port for clients (always 127.0.0.1).
	Addr() string
	// Version names the server and its version as the server reports it
	// ("redis-server 7.0.15").
	Version() string
	// Pids are the processes a server pause stops (SIGSTOP) and resumes
	// (SIGCONT); empty while the server is killed.
	Pids() []int
	// Kill ends the server at once (SIGKILL) and waits for it; its data
	// folder stays, so Restart can find what it persisted.
	Kill() error
	// Restart starts a killed server again on the same port; wipe drops
	// its data folder's contents first (a restart without persistence).
	Restart(ctx context.Context, wipe bool) error
	// Stop ends the server if it runs and removes its data folder. It is
	// idempotent and safe on every path (deferred, on a signal).
	Stop() error
}
