// Package store holds the shared resources the lock protects: fencelab's
// own fenced register served over TCP (the impl.Resource actor, with every
// fencing mode of the design rows), and the real stores' recipes (an etcd
// Txn guarded on the token, MariaDB's conditional UPDATE).
package store

import "context"

// Store is one client's connection to the shared counter.
type Store interface {
	// Read returns the counter; ok is false when fencing refused the
	// operation (token is the client's fencing token, 0 for none).
	Read(ctx context.Context, token uint64) (value int64, ok bool, err error)
	// Write sets the counter; ok is false when fencing refused it.
	Write(ctx context.Context, token uint64, value int64) (ok bool, err error)
	// Close ends the connection.
	Close() error
}
